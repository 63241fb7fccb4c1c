package io.elect.tsue.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import io.elect.coding.ErasureCoder;
import io.elect.coding.ErasureCoders;
import io.elect.tsue.engine.Cluster;
import io.elect.tsue.engine.Engines;
import io.elect.tsue.engine.TsueConfig;
import io.elect.tsue.engine.UpdateEngine;
import io.elect.tsue.engine.UpdatePolicy;
import io.elect.tsue.fs.IoStats;
import io.elect.tsue.fs.LocalFileLayer;
import io.elect.tsue.trace.BlockTraceReader;
import io.elect.tsue.trace.CloudTraceGenerator;

import io.elect.tsue.trace.TraceOp;

/**
 * Replays one trace through every policy (and a 2-way replicated log append, the latency yardstick) on real files
 * with fsync, for RS(6,4) and RS(4,2), repetitions interleaved, and prints TSUE's Table I metrics as JSON lines.
 *
 * <p>Usage: {@code TsueBench --dir DIR --out FILE.json [--quick] [--reps N] [--ops N] [--threads N] [--msr FILE.csv]}
 */
public final class TsueBench
{
    static final String REPLICATED = "REPLICATED_LOG_2WAY";

    record Result(String policy, int k, int m, int rep, long ops, long rwOps, long rwBytes, long overwrites,
                  long overwriteBytes, long network, double updatesPerS, double p50, double p99, long logMem,
                  double drainS)
    {
        String json()
        {
            return String.format(Locale.ROOT, "{\"policy\":\"%s\",\"k\":%d,\"m\":%d,\"rep\":%d,\"ops\":%d,"
                                              + "\"read_write_ops\":%d,\"read_write_bytes\":%d,\"overwrites\":%d,"
                                              + "\"overwrite_bytes\":%d,\"network_bytes\":%d,\"updates_per_s\":%.1f,"
                                              + "\"p50_us\":%.1f,\"p99_us\":%.1f,\"log_mem_bytes\":%d,\"drain_s\":%.3f}",
                                 policy, k, m, rep, ops, rwOps, rwBytes, overwrites, overwriteBytes, network,
                                 updatesPerS, p50, p99, logMem, drainS);
        }
    }

    public static void main(String[] args) throws Exception
    {
        Path dir = Path.of("/tmp/tsue-bench"), out = null, msr = null;
        boolean quick = false;
        int reps = 3, ops = 4000, threads = 8;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--dir" -> dir = Path.of(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--quick" -> quick = true;
                case "--reps" -> reps = Integer.parseInt(args[++i]);
                case "--ops" -> ops = Integer.parseInt(args[++i]);
                case "--threads" -> threads = Integer.parseInt(args[++i]);
                case "--msr" -> msr = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument: " + args[i]);
            }
        }
        if (quick)
        {
            reps = Math.min(reps, 2);
            ops = Math.min(ops, 1500);
        }
        List<String> lines = new ArrayList<>();
        for (int[] code : new int[][]{ { 6, 4 }, { 4, 2 } })
        {
            TsueConfig base = TsueConfig.builder().code(code[0], code[1]).chunkSize(1 << 20).pageSize(4096)
                                        .logUnitBytes(4 << 20).logMemoryQuota(64 << 20).recycleThreads(2)
                                        .parityApplyBytes(8 << 20).plrReserveBytes(256 << 10)
                                        .parixApplyBytes(16 << 20).dpuRatio(0.005).build();
            int stripes = quick ? 4 : 8;
            long volume = (long) stripes * base.k * base.chunkSize;
            List<TraceOp> trace = msr != null ? BlockTraceReader.read(BlockTraceReader.Format.MSR, msr, volume, 64 << 10, ops)
                                              : new CloudTraceGenerator(CloudTraceGenerator.Profile.TEN_CLOUD).generate(42, ops, volume);
            List<String> names = new ArrayList<>();
            names.add(REPLICATED);
            for (UpdatePolicy p : UpdatePolicy.values())
                names.add(p.name());
            for (int rep = 0; rep < reps; rep++)
            {
                List<String> order = new ArrayList<>(names);
                Collections.shuffle(order, new Random(rep));
                for (String name : order)
                {
                    Result r = run(name, base, stripes, trace, threads, rep, dir);
                    System.out.println(r.json());
                    lines.add(r.json());
                }
            }
        }
        if (out != null)
            Files.write(out, List.of("[\n" + String.join(",\n", lines) + "\n]"));
    }

    static Result run(String name, TsueConfig base, int stripes, List<TraceOp> trace, int threads, int rep, Path root)
        throws Exception
    {
        boolean replicated = name.equals(REPLICATED);
        TsueConfig cfg = base.toBuilder().policy(replicated ? UpdatePolicy.IN_PLACE : UpdatePolicy.valueOf(name)).build();
        Path dir = root.resolve(name + "-" + cfg.k + "-" + cfg.m + "-" + rep);
        deleteTree(dir);
        List<LocalFileLayer> files = new ArrayList<>();
        for (int n = 0; n < cfg.nodes; n++)
            files.add(new LocalFileLayer(dir.resolve("node-" + n)));
        ErasureCoder coder = ErasureCoders.create(cfg.k, cfg.m);
        Cluster cluster = new Cluster(cfg, coder, files);
        long[] lat = new long[trace.size()];
        AtomicInteger next = new AtomicInteger(), updates = new AtomicInteger();
        double seconds, drainS = 0;
        long peak;
        try (UpdateEngine engine = Engines.create(cluster))
        {
            Random rnd = new Random(7);
            for (int s = 0; s < stripes; s++)
            {
                byte[][] data = new byte[cfg.k][cfg.chunkSize];
                for (byte[] d : data)
                    rnd.nextBytes(d);
                engine.createStripe(s, data);
            }
            cluster.resetCounters();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> fs = new ArrayList<>();
            ReplicatedLog log = replicated ? new ReplicatedLog(cluster) : null;
            long start = System.nanoTime();
            for (int t = 0; t < threads; t++)
                fs.add(pool.submit(() -> {
                    byte[] payload = new byte[64 << 10];
                    new Random(Thread.currentThread().getId()).nextBytes(payload);
                    for (int i; (i = next.getAndIncrement()) < trace.size(); )
                        replay(engine, log, cfg, trace.get(i), payload, lat, i, updates);
                    return null;
                }));
            for (Future<?> f : fs)
                f.get();
            seconds = (System.nanoTime() - start) / 1e9;
            pool.shutdown();
            long d0 = System.nanoTime();
            engine.drain();
            drainS = (System.nanoTime() - d0) / 1e9;
            peak = engine.peakLogMemoryBytes();
            if (log != null)
                log.close();
        }
        IoStats io = cluster.ioTotals();
        long[] w = Arrays.stream(lat).filter(x -> x > 0).sorted().toArray();
        for (LocalFileLayer f : files)
            f.close();
        deleteTree(dir);
        return new Result(name, cfg.k, cfg.m, rep, updates.get(), io.ops(), io.bytes(), io.overwrites.sum(),
                          io.overwriteBytes.sum(), cluster.transport().networkBytes(), updates.get() / seconds,
                          pct(w, 0.50) / 1e3, pct(w, 0.99) / 1e3, peak, drainS);
    }

    /** Maps a volume request onto (stripe, chunk, offset) pieces; writes are timed. */
    private static void replay(UpdateEngine e, ReplicatedLog log, TsueConfig cfg, TraceOp op, byte[] payload,
                               long[] lat, int i, AtomicInteger updates) throws IOException
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
                byte[] b = Arrays.copyOfRange(payload, (int) (pos % 1024), (int) (pos % 1024) + n);
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
        }
    }

    private static double pct(long[] sorted, double q)
    {
        return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) (q * sorted.length))];
    }

    static void deleteTree(Path dir) throws IOException
    {
        if (!Files.exists(dir))
            return;
        try (Stream<Path> s = Files.walk(dir))
        {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList())
                Files.delete(p);
        }
    }
}
