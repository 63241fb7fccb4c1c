package io.elect.tsue.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.elect.coding.ErasureCoder;
import io.elect.tsue.engine.Cluster;
import io.elect.tsue.engine.Engines;
import io.elect.tsue.engine.TsueConfig;
import io.elect.tsue.engine.UpdateEngine;
import io.elect.tsue.fs.IoStats;
import io.elect.tsue.fs.LocalFileLayer;
import io.elect.tsue.trace.TraceOp;

/**
 * One row of the benchmark: one configuration replays the trace on the volume with {@code threads} closed-loop
 * clients, from the first request until the trace ends or {@code maxSeconds} pass, then drains every log. Update
 * latency is per trace request (a request that crosses chunks is several engine updates, timed together).
 * Storage and network counters cover the replay and the drain.
 */
final class RowRun
{
    private RowRun()
    {
    }

    static Map<String, Object> run(Row row, TsueConfig base, Volume vol, ErasureCoder coder, List<TraceOp> trace,
                                   int threads, double maxSeconds, int rep, String traceName) throws Exception
    {
        TsueConfig cfg = row.configure(base);
        vol.clean();
        List<LocalFileLayer> files = vol.layers();
        Cluster cluster = new Cluster(cfg, coder, files);
        long[] lat = new long[trace.size()];
        AtomicInteger next = new AtomicInteger();
        AtomicLong updates = new AtomicLong(), bytes = new AtomicLong();
        SystemMeter meter = new SystemMeter(vol.dir);
        double seconds, drainS;
        double[] util;
        Map<String, Object> metrics;
        long peak;
        boolean consistent = true;
        try (UpdateEngine engine = Engines.create(cluster))
        {
            ReplicatedLog log = row.policy() == null ? new ReplicatedLog(cluster) : null;
            cluster.resetCounters();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> fs = new ArrayList<>();
            long deadline = System.nanoTime() + (long) (maxSeconds * 1e9);
            meter.start();
            long start = System.nanoTime();
            for (int t = 0; t < threads; t++)
            {
                int thread = t;
                fs.add(pool.submit(() -> {
                    byte[] payload = new byte[256 << 10];
                    Volume.fill(new SplittableRandom(thread), payload);
                    for (int i; System.nanoTime() < deadline && (i = next.getAndIncrement()) < trace.size(); )
                        replay(engine, log, cfg, trace.get(i), payload, lat, i, updates, bytes);
                    return null;
                }));
            }
            for (Future<?> f : fs)
                f.get();
            seconds = (System.nanoTime() - start) / 1e9;
            util = meter.stop();
            pool.shutdown();
            long d0 = System.nanoTime();
            engine.drain();
            drainS = (System.nanoTime() - d0) / 1e9;
            peak = engine.peakLogMemoryBytes();
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
        long[] w = Arrays.stream(lat).filter(x -> x > 0).toArray();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("policy", row.name());
        r.put("ablation", row.ablation());
        r.put("trace", traceName);
        r.put("direct_io", vol.direct);
        r.put("k", cfg.k);
        r.put("m", cfg.m);
        r.put("rep", rep);
        r.put("ops", updates.get());
        r.put("updates", updates.get());
        r.put("update_bytes", bytes.get());
        r.put("seconds", round(seconds));
        r.put("read_write_ops", io.ops());
        r.put("reads", io.reads.sum());
        r.put("writes", io.writes.sum());
        r.put("read_write_bytes", io.bytes());
        r.put("read_bytes", io.readBytes.sum());
        r.put("write_bytes", io.writeBytes.sum());
        r.put("overwrites", io.overwrites.sum());
        r.put("overwrite_bytes", io.overwriteBytes.sum());
        r.put("syncs", io.syncs.sum());
        r.put("network_bytes", cluster.transport().networkBytes());
        r.put("updates_per_s", round(updates.get() / seconds));
        r.put("p50_us", round(DeviceProbe.pct(w, 0.50)));
        r.put("p99_us", round(DeviceProbe.pct(w, 0.99)));
        r.put("p999_us", round(DeviceProbe.pct(w, 0.999)));
        r.put("log_mem_bytes", peak);
        r.put("drain_s", round(drainS));
        r.put("cpu_util", round(util[0]));
        r.put("device_util", round(util[1]));
        r.put("metrics", metrics.isEmpty() ? null : metrics);
        return r;
    }

    private static double round(double v)
    {
        return Math.round(v * 1000) / 1000.0;
    }

    /** Maps a volume request onto (stripe, chunk, offset) pieces; writes are timed. */
    private static void replay(UpdateEngine e, ReplicatedLog log, TsueConfig cfg, TraceOp op, byte[] payload,
                               long[] lat, int i, AtomicLong updates, AtomicLong bytes) throws IOException
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
                e.read(stripe, chunk, off, n);
            }
            pos += n;
        }
        if (op.write())
        {
            lat[i] = System.nanoTime() - t0;
            updates.incrementAndGet();
            bytes.addAndGet(op.length());
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
        if (v instanceof Double d)
            return d.isNaN() || d.isInfinite() ? "null" : String.format(Locale.ROOT, "%s", d);
        return v.toString();
    }
}
