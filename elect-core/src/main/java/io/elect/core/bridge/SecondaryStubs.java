package io.elect.core.bridge;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.DecoratedKey;
import org.apache.cassandra.db.compaction.CompactionInterruptedException;
import org.apache.cassandra.db.compaction.OperationType;
import org.apache.cassandra.db.filter.ColumnFilter;
import org.apache.cassandra.db.Slices;
import org.apache.cassandra.db.lifecycle.LifecycleTransaction;
import org.apache.cassandra.db.marshal.AbstractType;
import org.apache.cassandra.db.rows.UnfilteredRowIterator;
import org.apache.cassandra.db.rows.UnfilteredRowIterators;
import org.apache.cassandra.db.transform.Transformation;
import org.apache.cassandra.dht.AbstractBounds;
import org.apache.cassandra.dht.Token;
import org.apache.cassandra.io.sstable.Component;
import org.apache.cassandra.io.sstable.Descriptor;
import org.apache.cassandra.io.sstable.ISSTableScanner;
import org.apache.cassandra.io.sstable.SSTable;
import org.apache.cassandra.io.sstable.SSTableReadsListener;
import org.apache.cassandra.io.sstable.SSTableRewriter;
import org.apache.cassandra.io.sstable.format.SSTableFormat.Components;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.io.sstable.format.TOCComponent;
import org.apache.cassandra.io.sstable.format.Version;
import org.apache.cassandra.io.sstable.format.SSTableWriter;
import org.apache.cassandra.io.sstable.metadata.MetadataCollector;
import org.apache.cassandra.io.sstable.metadata.StatsMetadata;
import org.apache.cassandra.io.util.File;
import org.apache.cassandra.service.ActiveRepairService;
import org.apache.cassandra.utils.TimeUUID;
import org.apache.cassandra.utils.concurrent.Refs;

import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.tiered.TieredSidecar;
import io.elect.core.util.Clock;

/**
 * Secondary stubs: on a secondary replica of an erasure-coded primary SSTable S (of node P), {@link #install} adds an
 * index-only copy of S (S's non-data components, data DECODED from S's stripe member) and {@link #purge} then drops
 * from this node's own SSTables every row version the stub makes redundant. Design: docs/design/secondary-stubs.md.
 */
public final class SecondaryStubs
{
    private static final Logger logger = LoggerFactory.getLogger(SecondaryStubs.class);

    /** One install at a time per table, so that the idempotency check and the install are atomic. */
    private final Map<Object, Object> installLocks = new ConcurrentHashMap<>();
    private final Clock clock;

    /** One per node (the adapter's {@link Bridge}). */
    public SecondaryStubs(Clock clock)
    {
        this.clock = clock;
    }

    /**
     * What one {@link #purge} did. {@code rewritten} counts SSTables replaced by a smaller X' (or dropped because X'
     * was empty, also counted in {@code removed}); {@code copies} of the removed were byte-identical copies of a stub's
     * data, dropped without reading their rows (not counted in rows and cells dropped); {@code busy} are SSTables a
     * compaction held, to retry later.
     */
    public record PurgeStats(int examined, int rewritten, int removed, int copies, List<SSTableReader> busy, long bytesBefore,
                             long bytesAfter, long rowsDropped, long cellsDropped, long millis)
    {
        public static final PurgeStats NONE = new PurgeStats(0, 0, 0, 0, List.of(), 0, 0, 0, 0, 0);

        public int skippedBusy()
        {
            return busy.size();
        }
    }

    // ------------------------------------------------------------------ install

    /**
     * Installs the stub of a foreign SSTable whose version is read from the Cassandra file names of
     * {@code components} (e.g. {@code nb-3gk1_..-big-Index.db}); see {@link #install(ColumnFamilyStore, Map, String,
     * StripeLayout, int, ChunkChecksums)}.
     *
     * @throws IllegalArgumentException if no component file is named like a Cassandra SSTable component
     */
    public SSTableReader install(ColumnFamilyStore cfs, Map<String, Path> components, StripeLayout stripe, int self,
                                        ChunkChecksums dataChecksums) throws IOException
    {
        return install(cfs, components, versionOf(components), stripe, self, dataChecksums, id -> {});
    }

    /** As {@link #install(ColumnFamilyStore, Map, StripeLayout, int, ChunkChecksums)}, calling beforeOpen(id) first. */
    public SSTableReader install(ColumnFamilyStore cfs, Map<String, Path> components, StripeLayout stripe, int self,
                                 ChunkChecksums dataChecksums, BeforeOpen beforeOpen) throws IOException
    {
        return install(cfs, components, versionOf(components), stripe, self, dataChecksums, beforeOpen);
    }

    /** Told the new stub's id once its files are durable and before it is opened (e.g. to register its owner). */
    @FunctionalInterface
    public interface BeforeOpen
    {
        void accept(String id) throws IOException;
    }

    /**
     * Adds to cfs's live set a tiered SSTable whose non-data components are copies of {@code components} (suffix as
     * Cassandra names it, e.g. {@code Index.db} -> local file fetched from P; everything but {@code Data.db}) and
     * whose data component is member {@code self} of {@code stripe}, verified by {@code dataChecksums}.
     *
     * <p>Idempotent: a live tiered SSTable of cfs with a DECODED sidecar of the same stripe and self is returned as
     * is. Crash-safe: the new SSTable is registered as NEW in a lifecycle transaction log before its first file is
     * written, so an install interrupted before the commit is deleted by Cassandra's start-up cleanup
     * ({@code LifecycleTransaction.removeUnfinishedLeftovers}); after the commit every file is fsynced and complete.
     *
     * @param version the SSTable version of the components ({@code nb}, {@code oa}, ...): their serialization
     */
    public SSTableReader install(ColumnFamilyStore cfs, Map<String, Path> components, String version,
                                        StripeLayout stripe, int self, ChunkChecksums dataChecksums) throws IOException
    {
        return install(cfs, components, version, stripe, self, dataChecksums, id -> {});
    }

    private SSTableReader install(ColumnFamilyStore cfs, Map<String, Path> components, String version,
                                  StripeLayout stripe, int self, ChunkChecksums dataChecksums, BeforeOpen beforeOpen) throws IOException
    {
        if (self < 0 || self >= stripe.k())
            throw new IllegalArgumentException("self must be a data member in [0, " + stripe.k() + "), got " + self);
        if (dataChecksums.length() != stripe.memberLength(self))
            throw new IllegalArgumentException("dataChecksums cover " + dataChecksums.length() + " bytes but member "
                                               + self + " has " + stripe.memberLength(self));
        for (String required : List.of(Components.STATS.name(), "Index.db"))
            if (!components.containsKey(required))
                throw new IllegalArgumentException("components must include " + required + ", got " + components.keySet());
        for (String name : components.keySet())
            if (name.equals(Components.DATA.name()) || name.equals(TieredSSTables.SIDECAR_NAME))
                throw new IllegalArgumentException("components must not include " + name);
        long start = clock.nanoTime();
        synchronized (installLocks.computeIfAbsent(cfs.metadata().id, id -> new Object()))
        {
            SSTableReader existing = existing(cfs, stripe, self);
            if (existing != null)
            {
                logger.info("Secondary stub of member {} of stripe {} is already installed as {}", self,
                            stripe.locators().get(self), existing.descriptor);
                return existing;
            }
            Version v = TieredSSTables.format().getVersion(version);
            Descriptor desc = cfs.newSSTableDescriptor(cfs.getDirectories().getDirectoryForNewSSTables(), v);
            Map<Component, Path> sources = new LinkedHashMap<>();
            for (Map.Entry<String, Path> e : components.entrySet())
                if (!e.getKey().equals(Components.TOC.name()))
                    sources.put(Component.parse(e.getKey(), v.format), e.getValue());
            checkToc(components.get(Components.TOC.name()), sources.keySet());
            Set<Component> all = new LinkedHashSet<>(sources.keySet());
            all.add(Components.DATA);
            all.add(TieredSSTables.sidecarComponent(desc));
            all.add(Components.TOC);

            // online transaction with no originals: finishing it adds the stub to the live set and commits the log
            LifecycleTransaction txn = cfs.getTracker().tryModify(Collections.emptyList(), OperationType.UNKNOWN);
            SSTableReader fresh = null;
            try
            {
                txn.trackNew(new PendingSSTable(desc, all, cfs)); // before any file: a crash from here on is cleaned up
                for (Map.Entry<Component, Path> e : sources.entrySet())
                    copyDurably(e.getValue(), desc.fileFor(e.getKey()).toPath());
                forgetLocalOrigin(desc);
                Files.createFile(desc.fileFor(Components.DATA).toPath()); // the 0-byte placeholder
                TieredSidecar.decoded(dataChecksums, stripe, self).write(TieredSSTables.sidecarPath(desc));
                TOCComponent.updateTOC(desc, all); // not rewriteTOC: there is no TOC to delete yet
                fsyncDirectory(desc.directory.toPath());
                beforeOpen.accept(desc.id.toString());
                fresh = SSTableReader.open(cfs, desc);
                txn.update(fresh, false);
                fresh = null; // owned by txn now
                txn.finish();
            }
            catch (IOException | RuntimeException e)
            {
                if (fresh != null)
                    fresh.selfRef().release();
                try
                {
                    txn.abort(); // deletes every file of desc (the NEW record)
                }
                catch (RuntimeException suppressed)
                {
                    e.addSuppressed(suppressed);
                }
                throw e instanceof IOException ? (IOException) e : new IOException("cannot install a stub as " + desc, e);
            }
            finally
            {
                txn.close();
            }
            SSTableReader installed = TieredSSTables.live(cfs, desc)
                                                   .orElseThrow(() -> new IOException(desc + " was installed but is not live"));
            logger.info("Installed secondary stub {} (member {} of stripe {}, {} data bytes, {} components) in {} ms",
                        desc, self, stripe.codecId(), dataChecksums.length(), all.size(),
                        TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - start));
            return installed;
        }
    }

    /** The live DECODED stub of (stripe, self) in cfs, or null. */
    static SSTableReader existing(ColumnFamilyStore cfs, StripeLayout stripe, int self) throws IOException
    {
        for (SSTableReader r : cfs.getLiveSSTables())
        {
            if (!TieredSSTables.isTiered(r) || !TieredSSTables.hasSidecar(r.descriptor))
                continue;
            TieredSidecar s = TieredSSTables.sidecar(r.descriptor);
            if (s.source() == TieredSidecar.Source.DECODED && s.self() == self && s.stripe().equals(stripe))
                return r;
        }
        return null;
    }

    private static String versionOf(Map<String, Path> components)
    {
        for (Path p : components.values())
        {
            String name = p.getFileName().toString();
            int dash = name.indexOf('-');
            if (dash > 0 && Version.validate(name.substring(0, dash)))
                return name.substring(0, dash);
        }
        throw new IllegalArgumentException("no component file is named <version>-<id>-<format>-<component> ("
                                           + components.values() + "); pass the version explicitly");
    }

    /** If the source's TOC is given, every component it lists except Data.db must have been fetched. */
    private static void checkToc(Path toc, Set<Component> fetched) throws IOException
    {
        if (toc == null)
            return;
        for (String line : Files.readAllLines(toc))
        {
            String name = line.trim();
            if (name.isEmpty() || name.equals(Components.DATA.name()) || name.equals(Components.TOC.name()))
                continue;
            boolean found = false;
            for (Component c : fetched)
                found |= c.name().equals(name);
            if (!found)
                throw new IllegalArgumentException("the source TOC lists " + name + " but it was not fetched: " + fetched);
        }
    }

    /**
     * Makes the copied Statistics safe to carry on this node. Commit log replay only trusts the intervals of SSTables
     * whose originatingHostId is the local host id (Cassandra 5.0.9 CommitLogReplayer.persistedIntervals, lines
     * 347-349: {@code if (originatingHostId != null && originatingHostId.equals(localhostId))
     * builder.addAll(reader.getSSTableMetadata().commitLogIntervals);}), and compaction inherits intervals under the
     * same condition (MetadataCollector(Iterable, ClusteringComparator), lines 169-174). A foreign SSTable is thus
     * ignored by replay, EXCEPT when its originatingHostId happens to be ours (S was once zero-copy streamed from this
     * node to P, which keeps the Statistics as they were): its intervals then name positions of our commit log that
     * have nothing to do with the stub's contents. So the intervals are always emptied (replay of an empty set skips
     * nothing). A pending repair session of P means nothing here: the stub then counts as unrepaired.
     */
    private static void forgetLocalOrigin(Descriptor desc) throws IOException
    {
        desc.getMetadataSerializer().mutate(desc, "secondary stub: no commit log intervals, no pending repair", s -> {
            boolean pending = s.pendingRepair != ActiveRepairService.NO_PENDING_REPAIR;
            long repairedAt = pending ? ActiveRepairService.UNREPAIRED_SSTABLE : s.repairedAt;
            TimeUUID none = ActiveRepairService.NO_PENDING_REPAIR;
            return new StatsMetadata(s.estimatedPartitionSize, s.estimatedCellPerPartitionCount,
                                     org.apache.cassandra.db.commitlog.IntervalSet.empty(), s.minTimestamp, s.maxTimestamp,
                                     s.minLocalDeletionTime, s.maxLocalDeletionTime, s.minTTL, s.maxTTL,
                                     s.compressionRatio, s.estimatedTombstoneDropTime, s.sstableLevel, clusteringTypes(s),
                                     s.coveredClustering, s.hasLegacyCounterShards, repairedAt, s.totalColumnsSet,
                                     s.totalRows, s.tokenSpaceCoverage, s.originatingHostId, none, false,
                                     s.hasPartitionLevelDeletions, s.firstKey, s.lastKey);
        });
        try (FileChannel ch = FileChannel.open(desc.fileFor(Components.STATS).toPath(), StandardOpenOption.WRITE))
        {
            ch.force(true);
        }
    }

    /** StatsMetadata has no accessor (nor mutator) for its clustering types; they are copied as they are. */
    @SuppressWarnings("unchecked")
    private static List<AbstractType<?>> clusteringTypes(StatsMetadata s)
    {
        try
        {
            java.lang.reflect.Field f = StatsMetadata.class.getDeclaredField("clusteringTypes");
            f.setAccessible(true);
            return (List<AbstractType<?>>) f.get(s);
        }
        catch (ReflectiveOperationException e)
        {
            throw new IllegalStateException("cannot read StatsMetadata.clusteringTypes", e);
        }
    }

    static void copyDurably(Path from, Path to) throws IOException
    {
        try (FileChannel in = FileChannel.open(from, StandardOpenOption.READ);
             FileChannel out = FileChannel.open(to, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))
        {
            long size = in.size();
            for (long pos = 0; pos < size; )
                pos += in.transferTo(pos, size - pos, out);
            out.force(true);
        }
    }

    static void fsyncDirectory(Path dir)
    {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ))
        {
            ch.force(true);
        }
        catch (IOException e)
        {
            // some file systems cannot fsync a directory
        }
    }

    /** Only a name for the transaction log's NEW record (descriptor and components); never opened. */
    static final class PendingSSTable extends SSTable
    {
        PendingSSTable(Descriptor desc, Set<Component> components, ColumnFamilyStore cfs)
        {
            super(new SSTable.Builder<>(desc).setComponents(components).setTableMetadataRef(cfs.metadata), cfs);
        }

        @Override
        public DecoratedKey getFirst()
        {
            throw new UnsupportedOperationException();
        }

        @Override
        public DecoratedKey getLast()
        {
            throw new UnsupportedOperationException();
        }

        @Override
        public AbstractBounds<Token> getBounds()
        {
            throw new UnsupportedOperationException();
        }
    }

    // ------------------------------------------------------------------ purge

    /**
     * Rewrites every live, non-tiered SSTable X of cfs that {@code eligible} accepts and that overlaps the stub's
     * [first, last] keys into X' without what the stub shadows ({@link StubShadowing}); see
     * {@link #purge(ColumnFamilyStore, List, Predicate)}, of which this is the one-shadow case.
     */
    public PurgeStats purge(ColumnFamilyStore cfs, SSTableReader stub, Predicate<SSTableReader> eligible)
    throws IOException
    {
        return purge(cfs, List.of(stub), eligible);
    }

    /**
     * Rewrites every live, non-tiered SSTable X of cfs that is not one of {@code shadows}, that {@code eligible}
     * accepts and whose keys overlap those of at least one shadow, into X' without what any shadow shadows: each
     * partition of X passes through one {@link StubShadowing} per shadow whose [first, last] holds its key (each drop
     * is one a read merging X with that shadow would discard, so chaining them is as safe as one). X is held (marked
     * compacting) for the whole rewrite and swapped for X' in one transaction; an empty X' is simply not written (X is
     * dropped); an X with nothing to drop is left alone (a first pass stops at its first droppable item). SSTables a
     * compaction holds are skipped and returned in {@link PurgeStats#busy}. Idempotent.
     *
     * <p>One pass against many shadows reads each X once, where one pass per shadow would read (and rewrite) an X
     * overlapping n shadows n times: a rebuild purges the streamed copies against all its stubs at once.
     *
     * @param shadows live SSTables of cfs (stubs, or LOCAL erasure-coded SSTables) that stay live while X' is used
     */
    public PurgeStats purge(ColumnFamilyStore cfs, List<SSTableReader> shadows, Predicate<SSTableReader> eligible)
    throws IOException
    {
        long start = clock.nanoTime();
        int examined = 0, rewritten = 0, removed = 0, copies = 0;
        long before = 0, after = 0, rows = 0, cells = 0;
        List<SSTableReader> busy = new ArrayList<>();
        if (cfs.metadata().isCounter())
            throw new IllegalArgumentException("counter tables cannot be purged by stubs: " + cfs.metadata());
        if (shadows.isEmpty())
            return PurgeStats.NONE;
        Set<SSTableReader> shadowSet = new HashSet<>(shadows);
        try (Refs<SSTableReader> shadowRefs = Refs.tryRef(shadows))
        {
            if (shadowRefs == null)
                throw new IOException("a shadowing SSTable of " + shadows + " is no longer live");
            boolean stopped = false;
            for (SSTableReader x : cfs.getLiveSSTables())
            {
                if (shadowSet.contains(x) || TieredSSTables.isTiered(x) || !eligible.test(x))
                    continue;
                List<SSTableReader> covering = new ArrayList<>();
                for (SSTableReader sh : shadows)
                    if (x.getFirst().compareTo(sh.getLast()) <= 0 && x.getLast().compareTo(sh.getFirst()) >= 0)
                        covering.add(sh);
                if (covering.isEmpty())
                    continue;
                if (stopped)
                {
                    busy.add(x);
                    continue;
                }
                examined++;
                SSTableHold held = SSTableHold.tryAcquire(cfs, x, OperationType.GARBAGE_COLLECT);
                if (held == null)
                {
                    busy.add(x);
                    continue;
                }
                try (held)
                {
                    LifecycleTransaction txn = held.txn();
                    SSTableReader original = copyOf(x, covering);
                    if (original != null)
                    {
                        // a byte-identical copy of a stub's data (e.g. streamed whole by a rebuild): the stub already
                        // serves every version X holds, so X goes without being read row by row
                        before += x.onDiskLength();
                        txn.obsoleteOriginals();
                        txn.finish();
                        rewritten++;
                        removed++;
                        copies++;
                        continue;
                    }
                    if (!anythingToDrop(cfs, held, x, covering))
                        continue; // closing the untouched txn releases x
                    Counts c = rewrite(cfs, held, x, covering);
                    rewritten++;
                    before += x.onDiskLength();
                    for (SSTableReader r : c.fresh)
                        after += r.onDiskLength();
                    if (c.fresh.isEmpty())
                        removed++;
                    rows += c.rows;
                    cells += c.cells;
                }
                catch (CompactionInterruptedException e)
                {
                    // Cassandra stopped us (a major compaction, cleanup, ... of the table): x is untouched (the
                    // transaction aborted); it and every later X are busy for this pass, the caller retries later
                    busy.add(x);
                    logger.info("Purge of {}.{} stopped by Cassandra at {} ({})", cfs.getKeyspaceName(), cfs.name,
                                x.descriptor, e.getMessage());
                    stopped = true;
                }
            }
        }
        PurgeStats stats = new PurgeStats(examined, rewritten, removed, copies, List.copyOf(busy), before, after, rows, cells,
                                          TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - start));
        logger.info("Purged {}.{} under {}: {} SSTables examined, {} rewritten ({} removed, {} of them copies of a stub's data), "
                    + "{} busy, {} -> {} bytes, {} rows and {} cells dropped in {} ms", cfs.getKeyspaceName(), cfs.name,
                    shadows.size() == 1 ? "stub " + shadows.get(0).descriptor : shadows.size() + " shadowing SSTables",
                    examined, rewritten, removed, copies, busy.size(), before, after, rows, cells, stats.millis());
        return stats;
    }

    /**
     * The stub among shadows whose data component X's is a byte-identical copy of, or null: same first and last keys,
     * same length and the same CRC32C for every chunk as the checksums recorded with the stub (those the stub's own
     * reads are verified against). Reads X's data file once, locally, only when a stub matches keys and length.
     */
    static SSTableReader copyOf(SSTableReader x, List<SSTableReader> shadows) throws IOException
    {
        Map<Integer, ChunkChecksums> mine = new java.util.HashMap<>();
        for (SSTableReader sh : shadows)
        {
            if (!TieredSSTables.isTiered(sh) || !x.getFirst().equals(sh.getFirst()) || !x.getLast().equals(sh.getLast()))
                continue;
            TieredSidecar sidecar = TieredSSTables.sidecar(sh.descriptor);
            if (sidecar.source() != TieredSidecar.Source.DECODED)
                continue;
            ChunkChecksums theirs = sidecar.checksums();
            java.nio.file.Path data = x.descriptor.fileFor(Components.DATA).toPath();
            if (java.nio.file.Files.size(data) != theirs.length())
                continue;
            ChunkChecksums own = mine.get(theirs.chunkSize());
            if (own == null)
            {
                try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(data, java.nio.file.StandardOpenOption.READ))
                {
                    own = ChunkChecksums.compute(ch, theirs.chunkSize());
                }
                mine.put(theirs.chunkSize(), own);
            }
            if (own.equals(theirs))
                return sh;
        }
        return null;
    }

    private record Counts(List<SSTableReader> fresh, long rows, long cells)
    {
    }

    /** The shadow's version of key (an empty iterator if it lacks the key or key is outside its range). */
    private static UnfilteredRowIterator stubPartition(ColumnFamilyStore cfs, SSTableReader stub, DecoratedKey key)
    {
        if (key.compareTo(stub.getFirst()) < 0 || key.compareTo(stub.getLast()) > 0)
            return UnfilteredRowIterators.noRowsIterator(cfs.metadata(), key, org.apache.cassandra.db.rows.Rows.EMPTY_STATIC_ROW,
                                                         org.apache.cassandra.db.DeletionTime.LIVE, false);
        return stub.rowIterator(key, Slices.ALL, ColumnFilter.all(cfs.metadata()), false, SSTableReadsListener.NOOP_LISTENER);
    }

    /**
     * One partition of X passed through the shadowing of every shadow whose key range holds its key. Closing it closes
     * X's partition and the shadows' partitions.
     */
    static final class Shadowed implements AutoCloseable
    {
        final UnfilteredRowIterator filtered;
        final List<StubShadowing> shadowings = new ArrayList<>();
        private final List<UnfilteredRowIterator> opened = new ArrayList<>();

        Shadowed(ColumnFamilyStore cfs, UnfilteredRowIterator partition, List<SSTableReader> shadows)
        {
            UnfilteredRowIterator it = partition;
            DecoratedKey key = partition.partitionKey();
            try
            {
                for (SSTableReader sh : shadows)
                {
                    if (key.compareTo(sh.getFirst()) < 0 || key.compareTo(sh.getLast()) > 0)
                        continue;
                    UnfilteredRowIterator s = stubPartition(cfs, sh, key);
                    opened.add(s);
                    StubShadowing shadowing = new StubShadowing(s, cfs.metadata().comparator);
                    shadowings.add(shadowing);
                    it = Transformation.apply(it, shadowing);
                }
            }
            catch (RuntimeException e)
            {
                close(it);
                throw e;
            }
            this.filtered = it;
        }

        long dropped()
        {
            long d = 0;
            for (StubShadowing s : shadowings)
                d += s.dropped();
            return d;
        }

        long rowsDropped()
        {
            long d = 0;
            for (StubShadowing s : shadowings)
                d += s.rowsDropped;
            return d;
        }

        long cellsDropped()
        {
            long d = 0;
            for (StubShadowing s : shadowings)
                d += s.cellsDropped;
            return d;
        }

        @Override
        public void close()
        {
            close(filtered);
        }

        private void close(UnfilteredRowIterator it)
        {
            try
            {
                it.close(); // closes X's partition through the transformations
            }
            finally
            {
                for (UnfilteredRowIterator s : opened)
                    s.close();
            }
        }
    }

    /** Whether the shadows drop anything of x; stops at the first such item. */
    private static boolean anythingToDrop(ColumnFamilyStore cfs, SSTableHold held, SSTableReader x, List<SSTableReader> shadows)
    {
        try (ISSTableScanner scanner = x.getScanner())
        {
            while (scanner.hasNext())
            {
                held.checkStop();
                try (Shadowed p = new Shadowed(cfs, scanner.next(), shadows))
                {
                    p.filtered.staticRow();
                    while (p.dropped() == 0 && p.filtered.hasNext())
                        p.filtered.next();
                    if (p.dropped() > 0)
                        return true;
                }
            }
        }
        return false;
    }

    private static Counts rewrite(ColumnFamilyStore cfs, SSTableHold held, SSTableReader x, List<SSTableReader> shadows)
    {
        LifecycleTransaction txn = held.txn();
        File dir = x.descriptor.directory;
        long rows = 0, cells = 0;
        try (SSTableRewriter writer = SSTableRewriter.construct(cfs, txn, false, x.maxDataAge);
             ISSTableScanner scanner = x.getScanner())
        {
            writer.switchWriter(newWriter(cfs, dir, x, txn));
            while (scanner.hasNext())
            {
                held.checkStop();
                try (Shadowed p = new Shadowed(cfs, scanner.next(), shadows))
                {
                    writer.append(p.filtered); // an empty partition is not written
                    // drain what append did not consume (nothing, normally) so the counts are complete
                    while (p.filtered.hasNext())
                        p.filtered.next();
                    rows += p.rowsDropped();
                    cells += p.cellsDropped();
                }
            }
            List<SSTableReader> fresh = writer.finish();
            return new Counts(fresh, rows, cells);
        }
    }

    /**
     * Like CompactionManager.createWriter (as cleanup uses it), but X' inherits X's commit log intervals
     * (MetadataCollector(Iterable, ...) copies those of SSTables of this host): otherwise a restart could replay
     * segments X covered and bring the purged versions back into a memtable (harmless, but undoing the purge).
     */
    static SSTableWriter newWriter(ColumnFamilyStore cfs, File dir, SSTableReader x, LifecycleTransaction txn)
    {
        StatsMetadata meta = x.getSSTableMetadata();
        Descriptor desc = cfs.newSSTableDescriptor(dir);
        return desc.getFormat().getWriterFactory().builder(desc)
                   .setKeyCount(x.estimatedKeys())
                   .setRepairedAt(meta.repairedAt)
                   .setPendingRepair(meta.pendingRepair)
                   .setTransientSSTable(meta.isTransient)
                   .setTableMetadataRef(cfs.metadata)
                   .setMetadataCollector(new MetadataCollector(List.of(x), cfs.metadata().comparator)
                                         .sstableLevel(x.getSSTableLevel()))
                   .setSerializationHeader(x.header)
                   .addDefaultComponents(cfs.indexManager.listIndexGroups())
                   .setSecondaryIndexGroups(cfs.indexManager.listIndexGroups())
                   .build(txn, cfs);
    }
}
