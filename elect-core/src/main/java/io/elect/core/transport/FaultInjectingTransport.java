package io.elect.core.transport;

import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A decorator that injects faults into each attempt ({@link #requestOnce}), so {@link #request} retries through them.
 * Faults, drawn from one seeded {@link Random} (deterministic decisions for a seed; timing is real):
 * <ul>
 * <li>drop the request: it never leaves; the attempt times out;</li>
 * <li>drop the response: the request RUNS on the peer, its response is lost; the attempt times out (so retries make
 * handlers run twice: the idempotency contract is exercised);</li>
 * <li>delay: the request leaves after a random delay up to {@code maxDelayMillis};</li>
 * <li>corrupt: one bit of the encoded frame is flipped and the bytes are sent raw; the peer must reject the frame,
 * count it and close the connection; the attempt fails with CONNECTION.</li>
 * </ul>
 */
public final class FaultInjectingTransport implements Transport
{
    private final Transport inner;
    private final Random random;
    private final double dropRequest;
    private final double dropResponse;
    private final double corrupt;
    private final long maxDelayMillis;
    public final AtomicLong droppedRequests = new AtomicLong();
    public final AtomicLong droppedResponses = new AtomicLong();
    public final AtomicLong corruptedFrames = new AtomicLong();
    public final AtomicLong delayed = new AtomicLong();

    public FaultInjectingTransport(Transport inner, long seed, double dropRequest, double dropResponse, double corrupt,
                                   long maxDelayMillis)
    {
        this.inner = java.util.Objects.requireNonNull(inner, "inner");
        this.random = new Random(seed);
        this.dropRequest = probability("dropRequest", dropRequest);
        this.dropResponse = probability("dropResponse", dropResponse);
        this.corrupt = probability("corrupt", corrupt);
        if (maxDelayMillis < 0)
            throw new IllegalArgumentException("maxDelayMillis must be >= 0, was " + maxDelayMillis);
        this.maxDelayMillis = maxDelayMillis;
    }

    private static double probability(String name, double p)
    {
        if (Double.isNaN(p) || p < 0 || p > 1)
            throw new IllegalArgumentException(name + " must be in [0, 1], was " + p);
        return p;
    }

    @Override
    public CompletableFuture<byte[]> requestOnce(Peer peer, int verb, byte[] payload, long timeoutMillis)
    {
        double u;
        long delay;
        int bit;
        synchronized (random)
        {
            u = random.nextDouble();
            delay = maxDelayMillis == 0 ? 0 : (long) (random.nextDouble() * maxDelayMillis);
            bit = random.nextInt(Integer.MAX_VALUE);
        }
        if (u < dropRequest)
        {
            droppedRequests.incrementAndGet();
            return timeoutAfter(peer, timeoutMillis);
        }
        if (u < dropRequest + corrupt)
        {
            corruptedFrames.incrementAndGet();
            byte[] frame = FrameCodec.encode(new Frame(Frame.Kind.REQUEST, 0, verb, payload), inner.options().maxFrameBytes());
            frame[bit % frame.length] ^= (byte) (1 << (bit % 8));
            inner.sendRawFrame(peer, frame);
            return CompletableFuture.failedFuture(new TransportException(TransportException.Reason.CONNECTION,
                                                                         "injected: corrupt frame to " + peer));
        }
        if (u < dropRequest + corrupt + dropResponse)
        {
            droppedResponses.incrementAndGet();
            inner.requestOnce(peer, verb, payload, timeoutMillis);
            return timeoutAfter(peer, timeoutMillis);
        }
        if (delay == 0)
            return inner.requestOnce(peer, verb, payload, timeoutMillis);
        delayed.incrementAndGet();
        CompletableFuture<byte[]> out = new CompletableFuture<>();
        Retrier.TIMER.schedule(() -> inner.requestOnce(peer, verb, payload, Math.max(1, timeoutMillis - delay)).whenComplete((r, e) -> {
            if (e == null)
                out.complete(r);
            else
                out.completeExceptionally(Retrier.unwrap(e));
        }), delay, TimeUnit.MILLISECONDS);
        return out;
    }

    private CompletableFuture<byte[]> timeoutAfter(Peer peer, long timeoutMillis)
    {
        CompletableFuture<byte[]> out = new CompletableFuture<>();
        Retrier.TIMER.schedule(() -> {
            inner.metrics().timeouts.incrementAndGet();
            out.completeExceptionally(new TransportException(TransportException.Reason.TIMEOUT, "injected: no response from " + peer));
        }, timeoutMillis, TimeUnit.MILLISECONDS);
        return out;
    }

    @Override
    public Peer localPeer()
    {
        return inner.localPeer();
    }

    @Override
    public void register(int verb, RequestHandler handler)
    {
        inner.register(verb, handler);
    }

    @Override
    public void sendRawFrame(Peer peer, byte[] bytes)
    {
        inner.sendRawFrame(peer, bytes);
    }

    @Override
    public TransportOptions options()
    {
        return inner.options();
    }

    @Override
    public PeerLiveness liveness()
    {
        return inner.liveness();
    }

    @Override
    public TransportMetrics metrics()
    {
        return inner.metrics();
    }

    @Override
    public void close()
    {
        inner.close();
    }
}
