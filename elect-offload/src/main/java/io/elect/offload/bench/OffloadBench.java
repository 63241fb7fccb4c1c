package io.elect.offload.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.elect.offload.ColdStore;
import io.elect.offload.ColdStoreOptions;
import io.elect.offload.FileSystemBlobStore;
import io.elect.offload.FramedColdStore;
import io.elect.offload.s3.S3ColdStore;
import io.elect.offload.s3.S3ColdStoreConfig;
import io.elect.offload.s3.S3Credentials;
import io.elect.offload.s3proxy.S3ProxyHandle;
import io.elect.offload.s3proxy.S3ProxyLauncher;

/**
 * The offload benchmark (scripts/bench offload): put/get throughput of 4 MiB and 64 MiB objects, single
 * stream and parallel, and ranged-read latency of 4 KiB and 64 KiB ranges, against S3Proxy on loopback and
 * the filesystem store, beside a plain local file copy of the same bytes, all in one run. Every repetition
 * runs every case once (interleaved), so the stores see the same machine noise; rows report the median
 * over repetitions and the min-max spread.
 *
 * Usage: OffloadBench --work DIR --json FILE --markdown FILE [--quick] [--reps N] [--command "..."]
 */
public final class OffloadBench
{
    private static final int MIB = 1024 * 1024;
    private static final int PARALLEL = 4;

    private final Path work;
    private final int reps;
    private final int rangedReads;
    private final Random random = new Random(42);
    /** case name -> samples (MB/s for throughput rows, ms per op for latency rows). */
    private final Map<String, Row> rows = new LinkedHashMap<>();
    private long s3proxyPid = -1;
    private boolean warmingUp;
    private String loadBefore = "", loadAfter = "";

    private static final class Row
    {
        final String store, op;
        final long bytes;
        final List<Double> mbps = new ArrayList<>();
        final List<Double> latenciesMs = new ArrayList<>();
        /** CPU milliseconds (this JVM + the S3Proxy JVM for s3proxy rows) per MB moved, per repetition. */
        final List<Double> cpuMsPerMb = new ArrayList<>();

        Row(String store, String op, long bytes)
        {
            this.store = store;
            this.op = op;
            this.bytes = bytes;
        }
    }

    private OffloadBench(Path work, int reps, int rangedReads)
    {
        this.work = work;
        this.reps = reps;
        this.rangedReads = rangedReads;
    }

    private static long cpuMillis(long pid)
    {
        return ProcessHandle.of(pid).flatMap(p -> p.info().totalCpuDuration()).map(java.time.Duration::toMillis).orElse(0L);
    }

    /** CPU time so far of this JVM, plus the S3Proxy JVM's when measuring the s3proxy store. */
    private long cpuNow(String store)
    {
        long cpu = cpuMillis(ProcessHandle.current().pid());
        return store.equals("s3proxy") && s3proxyPid > 0 ? cpu + cpuMillis(s3proxyPid) : cpu;
    }

    private static String loadAverage()
    {
        try
        {
            return Files.readString(Paths.get("/proc/loadavg")).split(" ")[0];
        }
        catch (IOException e)
        {
            return "?";
        }
    }

    private Row row(String store, String op, long bytes)
    {
        return rows.computeIfAbsent(store + "|" + op + "|" + bytes, k -> new Row(store, op, bytes));
    }

    public static void main(String[] args) throws Exception
    {
        System.setProperty("slf4j.internal.verbosity", "ERROR");
        Map<String, String> a = new LinkedHashMap<>();
        boolean quick = false;
        for (int i = 0; i < args.length; i++)
        {
            if (args[i].equals("--quick"))
                quick = true;
            else if (i + 1 < args.length)
                a.put(args[i], args[++i]);
            else
                throw new IllegalArgumentException("option " + args[i] + " needs a value");
        }
        for (String required : List.of("--work", "--json", "--markdown"))
            if (!a.containsKey(required))
                throw new IllegalArgumentException(required + " is required");
        int reps = Integer.parseInt(a.getOrDefault("--reps", quick ? "2" : "3"));
        OffloadBench bench = new OffloadBench(Paths.get(a.get("--work")), reps, quick ? 200 : 500);
        bench.run(quick);
        bench.writeJson(Paths.get(a.get("--json")));
        bench.writeMarkdown(Paths.get(a.get("--markdown")), a.getOrDefault("--command", "scripts/bench offload"), quick);
    }

    private void run(boolean quick) throws Exception
    {
        Files.createDirectories(work);
        Path src = work.resolve("src");
        Files.createDirectories(src);
        int[] sizes = { 4 * MIB, 64 * MIB };
        Map<Integer, Path> files = new LinkedHashMap<>();
        for (int size : sizes)
        {
            byte[] data = new byte[size];
            random.nextBytes(data);
            Path f = src.resolve("object-" + size);
            Files.write(f, data);
            files.put(size, f);
        }
        S3Credentials credentials = S3Credentials.generate();
        loadBefore = loadAverage();
        try (S3ProxyHandle proxy = S3ProxyLauncher.start(work.resolve("s3proxy"), 0, credentials, "bench",
                                                         Duration.ofSeconds(180)))
        {
            s3proxyPid = proxy.pid();
            Path credFile = work.resolve("credentials");
            credentials.writeFile(credFile);
            S3ColdStoreConfig config = S3ColdStoreConfig.local(proxy.endpoint(), "bench", credFile);
            ColdStoreOptions single = config.options().withParts(8 * MIB, 16L * MIB, 1);
            ColdStoreOptions parallel = config.options().withParts(8 * MIB, 16L * MIB, PARALLEL);
            Map<String, ColdStore[]> stores = new LinkedHashMap<>();
            stores.put("s3proxy", new ColdStore[]{ new S3ColdStore(config.withOptions(single), Map.of()),
                                                   new S3ColdStore(config.withOptions(parallel), Map.of()) });
            FileSystemBlobStore fsBlobs = new FileSystemBlobStore(work.resolve("fs-store"));
            stores.put("fs", new ColdStore[]{ new FramedColdStore("fs", fsBlobs, single),
                                              new FramedColdStore("fs", fsBlobs, parallel) });
            try
            {
                // Repetition -1 warms up both JVMs (JIT) and is not recorded: a node's cold store is long-lived.
                for (int rep = -1; rep < reps; rep++)
                {
                    System.err.printf(Locale.ROOT, "offload bench: repetition %d of %d%s%n", rep + 1, reps,
                                      rep < 0 ? " (warm-up, not recorded)" : "");
                    warmingUp = rep < 0;
                    for (int size : sizes)
                    {
                        localCopy(files.get(size), size, rep);
                        for (Map.Entry<String, ColdStore[]> e : stores.entrySet())
                            throughput(e.getKey(), e.getValue()[0], e.getValue()[1], files.get(size), size, rep);
                    }
                    for (Map.Entry<String, ColdStore[]> e : stores.entrySet())
                        ranged(e.getKey(), e.getValue()[0], rep);
                }
            }
            finally
            {
                for (ColdStore[] s : stores.values())
                    for (ColdStore c : s)
                        c.close();
                loadAfter = loadAverage();
            }
        }
    }

    private void localCopy(Path file, int size, int rep) throws IOException
    {
        Path dst = work.resolve("copy-" + size + "-" + rep);
        long c0 = cpuNow("local"), t0 = System.nanoTime();
        Files.copy(file, dst, StandardCopyOption.REPLACE_EXISTING);
        double secs = (System.nanoTime() - t0) / 1e9;
        double cpuMs = cpuNow("local") - c0;
        Files.delete(dst);
        if (warmingUp)
            return;
        Row r = row("local-file-copy", "copy", size);
        r.mbps.add(size / 1e6 / secs);
        r.latenciesMs.add(secs * 1000);
        r.cpuMsPerMb.add(cpuMs / (size / 1e6));
    }

    /** put and get, one stream and PARALLEL streams (parallel parts for multipart objects, else callers). */
    private void throughput(String name, ColdStore single, ColdStore parallel, Path file, int size, int rep)
        throws Exception
    {
        String key = "bench/" + rep + "/" + size;
        // single stream: one object, one part at a time
        long c0 = cpuNow(name), t0 = System.nanoTime();
        single.put(key + "/single", file);
        record(name, "put-single", size, size, t0, c0);
        c0 = cpuNow(name);
        t0 = System.nanoTime();
        single.readAll(key + "/single");
        record(name, "get-single", size, size, t0, c0);
        // parallel: PARALLEL objects at once, each with PARALLEL parts in flight when multipart
        ExecutorService pool = Executors.newFixedThreadPool(PARALLEL);
        try
        {
            c0 = cpuNow(name);
            t0 = System.nanoTime();
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < PARALLEL; i++)
            {
                String k = key + "/parallel-" + i;
                fs.add(pool.submit(() -> parallel.put(k, file)));
            }
            for (Future<?> f : fs)
                f.get();
            record(name, "put-parallel", size, (long) size * PARALLEL, t0, c0);
            fs.clear();
            c0 = cpuNow(name);
            t0 = System.nanoTime();
            for (int i = 0; i < PARALLEL; i++)
            {
                String k = key + "/parallel-" + i;
                fs.add(pool.submit(() -> parallel.readAll(k)));
            }
            for (Future<?> f : fs)
                f.get();
            record(name, "get-parallel", size, (long) size * PARALLEL, t0, c0);
        }
        finally
        {
            pool.shutdownNow();
        }
        for (ColdStore s : new ColdStore[]{ single })
        {
            s.delete(key + "/single");
            for (int i = 0; i < PARALLEL; i++)
                s.delete(key + "/parallel-" + i);
        }
    }

    private void record(String store, String op, int objectBytes, long bytes, long t0, long cpu0)
    {
        if (warmingUp)
            return;
        double secs = (System.nanoTime() - t0) / 1e9;
        Row r = row(store, op, objectBytes);
        r.mbps.add(bytes / 1e6 / secs);
        r.latenciesMs.add(secs * 1000);
        r.cpuMsPerMb.add((cpuNow(store) - cpu0) / (bytes / 1e6));
    }

    /** Random-offset ranged reads from one 64 MiB object, one caller, after a warm-up. */
    private void ranged(String name, ColdStore store, int rep) throws IOException
    {
        int size = 64 * MIB;
        String key = "bench/ranged/" + rep;
        byte[] data = new byte[size];
        random.nextBytes(data);
        store.put(key, ByteBuffer.wrap(data));
        for (int len : new int[]{ 4096, 65536 })
        {
            for (int i = 0; i < (warmingUp ? rangedReads * 4 : 50); i++)
                store.read(key, random.nextInt(size - len), len);
            if (warmingUp)
                continue;
            Row r = row(name, "ranged-read", len);
            long c0 = cpuNow(name), t0 = System.nanoTime();
            for (int i = 0; i < rangedReads; i++)
            {
                long s = System.nanoTime();
                int off = random.nextInt(size - len);
                ByteBuffer b = store.read(key, off, len);
                if (b.get(0) != data[off] || b.get(len - 1) != data[off + len - 1])
                    throw new IllegalStateException("ranged read returned wrong bytes");
                r.latenciesMs.add((System.nanoTime() - s) / 1e6);
            }
            r.mbps.add((double) rangedReads * len / 1e6 / ((System.nanoTime() - t0) / 1e9));
            r.cpuMsPerMb.add((cpuNow(name) - c0) / ((double) rangedReads * len / 1e6));
        }
        store.delete(key);
    }

    private static double quantile(List<Double> values, double q)
    {
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        if (v.length == 0)
            return 0;
        return v[Math.min(v.length - 1, (int) Math.ceil(q * v.length) - 1)];
    }

    private void writeJson(Path out) throws IOException
    {
        StringBuilder sb = new StringBuilder("[\n");
        int i = 0;
        for (Row r : rows.values())
        {
            sb.append(String.format(Locale.ROOT,
                                    "  {\"store\": \"%s\", \"op\": \"%s\", \"object_bytes\": %d, \"mbps\": %.1f, "
                                    + "\"p50_ms\": %.3f, \"p99_ms\": %.3f, \"mbps_min\": %.1f, \"mbps_max\": %.1f, "
                                    + "\"cpu_ms_per_mb\": %.2f, \"reps\": %d, \"samples\": %d}",
                                    r.store, r.op, r.bytes, quantile(r.mbps, 0.5), quantile(r.latenciesMs, 0.5),
                                    quantile(r.latenciesMs, 0.99), quantile(r.mbps, 0.0001), quantile(r.mbps, 1),
                                    quantile(r.cpuMsPerMb, 0.5), r.mbps.size(), r.latenciesMs.size()));
            sb.append(++i < rows.size() ? ",\n" : "\n");
        }
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, sb.append("]\n").toString(), StandardCharsets.UTF_8);
    }

    private void writeMarkdown(Path out, String command, boolean quick) throws IOException
    {
        StringBuilder sb = new StringBuilder();
        sb.append("## offload: cold tier throughput and ranged-read latency\n\n");
        sb.append("Command: `").append(command).append("`").append(quick ? " (quick mode)" : "").append(". ")
          .append(reps).append(" interleaved repetitions after one unrecorded warm-up repetition (JIT of both ")
          .append("JVMs; the warm-up also does ").append(4 * rangedReads).append(" ranged reads per size); MB/s is the median over repetitions with the min-max ")
          .append("spread; p50/p99 are over all operations (per object for put/get, per read for ranged reads: ")
          .append(rangedReads).append(" random 4 KiB and 64 KiB reads of a 64 MiB object per repetition). ")
          .append("`parallel` = ").append(PARALLEL).append(" objects at once, each uploaded with up to ")
          .append(PARALLEL).append(" parts of 8 MiB in flight when above the 16 MiB multipart threshold. ")
          .append("S3Proxy 4.1.0 (filesystem-nio2 backend) runs in its own JVM on 127.0.0.1; `fs` is the ")
          .append("FileSystemBlobStore; both store the framed format (per-16 KiB-block CRC32C, verified on read). ")
          .append("`local-file-copy` is `Files.copy` of the same bytes (no fsync). ")
          .append("CPU ms/MB is the CPU time of the benchmark JVM plus, for s3proxy rows, the S3Proxy JVM per MB ")
          .append("moved (median over repetitions); `2-core ceiling` = 2000 / CPU ms/MB is the MB/s the two cores ")
          .append("could sustain if nothing else ran. 1-minute load average: ").append(loadBefore)
          .append(" at start, ").append(loadAfter).append(" at end (other engineers' builds and clusters share ")
          .append("the machine).\n\n");
        sb.append("| store | op | object | MB/s (median) | MB/s spread | p50 ms | p99 ms | CPU ms/MB | 2-core ceiling MB/s |\n");
        sb.append("|---|---|---|---:|---|---:|---:|---:|---:|\n");
        for (Row r : rows.values())
        {
            double cpu = quantile(r.cpuMsPerMb, 0.5);
            sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %.1f | %.1f-%.1f | %.2f | %.2f | %.2f | %s |%n",
                                    r.store, r.op, r.bytes >= MIB ? (r.bytes / MIB) + " MiB" : (r.bytes / 1024) + " KiB",
                                    quantile(r.mbps, 0.5), quantile(r.mbps, 0.0001), quantile(r.mbps, 1),
                                    quantile(r.latenciesMs, 0.5), quantile(r.latenciesMs, 0.99), cpu,
                                    cpu > 0 ? String.format(Locale.ROOT, "%.0f", 2000 / cpu) : "-"));
        }
        Files.writeString(out, sb.toString(), StandardCharsets.UTF_8);
    }

}
