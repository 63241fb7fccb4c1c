package io.elect.core.bridge;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;

import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.io.sstable.format.SSTableFormat.Components;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.service.StorageService;

import io.elect.coding.ErasureCoders;
import io.elect.core.tiered.LocalStripeAssembler;
import io.elect.core.tiered.SourceCounters;
import io.elect.core.stripes.StripeLayout;
import io.elect.offload.ColdStore;
import io.elect.offload.FramedColdStore;
import io.elect.offload.s3.S3ColdStore;
import io.elect.offload.s3.S3ColdStoreConfig;
import io.elect.offload.s3.S3Credentials;
import io.elect.offload.s3proxy.S3ProxyHandle;
import io.elect.offload.s3proxy.S3ProxyLauncher;

/**
 * scripts/bench tiered: point-read latency (CQL, one client, synchronous) and bytes fetched per read of SSTables
 * whose data is LOCAL, COLD (S3Proxy; chunk cache warm and cold) and DECODED (k=3, m=2; parity on S3Proxy, parity
 * on a local filesystem store standing in for loopback peers, and one parity on each), measured in ONE node and interleaved: every
 * repetition runs every configuration once, in a shuffled order. Each key lives in exactly one SSTable, so a point
 * read touches one data file. "cold" = the tiered chunk cache is cleared before every read.
 *
 * Args: --work DIR --json FILE --markdown FILE --command STRING [--quick] [--cold-latency-ms MS]
 *
 * <p>{@code --cold-latency-ms MS} puts scripts/lib/delay_proxy.py (a real TCP proxy in its own process, started and
 * stopped here) between the node and S3Proxy, holding every request MS milliseconds: ELECT's evaluation had its
 * object store ~45 ms away. The filesystem store (DECODED-fs-parity) is not delayed.
 */
public final class TieredBench
{
    static final int K = 3, M = 2;

    record Config(String source, String cache, int round)
    {
        String label()
        {
            return source + "/" + cache;
        }
    }

    public static void main(String[] args) throws Throwable
    {
        int rc = 1;
        S3ProxyHandle s3 = null;
        Process proxy = null;
        try
        {
            Map<String, String> a = new LinkedHashMap<>();
            for (int i = 0; i < args.length; i++)
                if (args[i].equals("--quick"))
                    a.put("quick", "true");
                else
                    a.put(args[i].substring(2), args[++i]);
            boolean quick = a.containsKey("quick");
            Path work = Paths.get(a.get("work")).toAbsolutePath();
            System.setProperty("logback.configurationFile", Paths.get(a.getOrDefault("resources", "elect-core/src/test/resources"),
                                                                      "tiered-logback.xml").toAbsolutePath().toString());
            System.setProperty("elect.test.resources", Paths.get(a.getOrDefault("resources", "elect-core/src/test/resources")).toAbsolutePath().toString());
            S3Credentials creds = S3Credentials.generate();
            s3 = S3ProxyLauncher.start(work.resolve("s3proxy"), 0, creds, "elect-bench", Duration.ofSeconds(180));
            creds.writeFile(s3.credentialsFile());
            double delayMs = Double.parseDouble(a.getOrDefault("cold-latency-ms", "0"));
            if (Double.isNaN(delayMs) || delayMs < 0)
                throw new IllegalArgumentException("--cold-latency-ms must be >= 0, was " + delayMs);
            URI endpoint = s3.endpoint();
            if (delayMs > 0)
            {
                int port = S3ProxyLauncher.freePort();
                proxy = new ProcessBuilder("python3", "scripts/lib/delay_proxy.py", "--listen", "127.0.0.1:" + port,
                                           "--target", endpoint.getHost() + ":" + endpoint.getPort(),
                                           "--delay-ms", Double.toString(delayMs))
                        .redirectErrorStream(true).redirectOutput(work.resolve("delay-proxy.log").toFile()).start();
                awaitPort(port, proxy);
                endpoint = new URI(endpoint.getScheme(), null, "127.0.0.1", port, endpoint.getPath(), null, null);
                System.out.println("TieredBench cold tier: +" + delayMs + " ms per request through a proxy on 127.0.0.1:" + port);
            }
            ColdStore store = new S3ColdStore(S3ColdStoreConfig.local(endpoint, s3.bucket(), s3.credentialsFile()));
            ColdStore fs = FramedColdStore.fileSystem(work.resolve("fs-store"));
            NodeHandoff.bridge().node().tiered().registerStore("s3", store);
            NodeHandoff.bridge().node().tiered().registerStore("fs", fs);
            TieredNodeSupport.start(work.resolve("node"));
            try (CqlSession session = TieredNodeSupport.session())
            {
                run(session, store, fs, work, quick, a);
            }
            StorageService.instance.drain();
            rc = 0;
        }
        catch (Throwable t)
        {
            t.printStackTrace(System.out);
        }
        finally
        {
            if (proxy != null)
            {
                proxy.destroy();
                proxy.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
            }
            if (s3 != null)
                s3.stop(Duration.ofSeconds(30));
        }
        System.out.flush();
        Runtime.getRuntime().halt(rc);
    }

    static void run(CqlSession s, ColdStore store, ColdStore fs, Path work, boolean quick, Map<String, String> a) throws Exception
    {
        int n = quick ? 1500 : 4000;
        int reps = quick ? 3 : 5;
        int opsPerRep = quick ? 100 : 300;
        String table = "bench";
        TieredNodeSupport.createTables(s, table, "{'class': 'LZ4Compressor'}");
        ColumnFamilyStore cfs = TieredNodeSupport.cfs(table);
        cfs.disableAutoCompaction();
        List<SSTableReader> rounds = new ArrayList<>();
        for (int r = 0; r < 10; r++)
            rounds.add(TieredNodeSupport.writeRound(s, table, r, n, false));
        // round 0 -> COLD; stripe A = rounds 1..3 (parity on S3Proxy), round 1 -> DECODED; stripe B = rounds 4..6
        // (parity on the filesystem store), round 4 -> DECODED; rounds 2, 3, 5, 6, 8, 9 stay LOCAL.
        NodeHandoff.bridge().tiered().toCold(cfs, rounds.get(0), "s3");
        StripeLayout sa = LocalStripeAssembler.assemble(dataFiles(rounds, 1), ErasureCoders.create(K, M), store, "s3",
                                                        "stripes/bench-a", work.resolve("stripes/a"));
        NodeHandoff.bridge().tiered().toDecoded(cfs, rounds.get(1), sa, 0);
        StripeLayout sb = LocalStripeAssembler.assemble(dataFiles(rounds, 4), ErasureCoders.create(K, M), fs, "fs",
                                                        "stripes/bench-b", work.resolve("stripes/b"));
        NodeHandoff.bridge().tiered().toDecoded(cfs, rounds.get(4), sb, 0);
        // stripe C = rounds 7..9 with parity 0 on S3Proxy and parity 1 on the filesystem store: k = 3 hot survivors
        // (two local members, the local parity) are alive next to a cold one, round 7 -> DECODED
        StripeLayout sc = LocalStripeAssembler.assemble(dataFiles(rounds, 7), ErasureCoders.create(K, M), List.of(store, fs),
                                                        List.of("s3", "fs"), "stripes/bench-c", work.resolve("stripes/c"));
        NodeHandoff.bridge().tiered().toDecoded(cfs, rounds.get(7), sc, 0);
        // The member's own copy (member 0's hard link) would serve DECODED reads directly: remove it, so that every
        // DECODED read reconstructs its bytes from k other members (checked below by the decoded-run counters).
        Files.delete(work.resolve("stripes/a").resolve("member-0"));
        Files.delete(work.resolve("stripes/b").resolve("member-0"));
        Files.delete(work.resolve("stripes/c").resolve("member-0"));

        List<Config> configs = List.of(new Config("LOCAL", "n/a", 2), new Config("COLD", "warm", 0),
                                       new Config("COLD", "cold", 0), new Config("DECODED", "cold", 1),
                                       new Config("DECODED-fs-parity", "cold", 4), new Config("DECODED-mixed-parity", "cold", 7));
        PreparedStatement get = s.prepare("SELECT field0 FROM " + TieredNodeSupport.KS + "." + table + " WHERE key = ?");
        Map<String, List<Double>> lat = new LinkedHashMap<>();
        Map<String, List<Double>> repP50 = new LinkedHashMap<>();
        Map<String, long[]> bytes = new LinkedHashMap<>();
        for (Config c : configs)
        {
            lat.put(c.label(), new ArrayList<>());
            repP50.put(c.label(), new ArrayList<>());
            bytes.put(c.label(), new long[3]); // bytes fetched, reads, survivors avoided as slow
        }
        long seed = System.nanoTime();
        System.out.println("TieredBench seed=" + seed);
        Random rnd = new Random(seed);
        // warm-up: JIT, connections, and the warm cache of COLD (every key of round 0 read once)
        for (int i = 0; i < n; i++)
            s.execute(get.bind(TieredNodeSupport.key(i)));
        for (Config c : configs)
            for (int i = 0; i < 50; i++)
                measure(s, get, c, n, rnd);
        for (int rep = 0; rep < reps; rep++)
        {
            List<Config> order = new ArrayList<>(configs);
            Collections.shuffle(order, rnd);
            for (Config c : order)
            {
                List<Double> one = new ArrayList<>();
                if (c.cache().equals("warm")) // the cold configurations clear the cache: warm it again, untimed
                    for (int i = c.round() * n; i < (c.round() + 1) * n; i++)
                        s.execute(get.bind(TieredNodeSupport.key(i)));
                SourceCounters.Snapshot cold0 = NodeHandoff.bridge().node().tiered().coldCounters().snapshot();
                SourceCounters.Snapshot dec0 = NodeHandoff.bridge().node().tiered().decodedCounters().snapshot();
                for (int i = 0; i < opsPerRep; i++)
                    one.add(measure(s, get, c, n, rnd));
                SourceCounters.Snapshot dec = NodeHandoff.bridge().node().tiered().decodedCounters().snapshot().minus(dec0);
                long fetched = NodeHandoff.bridge().node().tiered().coldCounters().snapshot().minus(cold0).bytesFetched()
                               + dec.bytesFetched();
                if (c.label().startsWith("DECODED") && (dec.directRuns() != 0 || dec.decodedRuns() < opsPerRep))
                    throw new AssertionError(c + ": " + opsPerRep + " reads made " + dec.decodedRuns() + " decoded runs and "
                                             + dec.directRuns() + " direct reads of the member's own copy; every one must decode");
                bytes.get(c.label())[0] += fetched;
                bytes.get(c.label())[1] += opsPerRep;
                bytes.get(c.label())[2] += dec.slowAvoided();
                lat.get(c.label()).addAll(one);
                repP50.get(c.label()).add(pct(one, 50));
            }
        }
        report(configs, lat, repP50, bytes, reps, opsPerRep, Double.parseDouble(a.getOrDefault("cold-latency-ms", "0")),
               Paths.get(a.get("json")), Paths.get(a.get("markdown")), a.get("command"));
    }

    /** Waits until the proxy accepts connections; fails if it exits or takes more than 20 s. */
    static void awaitPort(int port, Process proxy) throws Exception
    {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
        while (true)
        {
            try (java.net.Socket ignored = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), port))
            {
                return;
            }
            catch (java.io.IOException e)
            {
                if (!proxy.isAlive() || System.nanoTime() > deadline)
                    throw new IllegalStateException("the cold-tier delay proxy did not start on port " + port
                                                     + " (see delay-proxy.log in the work directory)", e);
                Thread.sleep(100);
            }
        }
    }

    static List<Path> dataFiles(List<SSTableReader> rounds, int first)
    {
        List<Path> files = new ArrayList<>();
        for (int r = first; r < first + K; r++)
            files.add(rounds.get(r).descriptor.fileFor(Components.DATA).toPath());
        return files;
    }

    /** One point read of a random key of the config's SSTable, in milliseconds. */
    static double measure(CqlSession s, PreparedStatement get, Config c, int n, Random rnd)
    {
        int i = c.round() * n + rnd.nextInt(n);
        if (c.cache().equals("cold"))
            NodeHandoff.bridge().node().tiered().cache().clear();
        long t0 = System.nanoTime();
        if (s.execute(get.bind(TieredNodeSupport.key(i))).one() == null)
            throw new AssertionError("key " + i + " missing in " + c);
        return (System.nanoTime() - t0) / 1e6;
    }

    static double pct(List<Double> xs, double p)
    {
        double[] a = xs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a[Math.min(a.length - 1, (int) Math.ceil(p / 100 * a.length) - 1)];
    }

    static void report(List<Config> configs, Map<String, List<Double>> lat, Map<String, List<Double>> repP50,
                       Map<String, long[]> bytes, int reps, int ops, double coldLatencyMs, Path json, Path md,
                       String command) throws Exception
    {
        double localP50 = pct(lat.get("LOCAL/n/a"), 50);
        StringBuilder j = new StringBuilder("[\n");
        StringBuilder m = new StringBuilder();
        m.append("Point reads through CQL (one synchronous client) of one node on loopback; LZ4 table, ~600-byte rows, ")
         .append("each key in exactly one SSTable. COLD = data object on S3Proxy (filesystem backend) read by ranges; ")
         .append("DECODED = data reconstructed per read from k=3 other stripe members (two local data files + one parity ")
         .append("object on S3Proxy, or on a local filesystem ColdStore standing in for loopback peers; mixed: one parity on each). cold = tiered ")
         .append("chunk cache cleared before every read. ").append(reps).append(" interleaved repetitions x ").append(ops)
         .append(" reads per configuration; spread = min..max of the per-repetition p50. bytes/read = bytes fetched from ")
         .append("the cold tier / stripe members (LOCAL reads the local file: not counted). Cold tier: ")
         .append(coldLatencyMs > 0 ? String.format(Locale.ROOT, "S3Proxy behind a proxy adding %.0f ms per request "
                                                                + "(scripts/lib/delay_proxy.py; ELECT's object store was ~45 ms away)", coldLatencyMs)
                                   : "S3Proxy on loopback, no added latency")
         .append(".\n\n");
        m.append("Command: `").append(command).append("`\n\n");
        m.append("| source | cache | p50 ms | p99 ms | p50 spread ms | p50 / LOCAL | bytes/read | slow survivors avoided |\n"
                 + "|---|---|---|---|---|---|---|---|\n");
        for (int i = 0; i < configs.size(); i++)
        {
            Config c = configs.get(i);
            List<Double> xs = lat.get(c.label());
            double p50 = pct(xs, 50), p99 = pct(xs, 99);
            long bpr = bytes.get(c.label())[0] / Math.max(1, bytes.get(c.label())[1]);
            List<Double> r = repP50.get(c.label());
            j.append(String.format(Locale.ROOT, "  {\"source\": \"%s\", \"cache\": \"%s\", \"p50_ms\": %.3f, \"p99_ms\": %.3f, "
                                                + "\"bytes_per_read\": %d, \"reads\": %d, \"p50_ms_per_rep\": %s, \"cold_latency_ms\": %.1f, "
                                                + "\"slow_survivors_avoided\": %d}%s\n",
                                   c.source(), c.cache(), p50, p99, bpr, xs.size(), fmt(r), coldLatencyMs, bytes.get(c.label())[2],
                                   i + 1 < configs.size() ? "," : ""));
            m.append(String.format(Locale.ROOT, "| %s | %s | %.2f | %.2f | %.2f..%.2f | %.2fx | %d | %d |\n", c.source(), c.cache(),
                                   p50, p99, Collections.min(r), Collections.max(r), p50 / localP50, bpr, bytes.get(c.label())[2]));
        }
        j.append("]\n");
        double coldBytes = bytes.get("COLD/cold")[0] / (double) Math.max(1, bytes.get("COLD/cold")[1]);
        double decBytes = bytes.get("DECODED/cold")[0] / (double) Math.max(1, bytes.get("DECODED/cold")[1]);
        double decRatio = pct(lat.get("DECODED/cold"), 50) / localP50;
        double fsRatio = pct(lat.get("DECODED-fs-parity/cold"), 50) / localP50;
        double mixedRatio = pct(lat.get("DECODED-mixed-parity/cold"), 50) / localP50;
        m.append(String.format(Locale.ROOT, "\nTargets: a COLD point read (cold cache) fetched %.0f bytes = %.2f chunks of 16 KiB "
                                            + "(target <= 2 chunks, <= 128 KiB: %s). DECODED p50 = %.2fx LOCAL with parity on "
                                            + "S3Proxy (%s), %.2fx with parity on the local filesystem store (%s), %.2fx with one parity "
                                            + "on S3Proxy and one local, i.e. k hot survivors alive (%s) (target <= 3x); "
                                            + "DECODED fetched %.0f bytes/read = %.2fx the bytes of the COLD range read "
                                            + "(k = %d: about k times the range, never whole files). Load average at the end: %s.\n",
                               coldBytes, coldBytes / 16384, coldBytes <= 128 * 1024 ? "met" : "MISSED", decRatio,
                               decRatio <= 3 ? "met" : "MISSED", fsRatio, fsRatio <= 3 ? "met" : "MISSED", mixedRatio,
                               mixedRatio <= 3 ? "met" : "MISSED", decBytes,
                               decBytes / Math.max(1, coldBytes), K, loadAverage()));
        Files.writeString(json, j.toString());
        Files.writeString(md, m.toString());
        System.out.print(m);
    }

    static String loadAverage()
    {
        try
        {
            return Files.readString(Paths.get("/proc/loadavg")).trim();
        }
        catch (Exception e)
        {
            return "unknown";
        }
    }

    static String fmt(List<Double> xs)
    {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < xs.size(); i++)
            sb.append(i == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.3f", xs.get(i)));
        return sb.append(']').toString();
    }
}
