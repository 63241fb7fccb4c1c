package io.elect.tsue.fs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * {@link FileLayer} over one directory of the local file system. {@link #sync} is {@code FileChannel.force(false)}
 * (fdatasync). Channels stay open until {@link #close()} or {@link #delete}. Thread-safe: positional reads and
 * writes on a shared channel.
 */
public final class LocalFileLayer implements FileLayer, AutoCloseable
{
    private final Path dir;
    private final ConcurrentHashMap<String, FileChannel> open = new ConcurrentHashMap<>();

    public LocalFileLayer(Path dir) throws IOException
    {
        this.dir = Files.createDirectories(dir);
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
        try
        {
            return open.computeIfAbsent(name, n -> {
                try
                {
                    return FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.READ,
                                            StandardOpenOption.WRITE);
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

    @Override
    public void write(String name, long pos, byte[] src, int off, int len) throws IOException
    {
        FileChannel ch = channel(name, true);
        ByteBuffer b = ByteBuffer.wrap(src, off, len);
        long p = pos;
        while (b.hasRemaining())
            p += ch.write(b, p);
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
        Files.deleteIfExists(dir.resolve(name));
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
