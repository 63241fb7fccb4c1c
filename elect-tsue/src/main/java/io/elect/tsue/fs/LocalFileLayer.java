package io.elect.tsue.fs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.stream.Stream;

import com.sun.nio.file.ExtendedOpenOption;

/**
 * {@link FileLayer} over one directory of the local file system. {@link #sync} is {@code FileChannel.force(false)}
 * (fdatasync). Channels stay open until {@link #close()} or {@link #delete}. Thread-safe: positional reads and
 * writes on a shared channel.
 *
 * <p>Files whose name matches the {@code direct} predicate (in the engines: chunk files) bypass the page cache
 * ({@code O_DIRECT}), so that a random read of old data or parity costs what the device costs instead of a memory
 * copy; logs stay buffered appends made durable by {@link #sync}. Direct I/O moves whole aligned blocks of
 * {@link #alignment()} bytes (the file store's block size) through aligned native buffers: a read of any range
 * reads its aligned cover; a write whose ends are not aligned first reads the partial edge blocks (read-modify-write,
 * what the device would do for a sub-block write anyway). Such edge merges are serialized per file, so concurrent
 * writes to disjoint ranges of one file never lose each other's bytes in a shared edge block. A write past the end
 * leaves the file exactly {@code pos + len} bytes long (the aligned tail is truncated).
 */
public final class LocalFileLayer implements FileLayer, AutoCloseable
{
    /** Aligned buffers up to this size are kept per thread; larger transfers allocate a temporary one. */
    private static final int CACHED_BUFFER = 8 << 20;

    private final Path dir;
    private final Predicate<String> direct;
    private final int align;
    private final ConcurrentHashMap<String, FileChannel> open = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Object> edgeLocks = new ConcurrentHashMap<>();
    private final ThreadLocal<ByteBuffer> buffers = new ThreadLocal<>();

    /** All files buffered (page cache). */
    public LocalFileLayer(Path dir) throws IOException
    {
        this(dir, name -> false);
    }

    /**
     * @param direct which files bypass the page cache (O_DIRECT); the file store must support it
     */
    public LocalFileLayer(Path dir, Predicate<String> direct) throws IOException
    {
        this.dir = Files.createDirectories(dir);
        this.direct = direct;
        this.align = (int) Files.getFileStore(this.dir).getBlockSize();
        if (Integer.bitCount(align) != 1)
            throw new IOException("block size of " + dir + " is not a power of two: " + align);
    }

    /** The alignment of direct I/O: the file store's block size. */
    public int alignment()
    {
        return align;
    }

    private FileChannel channel(String name, boolean create) throws IOException
    {
        MemFileLayer.checkName(name);
        FileChannel ch = open.get(name);
        if (ch != null)
            return ch;
        Path p = dir.resolve(name);
        if (!create && !Files.exists(p))
            return null;
        List<OpenOption> opts = new ArrayList<>(List.of(StandardOpenOption.CREATE, StandardOpenOption.READ,
                                                        StandardOpenOption.WRITE));
        if (direct.test(name))
            opts.add(ExtendedOpenOption.DIRECT);
        try
        {
            return open.computeIfAbsent(name, n -> {
                try
                {
                    return FileChannel.open(p, opts.toArray(new OpenOption[0]));
                }
                catch (IOException e)
                {
                    throw new UncheckedIOException(e);
                }
            });
        }
        catch (UncheckedIOException e)
        {
            throw e.getCause();
        }
    }

    @Override
    public int read(String name, long pos, byte[] dst, int off, int len) throws IOException
    {
        FileChannel ch = channel(name, false);
        if (ch == null)
            return 0;
        if (direct.test(name))
            return readDirect(ch, pos, dst, off, len);
        ByteBuffer b = ByteBuffer.wrap(dst, off, len);
        long p = pos;
        while (b.hasRemaining())
        {
            int n = ch.read(b, p);
            if (n < 0)
                break;
            p += n;
        }
        return (int) (p - pos);
    }

    private int readDirect(FileChannel ch, long pos, byte[] dst, int off, int len) throws IOException
    {
        long start = pos & -align, end = roundUp(pos + len);
        ByteBuffer b = buffer((int) (end - start));
        int got = fill(ch, b, start);
        int n = (int) Math.max(0, Math.min(len, got - (pos - start)));
        if (n > 0)
            b.get((int) (pos - start), dst, off, n);
        return n;
    }

    /**
     * Reads into b (aligned, remaining a multiple of the alignment) at pos until full or end of file. A direct read
     * returns whole blocks except at the end of the file, so a partial block ends the loop.
     */
    private int fill(FileChannel ch, ByteBuffer b, long pos) throws IOException
    {
        int total = 0;
        while (b.hasRemaining())
        {
            int n = ch.read(b, pos + total);
            if (n <= 0)
                break;
            total += n;
            if ((n & (align - 1)) != 0)
                break;
        }
        return total;
    }

    @Override
    public void write(String name, long pos, byte[] src, int off, int len) throws IOException
    {
        FileChannel ch = channel(name, true);
        if (direct.test(name))
        {
            writeDirect(name, ch, pos, src, off, len);
            return;
        }
        ByteBuffer b = ByteBuffer.wrap(src, off, len);
        long p = pos;
        while (b.hasRemaining())
            p += ch.write(b, p);
    }

    private void writeDirect(String name, FileChannel ch, long pos, byte[] src, int off, int len) throws IOException
    {
        long start = pos & -align, end = roundUp(pos + len);
        int span = (int) (end - start);
        if (start == pos && end == pos + len && end <= ch.size())
        {
            // whole blocks inside the file: no edge to merge, no length to fix
            ByteBuffer b = buffer(span);
            b.put(0, src, off, len);
            drain(ch, b, start);
            return;
        }
        synchronized (edgeLocks.computeIfAbsent(name, n -> new Object()))
        {
            long size = ch.size();
            ByteBuffer b = buffer(span);
            // the partial edge blocks keep their other bytes: read them (the whole cover if it is 1 or 2 blocks)
            if (span <= 2 * align)
                readBlocks(ch, b, 0, span, start);
            else
            {
                if (pos != start)
                    readBlocks(ch, b, 0, align, start);
                if (end != pos + len)
                    readBlocks(ch, b, span - align, align, end - align);
            }
            b.put((int) (pos - start), src, off, len);
            b.position(0).limit(span);
            drain(ch, b, start);
            long logicalEnd = Math.max(size, pos + len);
            if (end > logicalEnd)
                ch.truncate(logicalEnd);
        }
    }

    /** Reads n bytes at file position filePos into b[at, at+n), zero-filling past the end of the file. */
    private void readBlocks(FileChannel ch, ByteBuffer b, int at, int n, long filePos) throws IOException
    {
        ByteBuffer slice = b.slice(at, n);
        int got = fill(ch, slice, filePos);
        for (int i = got; i < n; i++)
            b.put(at + i, (byte) 0);
    }

    private static void drain(FileChannel ch, ByteBuffer b, long pos) throws IOException
    {
        long p = pos;
        while (b.hasRemaining())
            p += ch.write(b, p);
    }

    private long roundUp(long v)
    {
        return (v + align - 1) & -align;
    }

    /** An aligned native buffer of exactly n bytes (position 0, limit n), n a multiple of the alignment. */
    private ByteBuffer buffer(int n)
    {
        if (n > CACHED_BUFFER)
            return ByteBuffer.allocateDirect(n + align).alignedSlice(align).limit(n);
        ByteBuffer b = buffers.get();
        if (b == null || b.capacity() < n)
        {
            int cap = Math.max(n, 64 << 10);
            b = ByteBuffer.allocateDirect(cap + align).alignedSlice(align);
            buffers.set(b);
        }
        return b.clear().limit(n);
    }

    @Override
    public void sync(String name) throws IOException
    {
        FileChannel ch = channel(name, false);
        if (ch != null)
            ch.force(false);
    }

    @Override
    public long size(String name) throws IOException
    {
        FileChannel ch = channel(name, false);
        return ch == null ? -1 : ch.size();
    }

    @Override
    public void delete(String name) throws IOException
    {
        FileChannel ch = open.remove(name);
        if (ch != null)
            ch.close();
        edgeLocks.remove(name);
        Files.deleteIfExists(dir.resolve(name));
    }

    @Override
    public void rename(String from, String to) throws IOException
    {
        MemFileLayer.checkName(from);
        MemFileLayer.checkName(to);
        FileChannel a = open.remove(from), b = open.remove(to);
        if (a != null)
            a.close();
        if (b != null)
            b.close();
        edgeLocks.remove(from);
        Files.move(dir.resolve(from), dir.resolve(to), java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                   java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public List<String> list() throws IOException
    {
        List<String> names = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir))
        {
            s.forEach(p -> names.add(p.getFileName().toString()));
        }
        return names;
    }

    @Override
    public void close() throws IOException
    {
        for (String name : new ArrayList<>(open.keySet()))
        {
            FileChannel ch = open.remove(name);
            if (ch != null)
                ch.close();
        }
    }

    @Override
    public String toString()
    {
        return "LocalFileLayer(" + dir + ")";
    }
}
