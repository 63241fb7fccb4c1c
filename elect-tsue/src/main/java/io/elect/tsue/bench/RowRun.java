package io.elect.tsue.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import io.elect.coding.ErasureCoder;
import io.elect.tsue.engine.Cluster;
import io.elect.tsue.engine.Engines;
import io.elect.tsue.engine.TsueConfig;
import io.elect.tsue.engine.UpdateEngine;
import io.elect.tsue.fs.IoStats;
import io.elect.tsue.fs.LocalFileLayer;
import io.elect.tsue.trace.TraceOp;

/**
 * One row of the benchmark: one configuration replays the trace on the volume from its first request, in a
 * throughput phase and a latency phase (see {@link #run}), then drains every log. Update latency is per trace
 * request (a request that crosses chunks is several engine updates, timed together). Storage and network counters
 * cover both phases and the drain.
 */
final class RowRun
{
    private RowRun()
    {
    }

    /** What one phase of a row measured. */
    private record Phase(long updates, double seconds, long[] latencies, double[] util, Map<String, double[]> threadCpu)
    {
    }

    /**
     * Runs one row: a throughput phase ({@code threads} closed-loop clients for up to {@code seconds}), then a
     * latency phase (one client, continuing the trace, for up to {@code latencySeconds}: response times at queue
     * depth 1 while the policy's background work goes on, as the DRC-DPU paper measures them), then a drain.
     */
    static Map<String, Object> run(Row row, TsueConfig base, Volume vol, ErasureCoder coder, List<TraceOp> trace,
                                   int threads, double seconds, double latencySeconds, int rep, String traceName)
        throws Exception
    {
        TsueConfig cfg = row.configure(base);
        vol.clean();
        List<LocalFileLayer> files = vol.layers();
        Cluster cluster = new Cluster(cfg, coder, files);
        AtomicInteger next = new AtomicInteger();
        Counters c = new Counters();
        SystemMeter meter = new SystemMeter(vol.dir);
        Phase load, qd1;
        double drainS;
        double[] util;
        Map<String, double[]> threadCpu;
        long[] memory;
        Map<String, Object> metrics;
        boolean consistent = true;
        try (UpdateEngine engine = Engines.create(cluster))
        {
            ReplicatedLog log = row.policy() == null ? new ReplicatedLog(cluster) : null;
            cluster.resetCounters();
            MemorySampler sampler = new MemorySampler(engine);
            meter.start();
            load = phase(engine, log, cfg, trace, next, threads, seconds, c, meter);
            util = load.util();
            threadCpu = load.threadCpu();
            qd1 = phase(engine, log, cfg, trace, next, 1, latencySeconds, c, null);
            memory = sampler.stop();
            long d0 = System.nanoTime();
            engine.drain();
            drainS = (System.nanoTime() - d0) / 1e9;
            metrics = engine.metrics();
            if (log != null)
                log.close();
            else
                for (long s : new long[]{ 0, vol.stripes / 2, vol.stripes - 1 })
                    consistent &= engine.parityConsistent(s);
        }
        finally
        {
            for (LocalFileLayer f : files)
                f.close();
        }
        if (!consistent)
            throw new IllegalStateException(row.name() + ": parity inconsistent after drain");
        IoStats io = cluster.ioTotals();
        long updates = load.updates() + qd1.updates();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("policy", row.name());
        r.put("ablation", row.ablation());
        r.put("trace", traceName);
        r.put("direct_io", vol.direct);
        r.put("k", cfg.k);
        r.put("m", cfg.m);
        r.put("rep", rep);
        r.put("ops", updates);
        r.put("updates", updates);
        r.put("update_bytes", c.updateBytes.get());
        r.put("seconds", round(load.seconds() + qd1.seconds()));
        r.put("read_write_ops", io.ops());
        r.put("update_ops", io.ops() - c.clientReads.get());
        r.put("client_read_ops", c.clientReads.get());
        r.put("client_read_bytes", c.clientReadBytes.get());
        r.put("reads", io.reads.sum());
        r.put("writes", io.writes.sum());
        r.put("read_write_bytes", io.bytes());
        r.put("read_bytes", io.readBytes.sum());
        r.put("write_bytes", io.writeBytes.sum());
        r.put("overwrites", io.overwrites.sum());
        r.put("overwrite_bytes", io.overwriteBytes.sum());
        r.put("syncs", io.syncs.sum());
        r.put("network_bytes", cluster.transport().networkBytes());
        r.put("updates_per_s", round(load.updates() / load.seconds()));
        r.put("updates_per_s_incl_drain", round(updates / (load.seconds() + qd1.seconds() + drainS)));
        r.put("p50_us", round(DeviceProbe.pct(qd1.latencies(), 0.50)));
        r.put("p99_us", round(DeviceProbe.pct(qd1.latencies(), 0.99)));
        r.put("p999_us", round(DeviceProbe.pct(qd1.latencies(), 0.999)));
        r.put("qd1_updates", qd1.updates());
        r.put("p50_us_loaded", round(DeviceProbe.pct(load.latencies(), 0.50)));
        r.put("p99_us_loaded", round(DeviceProbe.pct(load.latencies(), 0.99)));
        r.put("log_mem_bytes", memory[1]);
        r.put("log_mem_avg_bytes", memory[0]);
        r.put("drain_s", round(drainS));
        r.put("cpu_util", round(util[0]));
        r.put("device_util", round(util[1]));
        Map<String, Object> byGroup = new TreeMap<>();
        for (Map.Entry<String, double[]> e : threadCpu.entrySet())
            byGroup.put(e.getKey(), new double[]{ round(e.getValue()[0]), round(e.getValue()[1]) });
        r.put("cpu_by_threads", byGroup);   // throughput phase: {group: [user, system]} as fractions of all cores
        Map<String, Object> kinds = new TreeMap<>();
        for (Map.Entry<String, LongAdder[]> e : io.byKind.entrySet())
            kinds.put(e.getKey(), Arrays.stream(e.getValue()).mapToLong(LongAdder::sum).toArray());
        r.put("io_by_kind", kinds);
        r.put("metrics", metrics.isEmpty() ? null : metrics);
        return r;
    }

    /** Counters shared by the client threads of a row. */
    private static final class Counters
    {
        final AtomicLong updateBytes = new AtomicLong(), clientReads = new AtomicLong(),
            clientReadBytes = new AtomicLong();
    }

    private static Phase phase(UpdateEngine engine, ReplicatedLog log, TsueConfig cfg, List<TraceOp> trace,
                               AtomicInteger next, int threads, double seconds, Counters c, SystemMeter meter)
        throws Exception
    {
        long[] lat = new long[trace.size()];
        AtomicLong updates = new AtomicLong();
        AtomicInteger clientIds = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> new Thread(r, "bench-client-" + clientIds.incrementAndGet()));
        List<Future<?>> fs = new ArrayList<>();
        long start = System.nanoTime(), deadline = start + (long) (seconds * 1e9);
        for (int t = 0; t < threads; t++)
        {
            int thread = t;
            fs.add(pool.submit(() -> {
                byte[] payload = new byte[256 << 10];
                Volume.fill(new SplittableRandom(thread), payload);
                for (int i; System.nanoTime() < deadline && (i = next.getAndIncrement()) < trace.size(); )
                    replay(engine, log, cfg, trace.get(i), payload, lat, i, updates, c);
                return null;
            }));
        }
        double[] util = null;
        Map<String, double[]> threadCpu = null;
        try
        {
            for (Future<?> f : fs)
                f.get();
            if (meter != null)
            {
                // before the pool shuts down: its threads must still be alive to be counted
                util = meter.stop();
                threadCpu = meter.threadCpu();
            }
        }
        finally
        {
            pool.shutdown();
        }
        double s = (System.nanoTime() - start) / 1e9;
        return new Phase(updates.get(), s, Arrays.stream(lat).filter(x -> x > 0).toArray(), util, threadCpu);
    }

    /** Samples the engine's log memory every 100 ms: {mean, peak}. */
    private static final class MemorySampler
    {
        private final Thread thread;
        private volatile boolean stop;
        private long sum, n, peak;

        MemorySampler(UpdateEngine engine)
        {
            thread = new Thread(() -> {
                while (!stop)
                {
                    long v = engine.logMemoryBytes();
                    synchronized (this)
                    {
                        sum += v;
                        n++;
                        peak = Math.max(peak, v);
                    }
                    try
                    {
                        Thread.sleep(100);
                    }
                    catch (InterruptedException e)
                    {
                        return;
                    }
                }
            }, "log-memory-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        long[] stop() throws InterruptedException
        {
            stop = true;
            thread.interrupt();
            thread.join();
            synchronized (this)
            {
                return new long[]{ n == 0 ? 0 : sum / n, peak };
            }
        }
    }

    private static double round(double v)
    {
        return Math.round(v * 1000) / 1000.0;
    }

    /** Maps a volume request onto (stripe, chunk, offset) pieces; writes are timed. */
    private static void replay(UpdateEngine e, ReplicatedLog log, TsueConfig cfg, TraceOp op, byte[] payload,
                               long[] lat, int i, AtomicLong updates, Counters c) throws IOException
    {
        long stripeBytes = (long) cfg.k * cfg.chunkSize;
        long t0 = System.nanoTime();
        for (long pos = op.offset(); pos < op.offset() + op.length(); )
        {
            long stripe = pos / stripeBytes;
            int chunk = (int) (pos % stripeBytes / cfg.chunkSize), off = (int) (pos % cfg.chunkSize);
            int n = (int) Math.min(cfg.chunkSize - off, op.offset() + op.length() - pos);
            if (op.write())
            {
                int from = (int) ((pos * 31 + i) & 0xffff);
                byte[] b = Arrays.copyOfRange(payload, from, from + n);
                b[0] ^= (byte) i;
                if (log != null)
                    log.append(stripe, chunk, off, b);
                else
                    e.update(stripe, chunk, off, b);
            }
            else
            {
                e.read(stripe, chunk, off, n);   // one chunk read for every policy: counted, then left out of update_ops
                c.clientReads.incrementAndGet();
                c.clientReadBytes.addAndGet(n);
            }
            pos += n;
        }
        if (op.write())
        {
            lat[i] = System.nanoTime() - t0;
            updates.incrementAndGet();
            c.updateBytes.addAndGet(op.length());
        }
    }

    static String json(Map<String, Object> row)
    {
        StringBuilder b = new StringBuilder("{");
        for (Map.Entry<String, Object> e : row.entrySet())
        {
            if (b.length() > 1)
                b.append(',');
            b.append('"').append(e.getKey()).append("\":").append(value(e.getValue()));
        }
        return b.append('}').toString();
    }

    @SuppressWarnings("unchecked")
    private static String value(Object v)
    {
        if (v == null)
            return "null";
        if (v instanceof String s)
            return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
        if (v instanceof Map<?, ?> m)
            return json((Map<String, Object>) m);
        if (v instanceof long[] a)
            return Arrays.toString(a).replace(" ", "");
        if (v instanceof double[] a)
            return Arrays.toString(a).replace(" ", "");
        if (v instanceof Double d)
            return d.isNaN() || d.isInfinite() ? "null" : String.format(Locale.ROOT, "%s", d);
        return v.toString();
    }
}
