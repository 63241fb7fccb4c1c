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
 * <p>The handler is idempotent (a read) and stateless; it runs on the transport's handler pool. Thread-safe.
 */
public final class MemberServer
{
    private final List<Path> roots;
    private final int maxReadBytes;

    /**
     * Registers READ_MEMBER on transport, serving files under roots.
     *
     * @param roots existing directories; resolved to their real paths now (IOException if one does not exist)
     */
    public MemberServer(Transport transport, List<Path> roots) throws IOException
    {
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
        Path file = resolve(req.path());
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

    /** The real path of a served file, or an exception saying why it is refused. */
    Path resolve(String path) throws IOException
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
            throw new NoSuchFileException("READ_MEMBER refused: no such file " + path);
        }
        boolean allowed = false;
        for (Path root : roots)
            allowed |= real.startsWith(root) && !real.equals(root);
        if (!allowed)
            throw new IllegalArgumentException("READ_MEMBER refused: " + path + " (really " + real
                                               + ") is outside the allowed roots " + roots);
        if (!Files.isRegularFile(real, LinkOption.NOFOLLOW_LINKS))
            throw new IllegalArgumentException("READ_MEMBER refused: " + path + " is not a regular file");
        return real;
    }
}
