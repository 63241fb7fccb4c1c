package io.elect.tsue.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Measures what limits a benchmark row: the JVM's CPU time against the cores available (CPU saturation), and the
 * block device's busy time ({@code /proc/diskstats} io_ticks of the device holding the data: device saturation).
 * Both are whole-machine views: other work on a shared machine shows up in the device's busy time.
 */
final class SystemMeter
{
    private final String device;
    private long cpu0, busy0, wall0;

    /** @param dataDir a directory on the measured device; its device is looked up in /proc/self/mountinfo */
    SystemMeter(Path dataDir)
    {
        device = deviceOf(dataDir);
    }

    void start()
    {
        cpu0 = cpuNanos();
        busy0 = busyMillis();
        wall0 = System.nanoTime();
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
