package io.elect.core.trees;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.elect.core.trees.L0Promotion.File;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Golden cases of {@link L0Promotion#select}: 4 MiB SSTables, three role trees (threshold 4 MiB / 3). */
class L0PromotionTest
{
    private static final long MIB = 1 << 20;
    private static final long MAX = 4 * MIB;

    private static File<Integer, String> f(String id, int level, long bytes, int first, int last)
    {
        return new File<>(id, level, bytes, first, last, false);
    }

    private static File<Integer, String> busy(String id, int level, long bytes, int first, int last)
    {
        return new File<>(id, level, bytes, first, last, true);
    }

    private static List<String> ids(List<File<Integer, String>> files)
    {
        return files.stream().map(File::id).toList();
    }

    @Test
    void aRoleShareOfAFlushIsMergedWithTheL1FilesItOverlaps()
    {
        // 3 MiB flushed into this role: over 4/3 MiB, under LCS's own 4 MiB. L1 holds [0,99] [100,199] [200,299].
        List<File<Integer, String>> tree = List.of(f("a", 1, 4 * MIB, 0, 99), f("b", 1, 4 * MIB, 100, 199),
                                                   f("c", 1, 2 * MIB, 200, 299), f("flush", 0, 3 * MIB, 50, 150));
        assertEquals(List.of("flush", "a", "b"), ids(L0Promotion.select(tree, MAX, 3, 32)));
    }

    @Test
    void atMostTheThresholdStaysInL0()
    {
        List<File<Integer, String>> tree = List.of(f("a", 1, 4 * MIB, 0, 99), f("small", 0, MAX / 3, 10, 20));
        assertEquals(List.of(), ids(L0Promotion.select(tree, MAX, 3, 32)));
        // one role tree (RF 1): LCS's own threshold
        assertEquals(List.of(), ids(L0Promotion.select(List.of(f("a", 1, MIB, 0, 99), f("l0", 0, 3 * MIB, 1, 2)), MAX, 1, 32)));
        // two small files together pass it
        List<File<Integer, String>> two = List.of(f("a", 1, 4 * MIB, 0, 99), f("s1", 0, MIB, 10, 20), f("s2", 0, MIB, 30, 40));
        assertEquals(List.of("s1", "s2", "a"), ids(L0Promotion.select(two, MAX, 3, 32)));
    }

    @Test
    void busyFilesDeferThePromotion()
    {
        assertEquals(List.of(), ids(L0Promotion.select(List.of(f("a", 1, MIB, 0, 99), busy("l0", 0, 2 * MIB, 0, 9),
                                                              f("l0b", 0, 2 * MIB, 5, 6)), MAX, 3, 32)));
        assertEquals(List.of(), ids(L0Promotion.select(List.of(busy("a", 1, MIB, 0, 99), f("l0", 0, 2 * MIB, 0, 9)),
                                                       MAX, 3, 32)));
        // a busy L1 file that overlaps nothing of L0 does not matter; L2 files are never taken
        List<File<Integer, String>> tree = List.of(busy("far", 1, MIB, 500, 599), f("a", 1, MIB, 0, 99),
                                                   f("deep", 2, MIB, 0, 99), f("l0", 0, 2 * MIB, 0, 9));
        assertEquals(List.of("l0", "a"), ids(L0Promotion.select(tree, MAX, 3, 32)));
    }

    @Test
    void nothingToMergeAndTheThresholdCap()
    {
        // one L0 file and no overlapping L1 file: LCS would not rewrite it either
        assertEquals(List.of(), ids(L0Promotion.select(List.of(f("a", 1, MIB, 0, 9), f("l0", 0, 2 * MIB, 50, 60)), MAX, 3, 32)));
        // at most maxThreshold L0 files, oldest first; L1 overlap judged on the chosen ones
        List<File<Integer, String>> tree = List.of(f("x", 1, MIB, 0, 9), f("y", 1, MIB, 90, 99),
                                                   f("o1", 0, MIB, 0, 5), f("o2", 0, MIB, 1, 2), f("o3", 0, MIB, 95, 96));
        assertEquals(List.of("o1", "o2", "x"), ids(L0Promotion.select(tree, MAX, 3, 2)));
        assertThrows(IllegalArgumentException.class, () -> L0Promotion.select(tree, MAX, 0, 32));
        assertThrows(IllegalArgumentException.class, () -> L0Promotion.select(tree, MAX, 3, 1));
    }
}
