package io.elect.coding;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Scale-RS widening of a stripe: the coefficient question first (is RS(k', m) restricted to the first k columns
 * RS(k, m)?), then the seeded property: old parity XOR the widening deltas == a fresh RS(k', m) encoding of the
 * widened data, for random k < k' <= 12, m <= 4, virtual slots, member lengths (growing the chunk or not) and
 * contents, for every available backend.
 */
class StripeWideningTest
{
    private static final int ROUNDS = 300;

    /**
     * The answer the widening design depends on. For every m <= 16 and every k < k' with k' + m <= 256 (and for
     * random larger m), the first k columns of RS(k', m)'s parity matrix equal RS(k, m)'s: the normalized Cauchy
     * coefficient a(j, i) is a function of (j, i) alone (x_j = 255 - j and y_i = i do not involve k, and the
     * normalization divides by row 0 and column 0, which do not either).
     */
    @Test
    void cauchyCoefficientsDoNotDependOnK()
    {
        for (int m = 1; m <= 16; m++)
        {
            int widest = CauchyMatrix.MAX_CHUNKS - m;
            byte[][] full = CauchyMatrix.parityRows(widest, m);
            for (int k = 1; k < widest; k++)
                assertPrefix(full, CauchyMatrix.parityRows(k, m), k, m, widest);
        }
        Random r = new Random(7);
        for (int round = 0; round < 200; round++)
        {
            int m = 17 + r.nextInt(CauchyMatrix.MAX_CHUNKS - 18);
            int widest = CauchyMatrix.MAX_CHUNKS - m;
            int k = 1 + r.nextInt(widest);
            assertPrefix(CauchyMatrix.parityRows(widest, m), CauchyMatrix.parityRows(k, m), k, m, widest);
        }
    }

    private static void assertPrefix(byte[][] wide, byte[][] narrow, int k, int m, int widest)
    {
        for (int j = 0; j < m; j++)
            for (int i = 0; i < k; i++)
                assertEquals(narrow[j][i], wide[j][i], "a(" + j + "," + i + ") of RS(" + k + "," + m + ") vs RS(" + widest + "," + m + ")");
    }

    @Test
    void widenedParityEqualsAFreshEncodingOfTheWidenedData()
    {
        long seed = Backends.seed("StripeWideningTest.widenedParityEqualsAFreshEncodingOfTheWidenedData");
        Random r = new Random(seed);
        for (String backend : Backends.all())
            for (int round = 0; round < ROUNDS; round++)
                oneRound(r, backend, "seed " + seed + " " + backend + " round " + round);
    }

    private static void oneRound(Random r, String backend, String context)
    {
        int m = 1 + r.nextInt(4);
        int k = 1 + r.nextInt(11);
        int wider = k + 1 + r.nextInt(12 - k);
        if (r.nextInt(5) == 0)
            wider = k; // filling virtual slots only: k unchanged
        // The old stripe: members of random real lengths (some virtual), chunk length = longest, sometimes padded
        // further (alignment).
        byte[][] data = new byte[wider][];
        Set<Integer> virtual = new HashSet<>();
        int oldLength = 0;
        for (int i = 0; i < k; i++)
        {
            if (i > 0 && r.nextInt(4) == 0)
            {
                virtual.add(i);
                data[i] = new byte[0];
                continue;
            }
            data[i] = randomBytes(r, length(r));
            oldLength = Math.max(oldLength, data[i].length);
        }
        if (r.nextBoolean())
            oldLength += r.nextInt(64);
        ErasureCoder narrow = ErasureCoders.create(k, m, backend);
        ByteBuffer[] oldParity = encode(narrow, data, k, oldLength);

        // New members: every new slot at random (some stay virtual), and every virtual slot at random. Some new
        // members are longer than the old chunk length, which extends every chunk with zeros.
        Map<Integer, ByteBuffer> filled = new HashMap<>();
        for (int i = 0; i < wider; i++)
        {
            boolean open = i >= k || virtual.contains(i);
            if (!open || r.nextInt(5) == 0)
            {
                if (i >= k)
                    data[i] = new byte[0];
                continue;
            }
            data[i] = randomBytes(r, r.nextInt(3) == 0 ? oldLength + 1 + r.nextInt(700) : length(r));
            filled.put(i, slice(data[i], r));
        }
        ErasureCoder wide = ErasureCoders.create(wider, m, backend);
        StripeWidening.Result result = StripeWidening.widen(narrow.codecId(), k, oldLength, virtual, wide, filled);

        int newLength = oldLength;
        for (int i = 0; i < wider; i++)
            newLength = Math.max(newLength, data[i].length);
        assertEquals(newLength, result.chunkLength(), context);
        assertEquals(CauchyMatrix.codecId(wider, m), result.codecId(), context);
        assertEquals(wider, result.dataChunks(), context);
        ByteBuffer[] fresh = encode(wide, data, wider, newLength);
        for (int j = 0; j < m; j++)
        {
            ByteBuffer widened = StripeWidening.applyDelta(oldParity[j], result.parityDeltas()[j]);
            assertArrayEquals(bytes(fresh[j]), bytes(widened), context + " k=" + k + "->" + wider + " m=" + m
                                                               + " filled " + filled.keySet() + " parity " + j);
        }
        // Per member: the deltas its node sends are as long as the member, and sum (XOR) to the stripe's deltas.
        ByteBuffer[] sum = new ByteBuffer[m];
        for (int j = 0; j < m; j++)
            sum[j] = ByteBuffer.allocate(newLength);
        for (Map.Entry<Integer, ByteBuffer> e : filled.entrySet())
        {
            ByteBuffer[] d = StripeWidening.memberDelta(wide, e.getKey(), e.getValue());
            for (int j = 0; j < m; j++)
            {
                assertEquals(e.getValue().remaining(), d[j].remaining(), context);
                for (int x = 0; x < d[j].remaining(); x++)
                    sum[j].put(x, (byte) (sum[j].get(x) ^ d[j].get(x)));
            }
        }
        for (int j = 0; j < m; j++)
            assertArrayEquals(bytes(result.parityDeltas()[j]), bytes(sum[j]), context + " member deltas, parity " + j);
    }

    private static int length(Random r)
    {
        return r.nextInt(8) == 0 ? r.nextInt(8) : 1 + r.nextInt(1500);
    }

    private static byte[] randomBytes(Random r, int n)
    {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    /** The bytes as a buffer whose position is not 0 (absolute-index bugs show), direct or heap at random. */
    private static ByteBuffer slice(byte[] b, Random r)
    {
        int skew = r.nextInt(9);
        ByteBuffer buf = r.nextBoolean() ? ByteBuffer.allocateDirect(b.length + skew + 3) : ByteBuffer.allocate(b.length + skew + 3);
        buf.put(skew, b);
        return buf.position(skew).limit(skew + b.length);
    }

    /** A fresh encoding of the first n chunks, each zero-padded to {@code length}. */
    private static ByteBuffer[] encode(ErasureCoder coder, byte[][] data, int n, int length)
    {
        ByteBuffer[] in = new ByteBuffer[n];
        for (int i = 0; i < n; i++)
        {
            in[i] = ByteBuffer.allocateDirect(length);
            in[i].put(0, data[i]);
        }
        ByteBuffer[] parity = new ByteBuffer[coder.parityChunks()];
        for (int j = 0; j < parity.length; j++)
            parity[j] = ByteBuffer.allocateDirect(length);
        coder.encode(in, parity, 0, length);
        return parity;
    }

    private static byte[] bytes(ByteBuffer b)
    {
        byte[] out = new byte[b.remaining()];
        b.get(b.position(), out);
        return out;
    }

    @Test
    void badArgumentsNameTheField()
    {
        ErasureCoder wide = ErasureCoders.create(4, 2, ErasureCoders.JAVA);
        ByteBuffer one = ByteBuffer.allocate(10);
        String id = CauchyMatrix.codecId(2, 2);
        assertMessage("oldCodecId", () -> StripeWidening.widen(CauchyMatrix.codecId(2, 1), 2, 10, Set.of(), wide, Map.of(2, one)));
        assertMessage("narrowing", () -> StripeWidening.widen(CauchyMatrix.codecId(5, 2), 5, 10, Set.of(), wide, Map.of()));
        assertMessage("filled: slot 1 holds a real member", () -> StripeWidening.widen(id, 2, 10, Set.of(), wide, Map.of(1, one)));
        assertMessage("filled: slot 4", () -> StripeWidening.widen(id, 2, 10, Set.of(), wide, Map.of(4, one)));
        assertMessage("virtualSlots", () -> StripeWidening.widen(id, 2, 10, Set.of(3), wide, Map.of()));
        assertMessage("oldChunkLength", () -> StripeWidening.widen(id, 2, -1, Set.of(), wide, Map.of()));
        assertMessage("slot must be", () -> StripeWidening.memberDelta(wide, 4, one));
        assertMessage("never shrinks", () -> StripeWidening.applyDelta(ByteBuffer.allocate(5), ByteBuffer.allocate(4)));
        // a virtual slot below k may be filled
        StripeWidening.Result ok = StripeWidening.widen(id, 2, 10, Set.of(1), wide, Map.of(1, one));
        assertEquals(10, ok.chunkLength());
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable call)
    {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(expected), "message '" + e.getMessage() + "' should contain '" + expected + "'");
    }
}
