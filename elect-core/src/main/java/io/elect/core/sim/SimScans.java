package io.elect.core.sim;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import io.elect.core.node.LocalTables;
import io.elect.core.node.LocalTables.PurgeResult;
import io.elect.core.node.LocalTables.Source;
import io.elect.core.sim.SimRows.Row;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.core.util.Clock;

/**
 * The answers of a {@link SimTables} that compare files with each other: the obsolete bytes of frozen files
 * (ObsoleteScan), whether tagged files are fully shadowed (ShadowScan), and the purge of row versions that a shadow
 * holds an equal or newer version of, with the sabotages that break the last two on purpose.
 *
 * <p>Separate from {@link SimTables} because these are the simulation's models of the adapter's scans, with their
 * own rules about which file may shadow which; they only read the shared {@link SimFileSet} (the purge also
 * rewrites through it) and hold no state of their own.
 */
final class SimScans
{
    private final SimFileSet set;
    private final Clock clock;
    private final Sabotage sabotage;

    SimScans(SimFileSet set, Clock clock, Sabotage sabotage)
    {
        this.set = set;
        this.clock = clock;
        this.sabotage = sabotage;
    }

    /**
     * As Cassandra's adapter does (ObsoleteScan): a row of a frozen file F is obsolete when another live file G holds
     * the key with a timestamp above F's greatest (from the statistics components, which stubs and restored members
     * copy; a file without them counts nothing): certain when G's smallest timestamp is above it, otherwise read from
     * G when G's data is local, and taken from G's greatest timestamp when it is not (a stub or offloaded file).
     */
    Map<String, Long> obsoleteBytes(TableRef t) throws IOException
    {
        set.check(t);
        Map<String, Long> out = new HashMap<>();
        for (SimFile f : set.files.values())
        {
            if (!f.frozen() || f.index.size() == 0)
                continue;
            long maxTs = f.stat("max_ts=", Long.MAX_VALUE);
            long obsolete = 0;
            for (int i = 0; i < f.index.size(); i++)
            {
                String key = f.index.keys()[i];
                long token = f.index.tokens()[i];
                for (SimFile g : set.files.values())
                {
                    if (g == f || !g.covers(token) || g.index.find(key, token) < 0)
                        continue;
                    boolean newer;
                    if (g.stat("min_ts=", Long.MIN_VALUE) > maxTs)
                        newer = true;
                    else if (g.source == Source.LOCAL)
                        newer = set.rowOf(g, key, token).ts() > maxTs;
                    else // g's data is remote or cold: not read; its statistics say it holds newer data
                        newer = g.stat("max_ts=", Long.MIN_VALUE) > maxTs;
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

    /**
     * As Cassandra's adapter does (ShadowScan), on the simulation's one-cell rows: a tagged file F is fully shadowed
     * when every key of it has, in an allowed shadow G, a version with a timestamp above F's greatest; allowed shadows
     * are unfrozen files (LOCAL: read) and frozen files of another stripe whose smallest timestamp is above F's
     * greatest (certain without reading). A file without statistics counts as not shadowed. Computed on every call
     * ({@code scan} is ignored): the simulation's files are small and its runs must not depend on maintenance timing.
     */
    Map<String, Map<Integer, Boolean>> shadowedFiles(TableRef t, boolean scan) throws IOException
    {
        set.check(t);
        Map<String, Map<Integer, Boolean>> out = new HashMap<>();
        for (SimFile f : set.files.values())
        {
            if (f.frozenTag == null)
                continue;
            long maxTs = f.stat("max_ts=", Long.MAX_VALUE);
            boolean known = f.index.size() > 0 && maxTs != Long.MAX_VALUE;
            int shadowedKeys = 0;
            for (int i = 0; known && i < f.index.size(); i++)
            {
                String key = f.index.keys()[i];
                long token = f.index.tokens()[i];
                boolean shadowed = false;
                for (SimFile g : set.files.values())
                {
                    if (g == f || !g.covers(token) || g.index.find(key, token) < 0)
                        continue;
                    if (!g.frozen())
                        shadowed = set.rowOf(g, key, token).ts() > maxTs;
                    else
                        shadowed = !f.frozenTag.equals(g.frozenTag) && g.stat("min_ts=", Long.MIN_VALUE) > maxTs;
                    if (shadowed)
                        break;
                }
                if (shadowed)
                    shadowedKeys++;
                else if (sabotage != Sabotage.RETIRE_PARTLY_SHADOWED)
                    break;
            }
            boolean all = known && (sabotage == Sabotage.RETIRE_PARTLY_SHADOWED ? shadowedKeys > 0
                                                                             : shadowedKeys == f.index.size());
            out.computeIfAbsent(f.frozenTag, x -> new HashMap<>()).merge(f.source == Source.DECODED ? f.sidecar.self()
                                                                                                    : LocalTables.MEMBER_FILE,
                                                                          all, Boolean::logicalAnd);
        }
        return out;
    }

    /** Rewrites the eligible unfrozen files without the row versions that the given shadows make redundant. */
    PurgeResult purge(TableRef t, List<String> shadows, Predicate<String> eligible) throws IOException
    {
        set.check(t);
        long start = clock.nanoTime();
        List<SimFile> shadowFiles = new ArrayList<>();
        for (String id : shadows)
            if (set.files.containsKey(id))
                shadowFiles.add(set.files.get(id));
        int examined = 0, rewritten = 0;
        long before = 0, after = 0;
        for (SimFile x : new ArrayList<>(set.files.values()))
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
            for (Row r : set.rows(x))
            {
                if (shadowed(r, covering))
                    dropped = true;
                else
                    kept.add(r);
            }
            if (!dropped)
                continue;
            rewritten++;
            before += x.bytesOnDisk();
            set.remove(x);
            if (!kept.isEmpty())
                after += set.writeLocal(kept, x.level, x.role == null ? -1 : x.role).bytesOnDisk();
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
            Row v = set.rowOf(s, r.key(), r.token());
            if (v == null)
                continue;
            if (sabotage == Sabotage.PURGE_DROPS_NEWER || v.equals(r) || v.supersedes(r))
                return true;
        }
        return false;
    }
}
