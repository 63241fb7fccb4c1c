package io.elect.core.bridge;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.util.Clock;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.lifecycle.SSTableSet;
import org.apache.cassandra.db.lifecycle.View;
import org.apache.cassandra.db.rows.UnfilteredRowIterator;
import org.apache.cassandra.io.sstable.ISSTableScanner;
import org.apache.cassandra.io.sstable.format.SSTableReader;

/**
 * Which stripes' files on this node are FULLY shadowed (the retire step's detection, docs/design/updates.md): a
 * frozen file F (encoded or offloaded member, stub) is fully shadowed when nothing of any of its partitions survives
 * the secondaries' purge rule ({@link StubShadowing}: exact Cassandra reconciliation, cell by cell; a wider-scope
 * deletion does not count) applied against its shadows. A stripe is reported true when every file of it here is.
 *
 * <p>Shadows, and why: every other live SSTable overlapping F that is unfrozen (never retired before it is frozen,
 * and then only by the same rule) and may hold newer data ({@code maxTimestamp > F.minTimestamp}), plus frozen files
 * of ANOTHER stripe whose data is all strictly newer than F's ({@code minTimestamp > F.maxTimestamp}). The strict
 * order makes shadowing between frozen files acyclic: two stripes holding equal cells (a tie, which the rule lets
 * either side win) are never both retired on each other's account.
 *
 * <p>Cost: the exact check reads F whole (through its tiered data for stubs and offloaded members), so it runs only
 * for files whose {@link ObsoleteScan} coverage is 1 (every partition's key is held by a newer SSTable: necessary
 * but not sufficient, a partial update leaves cells; not the obsolete share, which cannot read a tiered newer version
 * whose timestamps overlap F's and so missed members whose newer versions had been encoded and offloaded before the
 * check: seen as a flaky TransitioningIT), and its answer is cached per F against the ids of its shadows.
 * The checks run only when asked to scan (the node's maintenance thread); SNAPSHOT answers from the cache, a file
 * not checked yet counting as not shadowed, so that no snapshot waits for whole files to be read. A check that fails
 * (a remote member unreachable) answers false and is retried next time. Thread-safe.
 */
final class ShadowScan
{
    private static final Logger logger = LoggerFactory.getLogger(ShadowScan.class);
    /** ObsoleteScan shares at least this are "every partition has a newer version" (they are sums of exact byte spans). */
    private static final double WHOLE = 1.0 - 1e-9;

    private record Entry(Set<String> against, boolean shadowed)
    {
    }

    /** "<table id>/<sstable id>" -> last exact answer. */
    private final Map<String, Entry> cache = new ConcurrentHashMap<>();

    /**
     * stripe id -> whether every file of it on this node is fully shadowed, for every stripe with a file here.
     *
     * @param tags     the frozen registry (SSTable id -> stripe id)
     * @param obsolete ObsoleteScan's coverage by SSTable id (the gate)
     * @param scan     run the exact checks that are due; false: cached answers only (missing or outdated: false)
     */
    Map<String, Map<Integer, Boolean>> stripes(ColumnFamilyStore cfs, Map<String, String> tags, Map<String, Double> obsolete,
                                               boolean scan, Clock clock)
    {
        Map<String, Map<Integer, Boolean>> out = new HashMap<>();
        Set<String> keep = new TreeSet<>();
        String prefix = cfs.metadata().id + "/";
        // referenced: a compaction finishing meanwhile must not delete a file while it is read
        try (ColumnFamilyStore.RefViewFragment view = cfs.selectAndReference(View.selectFunction(SSTableSet.LIVE)))
        {
            List<SSTableReader> live = new ArrayList<>(view.sstables);
            for (SSTableReader f : live)
            {
                String tag = tags.get(f.descriptor.id.toString());
                if (tag == null)
                    continue;
                String key = prefix + f.descriptor.id;
                keep.add(key);
                boolean shadowed = false;
                Double share = obsolete.get(f.descriptor.id.toString());
                if (share != null && share >= WHOLE)
                    shadowed = exact(cfs, f, key, shadows(f, tag, live, tags), scan, clock);
                out.computeIfAbsent(tag, x -> new HashMap<>()).merge(slotOf(f), shadowed, Boolean::logicalAnd);
            }
        }
        cache.keySet().removeIf(k -> k.startsWith(prefix) && !keep.contains(k));
        return out;
    }

    /** A stub's member index; {@link io.elect.core.node.LocalTables#MEMBER_FILE} for a member (or an unreadable sidecar). */
    private static int slotOf(SSTableReader f)
    {
        if (!TieredSSTables.isTiered(f))
            return io.elect.core.node.LocalTables.MEMBER_FILE;
        try
        {
            io.elect.core.tiered.TieredSidecar s = TieredSSTables.sidecar(f.descriptor);
            return s.source() == io.elect.core.tiered.TieredSidecar.Source.DECODED ? s.self() : io.elect.core.node.LocalTables.MEMBER_FILE;
        }
        catch (java.io.IOException e)
        {
            return io.elect.core.node.LocalTables.MEMBER_FILE;
        }
    }

    private boolean exact(ColumnFamilyStore cfs, SSTableReader f, String key, List<SSTableReader> shadows, boolean scan, Clock clock)
    {
        Set<String> against = new TreeSet<>();
        for (SSTableReader g : shadows)
            against.add(g.descriptor.id.toString());
        Entry e = cache.get(key);
        if (e != null && e.against().equals(against))
            return e.shadowed();
        if (!scan)
            return false; // not checked against these shadows yet: the maintenance thread will
        long start = clock.nanoTime();
        try
        {
            boolean shadowed = !shadows.isEmpty() && fullyShadowed(cfs, f, shadows);
            cache.put(key, new Entry(against, shadowed));
            logger.info("shadow check of {} against {} SSTables: {} ({} ms)", f.descriptor, shadows.size(),
                        shadowed ? "fully shadowed" : "something survives", clock.millisSince(start));
            return shadowed;
        }
        catch (RuntimeException ex)
        {
            logger.warn("shadow check of {} failed (retried next time): {}", f.descriptor, ex.toString());
            return false;
        }
    }

    /** The SSTables F may be shadowed by (see the class comment). */
    static List<SSTableReader> shadows(SSTableReader f, String tag, List<SSTableReader> live, Map<String, String> tags)
    {
        List<SSTableReader> out = new ArrayList<>();
        for (SSTableReader g : live)
        {
            if (g == f || g.getFirst().compareTo(f.getLast()) > 0 || g.getLast().compareTo(f.getFirst()) < 0)
                continue;
            String gTag = tags.get(g.descriptor.id.toString());
            boolean frozen = gTag != null || TieredSSTables.isTiered(g);
            if (!frozen ? g.getMaxTimestamp() > f.getMinTimestamp()
                        : !tag.equals(gTag) && g.getMinTimestamp() > f.getMaxTimestamp())
                out.add(g);
        }
        return out;
    }

    /** Whether nothing of any partition of f survives the purge rule against shadows; stops at the first survivor. */
    static boolean fullyShadowed(ColumnFamilyStore cfs, SSTableReader f, List<SSTableReader> shadows)
    {
        try (ISSTableScanner scanner = f.getScanner())
        {
            while (scanner.hasNext())
            {
                try (SecondaryStubs.Shadowed p = new SecondaryStubs.Shadowed(cfs, scanner.next(), shadows))
                {
                    if (!nothingLeft(p.filtered))
                        return false;
                }
            }
        }
        return true;
    }

    /** Whether a partition filtered by the purge rule kept nothing (no deletion, static row or row). Consumes it. */
    static boolean nothingLeft(UnfilteredRowIterator it)
    {
        if (!it.partitionLevelDeletion().isLive() || !it.staticRow().isEmpty())
            return false;
        while (it.hasNext())
            if (it.next() != null)
                return false;
        return true;
    }
}
