package io.elect.core.bridge;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.trees.RoleRanges;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.SerializationHeader;
import org.apache.cassandra.db.commitlog.CommitLogPosition;
import org.apache.cassandra.db.commitlog.IntervalSet;
import org.apache.cassandra.db.compaction.AbstractCompactionTask;
import org.apache.cassandra.db.compaction.LeveledCompactionStrategy;
import org.apache.cassandra.db.compaction.OperationType;
import org.apache.cassandra.db.lifecycle.LifecycleNewTracker;
import org.apache.cassandra.db.lifecycle.LifecycleTransaction;
import org.apache.cassandra.dht.Range;
import org.apache.cassandra.dht.Token;
import org.apache.cassandra.index.Index;
import org.apache.cassandra.io.sstable.Descriptor;
import org.apache.cassandra.io.sstable.ISSTableScanner;
import org.apache.cassandra.io.sstable.SSTableMultiWriter;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.io.sstable.metadata.StatsMetadata;
import org.apache.cassandra.utils.TimeUUID;

/**
 * ELECT's compaction strategy: decoupled primary and secondary LSM-trees inside one Cassandra table.
 * Opt in per table with {@code compaction = {'class': 'io.elect.core.bridge.ElectCompactionStrategy',
 * 'sstable_size_in_mb': .., 'fanout_size': ..}} (LCS's options, validated by LCS).
 *
 * <p>Invariants (checked by the tests):
 * <ul>
 * <li>Every SSTable this strategy writes (flush, streaming, compaction) lies inside one segment of the node's role
 *     map ({@link RoleRangesSource}): flush output is split by {@link RoleSplittingMultiWriter}, compactions whose
 *     inputs may cross roles use {@link RoleSplittingCompactionTask}, and per-role trees only compact SSTables of
 *     their own role, whose outputs are subsets of their inputs' keys.</li>
 * <li>Each SSTable handed to this instance is in exactly one place: the leveled tree of its role (an inner
 *     {@link LeveledCompactionStrategy} with this table's options, so LCS semantics per role), the misfit set
 *     (it spans a role boundary: imported, streamed whole, or the role map changed) or the frozen set
 *     ({@link FrozenSSTables#isFrozen}: tiered or erasure-coded, never compacted). Misfits are re-split first by
 *     the next background compaction, one SSTable per task, keeping their level where no overlap results.</li>
 * <li>Frozen SSTables are in {@link #getSSTables()} (Cassandra's accounting) but in no tree: no background,
 *     maximal or tombstone task takes them, and they do not count in any tree's level sizes (LCS scoring).
 *     User-defined and token-range compactions skip them (logged, not an error: a range compaction would otherwise
 *     fail whenever its range holds one); {@link #getCompactionTask} (upgradesstables, relocation) refuses them.</li>
 * <li>The role map is re-read on every routing call; when it changes (ring version, replication, test override)
 *     every SSTable is re-classified, which is how a topology change turns straddling SSTables into misfits.</li>
 * </ul>
 * The outer LCS manifest stays empty: every method of LCS that reads it is overridden. Several instances exist per
 * table (repaired / unrepaired / pending repair, re-created on ALTER), each with its own trees; visibility code
 * aggregates them via {@code cfs.getCompactionStrategyManager().getStrategies()}.
 *
 * <p>Thread-safety: all routing state is guarded by {@code this}; inner strategies are only called under it.
 * Not overridable (package-private in Cassandra): {@code getEstimatedRemainingTasks(int, long)}, used only by
 * streaming's back-pressure, which therefore sees the (empty) outer manifest.
 */
public class ElectCompactionStrategy extends LeveledCompactionStrategy
{
    private static final Logger logger = LoggerFactory.getLogger(ElectCompactionStrategy.class);

    /** Placement of an SSTable that spans two roles. */
    static final int MISFIT = Integer.MIN_VALUE;
    /** Placement of a frozen SSTable ({@link FrozenSSTables#isFrozen}): in no tree, never compacted. */
    static final int FROZEN = Integer.MIN_VALUE + 1;

    /** The node's adapter parts (frozen registry, role map, table registry), through the hand-off. */
    private final Bridge bridge;
    private final Map<String, String> treeOptions;
    private final Map<Integer, LeveledCompactionStrategy> trees = new TreeMap<>();
    private final Map<SSTableReader, Integer> placement = new HashMap<>();
    private final Set<SSTableReader> misfits = new HashSet<>();
    private final Set<SSTableReader> frozen = new HashSet<>();
    private RoleRanges<Token> roles;
    private boolean started;

    public ElectCompactionStrategy(ColumnFamilyStore cfs, Map<String, String> options)
    {
        super(cfs, options);
        this.treeOptions = new HashMap<>(options);
        this.bridge = NodeHandoff.bridge();
        bridge.tables().registerTable(cfs);
    }

    // ---- role map --------------------------------------------------------------------------------------------

    /** The role map in force for this table, re-classifying all SSTables if it changed. */
    public synchronized RoleRanges<Token> currentRoles()
    {
        RoleRanges<Token> now = bridge.roles().forKeyspace(cfs.getKeyspaceName());
        if (now == roles)
            return now;
        RoleRanges<Token> before = roles;
        roles = now;
        if (before == null)
            return now;
        long start = bridge.node().clock().nanoTime();
        int moved = 0;
        for (SSTableReader sstable : new ArrayList<>(placement.keySet()))
        {
            int target = classify(sstable);
            if (target != placement.get(sstable))
            {
                unplace(sstable);
                place(sstable);
                moved++;
            }
        }
        if (!placement.isEmpty())
            logger.info("ELECT role map of {}.{} changed: {} of {} SSTables moved, {} misfits to re-split ({} ms)",
                        cfs.getKeyspaceName(), cfs.getTableName(), moved, placement.size(), misfits.size(),
                        (bridge.node().clock().nanoTime() - start) / 1_000_000);
        return now;
    }

    /** Where the SSTable belongs now: {@link #FROZEN}, else its role by range. */
    private int classify(SSTableReader sstable)
    {
        return bridge.frozen().isFrozen(sstable) ? FROZEN : roleOf(sstable);
    }

    /** The role holding the SSTable's whole range, or {@link #MISFIT}. */
    private int roleOf(SSTableReader sstable)
    {
        Integer role = roles.spanRole(sstable.getFirst().getToken(), sstable.getLast().getToken());
        return role == null ? MISFIT : role;
    }

    private LeveledCompactionStrategy tree(int role)
    {
        LeveledCompactionStrategy tree = trees.get(role);
        if (tree == null)
        {
            tree = new LeveledCompactionStrategy(cfs, treeOptions);
            if (started)
                tree.startup();
            trees.put(role, tree);
            bridge.tables().ensureRoleMetrics(cfs, role);
        }
        return tree;
    }

    /** REQUIRES: sstable not placed. */
    private void place(SSTableReader sstable)
    {
        int target = classify(sstable);
        placement.put(sstable, target);
        if (target == MISFIT)
            misfits.add(sstable);
        else if (target == FROZEN)
            addFrozen(sstable);
        else
            tree(target).addSSTable(sstable);
    }

    /**
     * A frozen SSTable is also marked suspect: Cassandra's whole-table maintenance operations (cleanup, scrub,
     * garbagecollect, upgradesstables, relocatesstables, verify: {@code ColumnFamilyStore.withAllSSTables}) skip
     * suspect SSTables, so they never rewrite a stripe member or a tiered SSTable ({@link MaintenanceWatch} logs it).
     * Suspect SSTables stay readable (Cassandra consults the mark only to choose compaction inputs and garbagecollect's
     * shadow sources); tombstone purging still sees them as overlapping (CompactionController), so no purge can
     * resurrect what they hold.
     */
    private void addFrozen(SSTableReader sstable)
    {
        frozen.add(sstable);
        sstable.markSuspect();
    }

    private void unplace(SSTableReader sstable)
    {
        Integer p = placement.remove(sstable);
        if (p == null)
            return;
        if (p == MISFIT)
            misfits.remove(sstable);
        else if (p == FROZEN)
            frozen.remove(sstable);
        else
            trees.get(p).removeSSTable(sstable);
    }

    /**
     * Re-places one SSTable after its frozen state changed ({@link FrozenSSTables}): out of its tree when frozen,
     * back into its role's tree (or the misfits) when unfrozen. No-op if this instance does not hold it.
     * REQUIRES: the caller holds the SSTable against compaction (marked compacting), so no task has it in flight.
     * @return whether this instance holds the SSTable
     */
    public synchronized boolean reclassify(SSTableReader sstable)
    {
        currentRoles();
        Integer p = placement.get(sstable);
        if (p == null)
            return false;
        int target = classify(sstable);
        if (target != p)
        {
            unplace(sstable);
            if (p == FROZEN)
                sstable.unmarkSuspect(); // back to compaction (a real corruption is marked again by the next read of it)
            place(sstable);
            logger.debug("ELECT {} of {}.{} moved from {} to {}", sstable.descriptor, cfs.getKeyspaceName(),
                        cfs.getTableName(), placementName(p), placementName(target));
        }
        return true;
    }

    static String placementName(int p)
    {
        return p == MISFIT ? "misfit" : p == FROZEN ? "frozen" : "role " + p;
    }

    // ---- SSTable set maintenance (idempotent: Cassandra may repeat notifications) ------------------------------

    @Override
    public synchronized void addSSTable(SSTableReader added)
    {
        currentRoles();
        unplace(added);
        place(added);
    }

    @Override
    public synchronized void addSSTables(Iterable<SSTableReader> added)
    {
        currentRoles();
        for (SSTableReader sstable : added)
        {
            unplace(sstable);
            place(sstable);
        }
    }

    @Override
    public synchronized void removeSSTable(SSTableReader sstable)
    {
        unplace(sstable);
    }

    @Override
    public synchronized void removeSSTables(Iterable<SSTableReader> removed)
    {
        for (SSTableReader sstable : removed)
            unplace(sstable);
    }

    /**
     * Routes a compaction result per role: each tree sees {@code replace(removed_r, added_r)} so that LCS keeps its
     * last-compacted-key bookkeeping, or {@code addSSTables} when it lost nothing (LCS asserts a non-empty removed set).
     */
    @Override
    public synchronized void replaceSSTables(Collection<SSTableReader> removed, Collection<SSTableReader> added)
    {
        currentRoles();
        Map<Integer, List<SSTableReader>> removedByRole = new HashMap<>();
        for (SSTableReader sstable : removed)
        {
            Integer p = placement.remove(sstable);
            if (p == null)
                continue;
            if (p == MISFIT)
                misfits.remove(sstable);
            else if (p == FROZEN)
                frozen.remove(sstable);
            else
                removedByRole.computeIfAbsent(p, k -> new ArrayList<>()).add(sstable);
        }
        Map<Integer, List<SSTableReader>> addedByRole = new HashMap<>();
        for (SSTableReader sstable : added)
        {
            unplace(sstable);
            int target = classify(sstable);
            placement.put(sstable, target);
            if (target == MISFIT)
                misfits.add(sstable);
            else if (target == FROZEN)
                addFrozen(sstable);
            else
                addedByRole.computeIfAbsent(target, k -> new ArrayList<>()).add(sstable);
        }
        Set<Integer> touched = new HashSet<>(removedByRole.keySet());
        touched.addAll(addedByRole.keySet());
        for (int role : touched)
        {
            List<SSTableReader> r = removedByRole.getOrDefault(role, Collections.emptyList());
            List<SSTableReader> a = addedByRole.getOrDefault(role, Collections.emptyList());
            if (r.isEmpty())
                tree(role).addSSTables(a);
            else
                tree(role).replaceSSTables(r, a);
        }
    }

    @Override
    public synchronized void metadataChanged(StatsMetadata oldMetadata, SSTableReader sstable)
    {
        Integer p = placement.get(sstable);
        if (p != null && p != MISFIT && p != FROZEN)
            trees.get(p).metadataChanged(oldMetadata, sstable);
    }

    @Override
    protected synchronized Set<SSTableReader> getSSTables()
    {
        return new HashSet<>(placement.keySet());
    }

    // ---- life cycle ------------------------------------------------------------------------------------------

    @Override
    public synchronized void startup()
    {
        started = true;
        bridge.frozen().collectOnce(cfs);
        bridge.tables().watchMaintenance(cfs, bridge.frozen(), bridge.node().clock());
        super.startup();
        for (LeveledCompactionStrategy tree : trees.values())
            tree.startup();
    }

    @Override
    public synchronized void shutdown()
    {
        started = false;
        super.shutdown();
        for (LeveledCompactionStrategy tree : trees.values())
            tree.shutdown();
    }

    @Override
    public synchronized void pause()
    {
        super.pause();
        for (LeveledCompactionStrategy tree : trees.values())
            tree.pause();
    }

    @Override
    public synchronized void resume()
    {
        super.resume();
        for (LeveledCompactionStrategy tree : trees.values())
            tree.resume();
    }

    // ---- compaction tasks ------------------------------------------------------------------------------------

    /**
     * Misfits first (one per task), then the tree with the most estimated work that has a task, then a role tree
     * whose L0 holds more than its role's share of one SSTable ({@link SmallFlushPromotion}).
     */
    @Override
    public synchronized AbstractCompactionTask getNextBackgroundTask(long gcBefore)
    {
        RoleRanges<Token> now = currentRoles();
        Set<SSTableReader> compacting = cfs.getTracker().getCompacting();
        for (SSTableReader misfit : new ArrayList<>(misfits))
        {
            if (compacting.contains(misfit) || misfit.isMarkedSuspect())
                continue;
            LifecycleTransaction txn = cfs.getTracker().tryModify(misfit, OperationType.COMPACTION);
            if (txn != null)
            {
                logger.info("ELECT re-splitting {} ({} bytes, L{}) of {}.{} at role boundaries",
                            misfit.descriptor, misfit.onDiskLength(), misfit.getSSTableLevel(),
                            cfs.getKeyspaceName(), cfs.getTableName());
                return new RoleSplittingCompactionTask(cfs, txn, misfit.getSSTableLevel(), gcBefore,
                                                       getMaxSSTableBytes(), now);
            }
        }
        List<Map.Entry<Integer, LeveledCompactionStrategy>> byWork = new ArrayList<>(trees.entrySet());
        Map<Integer, Integer> work = new HashMap<>();
        for (Map.Entry<Integer, LeveledCompactionStrategy> e : byWork)
            work.put(e.getKey(), e.getValue().getEstimatedRemainingTasks());
        byWork.sort((a, b) -> Integer.compare(work.get(b.getKey()), work.get(a.getKey())));
        for (Map.Entry<Integer, LeveledCompactionStrategy> e : byWork)
        {
            AbstractCompactionTask task = e.getValue().getNextBackgroundTask(gcBefore);
            if (task != null)
                return task;
        }
        Map<Integer, List<SSTableReader>> byRole = new TreeMap<>();
        for (Map.Entry<SSTableReader, Integer> e : placement.entrySet())
            if (e.getValue() >= 0)
                byRole.computeIfAbsent(e.getValue(), r -> new ArrayList<>()).add(e.getKey());
        return SmallFlushPromotion.next(cfs, byRole, now, gcBefore, getMaxSSTableBytes());
    }

    /** One major compaction per role tree, plus one re-splitting task over all misfits. */
    @Override
    public synchronized Collection<AbstractCompactionTask> getMaximalTask(long gcBefore, boolean splitOutput)
    {
        RoleRanges<Token> now = currentRoles();
        List<AbstractCompactionTask> tasks = new ArrayList<>();
        for (LeveledCompactionStrategy tree : trees.values())
        {
            Collection<AbstractCompactionTask> t = tree.getMaximalTask(gcBefore, splitOutput);
            if (t != null)
                tasks.addAll(t);
        }
        if (!misfits.isEmpty())
        {
            List<SSTableReader> candidates = filterSuspectSSTables(misfits);
            LifecycleTransaction txn = candidates.isEmpty() ? null
                                       : cfs.getTracker().tryModify(candidates, OperationType.COMPACTION);
            if (txn != null)
                tasks.add(new RoleSplittingCompactionTask(cfs, txn, 0, gcBefore, getMaxSSTableBytes(), now));
        }
        return tasks.isEmpty() ? null : tasks;
    }

    /** Frozen SSTables are dropped from the set (one INFO line), the rest compacted with role splitting. */
    @Override
    public AbstractCompactionTask getUserDefinedTask(Collection<SSTableReader> requested, long gcBefore)
    {
        List<SSTableReader> sstables = new ArrayList<>(requested.size());
        List<SSTableReader> skipped = new ArrayList<>();
        for (SSTableReader sstable : requested)
            (bridge.frozen().isFrozen(sstable) ? skipped : sstables).add(sstable);
        if (!skipped.isEmpty())
            logger.info("ELECT user-defined compaction of {}.{} skips {} frozen SSTables: {}", cfs.getKeyspaceName(),
                        cfs.getTableName(), skipped.size(), skipped);
        if (sstables.isEmpty())
            return null;
        LifecycleTransaction txn = cfs.getTracker().tryModify(sstables, OperationType.COMPACTION);
        if (txn == null)
        {
            logger.debug("Unable to mark {} for user-defined compaction; probably compacting already", sstables);
            return null;
        }
        int level = sstables.size() > 1 ? 0 : sstables.iterator().next().getSSTableLevel();
        return new RoleSplittingCompactionTask(cfs, txn, level, gcBefore,
                                               level == 0 ? Long.MAX_VALUE : getMaxSSTableBytes(), currentRoles());
    }

    @Override
    public AbstractCompactionTask getCompactionTask(LifecycleTransaction txn, long gcBefore, long maxSSTableBytes)
    {
        List<SSTableReader> frozenInputs = new ArrayList<>();
        for (SSTableReader sstable : txn.originals())
            if (bridge.frozen().isFrozen(sstable))
                frozenInputs.add(sstable);
        if (!frozenInputs.isEmpty())
        {
            txn.abort(); // release the inputs: callers (e.g. automatic upgrades) do not close it when we throw
            throw new IllegalStateException("refusing to rewrite frozen SSTables of " + cfs.getKeyspaceName() + '.'
                                            + cfs.getTableName() + " (tiered or erasure-coded; unfreeze first): "
                                            + frozenInputs);
        }
        int level = -1;
        for (SSTableReader sstable : txn.originals())
        {
            if (level == -1)
                level = sstable.getSSTableLevel();
            if (level != sstable.getSSTableLevel())
                level = 0;
        }
        return new RoleSplittingCompactionTask(cfs, txn, Math.max(level, 0), gcBefore, maxSSTableBytes, currentRoles());
    }

    /** Groups of at most two SSTables of the same role (or all misfits) and the same level. */
    @Override
    public synchronized Collection<Collection<SSTableReader>> groupSSTablesForAntiCompaction(Collection<SSTableReader> sstables)
    {
        currentRoles();
        Map<List<Integer>, List<SSTableReader>> byRoleAndLevel = new HashMap<>();
        for (SSTableReader sstable : sstables)
            byRoleAndLevel.computeIfAbsent(List.of(roleOf(sstable), sstable.getSSTableLevel()), k -> new ArrayList<>())
                          .add(sstable);
        Collection<Collection<SSTableReader>> groups = new ArrayList<>();
        for (List<SSTableReader> same : byRoleAndLevel.values())
            for (int i = 0; i < same.size(); i += 2)
                groups.add(new ArrayList<>(same.subList(i, Math.min(i + 2, same.size()))));
        return groups;
    }

    @Override
    public synchronized int getEstimatedRemainingTasks()
    {
        int n = misfits.size();
        for (LeveledCompactionStrategy tree : trees.values())
            n += tree.getEstimatedRemainingTasks();
        return n;
    }

    // ---- scanners and per-level statistics ---------------------------------------------------------------------

    /** Leveled scanners per role tree; misfits, frozen SSTables and SSTables not (yet) placed get one scanner each. */
    @Override
    public synchronized ScannerList getScanners(Collection<SSTableReader> sstables, Collection<Range<Token>> ranges)
    {
        Map<Integer, List<SSTableReader>> byRole = new HashMap<>();
        List<SSTableReader> loose = new ArrayList<>();
        for (SSTableReader sstable : sstables)
        {
            Integer p = placement.get(sstable);
            if (p == null || p == MISFIT || p == FROZEN)
                loose.add(sstable);
            else
                byRole.computeIfAbsent(p, k -> new ArrayList<>()).add(sstable);
        }
        List<ISSTableScanner> scanners = new ArrayList<>(sstables.size());
        try
        {
            for (Map.Entry<Integer, List<SSTableReader>> e : byRole.entrySet())
                scanners.addAll(trees.get(e.getKey()).getScanners(e.getValue(), ranges).scanners);
            for (SSTableReader sstable : loose)
                scanners.add(sstable.getScanner(ranges));
        }
        catch (Throwable t)
        {
            ISSTableScanner.closeAllAndPropagate(scanners, t);
        }
        return new ScannerList(scanners);
    }

    @Override
    public synchronized int getLevelSize(int level)
    {
        int n = 0;
        for (LeveledCompactionStrategy tree : trees.values())
            n += tree.getLevelSize(level);
        for (SSTableReader misfit : misfits)
            if (misfit.getSSTableLevel() == level)
                n++;
        for (SSTableReader f : frozen)
            if (f.getSSTableLevel() == level)
                n++;
        return n;
    }

    @Override
    public synchronized int[] getAllLevelSize()
    {
        long[][] s = totals();
        int[] out = new int[s[0].length];
        for (int i = 0; i < out.length; i++)
            out[i] = (int) s[0][i];
        return out;
    }

    @Override
    public synchronized long[] getAllLevelSizeBytes()
    {
        return totals()[1];
    }

    /**
     * [counts per level, bytes per level] over all trees, misfits and frozen SSTables: Cassandra's per-level report
     * ({@code nodetool tablestats}) covers every live SSTable. LCS scoring never sees these totals (it runs inside
     * each role's tree, which holds no frozen SSTable).
     */
    private long[][] totals()
    {
        long[][] out = new long[][]{ new long[0], new long[0] };
        for (RoleLevels r : roleLevels().values())
        {
            out[0] = addInto(addInto(out[0], r.sstables), r.frozenSSTables);
            out[1] = addInto(addInto(out[1], r.bytes), r.frozenBytes);
        }
        return out;
    }

    private static long[] addInto(long[] acc, long[] more)
    {
        long[] out = acc.length >= more.length ? acc : java.util.Arrays.copyOf(acc, more.length);
        for (int i = 0; i < more.length; i++)
            out[i] += more[i];
        return out;
    }

    /**
     * SSTable count and live bytes on disk per level of one role's tree (or of the misfits), and separately of the
     * frozen SSTables whose range lies in that role (or spans roles, under {@link #MISFIT}). Arrays are indexed by
     * level and may be shorter than the number of levels (missing = 0).
     */
    public static final class RoleLevels
    {
        /** In the role's tree (or misfits): what LCS compacts. */
        public final long[] sstables;
        public final long[] bytes;
        /** Frozen, never compacted; not in {@link #sstables}. */
        public final long[] frozenSSTables;
        public final long[] frozenBytes;

        RoleLevels(long[] sstables, long[] bytes)
        {
            this(sstables, bytes, new long[0], new long[0]);
        }

        RoleLevels(long[] sstables, long[] bytes, long[] frozenSSTables, long[] frozenBytes)
        {
            this.sstables = sstables;
            this.bytes = bytes;
            this.frozenSSTables = frozenSSTables;
            this.frozenBytes = frozenBytes;
        }

        public long frozenCount()
        {
            return java.util.Arrays.stream(frozenSSTables).sum();
        }

        public long frozenByteCount()
        {
            return java.util.Arrays.stream(frozenBytes).sum();
        }
    }

    /**
     * Per role (and {@link #MISFIT}) the SSTable count and bytes per level, tree and frozen separately; a snapshot.
     * A role that holds only frozen SSTables has an entry with empty tree arrays.
     */
    public synchronized Map<Integer, RoleLevels> roleLevels()
    {
        Map<Integer, RoleLevels> out = new TreeMap<>();
        for (Map.Entry<Integer, LeveledCompactionStrategy> e : trees.entrySet())
        {
            int[] counts = e.getValue().getAllLevelSize();
            long[] c = new long[counts.length];
            for (int i = 0; i < counts.length; i++)
                c[i] = counts[i];
            out.put(e.getKey(), new RoleLevels(c, e.getValue().getAllLevelSizeBytes().clone()));
        }
        if (!misfits.isEmpty())
        {
            long[] c = new long[1];
            long[] b = new long[1];
            for (SSTableReader m : misfits)
            {
                int l = m.getSSTableLevel();
                c = addInto(c, levelVector(l, 1));
                b = addInto(b, levelVector(l, m.onDiskLength()));
            }
            out.put(MISFIT, new RoleLevels(c, b));
        }
        if (!frozen.isEmpty())
        {
            if (roles == null)
                currentRoles();
            Map<Integer, long[][]> byRole = new TreeMap<>();
            for (SSTableReader f : frozen)
            {
                long[][] acc = byRole.computeIfAbsent(roleOf(f), k -> new long[][]{ new long[0], new long[0] });
                int l = f.getSSTableLevel();
                acc[0] = addInto(acc[0], levelVector(l, 1));
                acc[1] = addInto(acc[1], levelVector(l, f.onDiskLength()));
            }
            for (Map.Entry<Integer, long[][]> e : byRole.entrySet())
            {
                RoleLevels tree = out.get(e.getKey());
                out.put(e.getKey(), new RoleLevels(tree == null ? new long[0] : tree.sstables,
                                                   tree == null ? new long[0] : tree.bytes,
                                                   e.getValue()[0], e.getValue()[1]));
            }
        }
        return out;
    }

    /** Number of frozen SSTables held by this instance. */
    public synchronized int frozenCount()
    {
        return frozen.size();
    }

    /** {@code onDiskLength()} summed over the frozen SSTables held by this instance. */
    public synchronized long frozenBytes()
    {
        long n = 0;
        for (SSTableReader f : frozen)
            n += f.onDiskLength();
        return n;
    }

    private static long[] levelVector(int level, long value)
    {
        long[] v = new long[level + 1];
        v[level] = value;
        return v;
    }

    /** A snapshot of every SSTable of this instance and its placement (a role, {@link #MISFIT} or {@link #FROZEN}). */
    public synchronized Map<SSTableReader, Integer> placements()
    {
        return new HashMap<>(placement);
    }

    /** Number of SSTables awaiting a re-split (spanning two roles). */
    public synchronized int misfitCount()
    {
        return misfits.size();
    }

    // ---- flush and streaming output ----------------------------------------------------------------------------

    @Override
    public SSTableMultiWriter createSSTableMultiWriter(Descriptor descriptor,
                                                       long keyCount,
                                                       long repairedAt,
                                                       TimeUUID pendingRepair,
                                                       boolean isTransient,
                                                       IntervalSet<CommitLogPosition> commitLogPositions,
                                                       int sstableLevel,
                                                       SerializationHeader header,
                                                       Collection<Index.Group> indexGroups,
                                                       LifecycleNewTracker lifecycleNewTracker)
    {
        return new RoleSplittingMultiWriter(cfs, descriptor, keyCount, repairedAt, pendingRepair, isTransient,
                                            commitLogPositions, sstableLevel, header, indexGroups,
                                            lifecycleNewTracker, currentRoles());
    }

    @Override
    public String toString()
    {
        return String.format("ElectCS@%d(%s.%s)", hashCode(), cfs.getKeyspaceName(), cfs.name);
    }
}
