package io.elect.core.transport;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every {@link Transport} shares: options, liveness, metrics, the handler pool, request ids, and the start of a
 * request (frame encoding, the closed check, the timeout). Subclasses only move bytes.
 */
abstract class AbstractTransport implements Transport
{
    protected final TransportOptions options;
    protected final PeerLiveness liveness;
    protected final TransportMetrics metrics = new TransportMetrics();
    protected final Dispatcher dispatcher;
    private final AtomicLong nextId = new AtomicLong(1);
    protected volatile boolean closed;

    protected AbstractTransport(String threadName, TransportOptions options, PeerLiveness liveness, CallerPolicy policy)
    {
        this.options = Objects.requireNonNull(options, "options");
        this.liveness = Objects.requireNonNull(liveness, "liveness");
        this.dispatcher = new Dispatcher(threadName, 4, metrics, policy);
    }

    /** A request that was encoded and given a timeout; {@code result} is already failed if the transport is closed. */
    protected record Outgoing(long id, byte[] bytes, CompletableFuture<byte[]> result)
    {
    }

    /**
     * Encodes a request frame and arms its timeout (counted in {@link TransportMetrics#timeouts}); the timer is
     * cancelled when the result completes either way.
     */
    protected Outgoing startRequest(Peer peer, int verb, byte[] payload, long timeoutMillis)
    {
        long id = nextId.getAndIncrement();
        byte[] bytes = FrameCodec.encode(new Frame(Frame.Kind.REQUEST, id, verb, payload), options.maxFrameBytes());
        CompletableFuture<byte[]> result = new CompletableFuture<>();
        if (closed)
        {
            result.completeExceptionally(new TransportException(TransportException.Reason.CLOSED, "transport closed"));
            return new Outgoing(id, bytes, result);
        }
        var timeout = Retrier.TIMER.schedule(() -> {
            if (result.completeExceptionally(new TransportException(TransportException.Reason.TIMEOUT,
                                                                    "no response from " + peer + " to verb " + verb + " in " + timeoutMillis + " ms")))
                metrics.timeouts.incrementAndGet();
        }, timeoutMillis, TimeUnit.MILLISECONDS);
        result.whenComplete((r, e) -> timeout.cancel(false));
        return new Outgoing(id, bytes, result);
    }

    @Override
    public void register(int verb, RequestHandler handler)
    {
        dispatcher.register(verb, handler);
    }

    @Override
    public TransportOptions options()
    {
        return options;
    }

    @Override
    public PeerLiveness liveness()
    {
        return liveness;
    }

    @Override
    public TransportMetrics metrics()
    {
        return metrics;
    }
}
