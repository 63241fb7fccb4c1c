package io.elect.offload;

import java.util.Random;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

public class ColdObjectKeyTest
{
    @Test
    void goldenKey()
    {
        ColdObjectKey k = ColdObjectKey.of("Test Cluster", "ycsb", "usertable", ColdObjectKey.KIND_DATA,
                                           UUID.fromString("01234567-89ab-cdef-0011-223344556677"));
        assertEquals("elect/v1/Test%20Cluster/ycsb/usertable/data/0123456789abcdef0011223344556677", k.key());
        assertEquals(k, ColdObjectKey.parse(k.key()));
        assertTrue(k.key().startsWith(ColdObjectKey.tablePrefix("Test Cluster", "ycsb", "usertable")));
    }

    @Test
    void roundTripsAwkwardNamesAndAreValidStoreKeys()
    {
        long seed = System.nanoTime();
        System.out.println("ColdObjectKeyTest seed=" + seed);
        Random r = new Random(seed);
        String[] names = { ".", "..", "a/b", "%", "é ü", "x.y-z_1", "日本" };
        for (String n : names)
        {
            ColdObjectKey k = new ColdObjectKey(n, n, n, "parity", r.nextLong(), r.nextLong());
            assertEquals(k, ColdObjectKey.parse(k.key()), n);
            FramedColdStore.checkKey(k.key());
        }
    }

    @Test
    void badKeysAreRejectedNamingTheProblem()
    {
        assertThrows(IllegalArgumentException.class, () -> new ColdObjectKey("", "k", "t", "data", 0, 0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                                                  () -> new ColdObjectKey("c", "k", "t", "Data", 0, 0));
        assertTrue(e.getMessage().contains("kind"));
        assertThrows(IllegalArgumentException.class, () -> ColdObjectKey.parse("elect/v2/c/k/t/data/00"));
        assertThrows(IllegalArgumentException.class, () -> ColdObjectKey.parse("elect/v1/c/k/t/data/XYZ"));
        assertThrows(IllegalArgumentException.class,
                     () -> ColdObjectKey.parse("elect/v1/c%61/k/t/data/0123456789abcdef0011223344556677"));
    }
}
