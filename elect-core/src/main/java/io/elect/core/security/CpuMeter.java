package io.elect.core.security;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time of this JVM for {@link TlsCostBench}: the process's total (all threads, GC and JIT included) and each live
 * thread's, so that a phase can be charged in CPU-milliseconds rather than wall time (on a shared 2-core machine
 * wall time mostly measures the neighbours). Threads are grouped by their name with the trailing numbers removed
 * ({@code elect-transport-io}, {@code elect-transport-handler}, {@code main}, ...); a thread that ended between two
 * samples is lost from the groups (not from the process total).
 */
final class CpuMeter
{
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    record Sample(long processNanos, Map<Long, Long> threadNanos, Map<Long, String> names)
    {
    }

    private CpuMeter()
    {
    }

    static Sample sample()
    {
        Map<Long, Long> t = new HashMap<>();
        Map<Long, String> n = new HashMap<>();
        for (ThreadInfo i : THREADS.getThreadInfo(THREADS.getAllThreadIds()))
        {
            if (i == null)
                continue;
            long ns = THREADS.getThreadCpuTime(i.getThreadId());
            if (ns >= 0)
            {
                t.put(i.getThreadId(), ns);
                n.put(i.getThreadId(), i.getThreadName());
            }
        }
        long process = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
        return new Sample(process, t, n);
    }

    /** CPU nanoseconds spent between the samples per thread group; "(other)" is the process total minus the groups. */
    static Map<String, Long> byGroup(Sample a, Sample b)
    {
        Map<String, Long> out = new TreeMap<>();
        long sum = 0;
        for (Map.Entry<Long, Long> e : b.threadNanos().entrySet())
        {
            long d = e.getValue() - a.threadNanos().getOrDefault(e.getKey(), 0L);
            if (d <= 0)
                continue;
            out.merge(group(b.names().get(e.getKey())), d, Long::sum);
            sum += d;
        }
        out.put("(other)", Math.max(0, b.processNanos() - a.processNanos() - sum));
        return out;
    }

    /**
     * CPU nanoseconds of the Java threads alive at {@code b} between the samples: the work itself (transport, handlers,
     * the bench's threads) without JIT compilation and GC, which on short runs are mostly noise.
     */
    static long javaThreads(Sample a, Sample b)
    {
        long sum = 0;
        for (Map.Entry<Long, Long> e : b.threadNanos().entrySet())
            sum += Math.max(0, e.getValue() - a.threadNanos().getOrDefault(e.getKey(), 0L));
        return sum;
    }

    static String group(String threadName)
    {
        return threadName.replaceAll("[-#\\s]*\\d+([-#\\s]+\\d+)*$", "");
    }
}
