package io.elect.core.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;
import java.util.function.LongPredicate;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.elect.core.node.LocalTables;
import io.elect.core.sim.SimRows.Row;
import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.tiered.TieredRuntime;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.core.util.Clock;

/**
 * An in-memory storage engine for one simulated node and one ELECT table, implementing {@link LocalTables} the way
 * the Cassandra adapter does, with real files for everything other nodes read (data components are stripe members,
 * index components are copied into stubs): a memtable (durable: it stands for the commit log), flushes split by
 * role into level-0 files, a leveled compaction per role into level-1 files of at most {@code rowsPerFile} rows,
 * frozen files (encoded primaries), COLD and DECODED (stub) files read through the node's real tiered sources, and
 * the purge of row versions that a shadow holds an equal or newer version of. Reads merge the memtable and every
 * file covering the key, newest version first (Cassandra's reconciliation).
 *
 * <p>The file set lives in this object (its {@link SimFileSet}), which survives a simulated process kill (it is the
 * node's disk); a lost disk is a new instance over an empty directory. The scans and the purge are in
 * {@link SimScans}, the COLD, stub and restored files in {@link SimTieredFiles}. Not thread-safe: the simulation is
 * single-threaded.
 */
final class SimTables implements LocalTables
{
    /** What the cluster gives a node for a rebuild's streaming: every row version its replicas hold of its ranges. */
    @FunctionalInterface
    interface Streamer
    {
        List<Row> rowsFor(String node);
    }

    static final String INDEX = "Index.db";
    static final String STATS = "Statistics.db";

    private final String node;
    private final Path dir;
    private final TableRef table;
    private final int rf;
    private final Streamer streamer;
    private final TreeMap<String, Row> memtable = new TreeMap<>();
    private final SimFileSet set;
    private final SimScans scans;
    private final SimTieredFiles tiered;
    private boolean compactionPaused;

    /**
     * @param roleOf    the role of this node for a token (0 primary, i the i-th secondary; -1: not a replica)
     * @param runtime   the node's CURRENT tiered runtime (a restarted node has a new one)
     */
    SimTables(String node, int incarnation, Path dir, TableRef table, int rf, int rowsPerFile, Clock clock, LongFunction<Integer> roleOf,
              Streamer streamer, Sabotage sabotage, Supplier<TieredRuntime> runtime) throws IOException
    {
        this.node = node;
        this.dir = dir;
        this.table = table;
        this.rf = rf;
        this.streamer = streamer;
        this.set = new SimFileSet(node, incarnation, dir, table, rowsPerFile, clock, roleOf, runtime);
        this.scans = new SimScans(set, clock, sabotage);
        this.tiered = new SimTieredFiles(set, clock);
        Files.createDirectories(dir);
    }

    /** A restarted process reads tiered data through its new runtime. */
    void processRestarted()
    {
        set.processRestarted();
    }

    // ------------------------------------------------------------------ the simulation's engine operations

    void write(Row r)
    {
        Row old = memtable.get(r.key());
        if (old == null || r.supersedes(old))
            memtable.put(r.key(), r);
    }

    /** The newest version of key on this node (memtable and every file covering it), or null. */
    Row read(String key) throws IOException
    {
        long token = SimRows.token(key);
        Row best = memtable.get(key);
        for (SimFile f : set.files.values())
        {
            if (!f.covers(token))
                continue;
            Row r = set.rowOf(f, key, token);
            if (r != null)
            {
                f.reads++;
                if (best == null || r.supersedes(best))
                    best = r;
            }
        }
        return best;
    }

    /** Flushes the memtable: one level-0 file per role (at most rowsPerFile rows each). */
    void flush() throws IOException
    {
        if (memtable.isEmpty())
            return;
        List<Row> rows = new ArrayList<>(memtable.values());
        memtable.clear();
        set.addByRole(rows, 0);
    }

    /**
     * Leveled compaction per role, as LCS does it between level 0 and level 1: the unfrozen level-0 files of a role
     * are merged with the unfrozen level-1 files they overlap into new level-1 files; level-1 files that no level-0
     * file overlaps stay as they are. No-op while paused.
     */
    void compact() throws IOException
    {
        if (compactionPaused)
            return;
        // misfits first, as ElectCompactionStrategy re-splits them: an unfrozen file whose rows span roles (a stub's
        // materialized copy or a kept member after a ring change; simulation seed 670 kept one for good, its rows never
        // a candidate) is re-split by role into level 0
        for (SimFile f : new ArrayList<>(set.files.values()))
            if (!f.frozen() && f.role == null && f.source == Source.LOCAL)
            {
                List<Row> rows = set.rows(f);
                set.remove(f);
                set.addByRole(rows, 0);
            }
        Map<Integer, List<SimFile>> l0 = new TreeMap<>();
        for (SimFile f : set.files.values())
            if (!f.frozen() && f.role != null && f.level == 0)
                l0.computeIfAbsent(f.role, x -> new ArrayList<>()).add(f);
        for (Map.Entry<Integer, List<SimFile>> e : l0.entrySet())
        {
            List<SimFile> in = new ArrayList<>(e.getValue());
            for (SimFile f : set.files.values())
                if (!f.frozen() && f.level == 1 && e.getKey().equals(f.role) && in.stream().anyMatch(f::overlaps))
                    in.add(f);
            List<Row> all = new ArrayList<>();
            for (SimFile f : in)
                all.addAll(set.rows(f));
            for (SimFile f : in)
                set.remove(f);
            set.writeSplit(SimRows.merge(all), 1, e.getKey());
        }
    }

    /** The ids of the live files (for detecting a settled cluster). */
    List<String> fileIds()
    {
        return new ArrayList<>(set.files.keySet());
    }

    /** Every row version held on this node's memtable and LOCAL files whose token {@code keep} accepts (a stream). */
    List<Row> rowsForStreaming(LongPredicate keep) throws IOException
    {
        List<Row> out = new ArrayList<>();
        for (Row r : memtable.values())
            if (keep.test(r.token()))
                out.add(r);
        for (SimFile f : set.files.values())
            if (f.source == Source.LOCAL)
                for (Row r : set.rows(f))
                    if (keep.test(r.token()))
                        out.add(r);
        return out;
    }

    /** Rows another node streamed here (a ring change): one level-0 file per role, as Cassandra adds a streamed SSTable. */
    void receiveStream(List<Row> rows) throws IOException
    {
        if (!rows.isEmpty())
            set.addByRole(rows, 0);
    }

    /**
     * The decoupled trees after a ring change (docs/design/decoupled-trees.md, "Topology change"): every unfrozen
     * LOCAL file holding a row of a role other than its own is re-split by role. The pieces go to level 0, as LCS
     * demotes a re-split piece that overlaps its new level; compaction then merges them in. Frozen files (members,
     * stubs, offloaded files) are never rewritten. Returns the files re-split.
     */
    int reclassify() throws IOException
    {
        int misfits = 0;
        for (SimFile f : new ArrayList<>(set.files.values()))
        {
            if (f.frozen())
                continue;
            List<Row> rows = set.rows(f);
            boolean misfit = false;
            for (Row r : rows)
            {
                int role = set.roleOf(r.token());
                misfit |= !java.util.Objects.equals(role < 0 ? null : role, f.role);
            }
            if (!misfit)
                continue;
            set.remove(f);
            set.addByRole(rows, 0);
            misfits++;
        }
        return misfits;
    }

    /** The node's bytes of every kind, for the simulation's own accounting. */
    long hotBytes()
    {
        long b = 0;
        for (SimFile f : set.files.values())
            b += f.bytesOnDisk();
        return b;
    }

    int fileCount()
    {
        return set.files.size();
    }

    /**
     * For the simulation's events (not the system under test): the keys of each encoded member held here (frozen,
     * not a stub), by stripe tag, in file order.
     */
    Map<String, List<String>> memberKeys()
    {
        Map<String, List<String>> out = new java.util.TreeMap<>();
        for (SimFile f : set.files.values())
            if (f.frozenTag != null && f.source != Source.DECODED)
                out.computeIfAbsent(f.frozenTag, x -> new ArrayList<>()).addAll(List.of(f.index.keys()));
        return out;
    }

    // ------------------------------------------------------------------ LocalTables

    @Override
    public List<TableRef> electTables()
    {
        return List.of(table);
    }

    @Override
    public boolean exists(TableRef t)
    {
        return table.equals(t);
    }

    @Override
    public boolean keyspaceExists(String keyspace)
    {
        return table.keyspace().equals(keyspace);
    }

    @Override
    public List<String> keyspaces()
    {
        return List.of(table.keyspace());
    }

    @Override
    public int replicationFactor(TableRef t)
    {
        return rf;
    }

    @Override
    public int levels()
    {
        return 2;
    }

    @Override
    public List<TableFile> files(TableRef t)
    {
        set.check(t);
        List<TableFile> out = new ArrayList<>();
        for (SimFile f : set.files.values())
            out.add(new TableFile(f.id, f.source, f.level, f.role, f.bytesOnDisk(), f.dataBytes, f.createdMillis, f.reads,
                                  f.frozenTag, f.data, f.sidecar,
                                  f.index.size() == 0 ? "0" : Long.toString(f.index.firstToken()),
                                  f.index.size() == 0 ? "0" : Long.toString(f.index.lastToken())));
        return out;
    }

    /** ObsoleteScan's rule: see {@link SimScans#obsoleteBytes}. */
    @Override
    public Map<String, Long> obsoleteBytes(TableRef t) throws IOException
    {
        return scans.obsoleteBytes(t);
    }

    @Override
    public List<ComponentFile> components(TableRef t, String id) throws IOException
    {
        SimFile f = set.live(t, id);
        List<ComponentFile> out = new ArrayList<>();
        for (Map.Entry<String, Path> e : f.components.entrySet())
            out.add(new ComponentFile(e.getKey(), e.getValue(), Files.size(e.getValue())));
        return out;
    }

    @Override
    public void freeze(TableRef t, String id, String tag)
    {
        SimFile f = set.live(t, id);
        if (tag.equals(f.frozenTag))
            return;
        if (f.frozenTag != null)
            throw new IllegalStateException(node + "/" + id + " is frozen with tag '" + f.frozenTag + "', cannot freeze it with tag '" + tag + "'");
        f.frozenTag = tag;
    }

    @Override
    public void unfreeze(TableRef t, String id, String tag)
    {
        set.check(t);
        SimFile f = set.files.get(id);
        if (f == null || f.frozenTag == null)
            return;
        if (!f.frozenTag.equals(tag))
            throw new IllegalStateException(node + "/" + id + " is frozen with tag '" + f.frozenTag + "', not '" + tag + "': not unfreezing");
        f.frozenTag = null;
    }

    @Override
    public String toCold(TableRef t, String id, String coldStore, BeforeSwap beforeSwap) throws IOException
    {
        return tiered.toCold(t, id, coldStore, beforeSwap);
    }

    @Override
    public String rehydrate(TableRef t, String id, BeforeLive beforeLive) throws IOException
    {
        return tiered.rehydrate(t, id, beforeLive);
    }

    @Override
    public String installStub(TableRef t, Map<String, Path> components, StripeLayout layout, int self, ChunkChecksums checksums,
                              String tag) throws IOException
    {
        return tiered.installStub(t, components, layout, self, checksums, tag);
    }

    @Override
    public void retire(TableRef t, String id, String tag) throws IOException
    {
        set.check(t);
        SimFile f = set.files.get(id);
        if (f == null)
            return;
        if (!tag.equals(f.frozenTag))
            throw new IllegalStateException(node + "/" + id + " is frozen under " + f.frozenTag + ", not " + tag + ": not retired");
        if (f.source == Source.DECODED)
            throw new IllegalStateException(node + "/" + id + " is a stub, not a member");
        set.remove(f);
    }

    /**
     * The bridge's rule at row granularity (a sim row is one version of one key): the member's rows whose key a
     * frozen file of another replicated stripe holds, all of whose data is strictly newer, are dropped.
     */
    @Override
    public Merged mergeMember(TableRef t, String id, String tag, Predicate<String> replicated, double minShare) throws IOException
    {
        SimFile f = set.live(t, id);
        if (f.source == Source.DECODED || !tag.equals(f.frozenTag))
            throw new IllegalStateException(node + "/" + id + " is not a member (LOCAL or COLD) frozen under " + tag);
        long maxTs = f.stat("max_ts=", Long.MAX_VALUE);
        List<SimFile> shadows = new ArrayList<>();
        for (SimFile g : set.files.values())
            if (g != f && g.frozenTag != null && !tag.equals(g.frozenTag) && replicated.test(g.frozenTag) && g.overlaps(f)
                && g.stat("min_ts=", Long.MIN_VALUE) > maxTs)
                shadows.add(g);
        List<Row> kept = new ArrayList<>();
        for (Row r : set.rows(f))
            if (shadows.stream().noneMatch(g -> g.covers(r.token()) && g.index.find(r.key(), r.token()) >= 0))
                kept.add(r);
        if (kept.isEmpty() || kept.size() == f.index.size())
            return null; // nothing to free, or everything: a removal's case
        SimFile next = set.writeLocal(kept, f.level, f.role == null ? -1 : f.role);
        if (next.dataBytes > (1 - minShare) * f.dataBytes)
        {
            set.remove(next);
            return null;
        }
        next.frozenTag = tag;
        return new Merged(next.id, next.dataBytes, f.dataBytes);
    }

    /** ShadowScan's rule: see {@link SimScans#shadowedFiles}. */
    @Override
    public Map<String, Map<Integer, Boolean>> shadowedFiles(TableRef t, boolean scan) throws IOException
    {
        return scans.shadowedFiles(t, scan);
    }

    @Override
    public long materializeStub(TableRef t, String id) throws IOException
    {
        SimFile f = set.files.get(id);
        if (f == null)
            return 0;
        if (f.source != Source.DECODED)
            throw new IllegalArgumentException(node + "/" + id + " is not a stub");
        // The copy's role is what its rows' tokens have under the CURRENT ring (ElectCompactionStrategy classifies a
        // new SSTable by its range), not the stub's: a stub installed before a ring change may hold rows whose role
        // changed (late-decommission seeds 28, 31 kept such copies as secondaries whose primary copy was gone, so
        // nothing ever encoded them). One role for every row, or none (a misfit, re-split by compaction).
        List<Row> rows = set.rows(f);
        int role = rows.isEmpty() ? -1 : set.roleOf(rows.get(0).token());
        for (Row r : rows)
            if (set.roleOf(r.token()) != role)
                role = -1;
        SimFile copy = set.writeLocal(rows, f.level, role);
        set.remove(f);
        return copy.dataBytes;
    }

    @Override
    public void removeStub(TableRef t, String id) throws IOException
    {
        tiered.removeStub(t, id);
    }

    @Override
    public void relayoutStub(TableRef t, String id, StripeLayout next) throws IOException
    {
        tiered.relayoutStub(t, id, next);
    }

    @Override
    public String installRestored(TableRef t, Map<String, Path> components, String version, Path data, String tag, BeforeLive beforeLive)
    throws IOException
    {
        return tiered.installRestored(t, components, version, data, tag, beforeLive);
    }

    @Override
    public PurgeResult purge(TableRef t, List<String> shadows, Predicate<String> eligible) throws IOException
    {
        return scans.purge(t, shadows, eligible);
    }

    @Override
    public String coldKeyPrefix(TableRef t)
    {
        return tiered.coldKeyPrefix(t);
    }

    @Override
    public java.util.Set<String> referencedColdKeys(TableRef t)
    {
        return tiered.referencedColdKeys(t);
    }

    @Override
    public List<Path> dataRoots()
    {
        return List.of(dir.toAbsolutePath());
    }

    @Override
    public AutoCloseable pauseCompaction(List<TableRef> tables)
    {
        boolean was = compactionPaused;
        compactionPaused = true;
        return () -> compactionPaused = was;
    }

    @Override
    public void streamKeyspace(String keyspace, boolean electTables) throws IOException
    {
        if (!table.keyspace().equals(keyspace))
            return;
        List<Row> rows = streamer.rowsFor(node);
        if (!rows.isEmpty())
            set.addByRole(rows, 0);
    }
}
