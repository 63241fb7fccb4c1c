package io.elect.core.tiered;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * A bounded cache of verified chunks of remote data components (cold objects and reconstructed ranges), shared by
 * all tiered SSTables of a node. Eviction is least-recently-used by bytes: after every insertion the total of the
 * cached chunk lengths is at most {@link #capacityBytes()} (a chunk larger than the capacity is not cached).
 *
 * <p>Only verified bytes are ever inserted, and cached buffers are read-only, so a hit needs no re-verification.
 * Thread-safe (one lock; hits and misses are O(1)).
 */
public final class TieredChunkCache
{
    /** Identifies a chunk: the source (e.g. the cold object key) and the chunk index in it. */
    public record Key(String source, long chunk)
    {
    }

    private final long capacityBytes;
    private final LinkedHashMap<Key, ByteBuffer> map = new LinkedHashMap<>(256, 0.75f, true);
    private long sizeBytes;

    public final LongAdder hits = new LongAdder();
    public final LongAdder misses = new LongAdder();
    public final LongAdder evictions = new LongAdder();

    public TieredChunkCache(long capacityBytes)
    {
        if (capacityBytes < 0)
            throw new IllegalArgumentException("capacityBytes must be >= 0, got " + capacityBytes);
        this.capacityBytes = capacityBytes;
    }

    public long capacityBytes()
    {
        return capacityBytes;
    }

    public synchronized long sizeBytes()
    {
        return sizeBytes;
    }

    public synchronized int size()
    {
        return map.size();
    }

    /** The cached chunk (a read-only duplicate, position 0), or null. */
    public ByteBuffer get(Key key)
    {
        ByteBuffer b;
        synchronized (this)
        {
            b = map.get(key);
        }
        if (b == null)
        {
            misses.increment();
            return null;
        }
        hits.increment();
        return b.duplicate();
    }

    /** Caches a verified chunk (its remaining bytes; copied, so the caller may reuse its buffer). */
    public void put(Key key, ByteBuffer verified)
    {
        int len = verified.remaining();
        if (len > capacityBytes)
            return;
        ByteBuffer copy = ByteBuffer.allocate(len);
        copy.put(verified.duplicate()).flip();
        ByteBuffer ro = copy.asReadOnlyBuffer();
        synchronized (this)
        {
            ByteBuffer old = map.put(key, ro);
            sizeBytes += len - (old == null ? 0 : old.remaining());
            Iterator<Map.Entry<Key, ByteBuffer>> it = map.entrySet().iterator();
            while (sizeBytes > capacityBytes && it.hasNext())
            {
                Map.Entry<Key, ByteBuffer> eldest = it.next();
                sizeBytes -= eldest.getValue().remaining();
                it.remove();
                evictions.increment();
            }
        }
    }

    /** Drops every chunk of source (when its SSTable is deleted or rehydrated). */
    public synchronized void invalidate(String source)
    {
        Iterator<Map.Entry<Key, ByteBuffer>> it = map.entrySet().iterator();
        while (it.hasNext())
        {
            Map.Entry<Key, ByteBuffer> e = it.next();
            if (e.getKey().source().equals(source))
            {
                sizeBytes -= e.getValue().remaining();
                it.remove();
            }
        }
    }

    public synchronized void clear()
    {
        map.clear();
        sizeBytes = 0;
    }
}
