package io.elect.tsue.fs;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.sun.nio.file.ExtendedOpenOption;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** LocalFileLayer, buffered and O_DIRECT, against a byte-array model: unaligned ranges, growth, concurrency. */
class LocalFileLayerTest
{
    private static boolean directSupported(Path dir)
    {
        try (FileChannel ch = FileChannel.open(dir.resolve("probe"), StandardOpenOption.CREATE,
                                               StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT))
        {
            return true;
        }
        catch (IOException | UnsupportedOperationException e)
        {
            return false;
        }
    }

    @Test
    void bufferedMatchesModel(@TempDir Path dir) throws IOException
    {
        try (LocalFileLayer fs = new LocalFileLayer(dir))
        {
            randomOps(fs, System.nanoTime());
        }
    }

    @Test
    void directMatchesModel(@TempDir Path dir) throws IOException
    {
        assumeTrue(directSupported(dir), "O_DIRECT not supported under " + dir);
        try (LocalFileLayer fs = new LocalFileLayer(dir.resolve("d"), n -> n.startsWith("c-")))
        {
            randomOps(fs, System.nanoTime());
        }
    }

    /** Random unaligned writes (inside, across and past the end) and reads, checked byte for byte. */
    private static void randomOps(LocalFileLayer fs, long seed) throws IOException
    {
        Random rnd = new Random(seed);
        byte[] model = new byte[0];
        String name = "c-0-0";
        for (int i = 0; i < 400; i++)
        {
            String what = "seed " + seed + " op " + i;
            if (rnd.nextBoolean() || model.length == 0)
            {
                int pos = rnd.nextInt(model.length + 9000), len = 1 + rnd.nextInt(rnd.nextBoolean() ? 700 : 20000);
                if (rnd.nextInt(4) == 0)
                {
                    pos &= -4096;
                    len = 4096 * (1 + rnd.nextInt(3));
                }
                byte[] b = new byte[len];
                rnd.nextBytes(b);
                fs.write(name, pos, b, 0, len);
                if (pos + len > model.length)
                    model = Arrays.copyOf(model, pos + len);
                System.arraycopy(b, 0, model, pos, len);
                assertEquals(model.length, fs.size(name), what + ": size after write at " + pos + "+" + len);
            }
            else
            {
                int pos = rnd.nextInt(model.length), len = 1 + rnd.nextInt(Math.min(30000, model.length - pos));
                byte[] got = new byte[len + 10];
                int n = fs.read(name, pos, got, 5, len);
                assertEquals(len, n, what);
                assertArrayEquals(Arrays.copyOfRange(model, pos, pos + len), Arrays.copyOfRange(got, 5, 5 + len), what);
            }
        }
        fs.sync(name);
        assertArrayEquals(model, fs.readFully(name, 0, model.length), "seed " + seed + " whole file");
        byte[] past = new byte[100];
        assertEquals(0, fs.read(name, model.length + 5000, past, 0, 100), "read past the end");
    }

    /** Disjoint sub-block writes by many threads share edge blocks; none may lose another's bytes. */
    @Test
    void concurrentDisjointUnalignedWrites(@TempDir Path dir) throws Exception
    {
        assumeTrue(directSupported(dir), "O_DIRECT not supported under " + dir);
        long seed = System.nanoTime();
        try (LocalFileLayer fs = new LocalFileLayer(dir.resolve("d"), n -> true))
        {
            int size = 64 << 10;
            fs.write("c-1-1", 0, new byte[size], 0, size);
            byte[] model = new byte[size];
            new Random(seed).nextBytes(model);
            ExecutorService pool = Executors.newFixedThreadPool(4);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++)
            {
                int thread = t;
                done.add(pool.submit(() -> {
                    // thread t owns the 300-byte pieces t, t+4, t+8, ...: neighbours share every 4 KiB block
                    for (int piece = thread; piece * 300 < size; piece += 4)
                    {
                        int pos = piece * 300, len = Math.min(300, size - pos);
                        fs.write("c-1-1", pos, model, pos, len);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done)
                f.get();
            pool.shutdown();
            assertArrayEquals(model, fs.readFully("c-1-1", 0, size), "seed " + seed);
        }
        assertEquals(size(dir.resolve("d").resolve("c-1-1")), 64 << 10);
    }

    private static long size(Path p) throws IOException
    {
        return Files.size(p);
    }
}
