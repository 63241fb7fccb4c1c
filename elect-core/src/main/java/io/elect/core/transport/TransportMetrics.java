package io.elect.core.transport;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;

import com.codahale.metrics.Timer;

/** Counters of one transport instance, in total and per verb served. Thread-safe. */
public final class TransportMetrics
{
    /** What the server side did for one verb: requests served, handler errors, payload bytes in and out, latency. */
    public static final class VerbMetrics
    {
        public final LongAdder served = new LongAdder();
        public final LongAdder errors = new LongAdder();
        public final LongAdder bytesIn = new LongAdder();
        public final LongAdder bytesOut = new LongAdder();
        /** Handler time, from dispatch to reply. */
        public final Timer latency = new Timer();
    }

    private final Map<Integer, VerbMetrics> verbs = new ConcurrentHashMap<>();
    private final List<BiConsumer<String, VerbMetrics>> verbListeners = new CopyOnWriteArrayList<>();

    public final AtomicLong requestsSent = new AtomicLong();
    public final AtomicLong responsesReceived = new AtomicLong();
    public final AtomicLong remoteErrors = new AtomicLong();
    public final AtomicLong timeouts = new AtomicLong();
    public final AtomicLong retries = new AtomicLong();
    public final AtomicLong requestsServed = new AtomicLong();
    public final AtomicLong handlerErrors = new AtomicLong();
    /** Frames rejected (bad length, magic, version, kind, checksum, or a kind not expected on that side). */
    public final AtomicLong malformedFrames = new AtomicLong();
    /** Requests from callers the policy does not admit (not a ring member, certificate not naming the address). */
    public final AtomicLong refusedCallers = new AtomicLong();
    /** Requests of admitted callers refused for that verb (e.g. not a participant of the stripe concerned). */
    public final AtomicLong refusedRequests = new AtomicLong();
    /** Incoming or outgoing TLS handshakes that failed (no or untrusted certificate, wrong identity, not TLS). */
    public final AtomicLong tlsHandshakeFailures = new AtomicLong();

    /** The metrics of a verb, created on first use (listeners are told). */
    public VerbMetrics verb(int verb)
    {
        VerbMetrics m = verbs.get(verb);
        if (m != null)
            return m;
        synchronized (verbs)
        {
            m = verbs.get(verb);
            if (m == null)
            {
                m = new VerbMetrics();
                verbs.put(verb, m);
                for (BiConsumer<String, VerbMetrics> l : verbListeners)
                    l.accept(Verbs.name(verb), m);
            }
            return m;
        }
    }

    /** Tells {@code listener} of every verb's metrics, those existing now and those created later. */
    public void onVerb(BiConsumer<String, VerbMetrics> listener)
    {
        synchronized (verbs)
        {
            verbListeners.add(listener);
            verbs.forEach((v, m) -> listener.accept(Verbs.name(v), m));
        }
    }

    public Map<String, Long> toMap()
    {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("requests_sent", requestsSent.get());
        m.put("responses_received", responsesReceived.get());
        m.put("remote_errors", remoteErrors.get());
        m.put("timeouts", timeouts.get());
        m.put("retries", retries.get());
        m.put("requests_served", requestsServed.get());
        m.put("handler_errors", handlerErrors.get());
        m.put("malformed_frames", malformedFrames.get());
        m.put("refused_callers", refusedCallers.get());
        m.put("refused_requests", refusedRequests.get());
        m.put("tls_handshake_failures", tlsHandshakeFailures.get());
        return m;
    }

    @Override
    public String toString()
    {
        return toMap().toString();
    }
}
