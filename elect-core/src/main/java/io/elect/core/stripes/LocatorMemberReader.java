package io.elect.core.stripes;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.function.Function;

import io.elect.offload.ColdStore;

/**
 * Resolves stripe member locators:
 * <ul>
 * <li>{@code cold:<store>/<key>}: a ranged read of the cold tier, which verifies its own framing;</li>
 * <li>{@code file:<absolute path>}: a positional read of a local file;</li>
 * <li>{@code node:<host>:<port>/<absolute path>}: a file on another node, read over the ELECT transport by the
 * {@link NodeReader} given at construction (without one, such a member is unavailable: IOException);</li>
 * <li>{@code zero:} (anything may follow): a virtual member of a stripe that is all zeros; reads return zeros and do
 * no I/O.</li>
 * <li>{@code gone:<node>}: a chunk whose node left the ring for good before it could be read or written (a stripe
 * change finished without that node: docs/design/topology.md "Changes in flight when a node leaves"); reads fail
 * with an IOException, so decoding takes it as an erasure until the departure repair replaces it.</li>
 * </ul>
 * Unknown schemes are an IllegalArgumentException naming the locator. Thread-safe.
 */
public final class LocatorMemberReader implements StripeMemberReader
{
    public static final String COLD = "cold:";
    public static final String FILE = "file:";
    public static final String NODE = "node:";
    public static final String ZERO = "zero:";
    public static final String GONE = "gone:";

    /** Reads bytes of a file on another node (the production implementation is io.elect.core.stripes.NodeMemberReader). */
    @FunctionalInterface
    public interface NodeReader
    {
        /** Bytes [offset, offset + length) of the file (position 0, exactly length bytes); IOException if unavailable. */
        ByteBuffer read(NodeLocator where, long offset, int length) throws IOException;
    }

    /** A parsed {@code node:} locator; host is without brackets (an IPv6 literal is bracketed in the locator). */
    public record NodeLocator(String host, int port, String path)
    {
        public NodeLocator
        {
            if (host == null || host.isEmpty())
                throw new IllegalArgumentException("host must not be empty");
            if (port < 1 || port > 65535)
                throw new IllegalArgumentException("port must be in [1, 65535], got " + port);
            if (path == null || !path.startsWith("/"))
                throw new IllegalArgumentException("path must be absolute, got '" + path + "'");
        }

        /** Parses {@code node:<host>:<port>/<absolute path>}; IllegalArgumentException naming the locator if malformed. */
        public static NodeLocator parse(String locator)
        {
            if (!locator.startsWith(NODE))
                throw new IllegalArgumentException("not a node: locator: '" + locator + "'");
            String rest = locator.substring(NODE.length());
            // host part: up to the first '/' (after a bracketed IPv6 literal, which holds no '/')
            int slash = rest.indexOf('/', rest.startsWith("[") ? Math.max(0, rest.indexOf(']')) : 0);
            int colon = slash < 0 ? -1 : rest.lastIndexOf(':', slash);
            if (slash < 0 || colon <= 0)
                throw new IllegalArgumentException("locator must be node:<host>:<port>/<absolute path>, got '" + locator + "'");
            String host = rest.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]"))
                host = host.substring(1, host.length() - 1);
            int port;
            try
            {
                port = Integer.parseInt(rest.substring(colon + 1, slash));
            }
            catch (NumberFormatException e)
            {
                throw new IllegalArgumentException("bad port in locator '" + locator + "'");
            }
            try
            {
                return new NodeLocator(host, port, rest.substring(slash));
            }
            catch (IllegalArgumentException e)
            {
                throw new IllegalArgumentException("bad locator '" + locator + "': " + e.getMessage());
            }
        }

        @Override
        public String toString()
        {
            return NODE + (host.contains(":") ? "[" + host + "]" : host) + ":" + port + path;
        }
    }

    private final Function<String, ColdStore> stores;
    private final NodeReader nodes;

    /** @param stores cold stores by name; returns null for an unknown name. {@code node:} members are unavailable. */
    public LocatorMemberReader(Function<String, ColdStore> stores)
    {
        this(stores, null);
    }

    /**
     * @param stores cold stores by name; returns null for an unknown name
     * @param nodes  reads {@code node:} members; null if this process has no transport (they are then unavailable)
     */
    public LocatorMemberReader(Function<String, ColdStore> stores, NodeReader nodes)
    {
        this.stores = stores;
        this.nodes = nodes;
    }

    public static String cold(String store, String key)
    {
        return COLD + store + "/" + key;
    }

    public static String file(Path path)
    {
        return FILE + path.toAbsolutePath();
    }

    /** {@code node:<host>:<port>/<path>}; REQUIRES an absolute path (it names a file on that node, not here). */
    public static String node(String host, int port, Path path)
    {
        if (!path.isAbsolute())
            throw new IllegalArgumentException("a node: locator needs an absolute path, got " + path);
        return new NodeLocator(host, port, path.normalize().toString()).toString();
    }

    /** The locator of a virtual all-zero member. */
    public static String zero()
    {
        return ZERO;
    }

    public static boolean isZero(String locator)
    {
        return locator.startsWith(ZERO);
    }

    /** The locator of a chunk on {@code node}, which left the ring: unreadable for good. */
    public static String gone(String node)
    {
        return GONE + node;
    }

    public static boolean isGone(String locator)
    {
        return locator.startsWith(GONE);
    }

    @Override
    public ByteBuffer read(StripeLayout stripe, int member, long offset, int length) throws IOException
    {
        // A parity member is zero past the longest data member (ParityBuilder.storedLength), and its file or object may
        // end there (issue 16): only the stored part is fetched.
        long stored = member >= stripe.k() ? ParityBuilder.storedLength(stripe) : Long.MAX_VALUE;
        if (offset + length > stored)
        {
            int avail = (int) Math.max(0, Math.min(length, stored - offset));
            ByteBuffer out = ByteBuffer.allocate(length);
            if (avail > 0)
                out.put(fetch(stripe, member, offset, avail));
            return out.clear();
        }
        return fetch(stripe, member, offset, length);
    }

    private ByteBuffer fetch(StripeLayout stripe, int member, long offset, int length) throws IOException
    {
        String locator = stripe.locators().get(member);
        if (locator.startsWith(ZERO))
            return ByteBuffer.allocate(length);
        if (locator.startsWith(COLD))
        {
            String rest = locator.substring(COLD.length());
            int slash = rest.indexOf('/');
            if (slash <= 0)
                throw new IllegalArgumentException("locator must be cold:<store>/<key>, got '" + locator + "'");
            ColdStore store = stores.apply(rest.substring(0, slash));
            if (store == null)
                throw new IOException("stripe member " + member + ": no cold store named '" + rest.substring(0, slash)
                                      + "' is registered (" + locator + ")");
            return store.read(rest.substring(slash + 1), offset, length);
        }
        if (locator.startsWith(GONE))
            throw new IOException("stripe member " + member + " is unreadable: its node " + locator.substring(GONE.length()) + " left the ring");
        if (locator.startsWith(FILE))
            return readFile(Paths.get(locator.substring(FILE.length())), member, offset, length);
        if (locator.startsWith(NODE))
        {
            NodeLocator where = NodeLocator.parse(locator);
            if (nodes == null)
                throw new IOException("stripe member " + member + " (" + locator + ") is on another node and this reader has no transport");
            ByteBuffer got = nodes.read(where, offset, length);
            if (got.remaining() != length)
                throw new IOException("stripe member " + member + " (" + locator + ") returned " + got.remaining()
                                      + " of " + length + " bytes");
            return got;
        }
        throw new IllegalArgumentException("locator must start with cold:, file:, node:, zero: or gone:, got '" + locator + "'");
    }

    private static ByteBuffer readFile(Path path, int member, long offset, int length) throws IOException
    {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ))
        {
            ByteBuffer buf = ByteBuffer.allocate(length);
            while (buf.hasRemaining())
            {
                if (ch.read(buf, offset + buf.position()) < 0)
                    throw new IOException("stripe member " + member + " (" + path + ") is shorter than "
                                          + (offset + length) + " bytes");
            }
            return buf.flip();
        }
    }
}
