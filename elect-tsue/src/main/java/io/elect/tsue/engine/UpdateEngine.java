package io.elect.tsue.engine;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import io.elect.tsue.log.TxRecord.Extent;

/**
 * Updates of erasure-coded stripes (k data + m parity chunks of fixed size, on distinct nodes).
 *
 * <p>Guarantees, for every policy: an update is acknowledged (the call returns) only once it survives a crash of
 * every node; {@link #read} returns the latest acknowledged bytes whatever is still in logs; after {@link #drain}
 * parity equals a full re-encode of the data; after a crash, {@link #recover} on a new engine over the same files
 * restores both properties. Updates of one stripe are serialized; distinct stripes proceed in parallel.
 * Thread-safe.
 *
 * <p>Compaction of encoded SSTables replaces a stripe member by a new version: {@link #replaceChunk} turns that into
 * a page-sparse {@link #update(long, int, List)} that carries only the changed pages.
 */
public interface UpdateEngine extends AutoCloseable
{
    TsueConfig config();

    /** Writes a new stripe: k data chunks of chunkSize bytes, parity computed here. */
    void createStripe(long stripe, byte[][] data) throws IOException;

    /** Updates bytes [offset, offset+bytes.length) of data chunk {@code chunk}. */
    default void update(long stripe, int chunk, int offset, byte[] bytes) throws IOException
    {
        update(stripe, chunk, List.of(new Extent(offset, bytes)));
    }

    /** Updates several disjoint ranges of one data chunk as one acknowledged update. */
    void update(long stripe, int chunk, List<Extent> extents) throws IOException;

    byte[] read(long stripe, int chunk, int offset, int len) throws IOException;

    /**
     * Reads a data chunk as if the chunks in {@code lost} (at most m, any indexes 0..k+m-1) were unavailable:
     * reconstructs from the survivors and overlays what the policy keeps outside the chunks.
     */
    byte[] degradedRead(long stripe, int chunk, int offset, int len, Set<Integer> lost) throws IOException;

    /** Recycles every log and applies every parity delta; returns when parity is current. */
    void drain() throws IOException;

    /** After a crash: resolves half-done transactions and rebuilds in-memory state from the logs. */
    void recover() throws IOException;

    /** True iff parity equals a full re-encode of the data chunks as stored (call after {@link #drain}). */
    boolean parityConsistent(long stripe) throws IOException;

    /** Bytes held by the policy's logs in memory (data log units, differential pages, parity-log indexes). */
    long logMemoryBytes();

    /** The highest {@link #logMemoryBytes()} seen so far. */
    long peakLogMemoryBytes();

    /**
     * Policy-specific measurements for benchmarks (e.g. TSUE: time data bytes spend in each log), name to number;
     * empty if the policy has none.
     */
    default java.util.Map<String, Object> metrics()
    {
        return java.util.Map.of();
    }

    @Override
    void close() throws IOException;

    /**
     * Replaces data chunk {@code chunk} by {@code content} (chunkSize bytes), sending only the pages that differ:
     * a large, page-sparse update. Returns the number of changed pages.
     */
    default int replaceChunk(long stripe, int chunk, byte[] content) throws IOException
    {
        TsueConfig c = config();
        if (content == null || content.length != c.chunkSize)
            throw new IllegalArgumentException("content must be chunkSize=" + c.chunkSize + " bytes");
        byte[] current = read(stripe, chunk, 0, c.chunkSize);
        List<Extent> changed = new ArrayList<>();
        int runStart = -1, pages = 0;
        for (int p = 0; p <= c.chunkSize / c.pageSize; p++)
        {
            int off = p * c.pageSize;
            boolean differs = off < c.chunkSize
                              && !Arrays.equals(current, off, off + c.pageSize, content, off, off + c.pageSize);
            if (differs)
            {
                pages++;
                if (runStart < 0)
                    runStart = off;
            }
            else if (runStart >= 0)
            {
                changed.add(new Extent(runStart, Arrays.copyOfRange(content, runStart, off)));
                runStart = -1;
            }
        }
        if (!changed.isEmpty())
            update(stripe, chunk, changed);
        return pages;
    }
}
