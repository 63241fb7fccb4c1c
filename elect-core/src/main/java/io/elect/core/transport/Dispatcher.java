package io.elect.core.transport;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The server side shared by the transports: runs a REQUEST's handler on a bounded pool (never on a network thread) and
 * answers with a RESPONSE, or an ERROR carrying the handler's message (UTF-8), "unknown verb N", or "overloaded" when
 * {@value #QUEUE} requests already wait (so a flood cannot exhaust the heap; the request fails with REMOTE_ERROR and its
 * caller retries later, at its own level).
 */
final class Dispatcher
{
    static final int QUEUE = 1024;

    private static final org.slf4j.Logger logger = org.slf4j.LoggerFactory.getLogger(Dispatcher.class);

    private final Map<Integer, RequestHandler> handlers = new ConcurrentHashMap<>();
    private final TransportMetrics metrics;
    private final ExecutorService executor;
    private final CallerPolicy policy;
    private final RateLimitedLog refusals = new RateLimitedLog(logger, 10_000);

    Dispatcher(String name, int threads, TransportMetrics metrics, CallerPolicy policy)
    {
        this.metrics = metrics;
        this.policy = java.util.Objects.requireNonNull(policy, "policy");
        AtomicInteger n = new AtomicInteger();
        this.executor = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(QUEUE), r -> {
            Thread t = new Thread(r, name + "-handler-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        ((ThreadPoolExecutor) executor).allowCoreThreadTimeOut(true);
    }

    void register(int verb, RequestHandler h)
    {
        if (verb < 0 || verb > 0xffff)
            throw new IllegalArgumentException("verb must be in [0, 65535], was " + verb);
        handlers.put(verb, java.util.Objects.requireNonNull(h, "handler"));
    }

    /**
     * Serves {@code request} from {@code caller} (already admitted by {@link CallerPolicy#refuseCaller}); {@code reply}
     * is called once, from a handler thread. The policy's per-verb check runs first, on that thread.
     */
    void dispatch(Frame request, Caller caller, Consumer<Frame> reply)
    {
        try
        {
            executor.execute(() -> reply.accept(serve(request, caller)));
        }
        catch (RejectedExecutionException e)
        {
            if (!executor.isShutdown())
            {
                metrics.handlerErrors.incrementAndGet();
                reply.accept(error(request, "overloaded: " + QUEUE + " requests queued"));
            }
            // else closed: the caller times out
        }
    }

    private Frame serve(Frame request, Caller caller)
    {
        String refusal = refusal(request, caller);
        if (refusal != null)
        {
            metrics.refusedRequests.incrementAndGet();
            refusals.warn("ELECT transport: refused {} from {}: {}", Verbs.name(request.verb()), caller, refusal);
            return error(request, "refused: " + refusal);
        }
        RequestHandler h = handlers.get(request.verb());
        if (h == null)
        {
            metrics.handlerErrors.incrementAndGet();
            return error(request, "unknown verb " + request.verb());
        }
        TransportMetrics.VerbMetrics vm = metrics.verb(request.verb());
        vm.bytesIn.add(request.payload().length);
        com.codahale.metrics.Timer.Context timing = vm.latency.time();
        try
        {
            byte[] out = h.handle(request.payload());
            metrics.requestsServed.incrementAndGet();
            vm.served.increment();
            vm.bytesOut.add(out == null ? 0 : out.length);
            return new Frame(Frame.Kind.RESPONSE, request.requestId(), request.verb(), out == null ? new byte[0] : out);
        }
        catch (Exception e)
        {
            metrics.handlerErrors.incrementAndGet();
            vm.errors.increment();
            return error(request, String.valueOf(e));
        }
        finally
        {
            timing.stop();
        }
    }

    private String refusal(Frame request, Caller caller)
    {
        try
        {
            return policy.refuseRequest(caller, request.verb(), request.payload());
        }
        catch (RuntimeException e)
        {
            return "access check failed: " + e;
        }
    }

    static Frame error(Frame request, String message)
    {
        byte[] m = message.getBytes(StandardCharsets.UTF_8);
        if (m.length > 4096)
            m = java.util.Arrays.copyOf(m, 4096);
        return new Frame(Frame.Kind.ERROR, request.requestId(), request.verb(), m);
    }

    /** Encodes a reply; one too large for the frame limit becomes an ERROR saying so (the caller must not wait). */
    static byte[] encodeReply(Frame reply, int maxFrameBytes)
    {
        try
        {
            return FrameCodec.encode(reply, maxFrameBytes);
        }
        catch (IllegalArgumentException e)
        {
            return FrameCodec.encode(error(reply, "response too large: " + e.getMessage()), maxFrameBytes);
        }
    }

    void close()
    {
        executor.shutdownNow();
    }
}
