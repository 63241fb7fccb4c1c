package io.elect.core.security;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

import io.elect.coding.ErasureCoders;
import io.elect.core.config.Json;
import io.elect.core.stripes.MemberServer;
import io.elect.core.stripes.NodeMemberReader;
import io.elect.core.stripes.ParityBuilder;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.transport.CallerPolicy;
import io.elect.core.transport.NettyTransport;
import io.elect.core.transport.PeerLiveness;
import io.elect.core.transport.TransportOptions;
import io.elect.core.transport.TransportSecurity;

/**
 * {@code scripts/bench tls}: what mutual TLS costs the two data paths of the ELECT transport, plaintext and TLS side
 * by side in one JVM, interleaved (the order alternates per repetition), on loopback:
 * <ul>
 * <li>transitioning: {@link ParityBuilder} on node C builds a parity member of a k=2, m=1 stripe whose two data
 *     members (each {@code --member-mb}) are served by nodes A and B over READ_MEMBER, exactly as BUILD_PARITY does
 *     (pull k members in 1 MiB pieces, encode, write the parity file); reported as data MB/s;</li>
 * <li>degraded read: a 64 KiB range of a lost member needs the same range of k=2 other members, read in parallel
 *     over READ_MEMBER (what DecodedRangeSource does before decoding); reported as p50/p99 latency.</li>
 * </ul>
 * Three transports on 127.0.0.1..3 per mode, real MemberServers over real files, real Netty (TLS: certificates of a
 * throw-away CA, TLS 1.3, BoringSSL if it loads). Prints one JSON document and a Markdown table.
 */
public final class TlsCostBench
{
    record Mode(String name, NettyTransport a, NettyTransport b, NettyTransport c, StripeLayout layout, LocatorMemberReader reader)
    {
        void close()
        {
            a.close();
            b.close();
            c.close();
        }
    }

    public static void main(String[] args) throws Exception
    {
        int memberMb = 32, reps = 5, reads = 400;
        Path work = Files.createTempDirectory("elect-tls-bench");
        Path json = null;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--member-mb" -> memberMb = Integer.parseInt(args[++i]);
                case "--reps" -> reps = Integer.parseInt(args[++i]);
                case "--reads" -> reads = Integer.parseInt(args[++i]);
                case "--work" -> work = Path.of(args[++i]);
                case "--json" -> json = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Path data = Files.createDirectories(work.resolve("data"));
        long len = memberMb * (1L << 20);
        Random rnd = new Random(19);
        List<Path> members = new ArrayList<>();
        for (String n : List.of("a", "b"))
        {
            byte[] bytes = new byte[(int) len];
            rnd.nextBytes(bytes);
            members.add(Files.write(data.resolve(n + "-Data.db"), bytes));
        }
        ThrowAwayPki.generate(work.resolve("tls"), List.of("n1:127.0.0.1", "n2:127.0.0.2", "n3:127.0.0.3"));
        String pw = Files.readString(work.resolve("tls/password")).trim();
        Mode plain = mode("plain", null, work, members, data, len, pw);
        Mode tls = mode("tls", work.resolve("tls"), work, members, data, len, pw);
        Map<String, List<Double>> mbps = new LinkedHashMap<>(), p50 = new LinkedHashMap<>(), p99 = new LinkedHashMap<>();
        Map<String, List<Double>> cpuPerMb = new LinkedHashMap<>(), cpuPerRead = new LinkedHashMap<>();
        Map<String, List<Double>> thrPerMb = new LinkedHashMap<>(), thrPerRead = new LinkedHashMap<>();
        Map<String, Map<String, List<Double>>> cpuByThreads = new LinkedHashMap<>();
        for (Mode m : List.of(plain, tls))
        {
            build(m, work, len); // warm-up: connections, handshakes, JIT
            degraded(m, 50, len, rnd);
            mbps.put(m.name(), new ArrayList<>());
            p50.put(m.name(), new ArrayList<>());
            p99.put(m.name(), new ArrayList<>());
            cpuPerMb.put(m.name(), new ArrayList<>());
            cpuPerRead.put(m.name(), new ArrayList<>());
            thrPerMb.put(m.name(), new ArrayList<>());
            thrPerRead.put(m.name(), new ArrayList<>());
            cpuByThreads.put(m.name(), new LinkedHashMap<>());
        }
        double dataMb = 2.0 * len / (1 << 20);
        for (int r = 0; r < reps; r++)
        {
            for (Mode m : r % 2 == 0 ? List.of(plain, tls) : List.of(tls, plain))
            {
                CpuMeter.Sample c0 = CpuMeter.sample();
                mbps.get(m.name()).add(build(m, work, len));
                CpuMeter.Sample c1 = CpuMeter.sample();
                double[] lat = degraded(m, reads, len, rnd);
                CpuMeter.Sample c2 = CpuMeter.sample();
                p50.get(m.name()).add(lat[0]);
                p99.get(m.name()).add(lat[1]);
                double msPerMb = c1.processNanos() - c0.processNanos();
                msPerMb = msPerMb / 1e6 / dataMb;
                double msPerRead = (c2.processNanos() - c1.processNanos()) / 1e6 / reads;
                cpuPerMb.get(m.name()).add(msPerMb);
                cpuPerRead.get(m.name()).add(msPerRead);
                thrPerMb.get(m.name()).add(CpuMeter.javaThreads(c0, c1) / 1e6 / dataMb);
                thrPerRead.get(m.name()).add(CpuMeter.javaThreads(c1, c2) / 1e6 / reads);
                for (Map.Entry<String, Long> e : CpuMeter.byGroup(c0, c1).entrySet())
                    cpuByThreads.get(m.name()).computeIfAbsent(e.getKey(), x -> new ArrayList<>()).add(e.getValue() / 1e6 / dataMb);
                System.err.printf("rep %d %-5s transitioning %.1f MB/s (cpu %.2f ms/MB %s), degraded read p50 %.2f ms p99 %.2f ms (cpu %.3f ms/read)%n",
                                  r, m.name(), mbps.get(m.name()).get(r), msPerMb, CpuMeter.byGroup(c0, c1), lat[0], lat[1], msPerRead);
            }
        }
        String session = m0Session(tls);
        System.err.println("tls session: " + session);
        plain.close();
        tls.close();
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("member_mb", memberMb);
        doc.put("reps", reps);
        doc.put("degraded_reads_per_rep", reads);
        doc.put("provider", TlsContexts.provider().toString());
        doc.put("session", session);
        for (String n : List.of("plain", "tls"))
        {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("transitioning_mb_s", mbps.get(n));
            m.put("degraded_read_p50_ms", p50.get(n));
            m.put("degraded_read_p99_ms", p99.get(n));
            m.put("transitioning_cpu_ms_per_mb", cpuPerMb.get(n));
            m.put("degraded_read_cpu_ms_per_read", cpuPerRead.get(n));
            m.put("transitioning_thread_cpu_ms_per_mb", thrPerMb.get(n));
            m.put("degraded_read_thread_cpu_ms_per_read", thrPerRead.get(n));
            Map<String, Object> groups = new LinkedHashMap<>();
            for (Map.Entry<String, List<Double>> e : cpuByThreads.get(n).entrySet())
                groups.put(e.getKey(), median(e.getValue()));
            m.put("transitioning_cpu_ms_per_mb_by_threads_median", groups);
            doc.put(n, m);
        }
        doc.put("tls_over_plain_transitioning_throughput_median", median(ratios(mbps.get("tls"), mbps.get("plain"))));
        doc.put("tls_over_plain_degraded_p50_median", median(ratios(p50.get("tls"), p50.get("plain"))));
        doc.put("tls_over_plain_degraded_p99_median", median(ratios(p99.get("tls"), p99.get("plain"))));
        doc.put("tls_over_plain_transitioning_cpu_per_mb_median", median(ratios(cpuPerMb.get("tls"), cpuPerMb.get("plain"))));
        doc.put("tls_over_plain_degraded_cpu_per_read_median", median(ratios(cpuPerRead.get("tls"), cpuPerRead.get("plain"))));
        doc.put("tls_over_plain_transitioning_thread_cpu_per_mb_median", median(ratios(thrPerMb.get("tls"), thrPerMb.get("plain"))));
        doc.put("tls_over_plain_degraded_thread_cpu_per_read_median", median(ratios(thrPerRead.get("tls"), thrPerRead.get("plain"))));
        doc.put("ratio_ranges", Map.of("thread_cpu_per_mb", range(ratios(thrPerMb.get("tls"), thrPerMb.get("plain"))),
                                       "thread_cpu_per_read", range(ratios(thrPerRead.get("tls"), thrPerRead.get("plain"))),
                                       "cpu_per_mb", range(ratios(cpuPerMb.get("tls"), cpuPerMb.get("plain"))),
                                       "cpu_per_read", range(ratios(cpuPerRead.get("tls"), cpuPerRead.get("plain"))),
                                       "throughput", range(ratios(mbps.get("tls"), mbps.get("plain"))),
                                       "p50", range(ratios(p50.get("tls"), p50.get("plain"))),
                                       "p99", range(ratios(p99.get("tls"), p99.get("plain")))));
        System.out.println(Json.write(doc));
        if (json != null)
            Files.writeString(json, Json.write(doc) + "\n");
    }

    /** The cipher suite and protocol of node C's client connection to node A (the reads' path), for the record. */
    static String m0Session(Mode m)
    {
        return m.c().describeConnection(m.a().localPeer());
    }

    static Mode mode(String name, Path tlsDir, Path work, List<Path> members, Path data, long len, String pw) throws Exception
    {
        TransportOptions o = new TransportOptions(16 << 20, 60_000, 1, 10);
        NettyTransport[] t = new NettyTransport[3];
        for (int i = 0; i < 3; i++)
        {
            TransportSecurity s = tlsDir == null ? TransportSecurity.PLAINTEXT_OPEN
                                  : TlsContexts.build(new TlsSettings("bench", tlsDir.resolve("n" + (i + 1) + ".p12"), Secret.of(pw),
                                                                      tlsDir.resolve("truststore.p12"), Secret.of(pw), "PKCS12", null,
                                                                      List.of(), List.of(), null, null), CallerPolicy.ALLOW_ALL);
            t[i] = new NettyTransport("127.0.0." + (i + 1), 0, o, PeerLiveness.ALWAYS, s);
        }
        new MemberServer(t[0], List.of(data));
        new MemberServer(t[1], List.of(data));
        String codec = ErasureCoders.create(2, 1).codecId();
        StripeLayout layout = new StripeLayout(codec, 2, 1, new long[]{ len, len }, len,
                                               List.of(LocatorMemberReader.node("127.0.0.1", t[0].localPeer().port(), members.get(0)),
                                                       LocatorMemberReader.node("127.0.0.2", t[1].localPeer().port(), members.get(1)),
                                                       "pending:parity"));
        LocatorMemberReader reader = new NodeMemberReader(t[2]).members(x -> null);
        return new Mode(name, t[0], t[1], t[2], layout, reader);
    }

    /** Builds the parity member on node C; data MB/s (k members pulled and encoded). */
    static double build(Mode m, Path work, long len) throws Exception
    {
        Path dir = Files.createDirectories(work.resolve("parity-" + m.name()));
        long t0 = io.elect.core.util.Clock.SYSTEM.nanoTime();
        new ParityBuilder(new io.elect.core.stripes.Coders("auto"), io.elect.core.util.Clock.SYSTEM).build(m.layout(), 0, m.reader(), dir, "s-p0.parity");
        double sec = (io.elect.core.util.Clock.SYSTEM.nanoTime() - t0) / 1e9;
        try (var files = Files.list(dir))
        {
            for (Path p : (Iterable<Path>) files::iterator)
                Files.delete(p);
        }
        return 2.0 * len / (1 << 20) / sec;
    }

    /** {p50, p99} in ms of reading the same 64 KiB range of both data members in parallel. */
    static double[] degraded(Mode m, int n, long len, Random rnd) throws Exception
    {
        double[] ms = new double[n];
        for (int i = 0; i < n; i++)
        {
            long off = (rnd.nextLong() & Long.MAX_VALUE) % (len - 65536);
            long t0 = io.elect.core.util.Clock.SYSTEM.nanoTime();
            CompletableFuture<ByteBuffer> x = CompletableFuture.supplyAsync(() -> read(m, 0, off));
            ByteBuffer y = read(m, 1, off);
            if (x.get().remaining() != 65536 || y.remaining() != 65536)
                throw new IllegalStateException("short read");
            ms[i] = (io.elect.core.util.Clock.SYSTEM.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(ms);
        return new double[]{ ms[n / 2], ms[(int) Math.min(n - 1, Math.ceil(n * 0.99) - 1)] };
    }

    static ByteBuffer read(Mode m, int member, long off)
    {
        try
        {
            return m.reader().read(m.layout(), member, off, 65536);
        }
        catch (Exception e)
        {
            throw new IllegalStateException(e);
        }
    }

    static List<Double> ratios(List<Double> a, List<Double> b)
    {
        List<Double> r = new ArrayList<>();
        for (int i = 0; i < a.size(); i++)
            r.add(a.get(i) / b.get(i));
        return r;
    }

    static double median(List<Double> v)
    {
        List<Double> s = new ArrayList<>(v);
        s.sort(Double::compare);
        return s.get(s.size() / 2);
    }

    static List<Double> range(List<Double> v)
    {
        return List.of(v.stream().mapToDouble(d -> d).min().orElse(0), v.stream().mapToDouble(d -> d).max().orElse(0));
    }
}
