package io.elect.ycsb;

import java.util.Properties;
import java.util.Random;

import org.junit.jupiter.api.Test;

import site.ycsb.Utils;
import site.ycsb.measurements.Measurements;
import site.ycsb.workloads.CoreWorkload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** KeyNames against YCSB 0.17.0 itself: same hash, same key strings, always 24 bytes with ELECT's padding. */
class KeyNamesTest
{
    /** Exposes YCSB's protected key builder, configured like a workload file would. */
    static final class YcsbKeys extends CoreWorkload
    {
        static
        {
            // CoreWorkload's constructor reads YCSB's global measurement settings, normally set by site.ycsb.Client.
            Measurements.setProperties(new Properties());
        }

        YcsbKeys(boolean ordered, int zeropadding)
        {
            this.orderedinserts = ordered;
            this.zeropadding = zeropadding;
        }

        String key(long keynum)
        {
            return buildKeyName(keynum);
        }
    }

    @Test
    void matchesYcsbForRandomAndEdgeNumbers()
    {
        long seed = System.nanoTime();
        System.out.println("KeyNamesTest seed " + seed);
        Random rnd = new Random(seed);
        long[] edges = { 0, 1, 9, 10, 99_999, 1_000_000_000L, Long.MAX_VALUE };
        for (boolean ordered : new boolean[]{ true, false })
        {
            for (int padding : new int[]{ 1, 10, KeyNames.ELECT_ZERO_PADDING, 25 })
            {
                YcsbKeys ycsb = new YcsbKeys(ordered, padding);
                for (long n : edges)
                    assertEquals(ycsb.key(n), KeyNames.keyName(n, ordered, padding), "keynum " + n + " seed " + seed);
                for (int i = 0; i < 2000; i++)
                {
                    long n = rnd.nextLong() & Long.MAX_VALUE;
                    assertEquals(ycsb.key(n), KeyNames.keyName(n, ordered, padding), "keynum " + n + " seed " + seed);
                }
            }
        }
    }

    @Test
    void hashIsYcsbFnv()
    {
        long seed = System.nanoTime();
        System.out.println("KeyNamesTest.hashIsYcsbFnv seed " + seed);
        Random rnd = new Random(seed);
        for (int i = 0; i < 10_000; i++)
        {
            long v = rnd.nextLong();
            assertEquals(Utils.fnvhash64(v), KeyNames.fnvhash64(v), "value " + v + " seed " + seed);
        }
    }

    @Test
    void electKeysAre24BytesInBothInsertOrders()
    {
        assertEquals(24, KeyNames.ELECT_KEY_LENGTH);
        assertEquals("user00000000000000000042", KeyNames.electKey(42));
        long seed = System.nanoTime();
        System.out.println("KeyNamesTest.electKeys seed " + seed);
        Random rnd = new Random(seed);
        for (int i = 0; i < 10_000; i++)
        {
            long n = i < 5000 ? i : rnd.nextLong() & Long.MAX_VALUE;
            String hashed = KeyNames.keyName(n, false, KeyNames.ELECT_ZERO_PADDING);
            String ordered = KeyNames.keyName(n, true, KeyNames.ELECT_ZERO_PADDING);
            assertEquals(24, hashed.length(), hashed);
            assertEquals(24, ordered.length(), ordered);
            assertTrue(hashed.matches("user[0-9]{20}"), hashed);
        }
        // Lexicographic order of ordered keys is numeric order: scans and key ranges behave as expected.
        assertTrue(KeyNames.electKey(9).compareTo(KeyNames.electKey(10)) < 0);
    }

    @Test
    void rejectsBadArguments()
    {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KeyNames.keyName(-1, true, 20));
        assertTrue(e.getMessage().contains("keynum"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> KeyNames.keyName(1, true, 0));
        assertTrue(e.getMessage().contains("zeropadding"), e.getMessage());
    }

    @Test
    void ycsbPropertiesProduceTheSameKeysAsKeyNames() throws Exception
    {
        Properties p = new Properties();
        p.setProperty("insertorder", "ordered");
        p.setProperty("zeropadding", "20");
        p.setProperty("recordcount", "10");
        YcsbKeys w = new YcsbKeys(false, 1);
        w.init(p);
        assertEquals(KeyNames.electKey(7), w.key(7));
    }
}
