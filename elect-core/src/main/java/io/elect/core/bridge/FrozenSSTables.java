package io.elect.core.bridge;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import io.elect.core.util.ChecksummedTextFile;
import io.elect.core.util.Clock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.Directories;
import org.apache.cassandra.db.compaction.AbstractCompactionStrategy;
import org.apache.cassandra.db.compaction.OperationType;
import org.apache.cassandra.io.sstable.Descriptor;
import org.apache.cassandra.io.sstable.format.SSTableReader;

/**
 * Frozen SSTables: live SSTables that take no part in compaction. An ELECT table's strategy
 * ({@link ElectCompactionStrategy}) keeps them in its SSTable set (Cassandra's accounting, reads) but in no LCS tree,
 * so no background, major or user-defined compaction rewrites them; newer versions of their keys shadow them from the
 * upper levels.
 *
 * <p>An SSTable is frozen iff it is tiered (format {@value TieredSSTables#FORMAT_NAME}: its data component is in the
 * cold tier or reconstructed from a stripe, rewriting it locally would undo the tiering) OR its id is in the frozen
 * registry of its table (erasure-coded LOCAL SSTables, whose bytes are a stripe member and must not change).
 * Registry entries carry a tag naming the owner (e.g. a stripe id); only the owner's tag unfreezes.
 *
 * <p>The registry of table {@code ks.t} is the file {@code ElectStateDir.root()/frozen/ks.t.txt}
 * (docs/formats/frozen-registry.md), outside Cassandra's table directories; written to a temporary file, fsynced and
 * atomically renamed over the old one, so a crash leaves either the old or the new registry. A corrupt registry is an
 * {@link IOException} naming the file (at classification time an {@link UncheckedIOException}): never read as empty,
 * which would silently unfreeze (and let compaction rewrite) erasure-coded SSTables.
 *
 * <p>Garbage collection: an entry is dropped only when NO file of its SSTable id exists in the table's data
 * directories (temporary and transaction-logged files count as existing) and the id is not live: an SSTable that is
 * merely not loaded yet still has its files, so it keeps its entry. GC runs once per table per process when its first
 * ELECT strategy starts, and at every registry write.
 *
 * <p>Thread-safety: registries are cached per table as immutable snapshots in a concurrent map (lock-free reads,
 * which strategies do under their own monitor); writers serialize on this instance's monitor and NEVER call into a
 * strategy while holding it (strategies call {@link #isFrozen} under theirs: no lock cycle).
 */
public final class FrozenSSTables
{
    private static final Logger logger = LoggerFactory.getLogger(FrozenSSTables.class);

    /** DO NOT CHANGE: first line of every registry file. */
    static final String MAGIC = "elect-frozen-registry";
    static final int VERSION = 1;
    /** Directory under {@link ElectStateDir#root()}. */
    static final String DIRECTORY = "frozen";
    /** Tags: short, no whitespace (one token of a registry line). */
    private static final Pattern TAG = Pattern.compile("[A-Za-z0-9_.:-]{1,128}");
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_]{1,64}");

    /** "ks.table" -> (id -> tag), immutable snapshots; absent = not loaded yet. */
    private final Map<String, Map<String, String>> registries = new ConcurrentHashMap<>();
    /** Tables whose registry was garbage-collected by this process. */
    private final Set<String> collected = ConcurrentHashMap.newKeySet();
    private final Clock clock;

    /** One per node (the adapter's {@link Bridge} holds it; strategies reach it through {@link NodeHandoff}). */
    public FrozenSSTables(Clock clock)
    {
        this.clock = clock;
    }

    // ---- queries ---------------------------------------------------------------------------------------------

    /**
     * True if r is tiered or registered as frozen. Loads the table's registry on first use.
     * @throws UncheckedIOException if the registry file is unreadable or corrupt
     */
    public boolean isFrozen(SSTableReader r)
    {
        if (TieredSSTables.isTiered(r))
            return true;
        return registry(r.descriptor.ksname, r.descriptor.cfname).containsKey(r.descriptor.id.toString());
    }

    /** The registry of the table: SSTable id ({@code SSTableId.toString()}) -> tag; a snapshot, sorted by id. */
    public Map<String, String> frozen(ColumnFamilyStore cfs) throws IOException
    {
        try
        {
            return registry(cfs.getKeyspaceName(), cfs.getTableName());
        }
        catch (UncheckedIOException e)
        {
            throw e.getCause();
        }
    }

    /** The registry file of a table. */
    public static Path registryFile(String keyspace, String table)
    {
        return ElectStateDir.root().resolve(DIRECTORY).resolve(keyspace + '.' + table + ".txt");
    }

    private Map<String, String> registry(String keyspace, String table)
    {
        String name = keyspace + '.' + table;
        Map<String, String> m = registries.get(name);
        if (m != null)
            return m;
        return registries.computeIfAbsent(name, k -> {
            try
            {
                return read(registryFile(keyspace, table), name);
            }
            catch (IOException e)
            {
                throw new UncheckedIOException(e);
            }
        });
    }

    // ---- freezing ----------------------------------------------------------------------------------------------

    /**
     * Takes r out of compaction, durably: holds r against compaction (fails with {@link IllegalStateException} if a
     * compaction holds it), persists id -> tag, has the table's ELECT strategies move r out of its LCS tree, then
     * releases r without obsoleting anything. Idempotent for the same tag; r frozen under another tag is an
     * {@link IllegalStateException} naming both tags. Tiered SSTables are frozen by format already; the entry records
     * the owner anyway.
     */
    public void freeze(ColumnFamilyStore cfs, SSTableReader r, String tag) throws IOException
    {
        checkTag(tag);
        List<ElectCompactionStrategy> strategies = electStrategies(cfs);
        String id = r.descriptor.id.toString();
        String owner = frozen(cfs).get(id);
        if (tag.equals(owner))
            return;
        if (owner != null)
            throw new IllegalStateException(r.descriptor + " is frozen with tag '" + owner + "', cannot freeze it with tag '"
                                            + tag + "'");
        long start = clock.nanoTime();
        // Holding r (marked compacting) means no compaction has it now and none can take it until we release it;
        // by then the registry says frozen, so every strategy (existing or created later) keeps it out of its trees.
        try (SSTableHold held = hold(cfs, r))
        {
            update(cfs, id, null, tag);
            for (ElectCompactionStrategy s : strategies)
                s.reclassify(r);
            held.txn().abort(); // releases r: nothing was staged, nothing is obsoleted
        }
        logger.info("Froze {} of {}.{} (tag {}, {} bytes, L{}) in {} ms", r.descriptor, cfs.getKeyspaceName(),
                    cfs.getTableName(), tag, r.onDiskLength(), r.getSSTableLevel(),
                    TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - start));
    }

    /**
     * Records id -> tag for an SSTable that is NOT live yet (a member restored by a node rebuild, registered before it
     * is opened so that no strategy ever puts it in a tree). Idempotent for the same tag.
     */
    void registerBeforeLoad(ColumnFamilyStore cfs, String id, String tag) throws IOException
    {
        checkTag(tag);
        if (tag.equals(frozen(cfs).get(id)))
            return;
        update(cfs, id, null, tag);
    }

    /**
     * Undoes {@link #freeze} for the owner {@code tag}: removes the entry and puts r back into its role's LCS tree.
     * Idempotent (no entry: no-op); an entry with another tag is an {@link IllegalStateException} naming both and is
     * left in place. A tiered SSTable stays frozen by format. If r is no longer live only the entry is removed.
     */
    public void unfreeze(ColumnFamilyStore cfs, SSTableReader r, String tag) throws IOException
    {
        checkTag(tag);
        String id = r.descriptor.id.toString();
        String owner = frozen(cfs).get(id);
        if (owner == null)
            return;
        if (!owner.equals(tag))
            throw new IllegalStateException(r.descriptor + " is frozen with tag '" + owner + "', not '" + tag
                                            + "': not unfreezing");
        long start = clock.nanoTime();
        if (!cfs.getLiveSSTables().contains(r))
        {
            update(cfs, id, tag, null);
            logger.info("Unfroze {} of {}.{} (tag {}, no longer live: entry removed)", r.descriptor,
                        cfs.getKeyspaceName(), cfs.getTableName(), tag);
            return;
        }
        List<ElectCompactionStrategy> strategies = electStrategies(cfs);
        try (SSTableHold held = hold(cfs, r))
        {
            update(cfs, id, tag, null);
            for (ElectCompactionStrategy s : strategies)
                s.reclassify(r);
            held.txn().abort();
        }
        logger.info("Unfroze {} of {}.{} (tag {}, {} bytes, L{}) in {} ms", r.descriptor, cfs.getKeyspaceName(),
                    cfs.getTableName(), tag, r.onDiskLength(), r.getSSTableLevel(),
                    TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - start));
    }

    /** A short hold (registry write and re-placement), visible to Cassandra's maintenance operations. */
    private static SSTableHold hold(ColumnFamilyStore cfs, SSTableReader r)
    {
        if (!cfs.getLiveSSTables().contains(r))
            throw new IllegalStateException(r.descriptor + " is not a live SSTable of " + cfs.getKeyspaceName() + '.'
                                            + cfs.getTableName());
        SSTableHold held = SSTableHold.tryAcquire(cfs, r, OperationType.UNKNOWN);
        if (held == null)
            throw new IllegalStateException(r.descriptor + " is being compacted (or the table's compactions are paused), retry later");
        return held;
    }

    private static List<ElectCompactionStrategy> electStrategies(ColumnFamilyStore cfs)
    {
        List<ElectCompactionStrategy> out = new ArrayList<>();
        for (List<AbstractCompactionStrategy> holder : cfs.getCompactionStrategyManager().getStrategies())
            for (AbstractCompactionStrategy s : holder)
                if (s instanceof ElectCompactionStrategy)
                    out.add((ElectCompactionStrategy) s);
        if (out.isEmpty())
            throw new IllegalStateException(cfs.getKeyspaceName() + '.' + cfs.getTableName() + " does not use "
                                            + ElectCompactionStrategy.class.getName() + ": its SSTables cannot be frozen");
        return out;
    }

    private static void checkTag(String tag)
    {
        if (tag == null || !TAG.matcher(tag).matches())
            throw new IllegalArgumentException("tag must match " + TAG.pattern() + ", got '" + tag + "'");
    }

    /**
     * Replaces the entry of id, which must be {@code expected} (null = absent; re-checked here because a concurrent
     * freeze may have won since the caller looked), by {@code tag} (null = remove); garbage-collects, persists, then
     * publishes the snapshot.
     */
    private synchronized void update(ColumnFamilyStore cfs, String id, String expected, String tag) throws IOException
    {
        String name = cfs.getKeyspaceName() + '.' + cfs.getTableName();
        Map<String, String> next = new TreeMap<>(frozen(cfs));
        String owner = next.get(id);
        if (owner == null ? expected != null : !owner.equals(expected))
            throw new IllegalStateException("SSTable " + id + " of " + name + " is frozen with tag '" + owner
                                            + "', expected " + (expected == null ? "no entry" : "'" + expected + "'"));
        if (tag == null)
            next.remove(id);
        else
            next.put(id, tag);
        next.keySet().retainAll(keep(cfs, next.keySet(), id));
        write(registryFile(cfs.getKeyspaceName(), cfs.getTableName()), name, next);
        registries.put(name, Collections.unmodifiableMap(next));
    }

    // ---- garbage collection --------------------------------------------------------------------------------------

    /** Drops entries of SSTables that are gone (see the class comment); once per table per process. */
    void collectOnce(ColumnFamilyStore cfs)
    {
        if (!collected.add(cfs.getKeyspaceName() + '.' + cfs.getTableName()))
            return;
        try
        {
            gc(cfs);
        }
        catch (IOException | RuntimeException e)
        {
            logger.warn("Cannot garbage-collect the frozen registry of {}.{}", cfs.getKeyspaceName(), cfs.getTableName(), e);
        }
    }

    /** Drops the entries of SSTables that are gone; returns how many were dropped. */
    public synchronized int gc(ColumnFamilyStore cfs) throws IOException
    {
        Map<String, String> now = frozen(cfs);
        if (now.isEmpty())
            return 0;
        long start = clock.nanoTime();
        Map<String, String> next = new TreeMap<>(now);
        next.keySet().retainAll(keep(cfs, next.keySet(), null));
        int dropped = now.size() - next.size();
        if (dropped > 0)
        {
            String name = cfs.getKeyspaceName() + '.' + cfs.getTableName();
            write(registryFile(cfs.getKeyspaceName(), cfs.getTableName()), name, next);
            registries.put(name, Collections.unmodifiableMap(next));
            logger.info("Frozen registry of {}: dropped {} entries of SSTables that no longer exist, {} left ({} ms)",
                        name, dropped, next.size(), TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - start));
        }
        return dropped;
    }

    /** The ids among {@code ids} that are live or still have files on disk, plus {@code always}. */
    private static Set<String> keep(ColumnFamilyStore cfs, Set<String> ids, String always)
    {
        Set<String> existing = new HashSet<>();
        if (always != null)
            existing.add(always);
        for (SSTableReader r : cfs.getLiveSSTables())
            existing.add(r.descriptor.id.toString());
        if (existing.containsAll(ids))
            return existing;
        // Temporary files included (skipTemporary defaults to false): an SSTable being written or deleted still counts.
        for (Descriptor d : cfs.getDirectories().sstableLister(Directories.OnTxnErr.IGNORE).list().keySet())
            existing.add(d.id.toString());
        return existing;
    }

    // ---- file format (docs/formats/frozen-registry.md) -------------------------------------------------------

    /** Writes the registry of table {@code name} to {@code file} atomically (temporary file, fsync, rename, fsync dir). */
    static void write(Path file, String name, Map<String, String> entries) throws IOException
    {
        List<String> body = new ArrayList<>();
        body.add("table=" + name);
        for (Map.Entry<String, String> e : new TreeMap<>(entries).entrySet())
        {
            if (!ID.matcher(e.getKey()).matches())
                throw new IllegalArgumentException("bad SSTable id '" + e.getKey() + "'");
            checkTag(e.getValue());
            body.add("frozen=" + e.getKey() + ' ' + e.getValue());
        }
        ChecksummedTextFile.write(file, MAGIC, VERSION, body);
    }

    /**
     * Reads a registry; a missing file is an empty registry. Every other problem (magic, version, table name, line
     * syntax, duplicate id, checksum, truncation) is an IOException naming the file.
     */
    static Map<String, String> read(Path file, String name) throws IOException
    {
        Optional<List<String>> read = ChecksummedTextFile.read(file, MAGIC, VERSION, FrozenSSTables::corrupt);
        if (read.isEmpty())
            return Collections.emptyMap();
        List<String> lines = read.get();
        if (lines.isEmpty() || !("table=" + name).equals(lines.get(0)))
            throw corrupt(file, "belongs to " + (lines.isEmpty() ? "no table" : lines.get(0)) + ", expected table=" + name);
        Map<String, String> out = new TreeMap<>();
        for (int i = 1; i < lines.size(); i++)
        {
            String line = lines.get(i);
            if (!line.startsWith("frozen="))
                throw corrupt(file, "line " + (i + 3) + " is not frozen=<id> <tag>");
            String[] parts = line.substring(7).split(" ", -1);
            if (parts.length != 2 || !ID.matcher(parts[0]).matches() || !TAG.matcher(parts[1]).matches())
                throw corrupt(file, "line " + (i + 3) + " is not frozen=<id> <tag>");
            if (out.put(parts[0], parts[1]) != null)
                throw corrupt(file, "SSTable id " + parts[0] + " listed twice");
        }
        return Collections.unmodifiableMap(out);
    }

    private static IOException corrupt(Path file, String problem)
    {
        return new IOException("corrupt frozen-SSTable registry " + file + ": " + problem
                               + " (fix or remove it; removing unfreezes every SSTable it lists)");
    }

    /** Forgets cached registries (tests: after editing a file behind the cache's back). */
    void resetCacheForTesting()
    {
        registries.clear();
        collected.clear();
    }
}
