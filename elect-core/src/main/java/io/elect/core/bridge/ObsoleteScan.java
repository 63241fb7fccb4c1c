package io.elect.core.bridge;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.DecoratedKey;
import org.apache.cassandra.db.Slices;
import org.apache.cassandra.db.filter.ColumnFilter;
import org.apache.cassandra.db.lifecycle.SSTableSet;
import org.apache.cassandra.db.lifecycle.View;
import org.apache.cassandra.db.rows.Cell;
import org.apache.cassandra.db.rows.Row;
import org.apache.cassandra.db.rows.Unfiltered;
import org.apache.cassandra.db.rows.UnfilteredRowIterator;
import org.apache.cassandra.io.sstable.KeyReader;
import org.apache.cassandra.io.sstable.SSTableReadsListener;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.utils.ByteBufferUtil;

/**
 * How much of each frozen SSTable (erasure-coded primary, offloaded primary, stub) is obsolete: the share of its data
 * component, by partition, of which a live unfrozen SSTable of the same table on this node holds a newer version.
 * Plain Cassandra's compaction would have dropped those versions; a frozen SSTable keeps them until ELECT merges
 * updates into encoded members, so they are storage that full replication of the live data would not spend.
 *
 * <p>Rule, per partition P of a frozen SSTable F: P is obsolete when some other live SSTable G with
 * {@code G.maxTimestamp > F.maxTimestamp} holds P's key and G's version of P has a cell, row liveness or deletion
 * with a timestamp above {@code F.maxTimestamp}: certain without reading when {@code G.minTimestamp > F.maxTimestamp},
 * otherwise decided by reading G's partition when G's data is local. When G is tiered (a stub, whose data is the
 * stripe's, or an offloaded SSTable) its data is not read: G holding the key counts as a newer version, since
 * G.maxTimestamp > F.maxTimestamp and a frozen F's versions are never copied into a newer SSTable (a member's next
 * version after a merge holds a subset of them, so its greatest timestamp is not above F's). Before 2026-11-27 such
 * keys counted as live: on a secondary replica, where both the old and the new version of an updated row are stubs,
 * nothing was counted, and the updates benchmark's reported saving ran 11 points above the measured one. G may be
 * frozen itself (the newer version was encoded later: F's version stays obsolete). Exact for whole-row overwrites
 * and deletions of the partition or its rows (YCSB's updates) in local G; over-counts a partial update (some
 * columns: the whole partition counts) and, for a tiered G, a version older than F's that reached G late (a hint or
 * a repair stream of an old write), both of which make the reported saving lower, not higher; under-counts a
 * newer version that is only a range tombstone. Only partition indexes (local, also for tiered SSTables) and local
 * data components are read: never a tiered data component.
 *
 * <p>Cost and caching: one pass over F's partition index, with a bloom-filter/index probe of each newer G per key;
 * the answer is cached per F against the ids of the G it was computed from, and recomputed when that set changes
 * (a flush or compaction overlapping F). Thread-safe.
 */
final class ObsoleteScan
{
    private static final Logger logger = LoggerFactory.getLogger(ObsoleteScan.class);

    /**
     * @param fraction the obsolete share (proven newer versions)
     * @param coverage the share of the data whose partition's key some newer G holds at all, newer version proven or
     *                 not (a tiered G with overlapping timestamps cannot be read here): the candidates of the exact
     *                 shadow check ({@link ShadowScan}), which reads what this scan may not
     */
    private record Entry(Set<String> against, double fraction, double coverage)
    {
    }

    /** "<table id>/<sstable id>" -> last answer. */
    private final Map<String, Entry> cache = new ConcurrentHashMap<>();

    /**
     * The obsolete share (0..1, of the data component's uncompressed bytes) of every live SSTable of cfs that
     * {@code frozen} accepts, by SSTable id.
     */
    Map<String, Double> fractions(ColumnFamilyStore cfs, Predicate<SSTableReader> frozen)
    {
        Map<String, Double> out = new HashMap<>();
        entries(cfs, frozen).forEach((id, e) -> out.put(id, e.fraction()));
        return out;
    }

    /**
     * For every live SSTable of cfs that {@code frozen} accepts, by SSTable id: the share of its data in partitions
     * whose key a newer SSTable holds (see {@link Entry#coverage}). 1 is necessary for the file to be fully shadowed.
     */
    Map<String, Double> coverage(ColumnFamilyStore cfs, Predicate<SSTableReader> frozen)
    {
        Map<String, Double> out = new HashMap<>();
        entries(cfs, frozen).forEach((id, e) -> out.put(id, e.coverage()));
        return out;
    }

    private Map<String, Entry> entries(ColumnFamilyStore cfs, Predicate<SSTableReader> frozen)
    {
        // referenced: a compaction finishing meanwhile must not delete a file while it is read
        try (ColumnFamilyStore.RefViewFragment view = cfs.selectAndReference(View.selectFunction(SSTableSet.LIVE)))
        {
            return entries(cfs, frozen, new ArrayList<>(view.sstables));
        }
    }

    private Map<String, Entry> entries(ColumnFamilyStore cfs, Predicate<SSTableReader> frozen, List<SSTableReader> live)
    {
        List<SSTableReader> frozenOnes = new ArrayList<>();
        for (SSTableReader r : live)
            if (frozen.test(r))
                frozenOnes.add(r);
        Map<String, Entry> out = new HashMap<>();
        Set<String> keep = new TreeSet<>();
        String prefix = cfs.metadata().id + "/";
        for (SSTableReader f : frozenOnes)
        {
            List<SSTableReader> newer = new ArrayList<>();
            Set<String> against = new TreeSet<>();
            for (SSTableReader g : live)
            {
                if (g != f && g.getMaxTimestamp() > f.getMaxTimestamp() && g.getFirst().compareTo(f.getLast()) <= 0
                    && g.getLast().compareTo(f.getFirst()) >= 0)
                {
                    newer.add(g);
                    against.add(g.descriptor.id.toString());
                }
            }
            String key = prefix + f.descriptor.id;
            keep.add(key);
            Entry e = cache.get(key);
            if (e == null || !e.against().equals(against))
            {
                try
                {
                    double[] shares = newer.isEmpty() ? new double[2] : scan(cfs, f, newer);
                    e = new Entry(against, shares[0], shares[1]);
                    cache.put(key, e);
                }
                catch (IOException | RuntimeException ex)
                {
                    // accounting must never fail a snapshot: keep the last answer (or 0) and try again next time
                    logger.warn("Obsolete-version scan of {} failed ({}); using {}", f.descriptor, ex.toString(),
                                e == null ? "0" : "the previous share " + e.fraction());
                    if (e == null)
                        e = new Entry(Set.of(), 0, 0);
                }
            }
            out.put(f.descriptor.id.toString(), e);
        }
        cache.keySet().removeIf(k -> k.startsWith(prefix) && !keep.contains(k));
        return out;
    }

    /** {obsolete share, coverage share} of f against newer (see {@link Entry}). */
    private static double[] scan(ColumnFamilyStore cfs, SSTableReader f, List<SSTableReader> newer) throws IOException
    {
        long total = f.uncompressedLength();
        if (total <= 0)
            return new double[2];
        long obsolete = 0, covered = 0;
        try (KeyReader keys = f.keyReader())
        {
            if (keys.isExhausted())
                return new double[2];
            DecoratedKey key = cfs.decorateKey(ByteBufferUtil.clone(keys.key()));
            long pos = keys.dataPosition();
            while (true)
            {
                boolean more = keys.advance();
                long next = more ? keys.dataPosition() : total;
                if (newerVersion(cfs, key, f.getMaxTimestamp(), newer))
                    obsolete += next - pos;
                if (anyHolds(key, newer))
                    covered += next - pos;
                if (!more)
                    break;
                key = cfs.decorateKey(ByteBufferUtil.clone(keys.key()));
                pos = next;
            }
        }
        return new double[]{ Math.min(1.0, (double) obsolete / total), Math.min(1.0, (double) covered / total) };
    }

    /** Whether one of newer holds key at all (index probe only). */
    private static boolean anyHolds(DecoratedKey key, List<SSTableReader> newer)
    {
        for (SSTableReader g : newer)
            if (key.compareTo(g.getFirst()) >= 0 && key.compareTo(g.getLast()) <= 0
                && g.getPosition(key, SSTableReader.Operator.EQ, false) >= 0)
                return true;
        return false;
    }

    /** Whether one of newer holds a version of key with data newer than frozenMax (see the class comment). */
    static boolean newerVersion(ColumnFamilyStore cfs, DecoratedKey key, long frozenMax, List<SSTableReader> newer)
    {
        for (SSTableReader g : newer)
        {
            if (key.compareTo(g.getFirst()) < 0 || key.compareTo(g.getLast()) > 0)
                continue;
            if (g.getPosition(key, SSTableReader.Operator.EQ, false) < 0)
                continue;
            if (g.getMinTimestamp() > frozenMax)
                return true;
            // A tiered g's data is remote (a stub's: the stripe's) or in the cold tier: not read here. Its statistics
            // prove that it holds data newer than F's greatest timestamp (the caller's filter); its version of this
            // key is taken to be that newer data (see the class comment for when that over-counts).
            if (TieredSSTables.isTiered(g))
                return true;
            if (maxTimestamp(cfs, g, key) > frozenMax)
                return true;
        }
        return false;
    }

    /** The greatest timestamp of g's version of key: partition deletion, static row, rows (liveness, deletion, cells). */
    private static long maxTimestamp(ColumnFamilyStore cfs, SSTableReader g, DecoratedKey key)
    {
        try (UnfilteredRowIterator it = g.rowIterator(key, Slices.ALL, ColumnFilter.all(cfs.metadata()), false,
                                                      SSTableReadsListener.NOOP_LISTENER))
        {
            long max = Math.max(it.partitionLevelDeletion().markedForDeleteAt(), rowMax(it.staticRow()));
            while (it.hasNext())
            {
                Unfiltered u = it.next();
                if (u.isRow())
                    max = Math.max(max, rowMax((Row) u));
            }
            return max;
        }
    }

    private static long rowMax(Row r)
    {
        long max = Math.max(r.primaryKeyLivenessInfo().timestamp(), r.deletion().time().markedForDeleteAt());
        for (Cell<?> c : r.cells())
            max = Math.max(max, c.timestamp());
        return max;
    }
}
