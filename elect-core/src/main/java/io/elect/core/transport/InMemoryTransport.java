package io.elect.core.transport;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link Transport} inside one JVM, over an {@link InMemoryNetwork}: same frames (encoded, then validated by the
 * receiver), same handler pool, timeouts and retries as {@link NettyTransport}; no sockets. A malformed frame is
 * counted by its receiver and "closes the connection": every request pending from that sender to that receiver fails
 * with CONNECTION, as a closed TCP connection would make them.
 */
public final class InMemoryTransport extends AbstractTransport
{
    private final InMemoryNetwork network;
    private final Peer local;
    /** Pending requests by id; the value remembers the peer they went to. */
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();

    /** In-memory peers have no network address; the policy is ALLOW_ALL, so the caller is never examined. */
    private static final Caller LOOPBACK = Caller.plaintext(java.net.InetAddress.getLoopbackAddress());

    private record Pending(Peer peer, CompletableFuture<byte[]> result)
    {
    }

    public InMemoryTransport(InMemoryNetwork network, Peer local, TransportOptions options, PeerLiveness liveness)
    {
        super("elect-mem-" + local, options, liveness, CallerPolicy.ALLOW_ALL);
        this.network = java.util.Objects.requireNonNull(network, "network");
        this.local = java.util.Objects.requireNonNull(local, "local");
        network.join(this);
    }

    @Override
    public Peer localPeer()
    {
        return local;
    }

    @Override
    public CompletableFuture<byte[]> requestOnce(Peer peer, int verb, byte[] payload, long timeoutMillis)
    {
        Outgoing out = startRequest(peer, verb, payload, timeoutMillis);
        long id = out.id();
        byte[] bytes = out.bytes();
        CompletableFuture<byte[]> result = out.result();
        if (result.isDone())
            return result;
        pending.put(id, new Pending(peer, result));
        result.whenComplete((r, e) -> pending.remove(id));
        InMemoryTransport target = network.node(peer);
        if (target == null || target.closed)
        {
            result.completeExceptionally(new TransportException(TransportException.Reason.CONNECTION, "no listener at " + peer));
            return result;
        }
        metrics.requestsSent.incrementAndGet();
        target.receiveRequest(this, bytes);
        return result;
    }

    @Override
    public void sendRawFrame(Peer peer, byte[] bytes)
    {
        InMemoryTransport target = network.node(peer);
        if (target != null)
            target.receiveRequest(null, bytes); // a connection of its own: closing it affects no other request
    }

    /** Server side: validate, then dispatch; a malformed frame closes the sender's "connection". */
    private void receiveRequest(InMemoryTransport from, byte[] bytes)
    {
        Frame f;
        try
        {
            f = FrameCodec.decode(bytes, options.maxFrameBytes());
            if (f.kind() != Frame.Kind.REQUEST)
                throw new MalformedFrameException(f.kind() + " frame sent to a server");
        }
        catch (MalformedFrameException e)
        {
            metrics.malformedFrames.incrementAndGet();
            if (from != null)
                from.connectionClosed(local);
            return;
        }
        if (from == null)
        {
            dispatcher.dispatch(f, LOOPBACK, resp -> { }); // a raw frame's connection is gone: the answer is lost, as on TCP
            return;
        }
        dispatcher.dispatch(f, LOOPBACK, resp -> {
            if (!closed)
                from.receiveResponse(local, Dispatcher.encodeReply(resp, options.maxFrameBytes()));
        });
    }

    private void receiveResponse(Peer from, byte[] bytes)
    {
        Frame f;
        try
        {
            f = FrameCodec.decode(bytes, options.maxFrameBytes());
            if (f.kind() == Frame.Kind.REQUEST)
                throw new MalformedFrameException("REQUEST frame on a client connection");
        }
        catch (MalformedFrameException e)
        {
            metrics.malformedFrames.incrementAndGet();
            connectionClosed(from);
            return;
        }
        Pending p = pending.remove(f.requestId());
        if (p == null)
            return; // timed out already
        if (f.kind() == Frame.Kind.RESPONSE)
        {
            metrics.responsesReceived.incrementAndGet();
            p.result().complete(f.payload());
        }
        else
        {
            metrics.remoteErrors.incrementAndGet();
            p.result().completeExceptionally(new TransportException(TransportException.Reason.REMOTE_ERROR,
                                                                    new String(f.payload(), StandardCharsets.UTF_8)));
        }
    }

    private void connectionClosed(Peer peer)
    {
        for (Pending p : pending.values())
            if (p.peer().equals(peer))
                p.result().completeExceptionally(new TransportException(TransportException.Reason.CONNECTION, "connection to " + peer + " closed"));
    }

    @Override
    public void close()
    {
        if (closed)
            return;
        closed = true;
        network.leave(this);
        for (Pending p : pending.values())
            p.result().completeExceptionally(new TransportException(TransportException.Reason.CLOSED, "transport closed"));
        dispatcher.close();
    }
}
