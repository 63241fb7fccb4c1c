package io.elect.core.transport;

import java.util.concurrent.CompletableFuture;

/**
 * Node-to-node ELECT messages: request/response by verb, over frames that are versioned, checksummed and
 * length-limited (docs/formats/transport.md). Never Java serialization: payloads are bytes that each verb's owner
 * encodes with its own documented format.
 *
 * <p>Implementations: {@link NettyTransport} (TCP), {@link InMemoryTransport} (one JVM, same frames, for tests) and
 * {@link FaultInjectingTransport} (a decorator: drops, delays, corrupt frames). Thread-safe.
 *
 * <p>Delivery: {@link #request} retries timed-out or disconnected attempts up to {@code retries} times, so a request
 * may run more than once on the peer: handlers are idempotent by contract. A remote handler error, an unknown verb or
 * a peer that {@link PeerLiveness} reports down fails at once.
 */
public interface Transport extends AutoCloseable
{
    /** Where this transport listens (the real port if it was bound to port 0). */
    Peer localPeer();

    /** Serves {@code verb}; replaces an earlier handler of the same verb. */
    void register(int verb, RequestHandler handler);

    /** One attempt: completes with the response payload or a {@link TransportException}. */
    CompletableFuture<byte[]> requestOnce(Peer peer, int verb, byte[] payload, long timeoutMillis);

    /**
     * Writes {@code bytes} as they are to {@code peer} on a connection of their own, then closes it. A seam for fault
     * injection and tests of the receiver's rejection of malformed frames; never used for real traffic.
     */
    void sendRawFrame(Peer peer, byte[] bytes);

    TransportOptions options();

    PeerLiveness liveness();

    TransportMetrics metrics();

    /** A request with timeouts and retries (see the class comment). */
    default CompletableFuture<byte[]> request(Peer peer, int verb, byte[] payload)
    {
        return Retrier.request(this, peer, verb, payload);
    }

    /** Stops listening, fails pending requests with CLOSED, releases threads. Idempotent. */
    @Override
    void close();
}
