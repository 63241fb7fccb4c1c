package io.elect.core.tiered;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Common read path of the remote sources: a read is widened to whole checksum chunks; cached chunks are served
 * from the {@link TieredChunkCache}; each run of consecutive missing chunks is fetched with ONE call to
 * {@link #fetchRun}, verified chunk by chunk, cached and copied out. So a point read that touches one or two
 * chunks costs at most one request per run and never fetches the whole object.
 */
abstract class ChunkedRemoteSource implements ByteRangeSource
{
    protected final ChunkChecksums checksums;
    protected final TieredChunkCache cache;
    protected final SourceCounters counters;
    private final String cacheId;

    ChunkedRemoteSource(ChunkChecksums checksums, TieredChunkCache cache, SourceCounters counters, String cacheId)
    {
        this.checksums = checksums;
        this.cache = cache;
        this.counters = counters == null ? new SourceCounters() : counters;
        this.cacheId = cacheId;
    }

    @Override
    public long length()
    {
        return checksums.length();
    }

    public SourceCounters counters()
    {
        return counters;
    }

    public ChunkChecksums checksums()
    {
        return checksums;
    }

    /** Cache identity of this source's chunks (the object key or the stripe member). */
    public String cacheId()
    {
        return cacheId;
    }

    /**
     * Returns the verified bytes of chunks [firstChunk, firstChunk + count) (position 0, exactly their total length),
     * or throws: {@link TieredCorruptionException} if no copy verifies, another IOException if unavailable.
     */
    protected abstract ByteBuffer fetchRun(long firstChunk, int count) throws IOException;

    /** Verifies the chunks of a run fetched into buf (position 0 = start of firstChunk). */
    protected void verifyRun(ByteBuffer buf, long firstChunk, int count) throws TieredCorruptionException
    {
        int off = 0;
        for (int i = 0; i < count; i++)
        {
            long chunk = firstChunk + i;
            int len = checksums.chunkLength(chunk);
            ByteBuffer slice = buf.duplicate();
            slice.position(off).limit(off + len);
            try
            {
                checksums.verify(describe(), (int) chunk, slice);
            }
            catch (TieredCorruptionException e)
            {
                counters.corruptChunks.increment();
                throw e;
            }
            off += len;
        }
    }

    protected long runLength(long firstChunk, int count)
    {
        long start = checksums.chunkStart(firstChunk);
        long end = checksums.chunkStart(firstChunk + count - 1) + checksums.chunkLength(firstChunk + count - 1);
        return end - start;
    }

    @Override
    public void read(long position, ByteBuffer dst) throws IOException
    {
        int length = dst.remaining();
        ByteRangeSource.checkRange(this, position, length);
        counters.reads.increment();
        if (length == 0)
            return;
        int cs = checksums.chunkSize();
        long first = position / cs;
        long last = (position + length - 1) / cs;
        ByteBuffer[] chunks = new ByteBuffer[(int) (last - first + 1)];
        for (long c = first; c <= last; c++)
        {
            ByteBuffer hit = cache == null ? null : cache.get(new TieredChunkCache.Key(cacheId, c));
            if (hit != null)
                counters.cacheHits.increment();
            chunks[(int) (c - first)] = hit;
        }
        for (int i = 0; i < chunks.length; )
        {
            if (chunks[i] != null)
            {
                i++;
                continue;
            }
            int j = i;
            while (j < chunks.length && chunks[j] == null)
                j++;
            ByteBuffer run = fetchRun(first + i, j - i);
            counters.chunksFetched.add(j - i);
            int off = 0;
            for (int c = i; c < j; c++)
            {
                int len = checksums.chunkLength(first + c);
                ByteBuffer slice = run.duplicate();
                slice.position(off).limit(off + len);
                chunks[c] = slice.slice();
                if (cache != null)
                    cache.put(new TieredChunkCache.Key(cacheId, first + c), chunks[c]);
                off += len;
            }
            i = j;
        }
        // copy out [position, position + length)
        long pos = position;
        for (int i = 0; i < chunks.length; i++)
        {
            long chunkStart = (first + i) * cs;
            ByteBuffer src = chunks[i].duplicate();
            int from = (int) (pos - chunkStart);
            int n = Math.min(src.remaining() - from, dst.remaining());
            src.position(from).limit(from + n);
            dst.put(src);
            pos += n;
        }
    }
}
