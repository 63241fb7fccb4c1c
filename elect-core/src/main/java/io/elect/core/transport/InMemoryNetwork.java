package io.elect.core.transport;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Connects {@link InMemoryTransport}s of one JVM by their {@link Peer}. Frames travel as the same bytes as on TCP,
 * so the receiver validates them exactly as {@link NettyTransport} does.
 */
public final class InMemoryNetwork
{
    private final Map<Peer, InMemoryTransport> nodes = new ConcurrentHashMap<>();

    void join(InMemoryTransport t)
    {
        if (nodes.putIfAbsent(t.localPeer(), t) != null)
            throw new IllegalArgumentException("peer " + t.localPeer() + " already joined this network");
    }

    void leave(InMemoryTransport t)
    {
        nodes.remove(t.localPeer(), t);
    }

    InMemoryTransport node(Peer p)
    {
        return nodes.get(p);
    }
}
