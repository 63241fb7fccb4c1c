package io.elect.coding;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Everything the backends share: argument validation (always before any memory is touched), the choice of
 * survivors, and the cache of prepared decode matrices. A backend only supplies one kernel, a GF(2^8)
 * matrix-times-chunks product {@code out[r] (^)= sum_c rows[r][c] * in[c]}, and the per-matrix state it needs
 * for it (type {@code P}; for ISA-L the expanded coding tables).
 *
 * <p>Immutable and thread-safe: plans are immutable once built and the cache is a concurrent map; two threads
 * that race to build the plan of one erasure pattern build equal plans and one of them wins.
 */
abstract class AbstractCoder<P> implements ErasureCoder
{
    /** Bound on cached decode plans; patterns are few in practice (k+m choose m), the bound stops a leak. */
    private static final int MAX_CACHED_PLANS = 4096;

    protected final int k;
    protected final int m;
    private final String codecId;
    private final byte[][] parityRows;
    private final P encodePlan;
    private final P[] updatePlans;
    private final ConcurrentHashMap<PatternKey, P> decodePlans = new ConcurrentHashMap<>();

    @SuppressWarnings("unchecked")
    protected AbstractCoder(int k, int m)
    {
        CauchyMatrix.checkShape(k, m);
        this.k = k;
        this.m = m;
        this.codecId = CauchyMatrix.codecId(k, m);
        this.parityRows = CauchyMatrix.parityRows(k, m);
        this.encodePlan = prepare(parityRows);
        this.updatePlans = (P[]) new Object[k];
        for (int i = 0; i < k; i++)
        {
            byte[][] column = new byte[m][1];
            for (int j = 0; j < m; j++)
                column[j][0] = parityRows[j][i];
            updatePlans[i] = prepare(column);
        }
    }

    /** Builds the backend state for a product by {@code rows} (rows.length outputs x rows[0].length inputs). */
    protected abstract P prepare(byte[][] rows);

    /**
     * The kernel: for each output r, {@code out[r][outOffset..+len) = sum_c rows[r][c] * in[c][inOffset..+len)},
     * XORed into the existing bytes when {@code accumulate}. Arguments are already validated; outputs never
     * alias inputs.
     */
    protected abstract void multiply(P plan, ByteBuffer[] in, int inOffset, ByteBuffer[] out, int outOffset, int len,
                                     boolean accumulate);

    @Override
    public int dataChunks()
    {
        return k;
    }

    @Override
    public int parityChunks()
    {
        return m;
    }

    @Override
    public String codecId()
    {
        return codecId;
    }

    @Override
    public int coefficient(int parityIndex, int dataIndex)
    {
        if (parityIndex < 0 || parityIndex >= m)
            throw new IllegalArgumentException("parityIndex must be in [0, " + m + "), got " + parityIndex);
        if (dataIndex < 0 || dataIndex >= k)
            throw new IllegalArgumentException("dataIndex must be in [0, " + k + "), got " + dataIndex);
        return parityRows[parityIndex][dataIndex] & 0xff;
    }

    @Override
    public void encode(ByteBuffer[] data, ByteBuffer[] parity, int offset, int len)
    {
        checkRangeArgs(offset, len);
        checkBuffers("data", data, k, offset, len, false);
        checkBuffers("parity", parity, m, offset, len, true);
        if (len > 0)
            multiply(encodePlan, data, offset, parity, offset, len, false);
    }

    @Override
    public void reconstruct(ByteBuffer[] chunks, int[] erased, int offset, int len)
    {
        checkRangeArgs(offset, len);
        if (chunks == null)
            throw new IllegalArgumentException("chunks is null");
        if (chunks.length != k + m)
            throw new IllegalArgumentException("chunks must have k+m=" + (k + m) + " entries, got " + chunks.length);
        if (erased == null)
            throw new IllegalArgumentException("erased is null");
        if (erased.length > m)
            throw new TooFewChunksException("cannot rebuild " + erased.length + " erased chunks " + Arrays.toString(erased)
                                            + " with m=" + m + " parity chunks (" + codecId + ")");
        boolean[] isErased = new boolean[k + m];
        for (int e : erased)
        {
            if (e < 0 || e >= k + m)
                throw new IllegalArgumentException("erased index " + e + " outside [0, " + (k + m) + ")");
            if (isErased[e])
                throw new IllegalArgumentException("erased index " + e + " listed twice");
            isErased[e] = true;
            checkBuffer("chunks[" + e + "]", chunks[e], offset, len, true);
        }
        int[] survivors = new int[k];
        int found = 0;
        for (int c = 0; c < k + m && found < k; c++)
            if (!isErased[c] && chunks[c] != null)
                survivors[found++] = c;
        if (found < k)
            throw new TooFewChunksException("need k=" + k + " surviving chunks to rebuild " + Arrays.toString(erased)
                                            + ", only " + found + " are present (" + codecId + ")");
        ByteBuffer[] in = new ByteBuffer[k];
        for (int r = 0; r < k; r++)
        {
            in[r] = chunks[survivors[r]];
            checkBuffer("chunks[" + survivors[r] + "]", in[r], offset, len, false);
        }
        if (erased.length == 0 || len == 0)
            return;
        ByteBuffer[] out = new ByteBuffer[erased.length];
        for (int w = 0; w < erased.length; w++)
            out[w] = chunks[erased[w]];
        multiply(decodePlan(survivors, erased), in, offset, out, offset, len, false);
    }

    @Override
    public void update(int dataIndex, ByteBuffer delta, int deltaOffset, ByteBuffer[] parity, int parityOffset, int len)
    {
        if (dataIndex < 0 || dataIndex >= k)
            throw new IllegalArgumentException("dataIndex must be in [0, " + k + "), got " + dataIndex);
        if (len < 0)
            throw new IllegalArgumentException("len must be >= 0, got " + len);
        if (deltaOffset < 0)
            throw new IllegalArgumentException("deltaOffset must be >= 0, got " + deltaOffset);
        if (parityOffset < 0)
            throw new IllegalArgumentException("parityOffset must be >= 0, got " + parityOffset);
        checkBuffer("delta", delta, deltaOffset, len, false);
        checkBuffers("parity", parity, m, parityOffset, len, true);
        if (len > 0)
            multiply(updatePlans[dataIndex], new ByteBuffer[]{ delta }, deltaOffset, parity, parityOffset, len, true);
    }

    private P decodePlan(int[] survivors, int[] erased)
    {
        PatternKey key = new PatternKey(survivors, erased);
        P plan = decodePlans.get(key);
        if (plan != null)
            return plan;
        if (decodePlans.size() >= MAX_CACHED_PLANS)
            decodePlans.clear();
        plan = prepare(CauchyMatrix.decodeRows(k, m, survivors, erased));
        P raced = decodePlans.putIfAbsent(key, plan);
        return raced != null ? raced : plan;
    }

    private static void checkRangeArgs(int offset, int len)
    {
        if (offset < 0)
            throw new IllegalArgumentException("offset must be >= 0, got " + offset);
        if (len < 0)
            throw new IllegalArgumentException("len must be >= 0, got " + len);
    }

    private static void checkBuffers(String name, ByteBuffer[] buffers, int expected, int offset, int len,
                                     boolean written)
    {
        if (buffers == null)
            throw new IllegalArgumentException(name + " is null");
        if (buffers.length != expected)
            throw new IllegalArgumentException(name + " must have " + expected + " buffers, got " + buffers.length);
        for (int i = 0; i < buffers.length; i++)
            checkBuffer(name + "[" + i + "]", buffers[i], offset, len, written);
    }

    /** The range must lie below the buffer's limit, as for absolute ByteBuffer accesses. */
    static void checkBuffer(String name, ByteBuffer buffer, int offset, int len, boolean written)
    {
        if (buffer == null)
            throw new IllegalArgumentException(name + " is null");
        if ((long) offset + len > buffer.limit())
            throw new IllegalArgumentException(name + ": range [" + offset + ", " + ((long) offset + len)
                                               + ") exceeds its limit " + buffer.limit());
        if (written && buffer.isReadOnly())
            throw new IllegalArgumentException(name + " is read-only but must be written");
    }

    /** Survivors (in order) and wanted chunks (in order): the identity of a decode matrix. */
    private static final class PatternKey
    {
        private final int[] survivors;
        private final int[] erased;
        private final int hash;

        PatternKey(int[] survivors, int[] erased)
        {
            this.survivors = survivors;
            this.erased = erased.clone();
            this.hash = 31 * Arrays.hashCode(survivors) + Arrays.hashCode(erased);
        }

        @Override
        public boolean equals(Object o)
        {
            if (!(o instanceof PatternKey))
                return false;
            PatternKey other = (PatternKey) o;
            return hash == other.hash && Arrays.equals(survivors, other.survivors) && Arrays.equals(erased, other.erased);
        }

        @Override
        public int hashCode()
        {
            return hash;
        }
    }
}
