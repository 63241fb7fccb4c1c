package io.elect.core.tiered;

import io.elect.core.stripes.ChunkCorruptionException;

import io.elect.core.stripes.ChunkChecksums;

import java.io.IOException;
import java.nio.ByteBuffer;

import io.elect.offload.ColdStore;
import io.elect.offload.CorruptObjectException;

/**
 * COLD: the data component is an object of the cold tier, read by byte ranges (whole checksum chunks) through the
 * shared chunk cache. The store verifies its own framing (CRC32C per block, retrying corrupt transfers); this
 * source additionally verifies every chunk against the checksums of the original local file, so an object that was
 * replaced, truncated or corrupted at rest is detected end to end. Thread-safe.
 */
public final class ColdRangeSource extends ChunkedRemoteSource
{
    /** Finds the store at read time, so an SSTable can be opened before its store is configured. */
    @FunctionalInterface
    public interface StoreResolver
    {
        ColdStore resolve() throws IOException;
    }

    private final StoreResolver store;
    private final String key;

    public ColdRangeSource(ColdStore store, String storeName, String key, ChunkChecksums checksums,
                           TieredChunkCache cache, SourceCounters counters)
    {
        this(() -> store, storeName, key, checksums, cache, counters);
        if (store == null)
            throw new IllegalArgumentException("store must not be null");
    }

    public ColdRangeSource(StoreResolver store, String storeName, String key, ChunkChecksums checksums,
                           TieredChunkCache cache, SourceCounters counters)
    {
        super(checksums, cache, counters, "cold:" + storeName + "/" + key);
        if (key == null || key.isEmpty())
            throw new IllegalArgumentException("key must not be empty");
        this.store = store;
        this.key = key;
    }

    public String key()
    {
        return key;
    }

    @Override
    public String describe()
    {
        return cacheId();
    }

    @Override
    protected ByteBuffer fetchRun(long firstChunk, int count) throws IOException
    {
        long start = checksums.chunkStart(firstChunk);
        int len = (int) runLength(firstChunk, count);
        counters.requests.increment();
        ByteBuffer buf;
        try
        {
            buf = store.resolve().read(key, start, len);
        }
        catch (CorruptObjectException e)
        {
            counters.corruptChunks.increment();
            throw new ChunkCorruptionException(describe() + ": cold store reports corruption in bytes " + start + ".."
                                                + (start + len) + ": " + e.getMessage());
        }
        counters.bytesFetched.add(buf.remaining());
        if (buf.remaining() != len)
            throw new ChunkCorruptionException(describe() + ": short read at " + start + ": " + buf.remaining() + " of "
                                                + len + " bytes");
        verifyRun(buf, firstChunk, count);
        return buf;
    }
}
