package io.elect.core.stripes;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.transport.Peer;
import io.elect.core.transport.Transport;
import io.elect.core.transport.TransportException;
import io.elect.core.transport.Verbs;
import io.elect.offload.ColdStore;

/**
 * Reads {@code node:} stripe members over the ELECT transport with {@link Verbs#READ_MEMBER}, served by the peer's
 * {@link MemberServer}. A read larger than one response frame is split into pieces of at most {@code maxPieceBytes},
 * at most {@value #IN_FLIGHT} of them in flight at once. Each piece goes through {@link Transport#request} (timeouts,
 * retries, the liveness check); any piece that finally fails fails the whole read with an IOException naming the
 * locator and the transport's reason, so that a DecodedRangeSource (tiered) treats the member as
 * unavailable. Thread-safe.
 */
public final class NodeMemberReader implements LocatorMemberReader.NodeReader
{
    /** Pieces of one read in flight at once: enough to keep a link busy, few enough not to flood the peer's pool. */
    static final int IN_FLIGHT = 4;

    private final Transport transport;
    private final int maxPieceBytes;

    /** Pieces as large as the transport's frame limit allows. */
    public NodeMemberReader(Transport transport)
    {
        this(transport, ReadMember.maxReadBytes(transport.options()));
    }

    /** @param maxPieceBytes largest piece per request; at most what a frame of the transport can carry */
    public NodeMemberReader(Transport transport, int maxPieceBytes)
    {
        int max = ReadMember.maxReadBytes(transport.options());
        if (maxPieceBytes < 1 || maxPieceBytes > max)
            throw new IllegalArgumentException("maxPieceBytes must be in [1, " + max + "], got " + maxPieceBytes);
        this.transport = transport;
        this.maxPieceBytes = maxPieceBytes;
    }

    /** A reader of stripe members that resolves {@code node:} through this reader. */
    public LocatorMemberReader members(Function<String, ColdStore> stores)
    {
        return new LocatorMemberReader(stores, this);
    }

    @Override
    public ByteBuffer read(LocatorMemberReader.NodeLocator where, long offset, int length) throws IOException
    {
        if (offset < 0 || length < 0)
            throw new IllegalArgumentException("bad range: offset " + offset + ", length " + length);
        ByteBuffer out = ByteBuffer.allocate(length);
        Peer peer = new Peer(where.host(), where.port());
        ArrayDeque<Piece> inflight = new ArrayDeque<>();
        int next = 0;
        try
        {
            while (next < length || !inflight.isEmpty())
            {
                while (next < length && inflight.size() < IN_FLIGHT)
                {
                    int n = Math.min(maxPieceBytes, length - next);
                    byte[] req = ReadMember.encodeRequest(where.path(), offset + next, n);
                    inflight.add(new Piece(next, n, transport.request(peer, Verbs.READ_MEMBER, req)));
                    next += n;
                }
                Piece p = inflight.poll();
                byte[] resp = await(where, p);
                if (resp.length != ReadMember.RESPONSE_HEADER + p.length || resp[0] != ReadMember.VERSION)
                    throw new IOException(where + ": malformed READ_MEMBER response (" + resp.length + " bytes, version "
                                          + (resp.length > 0 ? resp[0] : -1) + ") for " + p.length + " bytes at "
                                          + (offset + p.start));
                out.put(p.start, resp, ReadMember.RESPONSE_HEADER, p.length);
            }
        }
        finally
        {
            for (Piece p : inflight)
                p.result.cancel(false);
        }
        return out;
    }

    private record Piece(int start, int length, CompletableFuture<byte[]> result)
    {
    }

    private static byte[] await(LocatorMemberReader.NodeLocator where, Piece p) throws IOException
    {
        try
        {
            return p.result.get(); // completes: every attempt has a timeout and retries are bounded
        }
        catch (InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while reading " + where);
        }
        catch (ExecutionException e)
        {
            Throwable c = e.getCause();
            if (c instanceof TransportException te)
                throw new IOException(where + ": " + te.getMessage(), te);
            throw new IOException(where + ": " + c, c);
        }
    }
}
