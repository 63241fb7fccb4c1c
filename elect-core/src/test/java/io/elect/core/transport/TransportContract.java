package io.elect.core.transport;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The {@link Transport} contract, run against every implementation (subclasses make a server and a client).
 */
abstract class TransportContract
{
    static final long SEED = Long.getLong("elect.test.seed", 4242L);
    static final int ECHO = 1, FAIL = 2, SLOW_ONCE = 3, COUNT = 4;
    /** Generous timeout: the build machine is shared and slow; tests of timeouts set their own. */
    static final TransportOptions OPTS = new TransportOptions(2 << 20, 1_500, 2, 10);

    final List<Transport> opened = new ArrayList<>();

    /** A transport listening on its own address. */
    abstract Transport newTransport(TransportOptions options, PeerLiveness liveness);

    /**
     * How much slower than plaintext TCP a fresh connection is (TLS: a handshake per reconnect, on a shared 2-core
     * machine); scales the timeouts of the tests that reconnect often, so they test behaviour, not speed.
     */
    long timeScale()
    {
        return 1;
    }

    TransportOptions opts()
    {
        return timeScale() == 1 ? OPTS : new TransportOptions(OPTS.maxFrameBytes(), OPTS.requestTimeoutMillis() * timeScale(),
                                                              OPTS.retries(), OPTS.retryBackoffMillis());
    }

    @AfterEach
    void closeAll()
    {
        opened.forEach(Transport::close);
    }

    Transport open(TransportOptions options, PeerLiveness liveness)
    {
        Transport t = newTransport(options, liveness);
        opened.add(t);
        return t;
    }

    static byte[] get(CompletableFuture<byte[]> f) throws Exception
    {
        return f.get(20, TimeUnit.SECONDS);
    }

    static TransportException failure(CompletableFuture<byte[]> f)
    {
        try
        {
            f.get(20, TimeUnit.SECONDS);
        }
        catch (ExecutionException e)
        {
            if (e.getCause() instanceof TransportException)
                return (TransportException) e.getCause();
            throw new AssertionError("unexpected failure", e.getCause());
        }
        catch (Exception e)
        {
            throw new AssertionError(e);
        }
        return fail("expected a failure");
    }

    static void eventually(String what, BooleanSupplier cond) throws InterruptedException
    {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!cond.getAsBoolean())
        {
            if (System.nanoTime() > end)
                fail("timed out waiting for: " + what);
            Thread.sleep(5);
        }
    }

    Transport server()
    {
        Transport s = open(opts(), PeerLiveness.ALWAYS);
        s.register(ECHO, p -> p);
        s.register(FAIL, p -> { throw new IllegalStateException("no space left for " + new String(p, StandardCharsets.UTF_8)); });
        return s;
    }

    @Test
    void requestResponseManyConcurrentAndLarge() throws Exception
    {
        Transport s = server();
        Transport c = open(opts(), PeerLiveness.ALWAYS);
        Random rnd = new Random(SEED);
        List<byte[]> sent = new ArrayList<>();
        List<CompletableFuture<byte[]>> got = new ArrayList<>();
        for (int i = 0; i < 300; i++)
        {
            byte[] p = new byte[rnd.nextInt(2000)];
            rnd.nextBytes(p);
            sent.add(p);
            got.add(c.request(s.localPeer(), ECHO, p));
        }
        byte[] big = new byte[(2 << 20) - 22];
        rnd.nextBytes(big);
        assertArrayEquals(big, get(c.request(s.localPeer(), ECHO, big)));
        for (int i = 0; i < sent.size(); i++)
            assertArrayEquals(sent.get(i), get(got.get(i)), "request " + i);
        assertEquals(301, s.metrics().requestsServed.get());
        assertEquals(301, c.metrics().responsesReceived.get());
        assertEquals(0, s.metrics().malformedFrames.get() + c.metrics().malformedFrames.get());
    }

    @Test
    void remoteErrorsAreNotRetried() throws Exception
    {
        Transport s = server();
        AtomicInteger calls = new AtomicInteger();
        s.register(COUNT, p -> { calls.incrementAndGet(); throw new RuntimeException("boom"); });
        Transport c = open(opts(), PeerLiveness.ALWAYS);
        TransportException e = failure(c.request(s.localPeer(), FAIL, "x".getBytes(StandardCharsets.UTF_8)));
        assertEquals(TransportException.Reason.REMOTE_ERROR, e.reason);
        assertTrue(e.getMessage().contains("no space left for x"), e.getMessage());
        failure(c.request(s.localPeer(), COUNT, new byte[0]));
        assertEquals(1, calls.get());
        TransportException unknown = failure(c.request(s.localPeer(), 999, new byte[0]));
        assertTrue(unknown.getMessage().contains("unknown verb 999"), unknown.getMessage());
        assertEquals(0, c.metrics().retries.get());
        // The connection survived the errors.
        assertArrayEquals(new byte[]{ 7 }, get(c.request(s.localPeer(), ECHO, new byte[]{ 7 })));
    }

    @Test
    void timeoutThenRetrySucceeds() throws Exception
    {
        Transport s = server();
        AtomicInteger calls = new AtomicInteger();
        Transport c = open(opts(), PeerLiveness.ALWAYS);
        s.register(SLOW_ONCE, p -> {
            // The first call answers only after the client's timeout has fired, however late the (shared, possibly
            // starved) timer thread runs: a fixed sleep past the timeout raced with it on a loaded machine.
            if (calls.incrementAndGet() == 1)
            {
                long giveUp = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
                while (c.metrics().timeouts.get() == 0 && System.nanoTime() < giveUp)
                    Thread.sleep(5);
            }
            return p;
        });
        assertArrayEquals(new byte[]{ 1, 2 }, get(c.request(s.localPeer(), SLOW_ONCE, new byte[]{ 1, 2 })));
        assertEquals(2, calls.get(), "the handler ran twice: handlers must be idempotent");
        assertEquals(1, c.metrics().retries.get());
        assertTrue(c.metrics().timeouts.get() >= 1);
    }

    @Test
    void retriesExhaustedAndPeerDownAndTooLarge() throws Exception
    {
        Transport s = server();
        s.register(SLOW_ONCE, p -> { Thread.sleep(2_000); return p; });
        Transport c = open(new TransportOptions(2 << 20, 100, 2, 1), PeerLiveness.ALWAYS);
        TransportException e = failure(c.request(s.localPeer(), SLOW_ONCE, new byte[0]));
        assertEquals(TransportException.Reason.TIMEOUT, e.reason);
        assertEquals(2, c.metrics().retries.get());

        Set<Peer> down = ConcurrentHashMap.newKeySet();
        Transport d = open(opts(), p -> !down.contains(p));
        down.add(s.localPeer());
        long served = s.metrics().requestsServed.get();
        assertEquals(TransportException.Reason.PEER_DOWN, failure(d.request(s.localPeer(), ECHO, new byte[1])).reason);
        assertEquals(served, s.metrics().requestsServed.get());

        CompletableFuture<byte[]> tooBig = c.request(s.localPeer(), ECHO, new byte[2 << 20]);
        ExecutionException x = assertThrows(ExecutionException.class, () -> tooBig.get(5, TimeUnit.SECONDS));
        assertTrue(x.getCause() instanceof IllegalArgumentException && x.getCause().getMessage().contains("transport_max_frame_bytes"),
                   String.valueOf(x.getCause()));
    }

    @Test
    void unreachablePeerFailsWithConnection() throws Exception
    {
        Transport s = server();
        Peer gone = s.localPeer();
        s.close();
        Transport c = open(new TransportOptions(1 << 20, 200, 1, 1), PeerLiveness.ALWAYS);
        TransportException e = failure(c.request(gone, ECHO, new byte[1]));
        assertTrue(e.reason == TransportException.Reason.CONNECTION || e.reason == TransportException.Reason.TIMEOUT, e.toString());
        assertEquals(1, c.metrics().retries.get());
    }

    /** Every kind of malformed frame is rejected and counted; the node keeps serving. */
    @Test
    void malformedFramesRejectedCountedNodeUnaffected() throws Exception
    {
        Transport s = server();
        Transport c = open(opts(), PeerLiveness.ALWAYS);
        byte[] good = FrameCodec.encode(new Frame(Frame.Kind.REQUEST, 9, ECHO, "hello".getBytes(StandardCharsets.UTF_8)), OPTS.maxFrameBytes());
        List<byte[]> bad = new ArrayList<>();
        byte[] crc = good.clone();
        crc[crc.length - 6] ^= 1; // payload bit: CRC mismatch
        bad.add(crc);
        byte[] magic = good.clone();
        magic[4] ^= 0x40;
        bad.add(magic);
        byte[] version = good.clone();
        version[6] = 2;
        bad.add(version);
        byte[] kind = good.clone();
        kind[7] = 9;
        bad.add(kind);
        bad.add(ByteBuffer.allocate(8).putInt(OPTS.maxFrameBytes()).putInt(0).array()); // longer than the limit
        bad.add(ByteBuffer.allocate(8).putInt(3).putInt(0).array());                     // shorter than a header
        bad.add(FrameCodec.encode(new Frame(Frame.Kind.RESPONSE, 9, ECHO, new byte[3]), OPTS.maxFrameBytes())); // wrong side
        byte[] garbage = new byte[64];
        new Random(SEED).nextBytes(garbage);
        garbage[0] = 0x7f; // a huge length
        bad.add(garbage);
        for (int i = 0; i < bad.size(); i++)
        {
            long before = s.metrics().malformedFrames.get();
            c.sendRawFrame(s.localPeer(), bad.get(i));
            int n = i;
            eventually("malformed frame " + n + " counted " + Arrays.toString(Arrays.copyOf(bad.get(n), 8)),
                       () -> s.metrics().malformedFrames.get() == before + 1);
            assertArrayEquals("ok".getBytes(StandardCharsets.UTF_8), get(c.request(s.localPeer(), ECHO, "ok".getBytes(StandardCharsets.UTF_8))));
        }
        assertEquals(bad.size(), s.metrics().malformedFrames.get());
        assertEquals(bad.size(), s.metrics().requestsServed.get());
    }

    /** Seeded drops, lost responses, delays and corrupt frames: every idempotent request still completes correctly. */
    @Test
    void faultInjectionRetriedThrough() throws Exception
    {
        System.out.println(getClass().getSimpleName() + " seed=" + SEED + " (rerun with -Delect.test.seed=" + SEED + ")");
        Transport s = server();
        Set<String> applied = ConcurrentHashMap.newKeySet();
        AtomicInteger runs = new AtomicInteger();
        s.register(COUNT, p -> {
            runs.incrementAndGet();
            applied.add(new String(p, StandardCharsets.UTF_8)); // idempotent: a set
            return p;
        });
        TransportOptions o = new TransportOptions(1 << 20, 150 * timeScale(), 12, 5);
        FaultInjectingTransport c = new FaultInjectingTransport(open(o, PeerLiveness.ALWAYS), SEED, 0.1, 0.1, 0.1, 20);
        List<CompletableFuture<byte[]>> got = new ArrayList<>();
        for (int i = 0; i < 200; i++)
            got.add(c.request(s.localPeer(), COUNT, ("k" + i).getBytes(StandardCharsets.UTF_8)));
        for (int i = 0; i < got.size(); i++)
            assertEquals("k" + i, new String(get(got.get(i)), StandardCharsets.UTF_8));
        assertEquals(200, applied.size());
        assertTrue(c.droppedRequests.get() > 0 && c.droppedResponses.get() > 0 && c.corruptedFrames.get() > 0 && c.delayed.get() > 0,
                   "every fault kind injected");
        assertTrue(runs.get() >= 200 + c.droppedResponses.get(), "lost responses re-ran their handlers");
        eventually("every corrupt frame counted", () -> s.metrics().malformedFrames.get() == c.corruptedFrames.get());
        System.out.println("faults: " + c.droppedRequests + " dropped, " + c.droppedResponses + " lost responses, "
                           + c.corruptedFrames + " corrupt, " + c.delayed + " delayed; client " + c.metrics());
    }

    /** A flood beyond the handler queue is answered "overloaded" instead of queueing without bound; then all is well. */
    @Test
    void overloadIsRefusedNotQueuedWithoutBound() throws Exception
    {
        Transport s = server();
        java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
        s.register(SLOW_ONCE, p -> { gate.await(); return p; });
        Transport c = open(new TransportOptions(1 << 20, 20_000, 0, 1), PeerLiveness.ALWAYS);
        List<CompletableFuture<byte[]>> got = new ArrayList<>();
        for (int i = 0; i < Dispatcher.QUEUE + 100; i++)
            got.add(c.request(s.localPeer(), SLOW_ONCE, new byte[]{ (byte) i }));
        eventually("overload refusals", () -> got.stream().filter(CompletableFuture::isCompletedExceptionally).count() >= 90);
        gate.countDown();
        int ok = 0, refused = 0;
        for (CompletableFuture<byte[]> f : got)
        {
            try
            {
                f.get(20, TimeUnit.SECONDS);
                ok++;
            }
            catch (ExecutionException e)
            {
                assertTrue(e.getCause().getMessage().contains("overloaded"), e.getCause().toString());
                refused++;
            }
        }
        assertEquals(Dispatcher.QUEUE + 100, ok + refused);
        assertTrue(ok >= Dispatcher.QUEUE && refused >= 90, ok + " served, " + refused + " refused");
        assertArrayEquals(new byte[]{ 5 }, get(c.request(s.localPeer(), ECHO, new byte[]{ 5 })));
    }
}
