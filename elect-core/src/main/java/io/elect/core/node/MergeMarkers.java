package io.elect.core.node;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.core.util.ChecksummedTextFile;

/**
 * The next versions of members that MERGE_MEMBER wrote on this node and that no stripe record names yet (issue 16,
 * member merges), by stripe: which member each replaces and when it was written. They are the only files that the
 * merge handler hands out again (a retried MERGE_MEMBER), that offloading leaves alone (the change flow reads them by
 * id), that a member lookup by the stripe's tag never takes for the member, and that maintenance deletes when no
 * change recorded them ({@link NodeMaintenance}).
 *
 * <p>Persisted in the node's state directory (docs/formats/merge-markers.md; rewritten atomically on every change),
 * so a restart between a merge and its change keeps all of that. One window stays: a crash after the next version
 * is live and before its marker is written leaves a file that nothing names (a subset of its member's versions: it
 * costs space until its stripe is retired, never a read). A corrupt file is reported (WARN, naming it) and replaced
 * by the next write: what it held is lost the same way. Thread-safe.
 */
final class MergeMarkers
{
    private static final Logger logger = LoggerFactory.getLogger(MergeMarkers.class);
    static final String FILE = "merge-markers.txt";
    static final String MAGIC = "elect-merge-markers";
    static final int VERSION = 1;

    record Marker(TableRef table, String stripe, String member, String next, long writtenMillis)
    {
        String line()
        {
            return stripe + " " + table.keyspace() + " " + table.table() + " " + member + " " + next + " " + writtenMillis;
        }

        static Marker parse(String line)
        {
            String[] f = line.split(" ", -1);
            if (f.length != 6)
                throw new IllegalArgumentException("expected 6 fields, got " + f.length);
            for (String x : f)
                if (x.isEmpty())
                    throw new IllegalArgumentException("empty field");
            long written = Long.parseLong(f[5]);
            if (written < 0)
                throw new IllegalArgumentException("negative time");
            return new Marker(new TableRef(f[1], f[2]), f[0], f[3], f[4], written);
        }
    }

    private final Path file;
    private final Map<String, Marker> byStripe = new TreeMap<>();

    /** In memory only (tests, the simulation's model): nothing survives the object. */
    MergeMarkers()
    {
        this.file = null;
    }

    /** Backed by {@code stateDir}/{@value #FILE}: what an earlier process recorded is loaded. */
    MergeMarkers(Path stateDir)
    {
        this.file = stateDir.resolve(FILE);
        try
        {
            for (Marker m : read(file))
                byStripe.put(m.stripe(), m);
            if (!byStripe.isEmpty())
                logger.info("{} merge markers loaded from {} (next versions no record named yet)", byStripe.size(), file);
        }
        catch (IOException e)
        {
            logger.warn("{}; starting without merge markers (the next versions it named are kept until their stripes are retired; "
                        + "the file is replaced at the next merge)", e.getMessage());
            byStripe.clear();
        }
    }

    /** The markers of a merge-marker file (none if it does not exist); IOException naming the file and the defect. */
    static List<Marker> read(Path file) throws IOException
    {
        List<Marker> out = new ArrayList<>();
        java.util.Set<String> stripes = new java.util.HashSet<>();
        for (String line : ChecksummedTextFile.read(file, MAGIC, VERSION, MergeMarkers::corrupt).orElse(List.of()))
        {
            Marker m;
            try
            {
                m = Marker.parse(line);
            }
            catch (IllegalArgumentException e)
            {
                throw corrupt(file, "line '" + line + "': " + e.getMessage());
            }
            if (!stripes.add(m.stripe()))
                throw corrupt(file, "stripe " + m.stripe() + " listed twice");
            out.add(m);
        }
        return out;
    }

    private static IOException corrupt(Path file, String problem)
    {
        return new IOException("corrupt merge-marker file " + file + ": " + problem);
    }

    synchronized void put(Marker m) throws IOException
    {
        Marker before = byStripe.put(m.stripe(), m);
        try
        {
            save();
        }
        catch (IOException | RuntimeException e)
        {
            if (before == null)
                byStripe.remove(m.stripe());
            else
                byStripe.put(m.stripe(), before);
            throw e;
        }
    }

    /** The next version written for {@code member} of {@code stripe}, if any. */
    synchronized Optional<Marker> of(String stripe, TableRef table, String member)
    {
        Marker m = byStripe.get(stripe);
        return m != null && m.table().equals(table) && m.member().equals(member) ? Optional.of(m) : Optional.empty();
    }

    synchronized boolean isNextVersion(TableRef table, String id)
    {
        for (Marker m : byStripe.values())
            if (m.table().equals(table) && m.next().equals(id))
                return true;
        return false;
    }

    synchronized List<Marker> all()
    {
        return List.copyOf(byStripe.values());
    }

    synchronized void remove(Marker m) throws IOException
    {
        if (byStripe.remove(m.stripe(), m))
            save();
    }

    private void save() throws IOException
    {
        if (file == null)
            return;
        List<String> body = new ArrayList<>();
        for (Marker m : byStripe.values())
            body.add(m.line());
        ChecksummedTextFile.write(file, MAGIC, VERSION, body);
    }
}
