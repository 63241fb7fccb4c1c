package io.elect.coding;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Widening a stripe (Scale-RS): the parity differences that turn the parity of an RS(k, m) stripe into the parity
 * of an RS(k', m) stripe holding the same data plus new members, without reading the old members.
 *
 * <p>Why this works for this codec family: coefficient a(j, i) of {@link CauchyMatrix} depends on (j, i) only, never
 * on k (established by {@code StripeWideningTest.cauchyCoefficientsDoNotDependOnK}). The RS(k', m) parity of data
 * d_0..d_{k'-1} is therefore the RS(k, m) parity of d_0..d_{k-1} plus, for every chunk i that was all zeros before
 * (a virtual slot i < k, or a new slot k <= i < k'), the contribution a(j, i) * d_i. Addition is XOR.
 *
 * <p>Chunk lengths: every chunk of a stripe is padded with zeros to the stripe's chunk length. Zero bytes contribute
 * nothing, so when a new member is longer than the old chunk length, the old parity extended with zeros is the old
 * parity of the zero-extended old chunks, and the widened chunk length is {@code max(old, longest new member)}.
 * The difference of one member is zero beyond its own length, so a member's node only ever sends its own length
 * per parity chunk ({@link #memberDelta}); the parity node zero-extends its chunk locally.
 *
 * <p>Pure functions: inputs are read over {@code [position, limit)} and never modified.
 */
public final class StripeWidening
{
    private StripeWidening()
    {
    }

    /**
     * The result of widening: the stripe's new codec id and shape, and the m parity differences, each
     * {@code chunkLength} bytes: new parity j = (old parity j zero-extended to chunkLength) XOR parityDeltas[j].
     */
    public record Result(String codecId, int dataChunks, int parityChunks, int chunkLength, ByteBuffer[] parityDeltas)
    {
    }

    /**
     * The m differences one member contributes when it fills chunk {@code slot} of a stripe coded by {@code wide}:
     * {@code a(j, slot) * member}, each exactly as long as the member (its real bytes, unpadded). This is what the
     * member's node sends to parity node j (Scale-RS Policy-1: the difference is computed where the data is).
     *
     * @param wide   the coder of the widened stripe (k', m), any backend
     * @param slot   the chunk index being filled, {@code 0 <= slot < k'}
     * @param member the member's bytes over {@code [position, limit)}
     * @return m direct buffers of {@code member.remaining()} bytes
     */
    public static ByteBuffer[] memberDelta(ErasureCoder wide, int slot, ByteBuffer member)
    {
        Objects.requireNonNull(wide, "wide");
        Objects.requireNonNull(member, "member");
        if (slot < 0 || slot >= wide.dataChunks())
            throw new IllegalArgumentException("slot must be in [0, " + wide.dataChunks() + "), was " + slot);
        int len = member.remaining();
        ByteBuffer[] out = new ByteBuffer[wide.parityChunks()];
        for (int j = 0; j < out.length; j++)
            out[j] = ByteBuffer.allocateDirect(len);
        // update() XORs a(j, slot) * delta into zeroed buffers: exactly the contribution.
        wide.update(slot, member, member.position(), out, 0, len);
        return out;
    }

    /**
     * The parity differences of widening a stripe from RS(k, m) to RS(k', m) = ({@code wide.dataChunks()}, m), and
     * the widened stripe's codec id, k' and chunk length.
     *
     * @param oldCodecId     the stripe's codec id; must be {@code CauchyMatrix.codecId(k, m)}
     * @param k              the stripe's data chunks before widening
     * @param oldChunkLength the stripe's chunk length before widening (its longest member, padded)
     * @param virtualSlots   the stripe's virtual (all-zero) chunk indexes, each {@code < k}
     * @param wide           a coder of (k', m), k' >= k, of the same family (any backend)
     * @param filled         chunk index -> the new member's bytes over {@code [position, limit)}; an index below k
     *                       must be one of {@code virtualSlots}; new indexes [k, k') left out stay virtual (zero)
     */
    public static Result widen(String oldCodecId, int k, int oldChunkLength, Set<Integer> virtualSlots,
                               ErasureCoder wide, Map<Integer, ByteBuffer> filled)
    {
        Objects.requireNonNull(oldCodecId, "oldCodecId");
        Objects.requireNonNull(virtualSlots, "virtualSlots");
        Objects.requireNonNull(wide, "wide");
        Objects.requireNonNull(filled, "filled");
        int m = wide.parityChunks(), wider = wide.dataChunks();
        if (wider < k)
            throw new IllegalArgumentException("wide: k'=" + wider + " is below the stripe's k=" + k + " (narrowing is not widening)");
        String expectedOld = CauchyMatrix.codecId(k, m);
        if (!oldCodecId.equals(expectedOld))
            throw new IllegalArgumentException("oldCodecId: '" + oldCodecId + "' is not " + expectedOld
                                               + " (only stripes of this codec family with the same m can be widened)");
        if (!wide.codecId().equals(CauchyMatrix.codecId(wider, m)))
            throw new IllegalArgumentException("wide: codec id '" + wide.codecId() + "' is not " + CauchyMatrix.codecId(wider, m));
        if (oldChunkLength < 0)
            throw new IllegalArgumentException("oldChunkLength must be >= 0, was " + oldChunkLength);
        for (int v : virtualSlots)
            if (v < 0 || v >= k)
                throw new IllegalArgumentException("virtualSlots: " + v + " is not a chunk index below k=" + k);
        int chunkLength = oldChunkLength;
        for (Map.Entry<Integer, ByteBuffer> e : new TreeMap<>(filled).entrySet())
        {
            int slot = Objects.requireNonNull(e.getKey(), "filled: null slot");
            ByteBuffer member = Objects.requireNonNull(e.getValue(), "filled: null member for slot " + slot);
            if (slot < 0 || slot >= wider)
                throw new IllegalArgumentException("filled: slot " + slot + " is outside [0, k'=" + wider + ")");
            if (slot < k && !virtualSlots.contains(slot))
                throw new IllegalArgumentException("filled: slot " + slot + " holds a real member already (only the virtual slots "
                                                   + new java.util.TreeSet<>(virtualSlots) + " and new slots >= " + k + " can be filled)");
            chunkLength = Math.max(chunkLength, member.remaining());
        }
        ByteBuffer[] deltas = new ByteBuffer[m];
        for (int j = 0; j < m; j++)
            deltas[j] = ByteBuffer.allocateDirect(chunkLength);
        for (Map.Entry<Integer, ByteBuffer> e : filled.entrySet())
        {
            ByteBuffer member = e.getValue();
            // Accumulates a(j, slot) * member over the member's own length; beyond it the difference is zero.
            wide.update(e.getKey(), member, member.position(), deltas, 0, member.remaining());
        }
        return new Result(wide.codecId(), wider, m, chunkLength, deltas);
    }

    /**
     * What a parity node computes: the old parity chunk (over {@code [position, limit)}) zero-extended to the
     * delta's length, XOR the delta. A new heap buffer; the inputs are not modified.
     */
    public static ByteBuffer applyDelta(ByteBuffer oldParity, ByteBuffer delta)
    {
        Objects.requireNonNull(oldParity, "oldParity");
        Objects.requireNonNull(delta, "delta");
        if (oldParity.remaining() > delta.remaining())
            throw new IllegalArgumentException("delta: " + delta.remaining() + " bytes, shorter than the old parity ("
                                               + oldParity.remaining() + "): a widened chunk never shrinks");
        ByteBuffer out = ByteBuffer.allocate(delta.remaining());
        for (int x = 0; x < delta.remaining(); x++)
        {
            byte old = x < oldParity.remaining() ? oldParity.get(oldParity.position() + x) : 0;
            out.put(x, (byte) (old ^ delta.get(delta.position() + x)));
        }
        return out;
    }
}
