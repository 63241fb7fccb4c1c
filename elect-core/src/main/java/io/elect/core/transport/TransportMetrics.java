package io.elect.core.transport;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** Counters of one transport instance. Thread-safe. */
public final class TransportMetrics
{
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
