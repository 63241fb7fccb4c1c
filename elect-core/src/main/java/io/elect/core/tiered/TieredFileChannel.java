package io.elect.core.tiered;

import io.elect.core.tiered.TieredReadException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.tiered.ByteRangeSource;

/**
 * A read-only FileChannel over a {@link ByteRangeSource}, handed to Cassandra through the public
 * {@code ChannelProxy(File, FileChannel)} constructor, so that Cassandra's own chunk readers (and their CRC checks
 * of compressed chunks) read a tiered data component exactly as they read a local file. Positional reads are the
 * only path Cassandra uses for data files opened in standard (non-mmap) mode; {@code map} is refused, which is why
 * tiered data files are always opened in standard mode. Thread-safe for positional reads.
 */
public final class TieredFileChannel extends FileChannel
{
    private static final Logger logger = LoggerFactory.getLogger(TieredFileChannel.class);

    private final ByteRangeSource source;
    private long position;

    public TieredFileChannel(ByteRangeSource source)
    {
        this.source = source;
    }

    @Override
    public int read(ByteBuffer dst, long pos) throws IOException
    {
        if (pos < 0)
            throw new IllegalArgumentException("position must be >= 0, got " + pos);
        long length = source.length();
        if (pos >= length)
            return dst.hasRemaining() ? -1 : 0;
        int n = (int) Math.min(dst.remaining(), length - pos);
        ByteBuffer slice = dst.duplicate();
        slice.limit(slice.position() + n);
        try
        {
            source.read(pos, slice);
        }
        catch (IOException | RuntimeException e)
        {
            logger.warn("Read of bytes {}..{} of {} failed", pos, pos + n, source.describe(), e);
            throw new TieredReadException("reading bytes " + pos + ".." + (pos + n) + " of " + source.describe()
                                          + " failed: " + e.getMessage(), e);
        }
        dst.position(dst.position() + n);
        return n;
    }

    @Override
    public synchronized int read(ByteBuffer dst) throws IOException
    {
        int n = read(dst, position);
        if (n > 0)
            position += n;
        return n;
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException
    {
        long total = 0;
        for (int i = offset; i < offset + length; i++)
        {
            int n = read(dsts[i]);
            if (n < 0)
                return total == 0 ? -1 : total;
            total += n;
            if (dsts[i].hasRemaining())
                break;
        }
        return total;
    }

    @Override
    public long transferTo(long pos, long count, WritableByteChannel target) throws IOException
    {
        long end = Math.min(source.length(), pos + count);
        long done = 0;
        ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
        while (pos + done < end)
        {
            buf.clear().limit((int) Math.min(buf.capacity(), end - pos - done));
            source.read(pos + done, buf);
            buf.flip();
            while (buf.hasRemaining())
                done += target.write(buf);
        }
        return done;
    }

    @Override
    public synchronized long position()
    {
        return position;
    }

    @Override
    public synchronized FileChannel position(long newPosition)
    {
        if (newPosition < 0)
            throw new IllegalArgumentException("newPosition must be >= 0, got " + newPosition);
        position = newPosition;
        return this;
    }

    @Override
    public long size()
    {
        return source.length();
    }

    @Override
    public int write(ByteBuffer src)
    {
        throw new NonWritableChannelException();
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length)
    {
        throw new NonWritableChannelException();
    }

    @Override
    public int write(ByteBuffer src, long pos)
    {
        throw new NonWritableChannelException();
    }

    @Override
    public FileChannel truncate(long size)
    {
        throw new NonWritableChannelException();
    }

    @Override
    public void force(boolean metaData)
    {
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long pos, long count)
    {
        throw new NonWritableChannelException();
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long pos, long size)
    {
        throw new UnsupportedOperationException("tiered data files cannot be memory-mapped (" + source.describe() + ")");
    }

    @Override
    public FileLock lock(long pos, long size, boolean shared)
    {
        throw new UnsupportedOperationException("tiered data files cannot be locked");
    }

    @Override
    public FileLock tryLock(long pos, long size, boolean shared)
    {
        throw new UnsupportedOperationException("tiered data files cannot be locked");
    }

    @Override
    protected void implCloseChannel()
    {
        // the source is shared by every copy of the file handle and holds no per-channel resources
    }
}
