package io.elect.core.trees;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RoleRangesTest
{
    @Test
    void threeNodeRingRf3()
    {
        // ring tokens -100, 0, 100; this node has role 2 for (100, -100] (wrapping), 0 for (-100, 0], 1 for (0, 100]
        RoleRanges<Long> r = RoleRanges.fromRing(List.of(-100L, 0L, 100L), List.of(2, 0, 1));
        assertEquals(2, r.roleOf(-1000L));
        assertEquals(2, r.roleOf(-100L));
        assertEquals(0, r.roleOf(-99L));
        assertEquals(0, r.roleOf(0L));
        assertEquals(1, r.roleOf(1L));
        assertEquals(1, r.roleOf(100L));
        assertEquals(2, r.roleOf(101L));
        assertEquals(4, r.segmentCount());
        assertEquals(List.of(0, 1, 2), r.distinctRoles());
        assertEquals(0, r.spanRole(-99L, 0L));
        assertNull(r.spanRole(0L, 1L));
        assertNull(r.spanRole(-1000L, 1000L)); // same role at both ends, other roles in between
        assertEquals("[{\"start\":null,\"end\":\"-100\",\"role\":2},{\"start\":\"-100\",\"end\":\"0\",\"role\":0},"
                     + "{\"start\":\"0\",\"end\":\"100\",\"role\":1},{\"start\":\"100\",\"end\":null,\"role\":2}]",
                     r.toJson());
    }

    @Test
    void adjacentEqualRolesMerge()
    {
        RoleRanges<Long> r = RoleRanges.fromRing(List.of(-100L, 0L, 100L), List.of(0, 0, 0));
        assertEquals(1, r.segmentCount());
        assertEquals(RoleRanges.uniform(0), r);
        RoleRanges<Long> l = RoleRanges.linear(List.of(1L, 2L, 3L), List.of(1, 1, 2, 2));
        assertEquals(List.of(2L), l.boundaries());
        assertEquals(1, l.roleOf(2L));
        assertEquals(2, l.roleOf(3L));
    }

    @Test
    void badArgumentsAreNamed()
    {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                                                  () -> RoleRanges.fromRing(List.of(1L, 1L), List.of(0, 1)));
        assertTrue(e.getMessage().contains("ringTokens"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> RoleRanges.fromRing(List.of(1L), List.of(0, 1)));
        assertTrue(e.getMessage().contains("rolesOfRanges"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> RoleRanges.linear(List.of(1L), List.of(0, -2)));
        assertTrue(e.getMessage().contains("roles[1]"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> RoleRanges.<Long>uniform(0).spanRole(2L, 1L));
        assertTrue(e.getMessage().contains("first"), e.getMessage());
    }

    /** Differential test against a brute-force walk of the wrapping ring. */
    @Test
    void randomRingsMatchBruteForce()
    {
        long seed = System.nanoTime();
        System.out.println("RoleRangesTest.randomRingsMatchBruteForce seed=" + seed);
        Random rnd = new Random(seed);
        for (int iter = 0; iter < 300; iter++)
        {
            int n = 1 + rnd.nextInt(12);
            TreeSet<Long> set = new TreeSet<>();
            while (set.size() < n)
                set.add((long) rnd.nextInt(201) - 100);
            List<Long> ring = new ArrayList<>(set);
            List<Integer> roles = new ArrayList<>();
            for (int i = 0; i < n; i++)
                roles.add(rnd.nextInt(4) - 1);
            RoleRanges<Long> r = RoleRanges.fromRing(ring, roles);
            int[] expected = new int[241];
            for (long x = -120; x <= 120; x++)
            {
                int idx = 0; // wrap: tokens above the last ring token belong to the range ending at ring[0]
                for (int i = 0; i < n; i++)
                    if (ring.get(i) >= x)
                    {
                        idx = i;
                        break;
                    }
                expected[(int) x + 120] = roles.get(idx);
                assertEquals(roles.get(idx).intValue(), r.roleOf(x), "seed=" + seed + " token " + x + " " + r);
            }
            for (int k = 0; k < 50; k++)
            {
                long a = rnd.nextInt(241) - 120;
                long b = a + rnd.nextInt((int) (121 - a));
                Integer same = expected[(int) a + 120];
                for (long x = a; x <= b && same != null; x++)
                    if (expected[(int) x + 120] != same.intValue())
                        same = null;
                assertEquals(same, r.spanRole(a, b), "seed=" + seed + " span [" + a + "," + b + "] " + r);
            }
        }
    }
}
