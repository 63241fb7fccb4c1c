package io.elect.core.sim;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
import io.elect.core.tiered.ByteRangeSource;
import io.elect.core.tiered.TieredRuntime;
import io.elect.core.tiered.TieredSidecar;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.core.util.Clock;
import io.elect.offload.ColdStore;

/**
 * An in-memory storage engine for one simulated node and one ELECT table, implementing {@link LocalTables} the way
 * the Cassandra adapter does, with real files for everything other nodes read (data components are stripe members,
 * index components are copied into stubs): a memtable (durable: it stands for the commit log), flushes split by
 * role into level-0 files, a leveled compaction per role into level-1 files of at most {@code rowsPerFile} rows,
 * frozen files (encoded primaries), COLD and DECODED (stub) files read through the node's real tiered sources, and
 * the purge of row versions that a shadow holds an equal or newer version of. Reads merge the memtable and every
 * file covering the key, newest version first (Cassandra's reconciliation).
 *
 * <p>The file set lives in this object, which survives a simulated process kill (it is the node's disk); a lost disk
 * is a new instance over an empty directory. Not thread-safe: the simulation is single-threaded.
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
    private static final String VERSION = "sa";

    private final String node;
    private final Path dir;
    private final TableRef table;
    private final int rf;
    private final int rowsPerFile;
    private final Clock clock;
    private final LongFunction<Integer> roleOf;
    private final Streamer streamer;
    private final Sabotage sabotage;
    private Supplier<TieredRuntime> runtime;
    private final TreeMap<String, Row> memtable = new TreeMap<>();
    private final Map<String, SimFile> files = new LinkedHashMap<>();
    private final Map<String, ByteRangeSource> sources = new HashMap<>();
    /** File ids are {@code <incarnation>x<generation>}: a node that lost its disk never reuses an id (as ELECT
     * requires of Cassandra: uuid_sstable_identifiers_enabled), since stripe records name members by file. */
    private final int incarnation;
    private int nextGen = 1;
    private boolean compactionPaused;

    /** One live file: its data component, components, and what the engine knows of it. */
    private static final class SimFile
    {
        final String id;
        final Source source;
        final int level;
        final Integer role;
        final Path data;
        final Map<String, Path> components;
        final SimRows.Index index;
        final long createdMillis;
        final long dataBytes;
        /** Replaced by a relayout (a member change of its stripe). */
        TieredSidecar sidecar;
        String frozenTag;
        long reads;

        SimFile(String id, Source source, int level, Integer role, Path data, Map<String, Path> components, SimRows.Index index,
                long createdMillis, long dataBytes, TieredSidecar sidecar, String frozenTag)
        {
            this.id = id;
            this.source = source;
            this.level = level;
            this.role = role;
            this.data = data;
            this.components = components;
            this.index = index;
            this.createdMillis = createdMillis;
            this.dataBytes = dataBytes;
            this.sidecar = sidecar;
            this.frozenTag = frozenTag;
        }

        boolean frozen()
        {
            return source != Source.LOCAL || frozenTag != null;
        }

        boolean covers(long token)
        {
            return index.size() > 0 && token >= index.firstToken() && token <= index.lastToken();
        }

        boolean overlaps(SimFile o)
        {
            return index.size() > 0 && o.index.size() > 0 && index.firstToken() <= o.index.lastToken()
                   && o.index.firstToken() <= index.lastToken();
        }
    }

    /**
     * @param roleOf    the role of this node for a token (0 primary, i the i-th secondary; -1: not a replica)
     * @param runtime   the node's CURRENT tiered runtime (a restarted node has a new one)
     */
    SimTables(String node, int incarnation, Path dir, TableRef table, int rf, int rowsPerFile, Clock clock, LongFunction<Integer> roleOf,
              Streamer streamer, Sabotage sabotage, Supplier<TieredRuntime> runtime) throws IOException
    {
        this.node = node;
        this.incarnation = incarnation;
        this.dir = dir;
        this.table = table;
        this.rf = rf;
        this.rowsPerFile = rowsPerFile;
        this.clock = clock;
        this.roleOf = roleOf;
        this.streamer = streamer;
        this.sabotage = sabotage;
        this.runtime = runtime;
        Files.createDirectories(dir);
    }

    /** A restarted process reads tiered data through its new runtime. */
    void processRestarted()
    {
        sources.clear();
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
        for (SimFile f : files.values())
        {
            if (!f.covers(token))
                continue;
            Row r = rowOf(f, key, token);
            if (r != null)
            {
                f.reads++;
                if (best == null || r.supersedes(best))
                    best = r;
            }
        }
        return best;
    }

    private Row rowOf(SimFile f, String key, long token) throws IOException
    {
        int i = f.index.find(key, token);
        if (i < 0)
            return null;
        ByteBuffer b = ByteBuffer.allocate(f.index.lengths()[i]);
        source(f).read(f.index.offsets()[i], b);
        b.flip();
        return SimRows.decodeRow(b, token);
    }

    private ByteRangeSource source(SimFile f) throws IOException
    {
        if (f.source == Source.LOCAL)
            return new LocalSource(f.data);
        ByteRangeSource s = sources.get(f.id);
        if (s == null)
        {
            s = runtime.get().openSource(f.sidecar, node + "/" + f.id);
            sources.put(f.id, s);
        }
        return s;
    }

    /** Every row of a file, in order. */
    private List<Row> rows(SimFile f) throws IOException
    {
        List<Row> out = new ArrayList<>(f.index.size());
        for (int i = 0; i < f.index.size(); i++)
            out.add(rowOf(f, f.index.keys()[i], f.index.tokens()[i]));
        return out;
    }

    /** Flushes the memtable: one level-0 file per role (at most rowsPerFile rows each). */
    void flush() throws IOException
    {
        if (memtable.isEmpty())
            return;
        List<Row> rows = new ArrayList<>(memtable.values());
        memtable.clear();
        addByRole(rows, 0);
    }

    private void addByRole(List<Row> rows, int level) throws IOException
    {
        Map<Integer, List<Row>> byRole = new TreeMap<>();
        for (Row r : rows)
            byRole.computeIfAbsent(roleOf.apply(r.token()), x -> new ArrayList<>()).add(r);
        for (Map.Entry<Integer, List<Row>> e : byRole.entrySet())
        {
            List<Row> merged = SimRows.merge(e.getValue());
            for (int from = 0; from < merged.size(); from += rowsPerFile)
                writeLocal(merged.subList(from, Math.min(merged.size(), from + rowsPerFile)), level, e.getKey());
        }
    }

    private SimFile writeLocal(List<Row> sorted, int level, int role) throws IOException
    {
        String gen = incarnation + "x" + nextGen++;
        SimRows.Encoded enc = SimRows.encode(sorted);
        Path data = path(gen, "Data.db");
        Files.write(data, enc.data());
        long minTs = Long.MAX_VALUE, maxTs = Long.MIN_VALUE;
        for (Row r : sorted)
        {
            minTs = Math.min(minTs, r.ts());
            maxTs = Math.max(maxTs, r.ts());
        }
        Map<String, Path> comps = writeComponents(gen, enc.index(), minTs, maxTs);
        SimFile f = new SimFile(gen, Source.LOCAL, level, role < 0 ? null : role, data, comps, enc.index(),
                                clock.millis(), enc.data().length, null, null);
        files.put(f.id, f);
        return f;
    }

    private Map<String, Path> writeComponents(String gen, SimRows.Index idx, long minTs, long maxTs) throws IOException
    {
        Map<String, Path> comps = new LinkedHashMap<>();
        comps.put(INDEX, Files.write(path(gen, INDEX), SimRows.encodeIndex(idx)));
        String stats = "rows=" + idx.size() + "\nfirst_token=" + (idx.size() == 0 ? "" : idx.firstToken())
                       + "\nlast_token=" + (idx.size() == 0 ? "" : idx.lastToken()) + "\nmin_ts=" + minTs + "\nmax_ts=" + maxTs + "\n";
        comps.put(STATS, Files.writeString(path(gen, STATS), stats, StandardCharsets.US_ASCII));
        return comps;
    }

    private Path path(String gen, String component)
    {
        return dir.resolve(VERSION + "-" + gen + "-sim-" + component).toAbsolutePath();
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
        Map<Integer, List<SimFile>> l0 = new TreeMap<>();
        for (SimFile f : files.values())
            if (!f.frozen() && f.role != null && f.level == 0)
                l0.computeIfAbsent(f.role, x -> new ArrayList<>()).add(f);
        for (Map.Entry<Integer, List<SimFile>> e : l0.entrySet())
        {
            List<SimFile> in = new ArrayList<>(e.getValue());
            for (SimFile f : files.values())
                if (!f.frozen() && f.level == 1 && e.getKey().equals(f.role) && in.stream().anyMatch(f::overlaps))
                    in.add(f);
            List<Row> all = new ArrayList<>();
            for (SimFile f : in)
                all.addAll(rows(f));
            for (SimFile f : in)
                remove(f);
            List<Row> merged = SimRows.merge(all);
            for (int from = 0; from < merged.size(); from += rowsPerFile)
                writeLocal(merged.subList(from, Math.min(merged.size(), from + rowsPerFile)), 1, e.getKey());
        }
    }

    /** The ids of the live files (for detecting a settled cluster). */
    List<String> fileIds()
    {
        return new ArrayList<>(files.keySet());
    }

    private void remove(SimFile f) throws IOException
    {
        files.remove(f.id);
        sources.remove(f.id);
        Files.deleteIfExists(f.data);
        for (Path p : f.components.values())
            Files.deleteIfExists(p);
    }

    /** Every row version held on this node's memtable and LOCAL files whose token {@code keep} accepts (a stream). */
    List<Row> rowsForStreaming(LongPredicate keep) throws IOException
    {
        List<Row> out = new ArrayList<>();
        for (Row r : memtable.values())
            if (keep.test(r.token()))
                out.add(r);
        for (SimFile f : files.values())
            if (f.source == Source.LOCAL)
                for (Row r : rows(f))
                    if (keep.test(r.token()))
                        out.add(r);
        return out;
    }

    /** The node's bytes of every kind, for the simulation's own accounting. */
    long hotBytes()
    {
        long b = 0;
        for (SimFile f : files.values())
            b += bytesOnDisk(f);
        return b;
    }

    private static long bytesOnDisk(SimFile f)
    {
        long b = f.source == Source.LOCAL ? f.dataBytes : 0;
        for (Path p : f.components.values())
            b += p.toFile().length();
        return b;
    }

    int fileCount()
    {
        return files.size();
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

    private void check(TableRef t)
    {
        if (!table.equals(t))
            throw new IllegalArgumentException("table " + t + " does not exist on " + node);
    }

    private SimFile live(TableRef t, String id)
    {
        check(t);
        SimFile f = files.get(id);
        if (f == null)
            throw new IllegalStateException("sstable " + id + " of " + t + " is not live on " + node);
        return f;
    }

    @Override
    public List<TableFile> files(TableRef t)
    {
        check(t);
        List<TableFile> out = new ArrayList<>();
        for (SimFile f : files.values())
            out.add(new TableFile(f.id, f.source, f.level, f.role, bytesOnDisk(f), f.dataBytes, f.createdMillis, f.reads,
                                  f.frozenTag, f.data, f.sidecar,
                                  f.index.size() == 0 ? "0" : Long.toString(f.index.firstToken()),
                                  f.index.size() == 0 ? "0" : Long.toString(f.index.lastToken())));
        return out;
    }

    /**
     * As Cassandra's adapter does (ObsoleteScan): a row of a frozen file F is obsolete when another live file G holds
     * the key with a timestamp above F's greatest (from the statistics components, which stubs and restored members
     * copy; a file without them counts nothing): certain when G's smallest timestamp is above it, otherwise read from
     * G when G's data is local.
     */
    @Override
    public Map<String, Long> obsoleteBytes(TableRef t) throws IOException
    {
        check(t);
        Map<String, Long> out = new HashMap<>();
        for (SimFile f : files.values())
        {
            if (!f.frozen() || f.index.size() == 0)
                continue;
            long maxTs = stat(f, "max_ts=", Long.MAX_VALUE);
            long obsolete = 0;
            for (int i = 0; i < f.index.size(); i++)
            {
                String key = f.index.keys()[i];
                long token = f.index.tokens()[i];
                for (SimFile g : files.values())
                {
                    if (g == f || !g.covers(token) || g.index.find(key, token) < 0)
                        continue;
                    boolean newer;
                    if (stat(g, "min_ts=", Long.MIN_VALUE) > maxTs)
                        newer = true;
                    else if (g.source == Source.LOCAL)
                        newer = rowOf(g, key, token).ts() > maxTs;
                    else
                        newer = false; // g's data is remote or cold: not read
                    if (newer)
                    {
                        obsolete += f.index.lengths()[i];
                        break;
                    }
                }
            }
            if (obsolete > 0)
                out.put(f.id, obsolete);
        }
        return out;
    }

    /** A number of f's statistics component ({@code prefix} = "min_ts=" or "max_ts="), or {@code absent}. */
    private static long stat(SimFile f, String prefix, long absent) throws IOException
    {
        Path stats = f.components.get(STATS);
        if (stats == null)
            return absent;
        for (String line : Files.readAllLines(stats, StandardCharsets.US_ASCII))
            if (line.startsWith(prefix))
                return Long.parseLong(line.substring(prefix.length()));
        return absent;
    }

    @Override
    public List<ComponentFile> components(TableRef t, String id) throws IOException
    {
        SimFile f = live(t, id);
        List<ComponentFile> out = new ArrayList<>();
        for (Map.Entry<String, Path> e : f.components.entrySet())
            out.add(new ComponentFile(e.getKey(), e.getValue(), Files.size(e.getValue())));
        return out;
    }

    @Override
    public void freeze(TableRef t, String id, String tag)
    {
        SimFile f = live(t, id);
        if (tag.equals(f.frozenTag))
            return;
        if (f.frozenTag != null)
            throw new IllegalStateException(node + "/" + id + " is frozen with tag '" + f.frozenTag + "', cannot freeze it with tag '" + tag + "'");
        f.frozenTag = tag;
    }

    @Override
    public void unfreeze(TableRef t, String id, String tag)
    {
        check(t);
        SimFile f = files.get(id);
        if (f == null || f.frozenTag == null)
            return;
        if (!f.frozenTag.equals(tag))
            throw new IllegalStateException(node + "/" + id + " is frozen with tag '" + f.frozenTag + "', not '" + tag + "': not unfreezing");
        f.frozenTag = null;
    }

    @Override
    public String toCold(TableRef t, String id, String coldStore, BeforeSwap beforeSwap) throws IOException
    {
        SimFile f = live(t, id);
        if (f.source != Source.LOCAL)
            throw new IllegalArgumentException(node + "/" + id + " is already tiered");
        ColdStore store = runtime.get().store(coldStore)
                                 .orElseThrow(() -> new IllegalArgumentException("storeName '" + coldStore + "' is not a registered cold store"));
        String gen = incarnation + "x" + nextGen++;
        String key = coldKeyPrefix(t) + gen + "-Data.db";
        ChunkChecksums sums;
        try (FileChannel ch = FileChannel.open(f.data, StandardOpenOption.READ))
        {
            sums = ChunkChecksums.compute(ch, runtime.get().chunkSize());
        }
        store.put(key, f.data);
        try
        {
            beforeSwap.accept(f.data.toAbsolutePath().normalize(), coldStore, key);
        }
        catch (IOException | RuntimeException e)
        {
            store.delete(key);
            throw e;
        }
        Path placeholder = Files.write(path(gen, "Data.db"), new byte[0]);
        Map<String, Path> comps = copyComponents(f.components, gen);
        SimFile cold = new SimFile(gen, Source.COLD, f.level, f.role, placeholder, comps, f.index, f.createdMillis,
                                   f.dataBytes, TieredSidecar.cold(sums, coldStore, key, true), f.frozenTag);
        remove(f);
        files.put(cold.id, cold);
        return cold.id;
    }

    @Override
    public String rehydrate(TableRef t, String id, BeforeLive beforeLive) throws IOException
    {
        SimFile f = live(t, id);
        if (f.source != Source.COLD)
            throw new IllegalArgumentException(node + "/" + id + " is not COLD");
        String gen = incarnation + "x" + nextGen++;
        ByteBuffer all = ByteBuffer.allocate((int) f.dataBytes);
        source(f).read(0, all);
        Path data = Files.write(path(gen, "Data.db"), all.array());
        Map<String, Path> comps = copyComponents(f.components, gen);
        beforeLive.accept(gen, data);
        SimFile local = new SimFile(gen, Source.LOCAL, f.level, f.role, data, comps, f.index, f.createdMillis, f.dataBytes, null,
                                    f.frozenTag);
        remove(f);
        files.put(local.id, local);
        // the COLD file owned its object (as the adapter's format deletes it with the tiered SSTable)
        runtime.get().store(f.sidecar.coldStore()).orElseThrow().delete(f.sidecar.coldKey());
        return local.id;
    }

    private Map<String, Path> copyComponents(Map<String, Path> from, String gen) throws IOException
    {
        Map<String, Path> comps = new LinkedHashMap<>();
        for (Map.Entry<String, Path> e : from.entrySet())
            comps.put(e.getKey(), Files.copy(e.getValue(), path(gen, e.getKey()), StandardCopyOption.REPLACE_EXISTING));
        return comps;
    }

    @Override
    public String installStub(TableRef t, Map<String, Path> components, StripeLayout layout, int self, ChunkChecksums checksums,
                              String tag) throws IOException
    {
        check(t);
        if (checksums.length() != layout.memberLength(self))
            throw new IllegalArgumentException("dataChecksums cover " + checksums.length() + " bytes but member " + self + " has "
                                               + layout.memberLength(self));
        for (SimFile f : files.values())
            if (f.source == Source.DECODED && f.sidecar.self() == self && f.sidecar.stripe().equals(layout))
            {
                if (f.frozenTag == null)
                    f.frozenTag = tag;
                return f.id;
            }
        if (!components.containsKey(INDEX))
            throw new IllegalArgumentException("components must include " + INDEX + ", got " + components.keySet());
        String gen = incarnation + "x" + nextGen++;
        Map<String, Path> comps = copyComponents(components, gen);
        SimRows.Index idx = SimRows.decodeIndex(Files.readAllBytes(comps.get(INDEX)));
        Path placeholder = Files.write(path(gen, "Data.db"), new byte[0]);
        Integer role = idx.size() == 0 ? null : roleOf.apply(idx.firstToken());
        SimFile stub = new SimFile(gen, Source.DECODED, 1, role == null || role < 0 ? null : role, placeholder, comps, idx,
                                   clock.millis(), checksums.length(), TieredSidecar.decoded(checksums, layout, self), tag);
        files.put(stub.id, stub);
        return stub.id;
    }

    @Override
    public void retire(TableRef t, String id, String tag) throws IOException
    {
        check(t);
        SimFile f = files.get(id);
        if (f == null)
            return;
        if (!tag.equals(f.frozenTag))
            throw new IllegalStateException(node + "/" + id + " is frozen under " + f.frozenTag + ", not " + tag + ": not retired");
        if (f.source == Source.DECODED)
            throw new IllegalStateException(node + "/" + id + " is a stub, not a member");
        remove(f);
    }

    /**
     * As Cassandra's adapter does (ShadowScan), on the simulation's one-cell rows: a tagged file F is fully shadowed
     * when every key of it has, in an allowed shadow G, a version with a timestamp above F's greatest; allowed shadows
     * are unfrozen files (LOCAL: read) and frozen files of another stripe whose smallest timestamp is above F's
     * greatest (certain without reading). A file without statistics counts as not shadowed. Computed on every call
     * ({@code scan} is ignored): the simulation's files are small and its runs must not depend on maintenance timing.
     */
    @Override
    public Map<String, Map<Integer, Boolean>> shadowedFiles(TableRef t, boolean scan) throws IOException
    {
        check(t);
        Map<String, Map<Integer, Boolean>> out = new HashMap<>();
        for (SimFile f : files.values())
        {
            if (f.frozenTag == null)
                continue;
            long maxTs = stat(f, "max_ts=", Long.MAX_VALUE);
            boolean known = f.index.size() > 0 && maxTs != Long.MAX_VALUE;
            int shadowedKeys = 0;
            for (int i = 0; known && i < f.index.size(); i++)
            {
                String key = f.index.keys()[i];
                long token = f.index.tokens()[i];
                boolean shadowed = false;
                for (SimFile g : files.values())
                {
                    if (g == f || !g.covers(token) || g.index.find(key, token) < 0)
                        continue;
                    if (!g.frozen())
                        shadowed = rowOf(g, key, token).ts() > maxTs;
                    else
                        shadowed = !f.frozenTag.equals(g.frozenTag) && stat(g, "min_ts=", Long.MIN_VALUE) > maxTs;
                    if (shadowed)
                        break;
                }
                if (shadowed)
                    shadowedKeys++;
                else if (sabotage != Sabotage.RETIRE_HALF_SHADOWED)
                    break;
            }
            boolean all = known && (sabotage == Sabotage.RETIRE_HALF_SHADOWED ? 2 * shadowedKeys >= f.index.size()
                                                                             : shadowedKeys == f.index.size());
            out.computeIfAbsent(f.frozenTag, x -> new HashMap<>()).merge(f.source == Source.DECODED ? f.sidecar.self() : MEMBER_FILE, all,
                                                                          Boolean::logicalAnd);
        }
        return out;
    }

    @Override
    public void removeStub(TableRef t, String id) throws IOException
    {
        check(t);
        SimFile f = files.get(id);
        if (f == null)
            return;
        if (f.source != Source.DECODED)
            throw new IllegalArgumentException(node + "/" + id + " is not a stub");
        remove(f);
    }

    /**
     * For the simulation's events (not the system under test): the keys of each encoded member held here (frozen,
     * not a stub), by stripe tag, in file order.
     */
    Map<String, List<String>> memberKeys()
    {
        Map<String, List<String>> out = new java.util.TreeMap<>();
        for (SimFile f : files.values())
            if (f.frozenTag != null && f.source != Source.DECODED)
                out.computeIfAbsent(f.frozenTag, x -> new ArrayList<>()).addAll(List.of(f.index.keys()));
        return out;
    }

    @Override
    public void relayoutStub(TableRef t, String id, StripeLayout next) throws IOException
    {
        check(t);
        SimFile f = files.get(id);
        if (f == null || f.source != Source.DECODED)
            throw new IllegalArgumentException(node + "/" + id + " is not a live stub");
        TieredSidecar before = f.sidecar;
        if (!before.stripe().equals(next))
            f.sidecar = TieredSidecar.decoded(before.checksums(), next, before.self());
        runtime.get().relayout(before, next);
    }

    @Override
    public String installRestored(TableRef t, Map<String, Path> components, String version, Path data, String tag, BeforeLive beforeLive)
    throws IOException
    {
        check(t);
        String gen = incarnation + "x" + nextGen++;
        Path local = Files.copy(data, path(gen, "Data.db"), StandardCopyOption.REPLACE_EXISTING);
        Map<String, Path> comps = copyComponents(components, gen);
        SimRows.Index idx = SimRows.decodeIndex(Files.readAllBytes(comps.get(INDEX)));
        beforeLive.accept(gen, local);
        Integer role = idx.size() == 0 ? null : roleOf.apply(idx.firstToken());
        SimFile f = new SimFile(gen, Source.LOCAL, 1, role == null || role < 0 ? null : role, local, comps, idx,
                                clock.millis(), Files.size(local), null, tag);
        files.put(f.id, f);
        return f.id;
    }

    @Override
    public PurgeResult purge(TableRef t, List<String> shadows, Predicate<String> eligible) throws IOException
    {
        check(t);
        long start = clock.nanoTime();
        List<SimFile> shadowFiles = new ArrayList<>();
        for (String id : shadows)
            if (files.containsKey(id))
                shadowFiles.add(files.get(id));
        int examined = 0, rewritten = 0;
        long before = 0, after = 0;
        for (SimFile x : new ArrayList<>(files.values()))
        {
            if (x.frozen() || shadowFiles.contains(x) || !eligible.test(x.id))
                continue;
            List<SimFile> covering = new ArrayList<>();
            for (SimFile s : shadowFiles)
                if (x.overlaps(s))
                    covering.add(s);
            if (covering.isEmpty())
                continue;
            examined++;
            List<Row> kept = new ArrayList<>();
            boolean dropped = false;
            for (Row r : rows(x))
            {
                if (shadowed(r, covering))
                    dropped = true;
                else
                    kept.add(r);
            }
            if (!dropped)
                continue;
            rewritten++;
            before += bytesOnDisk(x);
            remove(x);
            if (!kept.isEmpty())
                after += bytesOnDisk(writeLocal(kept, x.level, x.role == null ? -1 : x.role));
        }
        return new PurgeResult(examined, rewritten, List.of(), before, after, clock.millisSince(start) );
    }

    /** Whether a shadow holds a version of r's key that wins over r or equals it (so r is redundant). */
    private boolean shadowed(Row r, List<SimFile> covering) throws IOException
    {
        for (SimFile s : covering)
        {
            if (!s.covers(r.token()))
                continue;
            Row v = rowOf(s, r.key(), r.token());
            if (v == null)
                continue;
            if (sabotage == Sabotage.PURGE_DROPS_NEWER || v.equals(r) || v.supersedes(r))
                return true;
        }
        return false;
    }

    @Override
    public String coldKeyPrefix(TableRef t)
    {
        return "tiered/" + t.keyspace() + "/" + t.table() + "/" + node + "/";
    }

    @Override
    public java.util.Set<String> referencedColdKeys(TableRef t)
    {
        check(t);
        java.util.Set<String> keys = new java.util.HashSet<>();
        for (SimFile f : files.values())
            if (f.source == Source.COLD)
                keys.add(f.sidecar.coldKey());
        return keys;
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
            addByRole(rows, 0);
    }

    /** Reads a LOCAL data component. */
    private record LocalSource(Path file) implements ByteRangeSource
    {
        @Override
        public long length()
        {
            return file.toFile().length();
        }

        @Override
        public void read(long position, ByteBuffer dst) throws IOException
        {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ))
            {
                long p = position;
                while (dst.hasRemaining())
                {
                    int n = ch.read(dst, p);
                    if (n < 0)
                        throw new IOException(file + " is shorter than expected");
                    p += n;
                }
            }
        }

        @Override
        public String describe()
        {
            return "local:" + file;
        }

        @Override
        public void close()
        {
        }
    }
}
