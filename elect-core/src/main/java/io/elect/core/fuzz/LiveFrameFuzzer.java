package io.elect.core.fuzz;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;

import javax.management.openmbean.CompositeData;

import io.elect.core.config.Json;
import io.elect.core.tools.JmxClient;
import io.elect.core.transition.wire.TransitionMessages.SnapshotRequest;
import io.elect.core.transport.Frame;
import io.elect.core.transport.FrameCodec;
import io.elect.core.transport.Verbs;

/**
 * {@code scripts/fuzz transport}: mutated frames against a live node's ELECT port (issue 19). Most frames are
 * well-formed frames (length and CRC32C recomputed) of a known verb whose payload is a mutated valid payload of that
 * verb, so they get past the framing to the verb decoders and the access checks; a few percent are corrupted at the
 * frame level (the node must close the connection); a few connections come from a source address that is no ring
 * member (one ERROR, then closed). Meanwhile it checks every few seconds that the node serves CQL (a query over
 * the native protocol) and samples its heap over JMX.
 *
 * <p>Result (JSON): target, inputs (frames sent), rejected (ERROR answers plus frames that made the node close the
 * connection), responses, crashes (the node stopped answering CQL or the ELECT port, or its answers stalled for
 * 30 s with frames outstanding), node_alive at the end, max_heap_mb, cql_checks / cql_failures, seconds.
 */
public final class LiveFrameFuzzer
{
    private final String host;
    private final int port;
    private final InetAddress member;
    private final InetAddress stranger;
    private final long seed;
    private final int window;
    private final int maxFrame;
    private final AtomicLong responses = new AtomicLong(), errors = new AtomicLong(), closedByNode = new AtomicLong();
    private final AtomicLong lastAnswerNanos = new AtomicLong(io.elect.core.util.Clock.SYSTEM.nanoTime());
    private volatile boolean stalled;

    LiveFrameFuzzer(String host, int port, InetAddress member, InetAddress stranger, long seed, int window, int maxFrame)
    {
        this.host = host;
        this.port = port;
        this.member = member;
        this.stranger = stranger;
        this.seed = seed;
        this.window = window;
        this.maxFrame = maxFrame;
    }

    public static void main(String[] args) throws Exception
    {
        String host = "127.0.0.1", cqlHost = null, member = "127.0.0.2", stranger = "127.0.0.99", out = null;
        int port = 7070, jmxPort = 7199, cqlPort = 9042, window = 64, maxFrame = 16 << 20;
        long frames = 100_000, seed = 19;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--host" -> host = args[++i];
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--frames" -> frames = Long.parseLong(args[++i]);
                case "--seed" -> seed = Long.parseLong(args[++i]);
                case "--member-source" -> member = args[++i];
                case "--stranger-source" -> stranger = args[++i];
                case "--jmx-port" -> jmxPort = Integer.parseInt(args[++i]);
                case "--cql-host" -> cqlHost = args[++i];
                case "--cql-port" -> cqlPort = Integer.parseInt(args[++i]);
                case "--window" -> window = Integer.parseInt(args[++i]);
                case "--max-frame" -> maxFrame = Integer.parseInt(args[++i]);
                case "--out" -> out = args[++i];
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        LiveFrameFuzzer f = new LiveFrameFuzzer(host, port, InetAddress.getByName(member), InetAddress.getByName(stranger), seed, window, maxFrame);
        Map<String, Object> result = f.run(frames, cqlHost == null ? host : cqlHost, cqlPort, jmxPort);
        String json = Json.write(result);
        System.out.println(json);
        if (out != null)
            Files.writeString(Path.of(out), json + "\n");
        System.exit(((Number) result.get("crashes")).longValue() == 0 && Boolean.TRUE.equals(result.get("node_alive")) ? 0 : 1);
    }

    Map<String, Object> run(long frames, String cqlHost, int cqlPort, int jmxPort) throws Exception
    {
        Map<Integer, List<byte[]>> payloads = payloadSeeds();
        List<Integer> verbs = new ArrayList<>(payloads.keySet());
        List<byte[]> corpus = new ArrayList<>();
        payloads.values().forEach(corpus::addAll);
        long start = io.elect.core.util.Clock.SYSTEM.nanoTime(), sent = 0, corrupt = 0, strangerConns = 0, cqlChecks = 0, cqlFailures = 0, crashes = 0;
        long truncatedSent = 0, corruptRejected = 0, notClosed = 0, strangerRefused = 0;
        double maxHeapMb = 0;
        long nextCheck = 0;
        Conn conn = null;
        try (JmxClient jmx = JmxClient.connect(host, jmxPort))
        {
            for (long i = 0; i < frames; i++)
            {
                if (io.elect.core.util.Clock.SYSTEM.nanoTime() >= nextCheck)
                {
                    cqlChecks++;
                    if (!cqlServes(cqlHost, cqlPort))
                        cqlFailures++;
                    maxHeapMb = Math.max(maxHeapMb, heapMb(jmx));
                    nextCheck = io.elect.core.util.Clock.SYSTEM.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    System.err.printf("fuzz transport: %d frames, %d responses, %d errors, %d closed, heap max %.0f MB%n",
                                      i, responses.get(), errors.get(), closedByNode.get(), maxHeapMb);
                }
                Random r = new Random(seed * 0x9E3779B97F4A7C15L + i);
                if (conn == null || conn.dead)
                {
                    if (conn != null)
                        conn.close();
                    conn = new Conn(member);
                }
                if (r.nextInt(1000) < 5)
                {
                    // a connection from a non-member: one request, one ERROR, then the node closes it
                    strangerConns++;
                    Conn s = new Conn(stranger);
                    s.send(FrameCodec.encode(new Frame(Frame.Kind.REQUEST, i, Verbs.SNAPSHOT, payloads.get(Verbs.SNAPSHOT).get(0)), Integer.MAX_VALUE), true);
                    if (s.awaitClosedByNode(10_000) && errors.get() > 0)
                        strangerRefused++;
                    else
                        notClosed++;
                    s.close();
                    sent++;
                    continue;
                }
                int verb = r.nextInt(20) == 0 ? r.nextInt(65536) : verbs.get(r.nextInt(verbs.size()));
                List<byte[]> seeds = payloads.getOrDefault(verb, corpus);
                byte[] payload = r.nextInt(10) == 0 ? seeds.get(r.nextInt(seeds.size())) : Mutator.mutate(seeds.get(r.nextInt(seeds.size())), corpus, false, r);
                byte[] frame = FrameCodec.encode(new Frame(Frame.Kind.REQUEST, i, verb, payload), Integer.MAX_VALUE);
                boolean bad = r.nextInt(20) == 0;
                boolean truncated = false;
                if (bad)
                {
                    conn.drain(); // every earlier request answered first: the close must not swallow their answers
                    byte[] c = corruptFrame(frame, r);
                    truncated = c.length < frame.length;
                    frame = c;
                    corrupt++;
                }
                if (!conn.send(frame, !bad))
                    crashes += stalled ? 1 : 0;
                sent++;
                if (truncated)
                {
                    truncatedSent++;
                    conn.close(); // the node sees the truncation at end of stream
                }
                else if (bad)
                {
                    if (conn.awaitClosedByNode(10_000))
                        corruptRejected++;
                    else
                        notClosed++; // a malformed frame the node did not reject: reported, counts as a failure
                    conn.close();
                }
                if (stalled)
                    break;
            }
        }
        finally
        {
            if (conn != null)
                conn.close();
        }
        boolean cqlEnd = cqlServes(cqlHost, cqlPort);
        boolean portEnd = transportAnswers();
        double heapEnd;
        try (JmxClient jmx = JmxClient.connect(host, jmxPort))
        {
            heapEnd = heapMb(jmx);
        }
        maxHeapMb = Math.max(maxHeapMb, heapEnd);
        boolean alive = cqlEnd && portEnd;
        crashes += notClosed > 0 ? 1 : 0; // not a crash, but a failed rejection must fail the run too
        if (!alive || stalled)
            crashes = Math.max(crashes, 1);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("target", "transport " + host + ":" + port);
        m.put("inputs", sent);
        m.put("rejected", errors.get() + corruptRejected + truncatedSent); // stranger requests are among the errors
        m.put("responses", responses.get());
        m.put("errors", errors.get());
        m.put("connections_closed_by_node", closedByNode.get());
        m.put("frame_level_corruptions", corrupt);
        m.put("corrupt_frames_rejected_by_close", corruptRejected);
        m.put("corrupt_frames_not_rejected", notClosed);
        m.put("truncated_frames", truncatedSent);
        m.put("stranger_connections", strangerConns);
        m.put("stranger_connections_refused_and_closed", strangerRefused);
        m.put("unanswered", sent - responses.get() - errors.get() - corruptRejected - truncatedSent);
        m.put("crashes", crashes);
        m.put("node_alive", alive);
        m.put("max_heap_mb", Math.round(maxHeapMb));
        m.put("cql_checks", cqlChecks + 1);
        m.put("cql_failures", cqlFailures + (cqlEnd ? 0 : 1));
        m.put("seed", seed);
        m.put("seconds", Math.round((io.elect.core.util.Clock.SYSTEM.nanoTime() - start) / 1e9));
        return m;
    }

    /** Valid request payloads of every verb (the mutator's seeds), from the same samples as the decoder targets. */
    static Map<Integer, List<byte[]>> payloadSeeds()
    {
        Map<Integer, List<byte[]>> m = new LinkedHashMap<>();
        Map<String, byte[]> byTarget = new LinkedHashMap<>();
        for (FuzzTarget t : Targets.messages())
            byTarget.put(t.name(), t.seeds().get(0));
        m.put(Verbs.READ_MEMBER, List.of(byTarget.get("verb-read-member")));
        m.put(Verbs.SNAPSHOT, List.of(byTarget.get("verb-snapshot")));
        for (int v : new int[]{ Verbs.PIN, Verbs.COMMIT, Verbs.ROLLBACK })
            m.put(v, List.of(byTarget.get("verb-member")));
        m.put(Verbs.BUILD_PARITY, List.of(byTarget.get("verb-build-parity")));
        m.put(Verbs.STUB, List.of(byTarget.get("verb-stub")));
        m.put(Verbs.STUB_INSTALL, List.of(byTarget.get("verb-stub")));
        m.put(Verbs.DROP_PARITY, List.of(byTarget.get("verb-drop-parity")));
        m.put(Verbs.OFFLOAD_PARITY, List.of(byTarget.get("verb-offload")));
        m.put(Verbs.OFFLOAD_PRIMARY, List.of(byTarget.get("verb-offload")));
        m.put(Verbs.STRIPE_STATUS, List.of(byTarget.get("verb-stripe-status")));
        for (int v : new int[]{ Verbs.STUB_PURGE, Verbs.STUB_REMOVE, Verbs.RETIRE_MEMBERS })
            m.put(v, List.of(byTarget.get("verb-stripe-ref")));
        m.put(Verbs.PARITY_CHANGE, List.of(byTarget.get("verb-parity-change")));
        m.put(Verbs.STUB_RELAYOUT, List.of(byTarget.get("verb-stub-relayout")));
        m.put(Verbs.MERGE_MEMBER, List.of(byTarget.get("verb-merge-member")));
        m.put(Verbs.STUB_MATERIALIZE, List.of(byTarget.get("verb-stub-materialize")));
        m.put(Verbs.MEMBER_DELTA, List.of(byTarget.get("verb-member-delta")));
        for (int v : new int[]{ Verbs.REMOVE_MEMBER, Verbs.DESCRIBE_MEMBER })
            m.put(v, List.of(byTarget.get("verb-member")));
        return m;
    }

    /** A frame-level defect: length, magic, version, kind, checksum, a huge length, or truncation. */
    static byte[] corruptFrame(byte[] f, Random r)
    {
        byte[] b = f.clone();
        ByteBuffer bb = ByteBuffer.wrap(b);
        switch (r.nextInt(7))
        {
            case 0 -> bb.putInt(0, r.nextInt(18));
            case 1 -> bb.putInt(0, Integer.MAX_VALUE - r.nextInt(1000));
            case 2 -> b[4] ^= 0x40;
            case 3 -> b[6] = (byte) (2 + r.nextInt(200));
            case 4 -> b[7] = (byte) (r.nextBoolean() ? 0 : 2 + r.nextInt(2)); // kind 0, or RESPONSE/ERROR to a server
            case 5 -> b[b.length - 1 - r.nextInt(Math.min(b.length - 4, 8))] ^= (byte) (1 + r.nextInt(255));
            default -> b = java.util.Arrays.copyOf(b, 4 + r.nextInt(b.length - 4));
        }
        if (b.length > 8 && (b[7] == 2 || b[7] == 3) && r.nextBoolean())
        {
            CRC32C crc = new CRC32C(); // a well-formed RESPONSE/ERROR: rejected for its kind, not its checksum
            crc.update(b, 4, b.length - 8);
            ByteBuffer.wrap(b).putInt(b.length - 4, (int) crc.getValue());
        }
        return b;
    }

    /** One connection from a chosen source address, with a reader thread counting the node's answers. */
    private final class Conn
    {
        final Socket socket = new Socket();
        final OutputStream out;
        final Semaphore permits = new Semaphore(window);
        final Thread reader;
        volatile boolean dead;

        Conn(InetAddress source) throws IOException
        {
            socket.setSoLinger(true, 0); // RST on close: a million connections leave no TIME_WAIT behind on our side
            socket.setTcpNoDelay(true);
            socket.bind(new InetSocketAddress(source, 0));
            socket.connect(new InetSocketAddress(host, port), 10_000);
            out = socket.getOutputStream();
            reader = new Thread(this::read, "fuzz-reader");
            reader.setDaemon(true);
            reader.start();
        }

        /** Waits until every request sent on this connection was answered (or the connection ended). */
        void drain() throws InterruptedException
        {
            long end = io.elect.core.util.Clock.SYSTEM.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!dead && !permits.tryAcquire(window, 1, TimeUnit.SECONDS))
                if (io.elect.core.util.Clock.SYSTEM.nanoTime() > end)
                {
                    stalled = true;
                    return;
                }
            if (!dead)
                permits.release(window);
        }

        /** Whether the node closed this connection within the time (the reader saw its end of stream). */
        boolean awaitClosedByNode(long millis) throws InterruptedException
        {
            reader.join(millis);
            return !reader.isAlive();
        }

        /** Sends a frame; waits for a window slot if it expects an answer. False if the node stopped answering. */
        boolean send(byte[] frame, boolean answered)
        {
            try
            {
                if (answered)
                {
                    while (!permits.tryAcquire(1, TimeUnit.SECONDS))
                    {
                        if (dead)
                            return true;
                        if (io.elect.core.util.Clock.SYSTEM.nanoTime() - lastAnswerNanos.get() > TimeUnit.SECONDS.toNanos(30))
                        {
                            stalled = true;
                            return false;
                        }
                    }
                }
                out.write(frame);
                return true;
            }
            catch (IOException e)
            {
                dead = true;
                return true;
            }
            catch (InterruptedException e)
            {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        void read()
        {
            try
            {
                DataInputStream in = new DataInputStream(socket.getInputStream());
                while (true)
                {
                    int len = in.readInt();
                    if (len < FrameCodec.OVERHEAD || len + 4 > maxFrame)
                        throw new IOException("node sent a frame of length " + len);
                    byte[] body = new byte[len];
                    in.readFully(body);
                    Frame f = FrameCodec.decodeBody(body);
                    (f.kind() == Frame.Kind.ERROR ? errors : responses).incrementAndGet();
                    lastAnswerNanos.set(io.elect.core.util.Clock.SYSTEM.nanoTime());
                    permits.release();
                }
            }
            catch (IOException | RuntimeException e)
            {
                if (!dead)
                    closedByNode.incrementAndGet();
                lastAnswerNanos.set(io.elect.core.util.Clock.SYSTEM.nanoTime());
                dead = true;
                permits.release(window);
            }
        }

        void close()
        {
            dead = true;
            try
            {
                socket.close();
            }
            catch (IOException e)
            {
                // closing anyway
            }
        }
    }

    /** A well-formed SNAPSHOT request from the member address gets an answer (RESPONSE or ERROR) within 20 s. */
    boolean transportAnswers()
    {
        try (Socket s = new Socket())
        {
            s.bind(new InetSocketAddress(member, 0));
            s.connect(new InetSocketAddress(host, port), 10_000);
            s.setSoTimeout(20_000);
            s.getOutputStream().write(FrameCodec.encode(new Frame(Frame.Kind.REQUEST, 1, Verbs.SNAPSHOT,
                                                                  new SnapshotRequest(Targets.TABLE).encode()), 1 << 20));
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] body = new byte[in.readInt()];
            in.readFully(body);
            return FrameCodec.decodeBody(body).requestId() == 1;
        }
        catch (IOException | RuntimeException e)
        {
            return false;
        }
    }

    /** The node answers {@code SELECT release_version FROM system.local} over CQL native protocol v4 with rows. */
    static boolean cqlServes(String host, int port)
    {
        try (Socket s = new Socket())
        {
            s.connect(new InetSocketAddress(host, port), 5_000);
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] startup = cqlBody(w -> { w.putShort((short) 1); putString(w, "CQL_VERSION"); putString(w, "3.0.0"); });
            out.write(cqlFrame(1, 0x01, startup));
            if (readCql(in) != 0x02) // READY
                return false;
            byte[] q = "SELECT release_version FROM system.local".getBytes(StandardCharsets.UTF_8);
            byte[] query = cqlBody(w -> { w.putInt(q.length); w.put(q); w.putShort((short) 1); w.put((byte) 0); });
            out.write(cqlFrame(2, 0x07, query));
            return readCql(in) == 0x08; // RESULT
        }
        catch (IOException e)
        {
            return false;
        }
    }

    private static void putString(ByteBuffer w, String s)
    {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        w.putShort((short) b.length);
        w.put(b);
    }

    private static byte[] cqlBody(java.util.function.Consumer<ByteBuffer> fill)
    {
        ByteBuffer w = ByteBuffer.allocate(512);
        fill.accept(w);
        return java.util.Arrays.copyOf(w.array(), w.position());
    }

    private static byte[] cqlFrame(int stream, int opcode, byte[] body)
    {
        return ByteBuffer.allocate(9 + body.length).put((byte) 0x04).put((byte) 0).putShort((short) stream).put((byte) opcode)
                         .putInt(body.length).put(body).array();
    }

    private static int readCql(DataInputStream in) throws IOException
    {
        byte[] header = new byte[9];
        in.readFully(header);
        int len = ByteBuffer.wrap(header).getInt(5);
        if (len < 0 || len > (1 << 20))
            throw new IOException("CQL frame of " + len + " bytes");
        in.readFully(new byte[len]);
        return header[4] & 0xff;
    }

    static double heapMb(JmxClient jmx)
    {
        try
        {
            CompositeData heap = (CompositeData) jmx.attribute("java.lang:type=Memory", "HeapMemoryUsage");
            return ((Number) heap.get("used")).longValue() / (1024.0 * 1024.0);
        }
        catch (Exception e)
        {
            return 0;
        }
    }
}
