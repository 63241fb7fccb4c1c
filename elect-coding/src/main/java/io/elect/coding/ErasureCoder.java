package io.elect.coding;

import java.nio.ByteBuffer;

/**
 * A systematic Reed-Solomon code of k data chunks and m parity chunks over GF(2^8).
 *
 * <p>Contract shared by every backend (ISA-L, Jerasure, pure Java):
 * <ul>
 *   <li>Immutable and thread-safe: one instance may be used by many threads at once.</li>
 *   <li>Chunk indexes: {@code 0..k-1} are data chunks, {@code k..k+m-1} are parity chunks.</li>
 *   <li>Every operation works on the byte range {@code [offset, offset+len)} of each buffer it is given,
 *       using absolute indexes: buffer positions and limits are neither read nor changed. Because the code
 *       is positional, bytes {@code [a,b)} of a chunk depend only on bytes {@code [a,b)} of the others, so a
 *       byte range of a stripe can be encoded, updated or reconstructed alone. The range must lie below each
 *       buffer's limit (as for absolute ByteBuffer accesses). Output buffers must not overlap input buffers.</li>
 *   <li>Direct (off-heap) buffers are the fast path; heap buffers are accepted (the native backends serve a call
 *       that has any heap buffer with the pure-Java kernel, which produces the same bytes).</li>
 *   <li>Two coders with the same {@link #codecId()} produce the same bytes for the same input. The math behind
 *       an id is specified in docs/formats/codec.md. Coders are made by {@link ErasureCoders}.</li>
 *   <li>Coefficient {@code a(j,i)} of parity j for data chunk i depends only on (j, i), never on k, so that a
 *       stripe can widen from k to k' data chunks by adding the new chunks' contributions (Scale-RS).</li>
 *   <li>Bad arguments (null, wrong array lengths, ranges outside a buffer, more than m erasures, a read-only
 *       output buffer) raise {@link IllegalArgumentException} before any memory is touched.</li>
 * </ul>
 */
public interface ErasureCoder
{
    /** k, the number of data chunks. */
    int dataChunks();

    /** m, the number of parity chunks. */
    int parityChunks();

    /**
     * Names the exact math (field polynomial, matrix construction, k, m), for example
     * {@code "rs-cauchy-gf8-11d:k=4:m=2"}. Stored with every stripe; never names the backend.
     */
    String codecId();

    /** The implementation in use, e.g. {@code "isal"}, {@code "jerasure"}, {@code "java"}, for logs and metrics. */
    String backend();

    /** The coefficient a(j,i) by which data chunk i contributes to parity chunk j (0-based j < m, i < k). */
    int coefficient(int parityIndex, int dataIndex);

    /**
     * Computes parity from data over {@code [offset, offset+len)}.
     *
     * @param data   k buffers, read
     * @param parity m buffers, overwritten in the range
     */
    void encode(ByteBuffer[] data, ByteBuffer[] parity, int offset, int len);

    /**
     * Rebuilds the erased chunks over {@code [offset, offset+len)} from any k survivors.
     *
     * @param chunks k+m buffers indexed by chunk index; erased entries are written, the others read
     *               (entries that are neither erased nor needed may be null)
     * @param erased the distinct erased chunk indexes, at most m of them
     * <p>The survivors read are the first k non-null, non-erased chunks in index order.
     *
     * @throws TooFewChunksException if more than m chunks are erased or fewer than k non-null, non-erased
     *                               chunks remain
     */
    void reconstruct(ByteBuffer[] chunks, int[] erased, int offset, int len);

    /**
     * Incremental update: for every parity j, {@code parity[j] ^= a(j, dataIndex) * delta} over {@code len}
     * bytes, where {@code delta = oldData XOR newData} of data chunk {@code dataIndex}. Reads {@code delta}
     * from {@code deltaOffset} and updates each parity buffer from {@code parityOffset}. Applying the deltas
     * of several data chunks to a zeroed buffer yields the combined parity delta.
     */
    void update(int dataIndex, ByteBuffer delta, int deltaOffset, ByteBuffer[] parity, int parityOffset, int len);
}
