package io.elect.coding;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One coder instance shared by several threads (per-thread scratch, concurrently built decode plans) gives the
 * same bytes as the reference coder.
 */
class ConcurrencyTest
{
    @Test
    void sharedCoderUnderConcurrentEncodeAndRebuild() throws Exception
    {
        long seed = Backends.seed("ConcurrencyTest.sharedCoderUnderConcurrentEncodeAndRebuild");
        int k = 6, m = 3, size = 20_000;
        ErasureCoder reference = ErasureCoders.create(k, m, ErasureCoders.JAVA_REFERENCE);
        Random setup = new Random(seed);
        ByteBuffer[] data = new ByteBuffer[k];
        for (int i = 0; i < k; i++)
            data[i] = Backends.randomBuffer(setup, size, true);
        ByteBuffer[] parity = new ByteBuffer[m];
        for (int j = 0; j < m; j++)
            parity[j] = ByteBuffer.allocateDirect(size);
        reference.encode(data, parity, 0, size);
        ByteBuffer[] stripe = new ByteBuffer[k + m];
        System.arraycopy(data, 0, stripe, 0, k);
        System.arraycopy(parity, 0, stripe, k, m);

        for (String backend : Backends.fast())
        {
            ErasureCoder shared = ErasureCoders.create(k, m, backend);
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try
            {
                List<Future<?>> results = new ArrayList<>();
                for (int t = 0; t < 4; t++)
                {
                    long threadSeed = seed + t;
                    results.add(pool.submit(() -> work(shared, stripe, k, m, size, new Random(threadSeed))));
                }
                for (Future<?> f : results)
                    f.get(60, TimeUnit.SECONDS);
            }
            finally
            {
                pool.shutdownNow();
                assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
            }
        }
    }

    private static void work(ErasureCoder coder, ByteBuffer[] stripe, int k, int m, int size, Random random)
    {
        for (int round = 0; round < 40; round++)
        {
            int from = random.nextInt(size), len = random.nextInt(size - from + 1);
            ByteBuffer[] chunks = new ByteBuffer[k + m];
            for (int c = 0; c < k + m; c++)
                chunks[c] = stripe[c].duplicate();
            int count = random.nextInt(m + 1);
            int[] erased = random.ints(0, k + m).distinct().limit(count).toArray();
            for (int e : erased)
                chunks[e] = ByteBuffer.allocateDirect(size);
            coder.reconstruct(chunks, erased, from, len);
            for (int e : erased)
                assertArrayEquals(Backends.bytes(stripe[e], from, len), Backends.bytes(chunks[e], from, len),
                                  coder.backend() + " erased " + e + " range " + from + "+" + len);
            ByteBuffer[] parity = new ByteBuffer[m];
            for (int j = 0; j < m; j++)
                parity[j] = ByteBuffer.allocateDirect(size);
            ByteBuffer[] data = new ByteBuffer[k];
            System.arraycopy(stripe, 0, data, 0, k);
            coder.encode(data, parity, from, len);
            for (int j = 0; j < m; j++)
                assertArrayEquals(Backends.bytes(stripe[k + j], from, len), Backends.bytes(parity[j], from, len));
        }
    }
}
