package io.elect.tsue.bench;

import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The per-thread-group CPU split of the benchmark rows: groups by thread name, and a busy thread's CPU lands in its group. */
class SystemMeterTest
{
    @Test
    void threadNamesMapToTheirGroups()
    {
        assertEquals("clients", SystemMeter.group("bench-client-3"));
        assertEquals("io", SystemMeter.group("tsue-io"));
        assertEquals("io", SystemMeter.group("replicated-log"));
        assertEquals("background", SystemMeter.group("tsue-recycle-1"));
        assertEquals("background", SystemMeter.group("tsue-backend"));
        assertEquals("background", SystemMeter.group("tsue-bulk-io"));
        assertEquals("background", SystemMeter.group("dpu-merger"));
        assertEquals("jvm", SystemMeter.group("C2 CompilerThre"));
        assertEquals("jvm", SystemMeter.group("GC Thread#0"));
    }

    @Test
    void aBusyThreadsCpuIsCountedInItsGroupWhileItLives() throws Exception
    {
        SystemMeter meter = new SystemMeter(Path.of("."));
        long before = System.nanoTime();
        meter.start();
        long after = System.nanoTime();
        java.util.concurrent.CountDownLatch spun = new java.util.concurrent.CountDownLatch(1),
            release = new java.util.concurrent.CountDownLatch(1);
        long[] sink = new long[1];
        Thread busy = new Thread(() -> {
            // 300 ms of this thread's own CPU, however loaded the machine is
            java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
            long end = mx.getCurrentThreadCpuTime() + 300_000_000L, x = 0;
            while (mx.getCurrentThreadCpuTime() < end)
                for (int i = 0; i < 10_000; i++)
                    x += Long.numberOfTrailingZeros(x + i);
            sink[0] = x;
            spun.countDown();
            try
            {
                release.await();   // alive while measured: /proc/self/task lists live threads only
            }
            catch (InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }, "tsue-recycle-test");
        busy.start();
        spun.await();
        long t1 = System.nanoTime();
        Map<String, double[]> cpu = meter.threadCpu();
        long t2 = System.nanoTime();
        release.countDown();
        busy.join();
        double[] bg = cpu.getOrDefault("background", new double[2]);
        int cores = Runtime.getRuntime().availableProcessors();
        // shares are of all cores over the meter's wall time, which lies between (t1 - after) and (t2 - before): the
        // CPU seconds they stand for, computed with the longest and the shortest possible wall time
        double share = bg[0] + bg[1];
        double atMost = share * cores * (t2 - before) / 1e9, atLeast = share * cores * (t1 - after) / 1e9;
        assertTrue(atMost >= 0.25, "the 300 ms it spun, less tick granularity: " + atMost + " s");
        assertTrue(atLeast <= (t2 - before) / 1e9 + 0.05, "one thread, at most one core: " + atLeast + " s");
    }
}
