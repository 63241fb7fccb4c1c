package io.elect.core.trees;

import java.util.ArrayList;
import java.util.List;

/**
 * When a role tree's level-0 SSTables are merged into level 1 although they hold less than one SSTable's worth.
 *
 * <p>Leveled compaction promotes L0 into L1 once L0 holds more than {@code sstable_size_in_mb} (a smaller L0 stays
 * where it is, or is compacted within L0). That threshold is calibrated for a tree that receives whole memtable
 * flushes. A role tree receives only its role's share of each flush (about 1/R of it with R role trees, R = the
 * replication factor): with R = 3 and 4 MiB SSTables, a 9 MiB flush gives each role tree 3 MiB, under the threshold,
 * so it stays in L0 while a plain table's 9 MiB flush of the same writes is promoted at once. A point read of such a
 * key then probes two SSTables (L0 and L1) in the ELECT table and one in the plain table: measured on 2026-11-27, a
 * read-only workload after one flush of updates ran about 10% slower on the ELECT table, local read latency 0.32 vs
 * 0.25 ms. So a role tree promotes L0 once it holds more than {@code maxSSTableBytes / roles}: the role's share of a
 * flush that a plain tree would promote. Write amplification per byte stays as for a plain tree (L0 bytes are merged
 * once with the L1 files they overlap).
 *
 * <p>Pure: the caller (the compaction strategy) passes one role tree's files and asks only when none of its trees
 * has a task of its own.
 */
public final class L0Promotion
{
    private L0Promotion()
    {
    }

    /**
     * One SSTable of a role tree. {@code busy}: compacting already, or marked suspect. Files are passed oldest first
     * (the order in which at most {@code maxThreshold} L0 files are taken).
     */
    public record File<K extends Comparable<K>, T>(T id, int level, long bytes, K first, K last, boolean busy)
    {
        boolean overlaps(File<K, ?> o)
        {
            return first.compareTo(o.last) <= 0 && o.first.compareTo(last) <= 0;
        }
    }

    /**
     * The files to merge into L1 (L0 files, oldest first, at most maxThreshold of them, plus every L1 file that
     * overlaps one of them), or an empty list: when any L0 file or an overlapping L1 file is busy (LCS's own L0 work
     * or a higher level's compaction comes first), when the L0 files hold at most maxSSTableBytes / roles, or when
     * there is nothing to merge (one L0 file overlapping no L1 file).
     */
    public static <K extends Comparable<K>, T> List<File<K, T>> select(List<File<K, T>> tree, long maxSSTableBytes,
                                                                       int roles, int maxThreshold)
    {
        if (roles < 1 || maxSSTableBytes < 1 || maxThreshold < 2)
            throw new IllegalArgumentException("roles " + roles + ", maxSSTableBytes " + maxSSTableBytes
                                               + ", maxThreshold " + maxThreshold);
        List<File<K, T>> l0 = new ArrayList<>();
        long l0Bytes = 0;
        for (File<K, T> f : tree)
        {
            if (f.level() != 0)
                continue;
            if (f.busy())
                return List.of();
            if (l0.size() < maxThreshold)
            {
                l0.add(f);
                l0Bytes += f.bytes();
            }
        }
        if (l0.isEmpty() || l0Bytes <= maxSSTableBytes / roles)
            return List.of();
        List<File<K, T>> chosen = new ArrayList<>(l0);
        for (File<K, T> f : tree)
        {
            if (f.level() != 1 || l0.stream().noneMatch(f::overlaps))
                continue;
            if (f.busy())
                return List.of();
            chosen.add(f);
        }
        return chosen.size() < 2 ? List.of() : chosen;
    }
}
