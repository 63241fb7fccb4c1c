package io.elect.core.transport;

/**
 * Whether a peer is believed up. The transport fails requests to a peer reported down at once, without retries.
 * Implementations: {@link #ALWAYS} (tests, tools) and the adapter's {@code CassandraRing} (Cassandra's
 * gossip and failure detector). Must be cheap and thread-safe: it is asked on every request.
 */
public interface PeerLiveness
{
    PeerLiveness ALWAYS = peer -> true;

    boolean isAlive(Peer peer);
}
