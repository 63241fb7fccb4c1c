package io.elect.core.transport;

import java.util.concurrent.atomic.AtomicInteger;

/** The transport contract over {@link InMemoryTransport}. */
class InMemoryTransportTest extends TransportContract
{
    private final InMemoryNetwork network = new InMemoryNetwork();
    private final AtomicInteger next = new AtomicInteger();

    @Override
    Transport newTransport(TransportOptions options, PeerLiveness liveness)
    {
        return new InMemoryTransport(network, new Peer("mem-" + next.incrementAndGet(), 7070), options, liveness);
    }
}
