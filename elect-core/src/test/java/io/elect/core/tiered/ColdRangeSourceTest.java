package io.elect.core.tiered;

import io.elect.core.stripes.ChunkCorruptionException;

import io.elect.core.stripes.ChunkChecksums;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.elect.offload.FramedColdStore;
import io.elect.offload.InMemoryBlobStore;
import io.elect.offload.ColdStoreOptions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ColdRangeSourceTest
{
    private static final int CS = ChunkChecksums.DEFAULT_CHUNK_SIZE;

    @Test
    void randomReadsMatchAndFetchOnlyNeededChunks() throws IOException
    {
        long seed = System.nanoTime();
        System.out.println("ColdRangeSourceTest seed=" + seed);
        Random rnd = new Random(seed);
        byte[] data = new byte[CS * 20 + rnd.nextInt(CS)];
        rnd.nextBytes(data);
        try (FramedColdStore store = FramedColdStore.inMemory())
        {
            store.put("obj", ByteBuffer.wrap(data));
            ChunkChecksums sums = ChunkChecksums.compute(ByteBuffer.wrap(data), CS);
            TieredChunkCache cache = new TieredChunkCache(4L * CS);
            ColdRangeSource src = new ColdRangeSource(store, "mem", "obj", sums, cache, null);
            assertEquals(data.length, src.length());
            for (int i = 0; i < 300; i++)
            {
                int len = rnd.nextInt(3 * CS);
                long pos = rnd.nextInt(data.length - len + 1);
                SourceCounters.Snapshot before = src.counters().snapshot();
                ByteBuffer dst = ByteBuffer.allocate(len);
                src.read(pos, dst);
                assertEquals(len, dst.position());
                byte[] expect = java.util.Arrays.copyOfRange(data, (int) pos, (int) pos + len);
                assertArrayEquals(expect, dst.array(), "read at " + pos + "+" + len);
                SourceCounters.Snapshot d = src.counters().snapshot().minus(before);
                long chunksTouched = len == 0 ? 0 : (pos + len - 1) / CS - pos / CS + 1;
                assertTrue(d.chunksFetched() + d.cacheHits() == chunksTouched, "chunks " + d + " for " + chunksTouched);
                assertTrue(d.requests() <= chunksTouched && d.bytesFetched() <= chunksTouched * CS, d.toString());
            }
            assertTrue(cache.sizeBytes() <= 4L * CS);

            // A point read inside one chunk: one request, one chunk; the second time: served by the cache.
            SourceCounters.Snapshot before = src.counters().snapshot();
            cache.clear();
            src.read(5L * CS + 100, ByteBuffer.allocate(500));
            SourceCounters.Snapshot d = src.counters().snapshot().minus(before);
            assertEquals(1, d.requests());
            assertEquals(CS, d.bytesFetched());
            src.read(5L * CS + 1000, ByteBuffer.allocate(500));
            assertEquals(1, src.counters().snapshot().minus(before).requests(), "warm read fetched nothing");
            assertThrows(IllegalArgumentException.class, () -> src.read(data.length - 1, ByteBuffer.allocate(2)));
        }
    }

    @Test
    void concurrentReadersOfAChunkShareOneFetch() throws Exception
    {
        byte[] data = new byte[CS * 4];
        new Random(11).nextBytes(data);
        io.elect.offload.FaultInjectingBlobStore slow = new io.elect.offload.FaultInjectingBlobStore(
            new InMemoryBlobStore(), 1, io.elect.offload.FaultInjectingBlobStore.Faults.NONE);
        try (FramedColdStore store = new FramedColdStore("slow", slow, ColdStoreOptions.defaults()))
        {
            store.put("obj", ByteBuffer.wrap(data));
            slow.setFaults(new io.elect.offload.FaultInjectingBlobStore.Faults(0, 0, 0, 0, 0, 0, 200));
            ColdRangeSource src = new ColdRangeSource(store, "mem", "obj", ChunkChecksums.compute(ByteBuffer.wrap(data), CS),
                                                      new TieredChunkCache(1 << 20), null);
            int threads = 8;
            java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
            try
            {
                List<java.util.concurrent.Future<byte[]>> results = new java.util.ArrayList<>();
                for (int t = 0; t < threads; t++)
                    results.add(pool.submit(() -> {
                        start.await();
                        ByteBuffer b = ByteBuffer.allocate(100);
                        src.read(CS + 50, b);
                        return b.array();
                    }));
                for (java.util.concurrent.Future<byte[]> f : results)
                    assertArrayEquals(java.util.Arrays.copyOfRange(data, CS + 50, CS + 150), f.get());
            }
            finally
            {
                pool.shutdownNow();
            }
            long requests = src.counters().requests.sum();
            System.out.println("concurrent readers: " + requests + " fetches for " + threads + " readers of one chunk");
            assertTrue(requests <= 2, "readers of one chunk shared the fetch: " + requests + " fetches");
        }
    }

    @Test
    void replacedOrCorruptObjectIsDetected() throws IOException
    {
        Random rnd = new Random(42);
        byte[] data = new byte[CS * 3 + 17];
        rnd.nextBytes(data);
        InMemoryBlobStore blobs = new InMemoryBlobStore();
        try (FramedColdStore store = new FramedColdStore("mem", blobs, ColdStoreOptions.defaults().withMaxAttempts(2)))
        {
            ChunkChecksums sums = ChunkChecksums.compute(ByteBuffer.wrap(data), CS);
            // an object with valid framing but other bytes (e.g. overwritten by a buggy writer): our checksums catch it
            byte[] other = data.clone();
            other[CS + 5] ^= 1;
            store.put("replaced", ByteBuffer.wrap(other));
            ColdRangeSource src = new ColdRangeSource(store, "mem", "replaced", sums, null, null);
            src.read(0, ByteBuffer.allocate(CS)); // chunk 0 is intact
            ChunkCorruptionException e = assertThrows(ChunkCorruptionException.class,
                                                       () -> src.read(CS + 1, ByteBuffer.allocate(10)));
            assertTrue(e.getMessage().contains("chunk 1"), e.getMessage());
            assertEquals(1, src.counters().corruptChunks.sum());

            // a bit flipped at rest under the store's framing: the store reports it, we surface a corruption error
            store.put("flipped", ByteBuffer.wrap(data));
            blobs.rawBytes("flipped")[10] ^= 0x10;
            ColdRangeSource flipped = new ColdRangeSource(store, "mem", "flipped", sums, null, null);
            assertThrows(ChunkCorruptionException.class, () -> flipped.read(0, ByteBuffer.allocate(100)));
        }
    }
}
