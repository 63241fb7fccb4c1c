package io.elect.tsue.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Measures what limits a benchmark row: the JVM's CPU time against the cores available (CPU saturation), and the
 * block device's busy time ({@code /proc/diskstats} io_ticks of the device holding the data: device saturation).
 * Both are whole-machine views: other work on a shared machine shows up in the device's busy time.
 */
final class SystemMeter
{
    /** Thread groups of {@link #threadCpu}: by thread name prefix; the rest of the JVM (JIT, GC, VM) is "jvm". */
    static final String[][] GROUPS = {
        { "clients", "bench-client" },
        { "io", "tsue-io", "replicated-log" },
        { "background", "tsue-recycle", "tsue-backend", "tsue-bulk-io", "dpu-merger" },
    };
    private final String device;
    private long cpu0, busy0, wall0;
    private Map<String, long[]> threads0 = Map.of();

    /** @param dataDir a directory on the measured device; its device is looked up in /proc/self/mountinfo */
    SystemMeter(Path dataDir)
    {
        device = deviceOf(dataDir);
    }

    void start()
    {
        cpu0 = cpuNanos();
        busy0 = busyMillis();
        threads0 = threadTicks();
        wall0 = System.nanoTime();
    }

    /**
     * Per thread group since {@link #start}: {user, system} CPU as fractions of all cores over the wall time
     * (Linux {@code /proc/self/task}; empty elsewhere). Groups: the benchmark's client threads (for TSUE and the
     * yardstick they run one of the two appends), the engines' I/O helper pool (the other append, and parallel
     * chunk and log I/O of the back ends), the background threads (recycling, forwarding, applying, merging), and
     * the rest of the JVM (JIT compilers, GC).
     */
    Map<String, double[]> threadCpu()
    {
        double wall = System.nanoTime() - wall0;
        int cores = Runtime.getRuntime().availableProcessors();
        double tickNanos = 1e9 / 100;   // USER_HZ, 100 on Linux
        Map<String, double[]> out = new TreeMap<>();
        for (Map.Entry<String, long[]> e : threadTicks().entrySet())
        {
            long[] before = threads0.getOrDefault(e.getKey(), new long[]{ 0, 0 });
            String group = group(e.getKey().substring(e.getKey().indexOf(' ') + 1));
            double[] g = out.computeIfAbsent(group, x -> new double[2]);
            for (int i = 0; i < 2; i++)
                g[i] += Math.max(0, e.getValue()[i] - before[i]) * tickNanos / wall / cores;
        }
        return out;
    }

    static String group(String threadName)
    {
        for (String[] g : GROUPS)
            for (int i = 1; i < g.length; i++)
                if (threadName.startsWith(g[i]))
                    return g[0];
        return "jvm";
    }

    /** "tid name" -> {utime, stime} in clock ticks, for every thread of this process. */
    private static Map<String, long[]> threadTicks()
    {
        Map<String, long[]> out = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task")))
        {
            for (Path t : tasks)
            {
                try
                {
                    String stat = Files.readString(t.resolve("stat"));
                    int open = stat.indexOf('('), close = stat.lastIndexOf(')');
                    String[] f = stat.substring(close + 2).split(" ");
                    out.put(t.getFileName() + " " + stat.substring(open + 1, close),
                            new long[]{ Long.parseLong(f[11]), Long.parseLong(f[12]) });
                }
                catch (IOException | RuntimeException e)
                {
                    // the thread ended between the listing and the read
                }
            }
        }
        catch (IOException | RuntimeException e)
        {
            return Map.of();
        }
        return out;
    }

    /** {CPU utilization of the JVM over all cores (0..1), device busy fraction (0..1, -1 if unknown)}. */
    double[] stop()
    {
        double wall = System.nanoTime() - wall0;
        int cores = Runtime.getRuntime().availableProcessors();
        double cpu = (cpuNanos() - cpu0) / wall / cores;
        long busy = busyMillis();
        return new double[]{ cpu, busy < 0 || busy0 < 0 ? -1 : (busy - busy0) * 1e6 / wall };
    }

    String device()
    {
        return device;
    }

    private static long cpuNanos()
    {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime();
    }

    private long busyMillis()
    {
        if (device == null)
            return -1;
        try
        {
            for (String line : Files.readAllLines(Path.of("/proc/diskstats")))
            {
                String[] f = line.trim().split("\\s+");
                if (f.length > 12 && f[2].equals(device))
                    return Long.parseLong(f[12]);
            }
        }
        catch (IOException | NumberFormatException e)
        {
            return -1;
        }
        return -1;
    }

    /** The whole-disk device name (e.g. vda) of the file system holding dir, or null. */
    private static String deviceOf(Path dir)
    {
        try
        {
            Path real = dir.toRealPath();
            String best = null;
            int bestLen = -1;
            for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo")))
            {
                String[] f = line.split(" ");
                int dash = java.util.Arrays.asList(f).indexOf("-");
                if (dash < 0 || dash + 2 >= f.length)
                    continue;
                String mount = f[4], source = f[dash + 2];
                if (real.startsWith(mount) && mount.length() > bestLen && source.startsWith("/dev/"))
                {
                    best = source.substring(5);
                    bestLen = mount.length();
                }
            }
            if (best == null)
                return null;
            // a partition (vda1, nvme0n1p2) is accounted under its disk too; prefer the disk
            Path sys = Path.of("/sys/class/block", best);
            if (Files.exists(sys.resolve("partition")))
                best = sys.toRealPath().getParent().getFileName().toString();
            return best;
        }
        catch (IOException | RuntimeException e)
        {
            return null;
        }
    }
}
