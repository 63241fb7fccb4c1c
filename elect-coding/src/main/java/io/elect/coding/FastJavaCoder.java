package io.elect.coding;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.util.Arrays;

/**
 * Backend {@code java}: the fast pure-Java coder, eight field elements per {@code long}.
 *
 * <p>Method. A product {@code sum_c a_c * d_c} is evaluated by Horner's rule on the bits of the coefficients:
 * with {@code S_b = XOR of the d_c whose coefficient has bit b set},
 * {@code sum_c a_c * d_c = (((S_7 * 2 + S_6) * 2 + S_5) ... ) * 2 + S_0}.
 * Doubling eight packed bytes at once is a handful of shifts, masks and XORs ({@link #twice}), so a whole
 * output row costs at most 7 doublings plus one XOR per set coefficient bit, however many inputs it has.
 * Row 0 of the encode matrix is all ones (a plain XOR). Every loop is a simple element-wise pass over small
 * {@code long[]} blocks that stay in L1, which C2 compiles to SIMD code (AVX2/AVX-512) by itself; the Vector
 * API is not needed. The byte order of the {@code long} views is irrelevant because every operation acts on
 * each byte lane alone; all views use the same (native) order.
 *
 * <p>Thread-safe: per-thread scratch blocks, immutable plans.
 */
final class FastJavaCoder extends AbstractCoder<FastJavaCoder.Plan>
{
    /** Longs per block: 2 KiB per input; k inputs plus two work blocks stay within L1 for the usual k <= 12. */
    static final int BLOCK = 256;
    private static final long LOW7 = 0x7f7f7f7f7f7f7f7fL;
    private static final long ONES = 0x0101010101010101L;
    private static final long POLY = 0x1d1d1d1d1d1d1d1dL;
    /** BITS[c] = the positions of the set bits of c, ascending. */
    private static final int[][] BITS = new int[256][];

    static
    {
        for (int c = 0; c < 256; c++)
        {
            int[] bits = new int[Integer.bitCount(c)];
            for (int b = 0, n = 0; b < 8; b++)
                if ((c >>> b & 1) != 0)
                    bits[n++] = b;
            BITS[c] = bits;
        }
    }

    private final ThreadLocal<long[][]> scratch;

    FastJavaCoder(int k, int m)
    {
        super(k, m);
        // k input blocks (encode and decode use k inputs; update uses 8 for the multiples x^b * delta), then
        // the accumulator and the old output as the last two.
        this.scratch = ThreadLocal.withInitial(() -> new long[Math.max(k, 8) + 2][BLOCK]);
    }

    @Override
    public String backend()
    {
        return "java";
    }

    /** For each output row: the highest set coefficient bit, and for each bit the inputs whose coefficient has it. */
    static final class Plan
    {
        final byte[][] rows;
        final int[] top;
        final int[][][] columnsByBit;
        /** The highest set bit over all coefficients (-1 if all are zero). */
        final int maxTop;

        Plan(byte[][] rows)
        {
            this.rows = rows;
            this.top = new int[rows.length];
            this.columnsByBit = new int[rows.length][8][];
            for (int r = 0; r < rows.length; r++)
            {
                top[r] = -1;
                for (int b = 0; b < 8; b++)
                {
                    int[] cols = new int[rows[r].length];
                    int n = 0;
                    for (int c = 0; c < rows[r].length; c++)
                        if ((rows[r][c] >>> b & 1) != 0)
                            cols[n++] = c;
                    columnsByBit[r][b] = Arrays.copyOf(cols, n);
                    if (n > 0)
                        top[r] = b;
                }
            }
            int max = -1;
            for (int t : top)
                max = Math.max(max, t);
            this.maxTop = max;
        }
    }

    @Override
    protected Plan prepare(byte[][] rows)
    {
        byte[][] copy = new byte[rows.length][];
        for (int r = 0; r < rows.length; r++)
            copy[r] = rows[r].clone();
        return new Plan(copy);
    }

    @Override
    protected void multiply(Plan plan, ByteBuffer[] in, int inOffset, ByteBuffer[] out, int outOffset, int len,
                            boolean accumulate)
    {
        int words = len >>> 3;
        if (words > 0)
        {
            LongBuffer[] inWords = views(in, inOffset);
            LongBuffer[] outWords = views(out, outOffset);
            long[][] s = scratch.get();
            long[] acc = s[s.length - 2];
            long[] old = s[s.length - 1];
            boolean single = in.length == 1;
            for (int w = 0; w < words; w += BLOCK)
            {
                int n = Math.min(BLOCK, words - w);
                for (int c = 0; c < in.length; c++)
                    inWords[c].get(w, s[c], 0, n);
                if (single)
                    multiples(plan.maxTop, s, n);
                for (int r = 0; r < out.length; r++)
                {
                    if (single)
                        combineMultiples(plan.rows[r][0] & 0xff, s, acc, n);
                    else
                        combine(plan, r, s, acc, n);
                    if (accumulate)
                    {
                        outWords[r].get(w, old, 0, n);
                        xor(acc, old, n);
                    }
                    outWords[r].put(w, acc, 0, n);
                }
            }
        }
        int done = words << 3;
        if (done < len)
            tail(plan.rows, in, inOffset + done, out, outOffset + done, len - done, accumulate);
    }

    /** acc[0..n) = row r of the plan times the input blocks, by Horner's rule on the coefficient bits. */
    private static void combine(Plan plan, int r, long[][] in, long[] acc, int n)
    {
        int top = plan.top[r];
        if (top < 0)
        {
            Arrays.fill(acc, 0, n, 0L);
            return;
        }
        int[][] byBit = plan.columnsByBit[r];
        int[] cols = byBit[top];
        System.arraycopy(in[cols[0]], 0, acc, 0, n);
        xorFrom(acc, in, cols, 1, n);
        for (int b = top - 1; b >= 0; b--)
        {
            cols = byBit[b];
            // Fused passes: each pass loads and stores acc once, so folding up to three inputs into the
            // doubling pass cuts L1 traffic by a third or more for typical rows.
            switch (cols.length)
            {
                case 0:
                    twice(acc, n);
                    break;
                case 1:
                    twiceXor(acc, in[cols[0]], n);
                    break;
                case 2:
                    twiceXor(acc, in[cols[0]], in[cols[1]], n);
                    break;
                default:
                    twiceXor(acc, in[cols[0]], in[cols[1]], in[cols[2]], n);
                    xorFrom(acc, in, cols, 3, n);
            }
        }
    }

    /** acc ^= in[cols[from]] ^ in[cols[from + 1]] ^ ..., three inputs per pass. */
    private static void xorFrom(long[] acc, long[][] in, int[] cols, int from, int n)
    {
        int q = from;
        for (; q + 3 <= cols.length; q += 3)
            xor(acc, in[cols[q]], in[cols[q + 1]], in[cols[q + 2]], n);
        for (; q < cols.length; q++)
            xor(acc, in[cols[q]], n);
    }

    /**
     * One input (the update path, one delta to m parities): s[b] = x^b * s[0] for b <= maxTop, computed once
     * and shared by every output row, instead of up to 7 doublings per row.
     */
    private static void multiples(int maxTop, long[][] s, int n)
    {
        for (int b = 1; b <= maxTop; b++)
        {
            long[] from = s[b - 1];
            long[] to = s[b];
            for (int x = 0; x < n; x++)
                to[x] = twice(from[x]);
        }
    }

    /** acc[0..n) = coefficient * s[0], as the XOR of the multiples s[b] for the set bits b of the coefficient. */
    private static void combineMultiples(int coefficient, long[][] s, long[] acc, int n)
    {
        int[] bits = BITS[coefficient];
        int count = bits.length;
        if (count == 0)
        {
            Arrays.fill(acc, 0, n, 0L);
            return;
        }
        System.arraycopy(s[bits[0]], 0, acc, 0, n);
        int q = 1;
        for (; q + 3 <= count; q += 3)
            xor(acc, s[bits[q]], s[bits[q + 1]], s[bits[q + 2]], n);
        for (; q < count; q++)
            xor(acc, s[bits[q]], n);
    }

    /** Multiplies each of the 8 bytes of every word by x (that is, 2) modulo 0x11d. */
    static long twice(long v)
    {
        long high = (v >>> 7) & ONES;
        // (high << 8) - high turns each 0x01 lane into 0xff without borrowing across lanes.
        return ((v & LOW7) << 1) ^ (((high << 8) - high) & POLY);
    }

    private static void twice(long[] a, int n)
    {
        for (int x = 0; x < n; x++)
            a[x] = twice(a[x]);
    }

    private static void twiceXor(long[] a, long[] b, int n)
    {
        for (int x = 0; x < n; x++)
            a[x] = twice(a[x]) ^ b[x];
    }

    private static void twiceXor(long[] a, long[] b, long[] c, int n)
    {
        for (int x = 0; x < n; x++)
            a[x] = twice(a[x]) ^ b[x] ^ c[x];
    }

    private static void twiceXor(long[] a, long[] b, long[] c, long[] d, int n)
    {
        for (int x = 0; x < n; x++)
            a[x] = twice(a[x]) ^ b[x] ^ c[x] ^ d[x];
    }

    private static void xor(long[] a, long[] b, int n)
    {
        for (int x = 0; x < n; x++)
            a[x] ^= b[x];
    }

    private static void xor(long[] a, long[] b, long[] c, long[] d, int n)
    {
        for (int x = 0; x < n; x++)
            a[x] ^= b[x] ^ c[x] ^ d[x];
    }

    private static LongBuffer[] views(ByteBuffer[] buffers, int offset)
    {
        LongBuffer[] views = new LongBuffer[buffers.length];
        for (int i = 0; i < buffers.length; i++)
        {
            ByteBuffer b = buffers[i].duplicate();
            b.position(offset);
            views[i] = b.order(ByteOrder.nativeOrder()).asLongBuffer();
        }
        return views;
    }

    /** The last len % 8 bytes, one at a time. */
    private static void tail(byte[][] rows, ByteBuffer[] in, int inOffset, ByteBuffer[] out, int outOffset, int len,
                             boolean accumulate)
    {
        byte[] mul = Gf256.mulTable();
        for (int r = 0; r < rows.length; r++)
        {
            for (int x = 0; x < len; x++)
            {
                int v = accumulate ? out[r].get(outOffset + x) : 0;
                for (int c = 0; c < in.length; c++)
                    v ^= mul[Gf256.rowOffset(rows[r][c] & 0xff) | (in[c].get(inOffset + x) & 0xff)];
                out[r].put(outOffset + x, (byte) v);
            }
        }
    }
}
