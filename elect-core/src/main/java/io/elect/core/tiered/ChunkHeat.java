package io.elect.core.tiered;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * How often each chunk of one remote source was read by this node's readers (cache hits included, warming
 * excluded): what {@link DecodedRangeSource#warm} is given when the member's node goes down. Counts saturate at
 * {@link Integer#MAX_VALUE} and are halved by {@link #decay} (the node's warmer calls it periodically, so a hot set
 * that moved is forgotten). A source of more than {@value #MAX_TRACKED_CHUNKS} chunks is not tracked (its counts
 * stay 0). Thread-safe and lock-free; a read costs one atomic increment per chunk it touches.
 */
public final class ChunkHeat
{
    /** Largest chunk count tracked (4 MiB of counters; a 16 GiB file at the default 16 KiB chunks). */
    static final int MAX_TRACKED_CHUNKS = 1 << 20;

    private final AtomicIntegerArray reads;

    public ChunkHeat(long chunkCount)
    {
        if (chunkCount < 0)
            throw new IllegalArgumentException("chunkCount must be >= 0, got " + chunkCount);
        this.reads = chunkCount > MAX_TRACKED_CHUNKS ? null : new AtomicIntegerArray((int) chunkCount);
    }

    /** One read touched chunks [first, last]. */
    void record(long first, long last)
    {
        if (reads == null)
            return;
        for (long c = first; c <= last; c++)
            reads.getAndUpdate((int) c, v -> v == Integer.MAX_VALUE ? v : v + 1);
    }

    /** Reads of the chunk since it was opened (halved by each decay); 0 if untracked. */
    public int reads(long chunk)
    {
        return reads == null ? 0 : reads.get((int) chunk);
    }

    /** Halves every count (a chunk read once is forgotten). */
    public void decay()
    {
        if (reads == null)
            return;
        for (int i = 0; i < reads.length(); i++)
            reads.getAndUpdate(i, v -> v >>> 1);
    }

    /**
     * The chunks read at least {@code minReads} times, hottest first (ties: lower index first), at most {@code max}.
     *
     * @param minReads >= 1
     */
    public List<Hot> hottest(int max, int minReads)
    {
        if (minReads < 1)
            throw new IllegalArgumentException("minReads must be >= 1, got " + minReads);
        List<Hot> out = new ArrayList<>();
        if (reads == null || max <= 0)
            return out;
        for (int i = 0; i < reads.length(); i++)
        {
            int r = reads.get(i);
            if (r >= minReads)
                out.add(new Hot(i, r));
        }
        out.sort(HOTTEST_FIRST);
        return out.size() > max ? new ArrayList<>(out.subList(0, max)) : out;
    }

    /** A chunk and its read count. */
    public record Hot(long chunk, int reads) {}

    public static final Comparator<Hot> HOTTEST_FIRST = Comparator.comparingInt(Hot::reads).reversed().thenComparingLong(Hot::chunk);
}
