package io.elect.tsue.fs;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/** Wraps a {@link FileLayer} and counts its operations into an {@link IoStats}. Thread-safe if the delegate is. */
public final class CountingFileLayer implements FileLayer
{
    private final FileLayer delegate;
    private final IoStats stats;

    public CountingFileLayer(FileLayer delegate, IoStats stats)
    {
        this.delegate = delegate;
        this.stats = stats;
    }

    public IoStats stats()
    {
        return stats;
    }

    @Override
    public int read(String name, long pos, byte[] dst, int off, int len) throws IOException
    {
        int n = delegate.read(name, pos, dst, off, len);
        stats.reads.increment();
        stats.readBytes.add(n);
        LongAdder[] k = stats.of(name);
        k[0].increment();
        k[1].add(n);
        return n;
    }

    @Override
    public void write(String name, long pos, byte[] src, int off, int len) throws IOException
    {
        long size = delegate.size(name);
        delegate.write(name, pos, src, off, len);
        stats.writes.increment();
        stats.writeBytes.add(len);
        LongAdder[] k = stats.of(name);
        k[2].increment();
        k[3].add(len);
        long overlap = Math.min(pos + len, Math.max(size, 0)) - pos;
        if (overlap > 0)
        {
            stats.overwrites.increment();
            stats.overwriteBytes.add(overlap);
        }
    }

    @Override
    public void sync(String name) throws IOException
    {
        delegate.sync(name);
        stats.syncs.increment();
        stats.of(name)[4].increment();
    }

    @Override
    public long size(String name) throws IOException
    {
        return delegate.size(name);
    }

    @Override
    public void delete(String name) throws IOException
    {
        delegate.delete(name);
    }

    @Override
    public void rename(String from, String to) throws IOException
    {
        delegate.rename(from, to);
    }

    @Override
    public List<String> list() throws IOException
    {
        return delegate.list();
    }
}
