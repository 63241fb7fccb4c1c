package io.elect.core.sim;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;
import java.util.function.Supplier;

import io.elect.core.node.LocalTables.Source;
import io.elect.core.sim.SimRows.Row;
import io.elect.core.tiered.ByteRangeSource;
import io.elect.core.tiered.TieredRuntime;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.core.util.Clock;

/**
 * The file set of one {@link SimTables}: the live files by id (in creation order), the open tiered sources, the
 * generation counter, and the bookkeeping every operation on files shares: reading rows of a file, writing LOCAL
 * files by role with their components, copying components under a new generation, removing a file, and finding a
 * live file of the table.
 *
 * <p>Separate from {@link SimTables} so that the engine's operations ({@code SimTables}), the scans and the purge
 * ({@link SimScans}) and the tiered and stub files ({@link SimTieredFiles}) work on one shared state without each
 * holding the others. Like the engine, it survives a simulated process kill (it is the node's disk). Not
 * thread-safe: the simulation is single-threaded.
 */
final class SimFileSet
{
    private static final String VERSION = "sa";

    final String node;
    private final Path dir;
    private final TableRef table;
    private final int rowsPerFile;
    private final Clock clock;
    private final LongFunction<Integer> roleOf;
    /** The node's CURRENT tiered runtime (a restarted node has a new one). */
    final Supplier<TieredRuntime> runtime;
    final Map<String, SimFile> files = new LinkedHashMap<>();
    private final Map<String, ByteRangeSource> sources = new HashMap<>();
    /** File ids are {@code <incarnation>x<generation>}: a node that lost its disk never reuses an id (as ELECT
     * requires of Cassandra: uuid_sstable_identifiers_enabled), since stripe records name members by file. */
    private final int incarnation;
    private int nextGen = 1;

    SimFileSet(String node, int incarnation, Path dir, TableRef table, int rowsPerFile, Clock clock, LongFunction<Integer> roleOf,
               Supplier<TieredRuntime> runtime)
    {
        this.node = node;
        this.incarnation = incarnation;
        this.dir = dir;
        this.table = table;
        this.rowsPerFile = rowsPerFile;
        this.clock = clock;
        this.roleOf = roleOf;
        this.runtime = runtime;
    }

    /** A restarted process reads tiered data through its new runtime. */
    void processRestarted()
    {
        sources.clear();
    }

    /** A new file id (generation): never reused on this disk, nor by a later incarnation. */
    String nextGen()
    {
        return incarnation + "x" + nextGen++;
    }

    /** The role of this node for a token (0 primary, i the i-th secondary; -1: not a replica). */
    Integer roleOf(long token)
    {
        return roleOf.apply(token);
    }

    Row rowOf(SimFile f, String key, long token) throws IOException
    {
        int i = f.index.find(key, token);
        if (i < 0)
            return null;
        ByteBuffer b = ByteBuffer.allocate(f.index.lengths()[i]);
        source(f).read(f.index.offsets()[i], b);
        b.flip();
        return SimRows.decodeRow(b, token);
    }

    ByteRangeSource source(SimFile f) throws IOException
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
    List<Row> rows(SimFile f) throws IOException
    {
        List<Row> out = new ArrayList<>(f.index.size());
        for (int i = 0; i < f.index.size(); i++)
            out.add(rowOf(f, f.index.keys()[i], f.index.tokens()[i]));
        return out;
    }

    void addByRole(List<Row> rows, int level) throws IOException
    {
        Map<Integer, List<Row>> byRole = new TreeMap<>();
        for (Row r : rows)
            byRole.computeIfAbsent(roleOf.apply(r.token()), x -> new ArrayList<>()).add(r);
        for (Map.Entry<Integer, List<Row>> e : byRole.entrySet())
            writeSplit(SimRows.merge(e.getValue()), level, e.getKey());
    }

    /** Writes merged rows as LOCAL files of at most rowsPerFile rows each. */
    void writeSplit(List<Row> merged, int level, int role) throws IOException
    {
        for (int from = 0; from < merged.size(); from += rowsPerFile)
            writeLocal(merged.subList(from, Math.min(merged.size(), from + rowsPerFile)), level, role);
    }

    SimFile writeLocal(List<Row> sorted, int level, int role) throws IOException
    {
        String gen = nextGen();
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
        comps.put(SimTables.INDEX, Files.write(path(gen, SimTables.INDEX), SimRows.encodeIndex(idx)));
        String stats = "rows=" + idx.size() + "\nfirst_token=" + (idx.size() == 0 ? "" : idx.firstToken())
                       + "\nlast_token=" + (idx.size() == 0 ? "" : idx.lastToken()) + "\nmin_ts=" + minTs + "\nmax_ts=" + maxTs + "\n";
        comps.put(SimTables.STATS, Files.writeString(path(gen, SimTables.STATS), stats, StandardCharsets.US_ASCII));
        return comps;
    }

    Path path(String gen, String component)
    {
        return dir.resolve(VERSION + "-" + gen + "-sim-" + component).toAbsolutePath();
    }

    Map<String, Path> copyComponents(Map<String, Path> from, String gen) throws IOException
    {
        Map<String, Path> comps = new LinkedHashMap<>();
        for (Map.Entry<String, Path> e : from.entrySet())
            comps.put(e.getKey(), Files.copy(e.getValue(), path(gen, e.getKey()), StandardCopyOption.REPLACE_EXISTING));
        return comps;
    }

    void remove(SimFile f) throws IOException
    {
        files.remove(f.id);
        sources.remove(f.id);
        Files.deleteIfExists(f.data);
        for (Path p : f.components.values())
            Files.deleteIfExists(p);
    }

    void check(TableRef t)
    {
        if (!table.equals(t))
            throw new IllegalArgumentException("table " + t + " does not exist on " + node);
    }

    SimFile live(TableRef t, String id)
    {
        check(t);
        SimFile f = files.get(id);
        if (f == null)
            throw new IllegalStateException("sstable " + id + " of " + t + " is not live on " + node);
        return f;
    }
}
