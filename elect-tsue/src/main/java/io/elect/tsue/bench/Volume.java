package io.elect.tsue.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import io.elect.coding.ErasureCoder;
import io.elect.tsue.engine.Cluster;
import io.elect.tsue.engine.Engines;
import io.elect.tsue.engine.TsueConfig;
import io.elect.tsue.engine.UpdateEngine;
import io.elect.tsue.engine.UpdatePolicy;
import io.elect.tsue.fs.LocalFileLayer;

/**
 * The encoded volume that every row of one code replays its trace on: {@code stripes} stripes written once (chunk
 * files {@code c-*} in one directory per node), reused by every row. A row leaves the volume consistent (it drains:
 * parity equals the encoding of the data, every log applied), and {@link #clean} removes whatever files a row left
 * besides the chunks, so the next row starts from the same kind of state whatever the policy before it.
 */
final class Volume implements AutoCloseable
{
    final Path dir;
    final TsueConfig cfg;
    final int stripes;
    final boolean direct;

    Volume(Path dir, TsueConfig cfg, int stripes, boolean direct)
    {
        this.dir = dir;
        this.cfg = cfg;
        this.stripes = stripes;
        this.direct = direct;
    }

    long dataBytes()
    {
        return (long) stripes * cfg.k * cfg.chunkSize;
    }

    Path nodeDir(int n)
    {
        return dir.resolve("node-" + n);
    }

    /** Fresh file layers over the node directories: chunk files O_DIRECT if the volume is direct. */
    List<LocalFileLayer> layers() throws IOException
    {
        List<LocalFileLayer> out = new ArrayList<>();
        for (int n = 0; n < cfg.nodes; n++)
            out.add(direct ? new LocalFileLayer(nodeDir(n), name -> name.startsWith("c-"))
                           : new LocalFileLayer(nodeDir(n)));
        return out;
    }

    /** Writes every stripe (random data, parity encoded), two stripes at a time. */
    void create(ErasureCoder coder) throws Exception
    {
        deleteTree(dir);
        List<LocalFileLayer> files = layers();
        TsueConfig c = cfg.toBuilder().policy(UpdatePolicy.IN_PLACE).build();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        AtomicLong next = new AtomicLong();
        try (UpdateEngine e = Engines.create(new Cluster(c, coder, files)))
        {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < 2; t++)
            {
                int thread = t;
                fs.add(pool.submit(() -> {
                    SplittableRandom rnd = new SplittableRandom(1000 + thread);
                    for (long s; (s = next.getAndIncrement()) < stripes; )
                    {
                        byte[][] data = new byte[cfg.k][cfg.chunkSize];
                        for (byte[] d : data)
                            fill(rnd, d);
                        e.createStripe(s, data);
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs)
                f.get();
        }
        finally
        {
            pool.shutdown();
            for (LocalFileLayer f : files)
                f.close();
        }
    }

    static void fill(SplittableRandom rnd, byte[] b)
    {
        for (int i = 0; i + 8 <= b.length; i += 8)
        {
            long v = rnd.nextLong();
            for (int j = 0; j < 8; j++)
                b[i + j] = (byte) (v >>> (8 * j));
        }
    }

    /** Deletes every file of every node that is not a chunk file (logs a row left behind). */
    void clean() throws IOException
    {
        for (int n = 0; n < cfg.nodes; n++)
            try (Stream<Path> s = Files.list(nodeDir(n)))
            {
                for (Path p : s.toList())
                    if (!p.getFileName().toString().startsWith("c-"))
                        Files.delete(p);
            }
    }

    /** (node, chunk file) of every chunk, for the device probe. */
    List<String[]> chunkFiles()
    {
        List<String[]> out = new ArrayList<>();
        for (long s = 0; s < stripes; s++)
            for (int i = 0; i < cfg.k + cfg.m; i++)
                out.add(new String[]{ String.valueOf((int) Math.floorMod(s + i, (long) cfg.nodes)),
                                      Cluster.chunkName(s, i) });
        return out;
    }

    @Override
    public void close() throws IOException
    {
        deleteTree(dir);
    }

    static void deleteTree(Path dir) throws IOException
    {
        if (!Files.exists(dir))
            return;
        try (Stream<Path> s = Files.walk(dir))
        {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList())
                Files.delete(p);
        }
    }
}
