package io.elect.tsue.fs;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * In-memory {@link FileLayer} that models a power failure: each file keeps its durable bytes and the writes made
 * since its last sync; {@link #crash()} forgets every unsynced write (whole writes, never torn ones). Creation and
 * deletion are durable at once, as the interface promises. Thread-safe (one monitor per file).
 */
public final class MemFileLayer implements FileLayer
{
    private static final class MemFile
    {
        byte[] current = new byte[0];
        int size;
        byte[] durable = new byte[0];
        int durableSize;
        final List<long[]> pending = new ArrayList<>(); // {pos, len} of unsynced writes

        void ensure(int cap)
        {
            if (cap > current.length)
                current = Arrays.copyOf(current, Math.max(cap, current.length * 2));
        }
    }

    private final ConcurrentHashMap<String, MemFile> files = new ConcurrentHashMap<>();

    @Override
    public int read(String name, long pos, byte[] dst, int off, int len)
    {
        MemFile f = files.get(name);
        if (f == null)
            return 0;
        synchronized (f)
        {
            int n = (int) Math.max(0, Math.min(len, f.size - pos));
            if (n > 0)
                System.arraycopy(f.current, (int) pos, dst, off, n);
            return n;
        }
    }

    @Override
    public void write(String name, long pos, byte[] src, int off, int len)
    {
        if (pos + len > Integer.MAX_VALUE)
            throw new IllegalArgumentException("pos+len beyond 2 GiB for in-memory file " + name);
        MemFile f = files.computeIfAbsent(name, n -> new MemFile());
        synchronized (f)
        {
            int end = (int) (pos + len);
            f.ensure(end);
            System.arraycopy(src, off, f.current, (int) pos, len);
            if (end > f.size)
                f.size = end;
            f.pending.add(new long[]{ pos, len });
        }
    }

    @Override
    public void sync(String name)
    {
        MemFile f = files.get(name);
        if (f == null)
            return;
        synchronized (f)
        {
            if (f.durable.length < f.size)
                f.durable = Arrays.copyOf(f.durable, Math.max(f.size, f.durable.length * 2));
            for (long[] w : f.pending)
                System.arraycopy(f.current, (int) w[0], f.durable, (int) w[0], (int) w[1]);
            // a gap created by a write past the end is zero in both arrays
            f.durableSize = f.size;
            f.pending.clear();
        }
    }

    @Override
    public long size(String name)
    {
        MemFile f = files.get(name);
        if (f == null)
            return -1;
        synchronized (f)
        {
            return f.size;
        }
    }

    @Override
    public void delete(String name)
    {
        files.remove(name);
    }

    @Override
    public void rename(String from, String to) throws IOException
    {
        MemFile f = files.remove(from);
        if (f == null)
            throw new java.nio.file.NoSuchFileException(from);
        files.put(to, f);
    }

    @Override
    public List<String> list()
    {
        return new ArrayList<>(files.keySet());
    }

    /** Simulated power loss: every file returns to its state at its last sync. */
    public void crash()
    {
        for (MemFile f : files.values())
        {
            synchronized (f)
            {
                f.current = Arrays.copyOf(f.durable, Math.max(f.durable.length, 16));
                f.size = f.durableSize;
                f.pending.clear();
            }
        }
    }

    /** Bytes held, for memory accounting in tests. */
    public long bytes()
    {
        long b = 0;
        for (MemFile f : files.values())
            b += f.size;
        return b;
    }

    @Override
    public String toString()
    {
        return "MemFileLayer(" + files.size() + " files)";
    }

    static void checkName(String name) throws IOException
    {
        if (name == null || name.isEmpty() || name.contains("/"))
            throw new IOException("bad file name: " + name);
    }
}
