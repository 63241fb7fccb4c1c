package io.elect.coding;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Seeded randomized comparison of every available backend with the reference coder: same parity, encode with
 * one backend and rebuild with another, incremental update == full re-encode, partial-range rebuild == the
 * same range of a full rebuild, widening k -> k' by contributions, and clean failure on m+1 erasures.
 */
class DifferentialTest
{
    private static final int ROUNDS = 400;

    /** Random shape: mostly small codes, sometimes wide ones; lengths cover tails (len % 8 != 0) and 0. */
    private static int[] shape(Random r)
    {
        int k = r.nextInt(10) == 0 ? 10 + r.nextInt(40) : 1 + r.nextInt(12);
        int m = r.nextInt(10) == 0 ? 5 + r.nextInt(8) : 1 + r.nextInt(5);
        int len = r.nextInt(8) == 0 ? r.nextInt(16) : r.nextInt(6000);
        int offset = r.nextInt(3) == 0 ? 0 : r.nextInt(100);
        return new int[]{ k, m, len, offset };
    }

    private static ByteBuffer[] randomChunks(Random r, int count, int size, boolean direct)
    {
        ByteBuffer[] b = new ByteBuffer[count];
        for (int i = 0; i < count; i++)
            b[i] = Backends.randomBuffer(r, size, direct);
        return b;
    }

    private static ByteBuffer[] copies(ByteBuffer[] in, boolean direct)
    {
        ByteBuffer[] out = new ByteBuffer[in.length];
        for (int i = 0; i < in.length; i++)
            out[i] = in[i] == null ? null : Backends.copy(in[i], direct);
        return out;
    }

    private static void assertSameRange(ByteBuffer[] expected, ByteBuffer[] actual, int offset, int len, String what)
    {
        for (int i = 0; i < expected.length; i++)
            assertArrayEquals(Backends.bytes(expected[i], offset, len), Backends.bytes(actual[i], offset, len),
                              what + " chunk " + i);
    }

    private static int[] randomErasures(Random r, int n, int count)
    {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < n; i++)
            all.add(i);
        Collections.shuffle(all, r);
        return all.subList(0, count).stream().mapToInt(Integer::intValue).toArray();
    }

    @Test
    void allBackendsAgreeWithTheReference()
    {
        long seed = Backends.seed("DifferentialTest.allBackendsAgreeWithTheReference");
        Random r = new Random(seed);
        List<String> backends = Backends.fast();
        System.out.println("backends under test: " + backends);
        for (int round = 0; round < ROUNDS; round++)
        {
            int[] s = shape(r);
            int k = s[0], m = s[1], len = s[2], offset = s[3], size = offset + len + r.nextInt(9);
            String context = "seed " + seed + " round " + round + " k=" + k + " m=" + m + " len=" + len
                             + " offset=" + offset;
            ErasureCoder reference = ErasureCoders.create(k, m, ErasureCoders.JAVA_REFERENCE);
            ByteBuffer[] data = randomChunks(r, k, size, true);
            ByteBuffer[] expectedParity = randomChunks(r, m, size, true);
            reference.encode(data, expectedParity, offset, len);

            for (String b : backends)
            {
                ErasureCoder coder = ErasureCoders.create(k, m, b);
                assertEquals(reference.codecId(), coder.codecId());
                boolean direct = r.nextBoolean();
                // 1. identical parity, and bytes outside the range untouched
                ByteBuffer[] parity = copies(expectedParity, direct);
                for (ByteBuffer p : parity)
                    for (int x = offset; x < offset + len; x++)
                        p.put(x, (byte) 0x5a);
                coder.encode(copies(data, direct), parity, offset, len);
                assertSameRange(expectedParity, parity, 0, size, b + " encode, " + context);

                // 2. encoded above by b, rebuilt by another backend: random pattern of 0..m erasures
                String other = backends.get(r.nextInt(backends.size()));
                ErasureCoder rebuilder = ErasureCoders.create(k, m, other);
                ByteBuffer[] chunks = new ByteBuffer[k + m];
                for (int i = 0; i < k; i++)
                    chunks[i] = Backends.copy(data[i], r.nextBoolean());
                for (int j = 0; j < m; j++)
                    chunks[k + j] = Backends.copy(parity[j], r.nextBoolean());
                ByteBuffer[] original = copies(chunks, true);
                int[] erased = randomErasures(r, k + m, r.nextInt(m + 1));
                for (int e : erased)
                    for (int x = offset; x < offset + len; x++)
                        chunks[e].put(x, (byte) 0xa5);
                rebuilder.reconstruct(chunks, erased, offset, len);
                assertSameRange(original, chunks, offset, len, other + " rebuild of " + b + " parity, erased "
                                                              + java.util.Arrays.toString(erased) + ", " + context);
            }
        }
    }

    @Test
    void incrementalUpdateEqualsFullReencode()
    {
        long seed = Backends.seed("DifferentialTest.incrementalUpdateEqualsFullReencode");
        Random r = new Random(seed);
        for (int round = 0; round < ROUNDS / 2; round++)
        {
            int[] s = shape(r);
            int k = s[0], m = s[1], len = s[2], offset = s[3];
            int deltaOffset = r.nextInt(50);
            String context = "seed " + seed + " round " + round + " k=" + k + " m=" + m + " len=" + len;
            for (String b : Backends.all())
            {
                ErasureCoder coder = ErasureCoders.create(k, m, b);
                boolean direct = r.nextBoolean();
                ByteBuffer[] data = randomChunks(r, k, offset + len, direct);
                ByteBuffer[] parity = randomChunks(r, m, offset + len, direct);
                coder.encode(data, parity, offset, len);
                // change a few data chunks, apply their deltas one by one
                int changes = 1 + r.nextInt(Math.min(3, k));
                for (int c = 0; c < changes; c++)
                {
                    int i = r.nextInt(k);
                    ByteBuffer delta = Backends.buffer(r, deltaOffset + len, direct);
                    for (int x = 0; x < len; x++)
                    {
                        byte fresh = (byte) r.nextInt(256);
                        delta.put(deltaOffset + x, (byte) (fresh ^ data[i].get(offset + x)));
                        data[i].put(offset + x, fresh);
                    }
                    coder.update(i, delta, deltaOffset, parity, offset, len);
                }
                ByteBuffer[] full = randomChunks(r, m, offset + len, direct);
                coder.encode(data, full, offset, len);
                assertSameRange(full, parity, offset, len, b + " update vs re-encode, " + context);
            }
        }
    }

    @Test
    void partialRangeRebuildEqualsSameRangeOfFullRebuild()
    {
        long seed = Backends.seed("DifferentialTest.partialRangeRebuildEqualsSameRangeOfFullRebuild");
        Random r = new Random(seed);
        for (String b : Backends.all())
        {
            for (int round = 0; round < 20; round++)
            {
                int k = 1 + r.nextInt(10), m = 1 + r.nextInt(4), size = 1 + r.nextInt(5000);
                ErasureCoder coder = ErasureCoders.create(k, m, b);
                ByteBuffer[] chunks = randomChunks(r, k + m, size, true);
                coder.encode(java.util.Arrays.copyOf(chunks, k), java.util.Arrays.copyOfRange(chunks, k, k + m), 0, size);
                int[] erased = randomErasures(r, k + m, 1 + r.nextInt(m));
                ByteBuffer[] whole = copies(chunks, true);
                ByteBuffer[] part = copies(chunks, true);
                for (int e : erased)
                {
                    whole[e] = Backends.buffer(r, size, true);
                    part[e] = Backends.buffer(r, size, true);
                }
                coder.reconstruct(whole, erased, 0, size);
                int from = r.nextInt(size), len = r.nextInt(size - from + 1);
                coder.reconstruct(part, erased, from, len);
                String context = b + " seed " + seed + " k=" + k + " m=" + m + " range [" + from + "," + (from + len) + ")";
                for (int e : erased)
                {
                    assertArrayEquals(Backends.bytes(chunks[e], 0, size), Backends.bytes(whole[e], 0, size), context);
                    assertArrayEquals(Backends.bytes(whole[e], from, len), Backends.bytes(part[e], from, len), context);
                }
            }
        }
    }

    @Test
    void wideningAddsTheNewChunksContributions()
    {
        // Scale-RS: parity(k') == parity(k) + sum over added chunks i of a(j,i) * d_i, with the same m.
        long seed = Backends.seed("DifferentialTest.wideningAddsTheNewChunksContributions");
        Random r = new Random(seed);
        for (String b : Backends.all())
        {
            int m = 1 + r.nextInt(4), k = 1 + r.nextInt(8), wider = k + 1 + r.nextInt(8), len = 1 + r.nextInt(3000);
            ByteBuffer[] data = randomChunks(r, wider, len, true);
            ErasureCoder narrow = ErasureCoders.create(k, m, b);
            ErasureCoder wide = ErasureCoders.create(wider, m, b);
            for (int j = 0; j < m; j++)
                for (int i = 0; i < k; i++)
                    assertEquals(narrow.coefficient(j, i), wide.coefficient(j, i));
            ByteBuffer[] widened = randomChunks(r, m, len, true);
            narrow.encode(java.util.Arrays.copyOf(data, k), widened, 0, len);
            for (int i = k; i < wider; i++)
                wide.update(i, data[i], 0, widened, 0, len);
            ByteBuffer[] direct = randomChunks(r, m, len, true);
            wide.encode(data, direct, 0, len);
            assertSameRange(direct, widened, 0, len, b + " widen " + k + "->" + wider + " m=" + m + " seed " + seed);
        }
    }

    @Test
    void moreThanMErasuresFailCleanlyAndTouchNothing()
    {
        long seed = Backends.seed("DifferentialTest.moreThanMErasuresFailCleanlyAndTouchNothing");
        Random r = new Random(seed);
        for (String b : Backends.all())
        {
            int k = 1 + r.nextInt(8), m = 1 + r.nextInt(4), len = 100;
            ErasureCoder coder = ErasureCoders.create(k, m, b);
            ByteBuffer[] chunks = randomChunks(r, k + m, len, true);
            ByteBuffer[] before = copies(chunks, true);
            int[] erased = randomErasures(r, k + m, m + 1);
            assertThrows(TooFewChunksException.class, () -> coder.reconstruct(chunks, erased, 0, len));
            // m erasures but one more survivor missing (null) is also too few
            int[] justM = java.util.Arrays.copyOf(erased, m);
            ByteBuffer[] withHole = chunks.clone();
            withHole[erased[m]] = null;
            assertThrows(TooFewChunksException.class, () -> coder.reconstruct(withHole, justM, 0, len));
            assertSameRange(before, chunks, 0, len, b + " after failed rebuild");
        }
    }
}
