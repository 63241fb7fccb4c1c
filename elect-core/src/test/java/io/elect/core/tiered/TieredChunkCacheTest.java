package io.elect.core.tiered;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TieredChunkCacheTest
{
    private static ByteBuffer bytes(int n, int fill)
    {
        byte[] b = new byte[n];
        java.util.Arrays.fill(b, (byte) fill);
        return ByteBuffer.wrap(b);
    }

    @Test
    void evictsLeastRecentlyUsedWithinByteBound()
    {
        TieredChunkCache cache = new TieredChunkCache(300);
        TieredChunkCache.Key a = new TieredChunkCache.Key("s", 0), b = new TieredChunkCache.Key("s", 1),
        c = new TieredChunkCache.Key("s", 2), d = new TieredChunkCache.Key("t", 0);
        cache.put(a, bytes(100, 1));
        cache.put(b, bytes(100, 2));
        cache.put(c, bytes(100, 3));
        assertNotNull(cache.get(a)); // a is now the most recent; b the eldest
        cache.put(d, bytes(100, 4));
        assertNull(cache.get(b), "eldest evicted");
        assertEquals(1, cache.get(a).get(0));
        assertEquals(3, cache.get(c).get(99));
        assertTrue(cache.sizeBytes() <= 300);
        assertEquals(1, cache.evictions.sum());
        cache.put(new TieredChunkCache.Key("x", 0), bytes(301, 5));
        assertNull(cache.get(new TieredChunkCache.Key("x", 0)), "a chunk above capacity is not cached");
        cache.invalidate("s");
        assertNull(cache.get(a));
        assertEquals(100, cache.sizeBytes());
        assertThrows(java.nio.ReadOnlyBufferException.class, () -> cache.get(d).put(0, (byte) 9));
    }
}
