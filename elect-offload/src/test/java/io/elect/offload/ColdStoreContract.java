package io.elect.offload;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The behaviour every ColdStore must have. Subclasses provide the store (in memory, filesystem, S3 against a
 * real S3Proxy process) and a way to damage a stored object at rest. Randomized contents come from a seed
 * printed at the start of each test (override with -Delect.test.seed=N).
 */
public abstract class ColdStoreContract
{
    private static final AtomicInteger counter = new AtomicInteger();
    protected static final int B = FramedFormat.BLOCK_SIZE;

    protected ColdStore store;
    protected String prefix;
    protected Random random;
    protected long seed;

    @TempDir
    protected Path tmp;

    /** A fresh store; multipart uploads must kick in above 6 MiB with 5 MiB parts (see options()). */
    protected abstract ColdStore createStore() throws IOException;

    /** Flips one bit of the stored (framed) bytes of key at storedOffset. */
    protected abstract void corruptAtRest(String key, long storedOffset) throws IOException;

    protected static ColdStoreOptions options()
    {
        return ColdStoreOptions.defaults().withParts(5 * 1024 * 1024, 6L * 1024 * 1024, 3);
    }

    @BeforeEach
    void setUp(TestInfo info) throws IOException
    {
        seed = Long.getLong("elect.test.seed", System.nanoTime());
        System.out.println(getClass().getSimpleName() + "." + info.getDisplayName() + " seed=" + seed);
        random = new Random(seed);
        prefix = "contract/" + getClass().getSimpleName().toLowerCase() + "-" + counter.incrementAndGet() + "/";
        store = createStore();
    }

    @AfterEach
    void tearDown()
    {
        if (store != null)
            store.close();
    }

    protected byte[] randomBytes(int n)
    {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private static byte[] bytes(ByteBuffer b)
    {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    @Test
    void roundTripsSizesAroundBlockBoundaries() throws IOException
    {
        int[] sizes = { 0, 1, B - 1, B, B + 1, 3 * B + 7, 100_000 + random.nextInt(50_000) };
        for (int size : sizes)
        {
            byte[] data = randomBytes(size);
            String key = prefix + "size-" + size;
            ObjectInfo info = store.put(key, ByteBuffer.wrap(data));
            assertEquals(size, info.length());
            assertEquals(FramedFormat.storedLength(size), info.storedLength());
            assertArrayEquals(data, bytes(store.readAll(key)), "size " + size);
            assertEquals(Optional.of(info), store.head(key));
        }
    }

    @Test
    void rangedReadsMatchTheSource() throws IOException
    {
        byte[] data = randomBytes(5 * B + 1234);
        String key = prefix + "ranged";
        store.put(key, ByteBuffer.wrap(data));
        List<long[]> ranges = new ArrayList<>(List.of(new long[]{ 0, data.length }, new long[]{ 0, 0 },
                                                      new long[]{ data.length, 0 }, new long[]{ data.length - 1, 1 },
                                                      new long[]{ B - 1, 2 }, new long[]{ B, B }, new long[]{ 0, 1 }));
        for (int i = 0; i < 40; i++)
        {
            int off = random.nextInt(data.length);
            ranges.add(new long[]{ off, random.nextInt(data.length - off + 1) });
        }
        for (long[] r : ranges)
        {
            ByteBuffer got = store.read(key, r[0], (int) r[1]);
            byte[] expected = java.util.Arrays.copyOfRange(data, (int) r[0], (int) (r[0] + r[1]));
            assertArrayEquals(expected, bytes(got), "range " + r[0] + "+" + r[1]);
        }
    }

    @Test
    void multipartUploadFromFileAndBuffers() throws IOException
    {
        byte[] data = randomBytes(12 * 1024 * 1024 + 5);
        Path file = tmp.resolve("big");
        Files.write(file, data);
        String key = prefix + "big-from-file";
        assertEquals(data.length, store.put(key, file).length());
        assertArrayEquals(data, bytes(store.readAll(key)));
        int off = 5 * 1024 * 1024 - 10; // across the first part boundary
        assertArrayEquals(java.util.Arrays.copyOfRange(data, off, off + 64 * 1024), bytes(store.read(key, off, 64 * 1024)));

        // the same bytes as three uneven buffers, with non-zero positions that must not move
        ByteBuffer a = ByteBuffer.wrap(data, 0, 7);
        ByteBuffer b = ByteBuffer.wrap(data, 7, 6 * 1024 * 1024);
        ByteBuffer c = ByteBuffer.wrap(data, 7 + 6 * 1024 * 1024, data.length - 7 - 6 * 1024 * 1024);
        String key2 = prefix + "big-from-buffers";
        store.put(key2, List.of(a, b, c));
        assertEquals(7, b.position());
        assertArrayEquals(data, bytes(store.readAll(key2)));
    }

    @Test
    void rePutOfTheSameBytesIsHarmless() throws IOException
    {
        byte[] data = randomBytes(3 * B);
        String key = prefix + "again";
        store.put(key, ByteBuffer.wrap(data));
        store.put(key, ByteBuffer.wrap(data));
        assertArrayEquals(data, bytes(store.readAll(key)));
        assertEquals(1, store.list(prefix).size());
    }

    @Test
    void headExistsDeleteAreIdempotent() throws IOException
    {
        String key = prefix + "del";
        assertEquals(Optional.empty(), store.head(key));
        assertFalse(store.exists(key));
        store.delete(key); // missing is success
        store.put(key, ByteBuffer.wrap(randomBytes(10)));
        assertTrue(store.exists(key));
        store.delete(key);
        store.delete(key);
        assertFalse(store.exists(key));
        assertThrows(ObjectNotFoundException.class, () -> store.readAll(key));
        assertThrows(ObjectNotFoundException.class, () -> store.read(key, 0, 1));
    }

    @Test
    void listsByPrefixInKeyOrder() throws IOException
    {
        List<String> keys = List.of(prefix + "x/b", prefix + "x/a", prefix + "x/c/d", prefix + "y/a");
        for (String k : keys)
            store.put(k, ByteBuffer.wrap(randomBytes(k.length())));
        List<ObjectInfo> xs = store.list(prefix + "x/");
        assertEquals(List.of(prefix + "x/a", prefix + "x/b", prefix + "x/c/d"), xs.stream().map(ObjectInfo::key).toList());
        for (ObjectInfo o : xs)
            assertEquals(o.key().length(), o.length());
        assertEquals(4, store.list(prefix).size());
        assertEquals(List.of(), store.list(prefix + "nothing/"));
    }

    @Test
    void badInputGivesClearErrors() throws IOException
    {
        String key = prefix + "bad";
        store.put(key, ByteBuffer.wrap(randomBytes(100)));
        assertMessage(IllegalArgumentException.class, "key", () -> store.put("", ByteBuffer.allocate(1)));
        assertMessage(IllegalArgumentException.class, "key", () -> store.readAll(null));
        assertMessage(IllegalArgumentException.class, "key", () -> store.head("a//b"));
        assertMessage(IllegalArgumentException.class, "key", () -> store.delete("../etc/passwd"));
        assertMessage(IllegalArgumentException.class, "offset", () -> store.read(key, -1, 1));
        assertMessage(IllegalArgumentException.class, "length", () -> store.read(key, 0, -1));
        assertMessage(IllegalArgumentException.class, "past the end", () -> store.read(key, 50, 51));
        assertMessage(IllegalArgumentException.class, "past the end", () -> store.read(key, 101, 0));
        assertMessage(IllegalArgumentException.class, "past the end", () -> store.read(key, 1L << 40, 10));
        assertMessage(IllegalArgumentException.class, "prefix", () -> store.list(null));
    }

    protected static void assertMessage(Class<? extends Throwable> type, String fragment,
                                        org.junit.jupiter.api.function.Executable call)
    {
        Throwable t = assertThrows(type, call);
        assertTrue(t.getMessage() != null && t.getMessage().contains(fragment),
                   "message should mention '" + fragment + "': " + t.getMessage());
    }

    @Test
    void corruptionAtRestIsAlwaysDetected() throws IOException
    {
        byte[] data = randomBytes(4 * B + 100);
        String key = prefix + "corrupt";
        store.put(key, ByteBuffer.wrap(data));
        int block = 1 + random.nextInt(2);
        long storedOffset = (long) block * FramedFormat.FRAME_SIZE + random.nextInt(FramedFormat.FRAME_SIZE);
        corruptAtRest(key, storedOffset);
        assertThrows(CorruptObjectException.class, () -> store.readAll(key));
        assertThrows(CorruptObjectException.class, () -> store.read(key, (long) block * B + 3, 10));
        assertThrows(CorruptObjectException.class, () -> store.read(key, 0, data.length));
        // other blocks still read fine
        assertArrayEquals(java.util.Arrays.copyOfRange(data, 0, B), bytes(store.read(key, 0, B)));
        assertArrayEquals(java.util.Arrays.copyOfRange(data, 3 * B, 4 * B), bytes(store.read(key, 3 * B, B)));
        assertTrue(store.metrics().corruptionDetected.sum() >= 3);
    }

    @Test
    void concurrentCallersSeeTheirOwnObjects() throws Exception
    {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try
        {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 16; t++)
            {
                long s = random.nextLong();
                String key = prefix + "conc/" + t;
                futures.add(pool.submit(() -> {
                    byte[] data = new byte[new Random(s).nextInt(4 * B)];
                    new Random(s).nextBytes(data);
                    store.put(key, ByteBuffer.wrap(data));
                    assertArrayEquals(data, bytes(store.readAll(key)));
                    return null;
                }));
            }
            for (Future<?> f : futures)
                f.get();
        }
        finally
        {
            pool.shutdownNow();
        }
        assertEquals(16, store.list(prefix + "conc/").size());
    }

    @Test
    void metricsCountOperationsAndBytes() throws IOException
    {
        String key = prefix + "metrics";
        store.put(key, ByteBuffer.wrap(randomBytes(1000)));
        store.read(key, 10, 100);
        store.readAll(key);
        store.head(key);
        ColdStoreMetrics m = store.metrics();
        assertEquals(1, m.op(ColdStoreMetrics.Op.PUT).count.sum());
        assertEquals(1, m.op(ColdStoreMetrics.Op.READ_RANGE).count.sum());
        assertEquals(1, m.op(ColdStoreMetrics.Op.READ_ALL).count.sum());
        assertEquals(1000, m.bytesWritten.sum());
        assertEquals(1100, m.bytesRead.sum());
        assertTrue(m.op(ColdStoreMetrics.Op.PUT).latency.quantileMillis(0.5) > 0);
        assertThrows(ObjectNotFoundException.class, () -> store.readAll(prefix + "nope"));
        assertEquals(1, m.op(ColdStoreMetrics.Op.READ_ALL).errors.sum());
    }
}
