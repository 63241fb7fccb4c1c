package io.elect.core.stripes;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.elect.core.transport.Transport;
import io.elect.core.transport.Verbs;

/**
 * Serves {@link Verbs#READ_MEMBER}: byte ranges of files under a fixed list of allowed root directories, so that other
 * nodes can read this node's stripe members ({@code node:} locators) without decoding.
 *
 * <p>Refused, with an error naming the path and the reason (returned to the caller as a REMOTE_ERROR): a relative
 * path; a path whose real location (after normalizing and resolving every symbolic link) is not under an allowed
 * root's real location, so {@code ../} and symlinks cannot escape; a missing file or a non-regular file; a negative
 * offset or length; a range past the end of the file; a length larger than one response frame can carry.
 *
 * <p>Fallback: a file that moved to the cold tier (an offloaded parity member or an encoded primary's Data.db) keeps
 * its old path in the locators other nodes hold. When the requested path is inside the roots (its parent's real
 * location is) but the file does not exist, the optional {@link Fallback} is asked for the bytes; no answer is the
 * same refusal as without a fallback. Every other check (absolute path, roots, range, frame size) applies first.
 *
 * <p>The handler is idempotent (a read) and stateless; it runs on the transport's handler pool. Thread-safe.
 */
public final class MemberServer
{
    /** Serves the bytes of a missing file from elsewhere (e.g. the cold tier). Must be thread-safe. */
    @FunctionalInterface
    public interface Fallback
    {
        /**
         * Bytes [offset, offset + length) of {@code path} (absolute and normalized as requested, NOT resolved: the
         * file does not exist), exactly length bytes from position 0; empty if this fallback does not know the path.
         * A known path with a range past its end is an exception, like any other failure.
         */
        Optional<ByteBuffer> read(Path path, long offset, int length) throws IOException;

        /**
         * Whether this fallback serves {@code path} even when a file exists there: a redirected path whose name was
         * reused by a newer file (a rebuilt node restores members under new names while Cassandra's generation
         * counter restarts) must keep serving the redirected member, never the newer file.
         */
        default boolean overrides(Path path)
        {
            return false;
        }
    }

    private final List<Path> roots;
    private final int maxReadBytes;
    private final Fallback fallback;

    /**
     * Registers READ_MEMBER on transport, serving files under roots.
     *
     * @param roots existing directories; resolved to their real paths now (IOException if one does not exist)
     */
    public MemberServer(Transport transport, List<Path> roots) throws IOException
    {
        this(transport, roots, null);
    }

    /**
     * Registers READ_MEMBER on transport (replacing a handler registered before), serving files under roots and,
     * for missing files inside them, whatever fallback answers.
     *
     * @param fallback null: no fallback
     */
    public MemberServer(Transport transport, List<Path> roots, Fallback fallback) throws IOException
    {
        this.fallback = fallback;
        if (roots.isEmpty())
            throw new IllegalArgumentException("at least one allowed root is required");
        List<Path> real = new ArrayList<>();
        for (Path r : roots)
        {
            Path p = r.toRealPath();
            if (!Files.isDirectory(p))
                throw new IllegalArgumentException("allowed root " + r + " is not a directory");
            real.add(p);
        }
        this.roots = List.copyOf(real);
        this.maxReadBytes = ReadMember.maxReadBytes(transport.options());
        transport.register(Verbs.READ_MEMBER, this::handle);
    }

    /** The real paths of the allowed roots. */
    public List<Path> roots()
    {
        return roots;
    }

    byte[] handle(byte[] payload) throws IOException
    {
        ReadMember.Request req = ReadMember.decodeRequest(payload);
        if (req.offset() < 0 || req.length() < 0)
            throw new IllegalArgumentException("READ_MEMBER refused: negative range (offset " + req.offset() + ", length "
                                               + req.length() + ") of " + req.path());
        if (req.length() > maxReadBytes)
            throw new IllegalArgumentException("READ_MEMBER refused: length " + req.length() + " exceeds " + maxReadBytes
                                               + " bytes (one frame) for " + req.path());
        Path file = resolveOrMissing(req.path());
        if (file == null || (fallback != null && fallback.overrides(Paths.get(req.path()).normalize())))
            return fromFallback(req);
        // NOFOLLOW_LINKS: the real path has no link in it; if its last element became one since, do not follow it.
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))
        {
            long size = ch.size();
            if (req.offset() + req.length() > size)
                throw new IOException("READ_MEMBER refused: range [" + req.offset() + ", " + (req.offset() + req.length())
                                      + ") is past the end of " + req.path() + " (" + size + " bytes)");
            byte[] out = new byte[ReadMember.RESPONSE_HEADER + req.length()];
            out[0] = ReadMember.VERSION;
            ByteBuffer buf = ByteBuffer.wrap(out, ReadMember.RESPONSE_HEADER, req.length());
            while (buf.hasRemaining())
                if (ch.read(buf, req.offset() + buf.position() - ReadMember.RESPONSE_HEADER) < 0)
                    throw new IOException("READ_MEMBER: " + req.path() + " shrank while being read");
            return out;
        }
    }

    private byte[] fromFallback(ReadMember.Request req) throws IOException
    {
        Path requested = Paths.get(req.path()).normalize();
        Optional<ByteBuffer> got = fallback == null ? Optional.empty() : fallback.read(requested, req.offset(), req.length());
        if (got.isEmpty())
            throw new NoSuchFileException("READ_MEMBER refused: no such file " + req.path());
        ByteBuffer b = got.get();
        if (b.remaining() != req.length())
            throw new IOException("READ_MEMBER: the fallback of " + req.path() + " returned " + b.remaining() + " of "
                                  + req.length() + " bytes");
        byte[] out = new byte[ReadMember.RESPONSE_HEADER + req.length()];
        out[0] = ReadMember.VERSION;
        b.duplicate().get(out, ReadMember.RESPONSE_HEADER, req.length());
        return out;
    }

    /** The real path of a served file, or an exception saying why it is refused. */
    Path resolve(String path) throws IOException
    {
        Path p = resolveOrMissing(path);
        if (p == null)
            throw new NoSuchFileException("READ_MEMBER refused: no such file " + path);
        return p;
    }

    /**
     * The real path of a served file; null if the file does not exist but would be inside the roots (its parent
     * directory's real location is); otherwise an exception saying why it is refused.
     */
    private Path resolveOrMissing(String path) throws IOException
    {
        Path p;
        try
        {
            p = Paths.get(path);
        }
        catch (InvalidPathException e)
        {
            throw new IllegalArgumentException("READ_MEMBER refused: invalid path '" + path + "'");
        }
        if (!p.isAbsolute())
            throw new IllegalArgumentException("READ_MEMBER refused: path must be absolute: '" + path + "'");
        Path real;
        try
        {
            real = p.normalize().toRealPath();
        }
        catch (NoSuchFileException e)
        {
            Path n = p.normalize();
            Path parent = n.getParent();
            Path realParent;
            try
            {
                realParent = parent == null ? null : parent.toRealPath();
            }
            catch (NoSuchFileException e2)
            {
                realParent = null;
            }
            if (realParent == null || n.getFileName() == null
                || Files.exists(realParent.resolve(n.getFileName()), LinkOption.NOFOLLOW_LINKS))
                throw new NoSuchFileException("READ_MEMBER refused: no such file " + path); // or a dangling link
            if (fallback == null)
                throw new NoSuchFileException("READ_MEMBER refused: no such file " + path);
            if (!under(realParent.resolve(n.getFileName())))
                throw new IllegalArgumentException("READ_MEMBER refused: " + path + " is outside the allowed roots " + roots);
            return null;
        }
        if (!under(real))
            throw new IllegalArgumentException("READ_MEMBER refused: " + path + " (really " + real
                                               + ") is outside the allowed roots " + roots);
        if (!Files.isRegularFile(real, LinkOption.NOFOLLOW_LINKS))
            throw new IllegalArgumentException("READ_MEMBER refused: " + path + " is not a regular file");
        return real;
    }

    private boolean under(Path real)
    {
        boolean allowed = false;
        for (Path root : roots)
            allowed |= real.startsWith(root) && !real.equals(root);
        return allowed;
    }
}
