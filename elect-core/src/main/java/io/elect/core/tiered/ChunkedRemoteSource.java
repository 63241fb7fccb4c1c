package io.elect.core.tiered;

import io.elect.core.stripes.ChunkCorruptionException;

import io.elect.core.stripes.ChunkChecksums;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;

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
    private final ConcurrentHashMap<Long, CompletableFuture<ByteBuffer>> inflight = new ConcurrentHashMap<>();
    /** Reads per chunk by this node's readers (warming excluded). */
    protected final ChunkHeat heat;

    ChunkedRemoteSource(ChunkChecksums checksums, TieredChunkCache cache, SourceCounters counters, String cacheId)
    {
        this.checksums = checksums;
        this.cache = cache;
        this.counters = counters == null ? new SourceCounters() : counters;
        this.cacheId = cacheId;
        this.heat = new ChunkHeat(checksums.chunkCount());
    }

    /** Reads per chunk of this source (what warming picks from). */
    public ChunkHeat heat()
    {
        return heat;
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
     * or throws: {@link ChunkCorruptionException} if no copy verifies, another IOException if unavailable.
     */
    protected abstract ByteBuffer fetchRun(long firstChunk, int count) throws IOException;

    /** Verifies the chunks of a run fetched into buf (position 0 = start of firstChunk). */
    protected void verifyRun(ByteBuffer buf, long firstChunk, int count) throws ChunkCorruptionException
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
            catch (ChunkCorruptionException e)
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

    /** Fetches chunks [i, j) (offsets from first) with one fetchRun, caches them and completes their futures. */
    private void fetchInto(ByteBuffer[] chunks, CompletableFuture<ByteBuffer>[] waits, long first, int i, int j)
    throws IOException
    {
        ByteBuffer run = fetchRun(first + i, j - i);
        counters.chunksFetched.add(j - i);
        int off = 0;
        for (int c = i; c < j; c++)
        {
            int len = checksums.chunkLength(first + c);
            ByteBuffer slice = run.duplicate();
            slice.position(off).limit(off + len);
            chunks[c] = slice.slice().asReadOnlyBuffer();
            if (cache != null)
                cache.put(new TieredChunkCache.Key(cacheId, first + c), chunks[c]);
            waits[c].complete(chunks[c]);
            inflight.remove(first + c, waits[c]);
            off += len;
        }
    }

    private ByteBuffer await(CompletableFuture<ByteBuffer> f) throws IOException
    {
        try
        {
            return f.get().duplicate();
        }
        catch (InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for a chunk of " + describe());
        }
        catch (ExecutionException e)
        {
            Throwable c = e.getCause();
            if (c instanceof ChunkCorruptionException)
                throw new ChunkCorruptionException(c.getMessage());
            throw new IOException("a concurrent fetch of " + describe() + " failed: " + c.getMessage(), c);
        }
    }

    @Override
    public void read(long position, ByteBuffer dst) throws IOException
    {
        read(position, dst, true);
    }

    /** A read; {@code countHeat} false for reads that are not the readers' (warming). */
    protected void read(long position, ByteBuffer dst, boolean countHeat) throws IOException
    {
        int length = dst.remaining();
        ByteRangeSource.checkRange(this, position, length);
        counters.reads.increment();
        if (length == 0)
            return;
        int cs = checksums.chunkSize();
        long first = position / cs;
        long last = (position + length - 1) / cs;
        if (countHeat)
            heat.record(first, last);
        ByteBuffer[] chunks = new ByteBuffer[(int) (last - first + 1)];
        for (long c = first; c <= last; c++)
        {
            ByteBuffer hit = cache == null ? null : cache.get(new TieredChunkCache.Key(cacheId, c));
            if (hit != null)
                counters.cacheHits.increment();
            chunks[(int) (c - first)] = hit;
        }
        // Single flight: a missing chunk is fetched by the first reader that claims it; concurrent readers of the
        // same chunk wait for that fetch instead of fetching it again (hot rows after a switch, parallel scans).
        @SuppressWarnings("unchecked")
        CompletableFuture<ByteBuffer>[] waits = new CompletableFuture[chunks.length];
        boolean[] mine = new boolean[chunks.length];
        for (int i = 0; i < chunks.length; i++)
        {
            if (chunks[i] != null)
                continue;
            CompletableFuture<ByteBuffer> f = new CompletableFuture<>();
            CompletableFuture<ByteBuffer> other = inflight.putIfAbsent(first + i, f);
            waits[i] = other == null ? f : other;
            mine[i] = other == null;
        }
        try
        {
            for (int i = 0; i < chunks.length; )
            {
                if (!mine[i])
                {
                    i++;
                    continue;
                }
                int j = i;
                while (j < chunks.length && mine[j])
                    j++;
                fetchInto(chunks, waits, first, i, j);
                i = j;
            }
        }
        catch (IOException | RuntimeException e)
        {
            for (int i = 0; i < chunks.length; i++)
                if (mine[i] && !waits[i].isDone())
                {
                    waits[i].completeExceptionally(e);
                    inflight.remove(first + i, waits[i]);
                }
            throw e;
        }
        for (int i = 0; i < chunks.length; i++)
            if (chunks[i] == null)
                chunks[i] = await(waits[i]);
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
