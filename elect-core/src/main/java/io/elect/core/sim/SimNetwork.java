package io.elect.core.sim;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import io.elect.core.transport.Frame;
import io.elect.core.transport.FrameCodec;
import io.elect.core.transport.MalformedFrameException;
import io.elect.core.transport.Peer;
import io.elect.core.transport.PeerLiveness;
import io.elect.core.transport.RequestHandler;
import io.elect.core.transport.Transport;
import io.elect.core.transport.TransportException;
import io.elect.core.transport.TransportMetrics;
import io.elect.core.transport.TransportOptions;
import io.elect.core.transport.Verbs;
import io.elect.core.util.ManualClock;

/**
 * The simulation's network: every request is delivered on the caller's thread, its handler runs inline on the
 * receiver, and its response (or error) comes back before {@link Transport#requestOnce} returns, so that a node's
 * logic (which waits on futures) runs to completion in one deterministic step. Frames are encoded and validated as on
 * TCP ({@link FrameCodec}). Faults are drawn from the simulation's one seeded {@link Random}:
 * <ul>
 * <li>a request to a node that is down, or across a partition, fails at once with CONNECTION;</li>
 * <li>a dropped request or response times out: the manual clock advances by the request timeout (the handler ran
 *     if only the response was dropped, so retries run handlers twice: idempotency is exercised);</li>
 * <li>a duplicated request runs its handler twice (the second answer is kept);</li>
 * <li>a delay advances the clock before delivery.</li>
 * </ul>
 * {@link Transport#request} retries synchronously (timeouts and lost connections, up to the configured retries),
 * with the back-off added to the clock. Not thread-safe: the simulation is single-threaded.
 */
final class SimNetwork
{
    /** Fault rates of message delivery (probabilities per attempt); NONE for a healed network. */
    record Faults(double dropRequest, double dropResponse, double duplicate, double delay, long maxDelayMillis)
    {
        static final Faults NONE = new Faults(0, 0, 0, 0, 0);
    }

    private final Random random;
    private final ManualClock clock;
    private final TransportOptions options;
    private final Map<String, Endpoint> endpoints = new TreeMap<>();
    /** Unordered pairs "a|b" (a < b) that cannot talk. */
    private final Set<String> partitions = new HashSet<>();
    private final Predicate<String> up;
    private Faults faults = Faults.NONE;
    private long messages;
    /**
     * Per requesting node: the peers a request to which timed out on every attempt (retries exhausted) since
     * {@link #clearLost}. With message loss on, a live peer can be unavailable to one read this way (the
     * invariants count it like a down node).
     */
    private final Map<String, Set<String>> lost = new TreeMap<>();

    /** @param up whether a node's process is running (down nodes neither send nor answer) */
    SimNetwork(Random random, ManualClock clock, TransportOptions options, Predicate<String> up)
    {
        this.random = random;
        this.clock = clock;
        this.options = options;
        this.up = up;
    }

    void setFaults(Faults f)
    {
        faults = Objects.requireNonNull(f);
    }

    long messages()
    {
        return messages;
    }

    void clearLost(String requester)
    {
        lost.remove(requester);
    }

    /** The peers whose requests from {@code requester} exhausted their retries since clearLost. */
    Set<String> lost(String requester)
    {
        return lost.getOrDefault(requester, Set.of());
    }

    /** The endpoint of node {@code id} (port {@code port}), created once; its handlers survive nothing: see reset. */
    Endpoint endpoint(String id, int port)
    {
        return endpoints.computeIfAbsent(id, x -> new Endpoint(new Peer(id, port)));
    }

    /** Forgets the node's handlers (its process died): a restarted node registers them again. */
    void reset(String id)
    {
        Endpoint e = endpoints.get(id);
        if (e != null)
            e.handlers.clear();
    }

    static String pair(String a, String b)
    {
        return a.compareTo(b) < 0 ? a + "|" + b : b + "|" + a;
    }

    void partition(String a, String b)
    {
        partitions.add(pair(a, b));
    }

    void heal()
    {
        partitions.clear();
    }

    boolean partitioned(String a, String b)
    {
        return partitions.contains(pair(a, b));
    }

    Set<String> partitions()
    {
        return Set.copyOf(partitions);
    }

    /** One node's transport. */
    final class Endpoint implements Transport
    {
        private final Peer local;
        private final Map<Integer, RequestHandler> handlers = new ConcurrentHashMap<>();
        private final TransportMetrics metrics = new TransportMetrics();
        private PeerLiveness liveness = PeerLiveness.ALWAYS;
        private long nextId = 1;

        Endpoint(Peer local)
        {
            this.local = local;
        }

        void setLiveness(PeerLiveness l)
        {
            liveness = l;
        }

        @Override
        public Peer localPeer()
        {
            return local;
        }

        @Override
        public void register(int verb, RequestHandler handler)
        {
            handlers.put(verb, handler);
        }

        /** The handler of a verb (the simulation's sabotage wraps some). */
        RequestHandler handler(int verb)
        {
            return handlers.get(verb);
        }

        @Override
        public CompletableFuture<byte[]> requestOnce(Peer peer, int verb, byte[] payload, long timeoutMillis)
        {
            messages++;
            metrics.requestsSent.incrementAndGet();
            byte[] frame = FrameCodec.encode(new Frame(Frame.Kind.REQUEST, nextId++, verb, payload), options.maxFrameBytes());
            Endpoint target = endpoints.get(peer.host());
            if (!up.test(local.host()))
                return failed(TransportException.Reason.CLOSED, local + " is down");
            if (target == null || !up.test(peer.host()) || partitioned(local.host(), peer.host()))
                return failed(TransportException.Reason.CONNECTION, "no route from " + local + " to " + peer + " (simulated)");
            double u = random.nextDouble();
            if (u < faults.dropRequest())
                return timeout(peer, timeoutMillis);
            if (u < faults.dropRequest() + faults.delay())
                clock.advance(1 + random.nextInt((int) Math.max(1, faults.maxDelayMillis())), TimeUnit.MILLISECONDS);
            Frame response = target.serve(frame);
            if (random.nextDouble() < faults.duplicate())
                response = target.serve(frame);
            if (random.nextDouble() < faults.dropResponse())
                return timeout(peer, timeoutMillis);
            if (response.kind() == Frame.Kind.RESPONSE)
            {
                metrics.responsesReceived.incrementAndGet();
                return CompletableFuture.completedFuture(response.payload());
            }
            metrics.remoteErrors.incrementAndGet();
            return failed(TransportException.Reason.REMOTE_ERROR, new String(response.payload(), StandardCharsets.UTF_8));
        }

        /** Server side: validate the frame, run the handler inline. */
        private Frame serve(byte[] bytes)
        {
            Frame f;
            try
            {
                f = FrameCodec.decode(bytes, options.maxFrameBytes());
            }
            catch (MalformedFrameException e)
            {
                metrics.malformedFrames.incrementAndGet();
                return new Frame(Frame.Kind.ERROR, 0, 0, ("malformed frame: " + e.getMessage()).getBytes(StandardCharsets.UTF_8));
            }
            RequestHandler h = handlers.get(f.verb());
            TransportMetrics.VerbMetrics vm = metrics.verb(f.verb());
            vm.bytesIn.add(f.payload().length);
            if (h == null)
            {
                metrics.handlerErrors.incrementAndGet();
                vm.errors.increment();
                return error(f, "unknown verb " + Verbs.name(f.verb()));
            }
            try
            {
                byte[] out = h.handle(f.payload());
                metrics.requestsServed.incrementAndGet();
                vm.served.increment();
                vm.bytesOut.add(out == null ? 0 : out.length);
                return new Frame(Frame.Kind.RESPONSE, f.requestId(), f.verb(), out == null ? new byte[0] : out);
            }
            catch (Exception e)
            {
                metrics.handlerErrors.incrementAndGet();
                vm.errors.increment();
                return error(f, String.valueOf(e));
            }
        }

        private Frame error(Frame request, String message)
        {
            byte[] m = message.getBytes(StandardCharsets.UTF_8);
            if (m.length > 4096)
                m = java.util.Arrays.copyOf(m, 4096);
            return new Frame(Frame.Kind.ERROR, request.requestId(), request.verb(), m);
        }

        private CompletableFuture<byte[]> timeout(Peer peer, long timeoutMillis)
        {
            clock.advance(timeoutMillis, TimeUnit.MILLISECONDS);
            metrics.timeouts.incrementAndGet();
            return failed(TransportException.Reason.TIMEOUT, "no response from " + peer + " within " + timeoutMillis + " ms (simulated)");
        }

        private CompletableFuture<byte[]> failed(TransportException.Reason reason, String message)
        {
            return CompletableFuture.failedFuture(new TransportException(reason, message));
        }

        /** Retries timed-out and lost attempts synchronously, adding the back-off to the clock. */
        @Override
        public CompletableFuture<byte[]> request(Peer peer, int verb, byte[] payload)
        {
            for (int n = 0; ; n++)
            {
                if (!liveness.isAlive(peer))
                    return failed(TransportException.Reason.PEER_DOWN, peer + " is down");
                CompletableFuture<byte[]> once = requestOnce(peer, verb, payload, options.requestTimeoutMillis());
                if (!once.isCompletedExceptionally())
                    return once;
                Throwable c = once.handle((r, e) -> e).join();
                while (c instanceof java.util.concurrent.CompletionException && c.getCause() != null)
                    c = c.getCause();
                if (!(c instanceof TransportException) || !((TransportException) c).retriable() || n >= options.retries())
                {
                    if (c instanceof TransportException && ((TransportException) c).retriable())
                        lost.computeIfAbsent(local.host(), x -> new HashSet<>()).add(peer.host());
                    return once;
                }
                metrics.retries.incrementAndGet();
                clock.advance(options.retryBackoffMillis() * (n + 1), TimeUnit.MILLISECONDS);
            }
        }

        @Override
        public void sendRawFrame(Peer peer, byte[] bytes)
        {
            Endpoint target = endpoints.get(peer.host());
            if (target != null && up.test(peer.host()))
                target.serve(bytes);
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

        @Override
        public void close()
        {
            handlers.clear();
        }
    }
}
