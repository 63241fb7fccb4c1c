package io.elect.core.bridge;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.db.compaction.OperationType;
import org.apache.cassandra.db.lifecycle.LifecycleTransaction;
import org.apache.cassandra.db.lifecycle.SSTableSet;
import org.apache.cassandra.db.lifecycle.View;
import org.apache.cassandra.io.sstable.Component;
import org.apache.cassandra.io.sstable.Descriptor;
import org.apache.cassandra.io.sstable.format.SSTableFormat;
import org.apache.cassandra.io.sstable.format.SSTableFormat.Components;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.io.sstable.format.TOCComponent;
import org.apache.cassandra.io.sstable.format.Version;
import org.apache.cassandra.schema.Schema;
import org.apache.cassandra.service.StorageService;

import io.elect.core.node.LocalTables;
import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.tiered.TieredSidecar;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.core.trees.RoleRanges;

/**
 * {@link LocalTables} over Cassandra: a table's files are its live SSTables; freezing goes through the frozen
 * registry ({@link FrozenSSTables}), tiering through {@link TieredSSTables}, stubs and purges through
 * {@link SecondaryStubs}, streaming through Cassandra's rebuild ({@link RebuildSources}). Ids are
 * {@code SSTableId.toString()}. Thread-safe.
 */
public final class CassandraTables implements LocalTables
{
    private final Bridge bridge;

    CassandraTables(Bridge bridge)
    {
        this.bridge = bridge;
    }

    /** replicatedShare's answers for the ring version they were computed under (a ring change clears them). */
    private final Map<String, Double> shares = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile long sharesRingVersion = Long.MIN_VALUE;

    /**
     * The uncompressed bytes of the file's partitions inside this node's replicated ranges (index lookups,
     * {@code getPositionsForRanges}, which a stub answers from its real index) over its uncompressed length; cached
     * per ring version.
     */
    @Override
    public double replicatedShare(TableRef t, TableFile file)
    {
        long version = StorageService.instance.getTokenMetadata().getRingVersion();
        if (version != sharesRingVersion)
        {
            shares.clear();
            sharesRingVersion = version;
        }
        String key = t + "/" + file.id();
        Double cached = shares.get(key);
        if (cached != null)
            return cached;
        SSTableReader r = live(cfs(t), file.id());
        if (r == null)
            return 1.0;
        org.apache.cassandra.locator.RangesAtEndpoint replicas = StorageService.instance.getLocalReplicas(t.keyspace());
        if (replicas.isEmpty())
            return 1.0; // not a ring member (yet): nothing to tell
        List<org.apache.cassandra.dht.Range<org.apache.cassandra.dht.Token>> local =
            org.apache.cassandra.dht.Range.normalize(replicas.ranges());
        long in = 0;
        for (SSTableReader.PartitionPositionBounds b : r.getPositionsForRanges(local))
            in += b.upperPosition - b.lowerPosition;
        long total = r.uncompressedLength();
        double share = total <= 0 ? 1.0 : Math.min(1.0, (double) in / total);
        shares.put(key, share);
        return share;
    }

    static ColumnFamilyStore cfs(TableRef t)
    {
        ColumnFamilyStore cfs = ColumnFamilyStore.getIfExists(t.keyspace(), t.table());
        if (cfs == null)
            throw new IllegalArgumentException("table " + t + " does not exist on this node");
        return cfs;
    }

    static SSTableReader live(ColumnFamilyStore cfs, String id)
    {
        for (SSTableReader r : cfs.getLiveSSTables())
            if (r.descriptor.id.toString().equals(id))
                return r;
        return null;
    }

    private static SSTableReader requireLive(ColumnFamilyStore cfs, TableRef t, String id)
    {
        SSTableReader r = live(cfs, id);
        if (r == null)
            throw new IllegalStateException("sstable " + id + " of " + t + " is not live on "
                                            + StorageService.instance.getLocalHostId());
        return r;
    }

    @Override
    public List<TableRef> electTables()
    {
        List<TableRef> out = new ArrayList<>();
        for (List<String> t : bridge.tables().registered())
            out.add(new TableRef(t.get(0), t.get(1)));
        return out;
    }

    @Override
    public boolean exists(TableRef table)
    {
        return ColumnFamilyStore.getIfExists(table.keyspace(), table.table()) != null;
    }

    @Override
    public boolean keyspaceExists(String keyspace)
    {
        return Schema.instance.getKeyspaceMetadata(keyspace) != null;
    }

    @Override
    public List<String> keyspaces()
    {
        return new ArrayList<>(Schema.instance.distributedKeyspaces().names());
    }

    @Override
    public int replicationFactor(TableRef table)
    {
        return Keyspace.open(table.keyspace()).getReplicationStrategy().getReplicationFactor().allReplicas;
    }

    @Override
    public int levels()
    {
        return ElectTables.LEVELS;
    }

    @Override
    public List<TableFile> files(TableRef t) throws IOException
    {
        ColumnFamilyStore cfs = cfs(t);
        ElectCompactionStrategy strategy = ElectTables.strategyOf(cfs);
        RoleRanges<org.apache.cassandra.dht.Token> roles = strategy == null ? null : strategy.currentRoles();
        Map<String, String> frozen = bridge.frozen().frozen(cfs);
        List<TableFile> out = new ArrayList<>();
        for (SSTableReader r : cfs.getLiveSSTables())
        {
            String id = r.descriptor.id.toString();
            Path data = r.descriptor.fileFor(Components.DATA).toPath();
            TieredSidecar sidecar = null;
            Source source = Source.LOCAL;
            if (TieredSSTables.isTiered(r))
            {
                try
                {
                    sidecar = TieredSSTables.sidecar(r.descriptor);
                }
                catch (NoSuchFileException e)
                {
                    continue; // deleted meanwhile
                }
                source = sidecar.source() == TieredSidecar.Source.COLD ? Source.COLD : Source.DECODED;
            }
            long dataBytes, dataMillis;
            try
            {
                dataBytes = sidecar != null ? sidecar.checksums().length() : Files.size(data);
                dataMillis = Files.getLastModifiedTime(data).toMillis();
            }
            catch (NoSuchFileException e)
            {
                continue; // obsoleted meanwhile
            }
            Integer role = roles == null ? null : roles.spanRole(r.getFirst().getToken(), r.getLast().getToken());
            long reads = r.getReadMeter() == null ? 0 : r.getReadMeter().count();
            out.add(new TableFile(id, source, r.getSSTableLevel(), role, r.bytesOnDisk(), dataBytes, dataMillis, reads,
                                  frozen.get(id), data, sidecar, r.getFirst().getToken().toString(),
                                  r.getLast().getToken().toString()));
        }
        return out;
    }

    @Override
    public Map<String, Long> obsoleteBytes(TableRef t) throws IOException
    {
        ColumnFamilyStore cfs = cfs(t);
        Map<String, Long> dataBytes = new HashMap<>();
        for (TableFile f : files(t))
            if (f.frozen())
                dataBytes.put(f.id(), f.dataBytes());
        Map<String, Long> out = new HashMap<>();
        for (Map.Entry<String, Double> e : bridge.obsolete().fractions(cfs, bridge.frozen()::isFrozen).entrySet())
        {
            Long bytes = dataBytes.get(e.getKey());
            if (bytes != null && e.getValue() > 0)
                out.put(e.getKey(), Math.round(e.getValue() * bytes));
        }
        return out;
    }

    @Override
    public List<ComponentFile> components(TableRef t, String id) throws IOException
    {
        SSTableReader r = requireLive(cfs(t), t, id);
        List<ComponentFile> out = new ArrayList<>();
        for (Component c : r.descriptor.discoverComponents())
        {
            if (c.equals(Components.DATA) || c.equals(Components.TOC) || c.name().equals(TieredSSTables.SIDECAR_NAME))
                continue;
            Path p = r.descriptor.fileFor(c).toPath().toAbsolutePath();
            if (Files.exists(p))
                out.add(new ComponentFile(c.name(), p, Files.size(p)));
        }
        return out;
    }

    @Override
    public void freeze(TableRef t, String id, String tag) throws IOException
    {
        ColumnFamilyStore cfs = cfs(t);
        bridge.frozen().freeze(cfs, requireLive(cfs, t, id), tag);
    }

    @Override
    public void unfreeze(TableRef t, String id, String tag) throws IOException
    {
        ColumnFamilyStore cfs = cfs(t);
        SSTableReader r = live(cfs, id);
        if (r != null)
            bridge.frozen().unfreeze(cfs, r, tag); // not live: its entry goes with the registry's garbage collection
    }

    @Override
    public String toCold(TableRef t, String id, String coldStore, BeforeSwap beforeSwap) throws IOException
    {
        ColumnFamilyStore cfs = cfs(t);
        SSTableReader r = requireLive(cfs, t, id);
        String tag = bridge.frozen().frozen(cfs).get(id);
        SSTableReader fresh = bridge.tiered().toCold(cfs, r, coldStore, beforeSwap::accept);
        if (tag != null)
            bridge.frozen().freeze(cfs, fresh, tag); // the owner stays recorded; the old id's entry is garbage-collected
        return fresh.descriptor.id.toString();
    }

    @Override
    public String rehydrate(TableRef t, String id, BeforeLive beforeLive) throws IOException
    {
        ColumnFamilyStore cfs = cfs(t);
        SSTableReader r = requireLive(cfs, t, id);
        String tag = bridge.frozen().frozen(cfs).get(id);
        SSTableReader fresh = bridge.tiered().rehydrate(cfs, r, (newId, data) -> {
            if (tag != null)
                bridge.frozen().registerBeforeLoad(cfs, newId, tag); // frozen before it is live: never compacted
            beforeLive.accept(newId, data);
        });
        return fresh.descriptor.id.toString();
    }

    @Override
    public String installStub(TableRef t, Map<String, Path> components, StripeLayout layout, int self, ChunkChecksums checksums,
                              String tag) throws IOException
    {
        ColumnFamilyStore cfs = cfs(t);
        SSTableReader stub = bridge.stubs().install(cfs, components, layout, self, checksums, id -> bridge.frozen().registerBeforeLoad(cfs, id, tag));
        String id = stub.descriptor.id.toString();
        if (bridge.frozen().frozen(cfs).get(id) == null)
            bridge.frozen().registerBeforeLoad(cfs, id, tag); // a stub installed (untagged) by an older version
        return id;
    }

    /** Obsoletes the stub in one lifecycle transaction (its files go once no read holds it). */
    @Override
    public void removeStub(TableRef t, String id) throws IOException
    {
        ColumnFamilyStore cfs = cfs(t);
        SSTableReader r = live(cfs, id);
        if (r == null)
            return;
        if (!TieredSSTables.isTiered(r) || TieredSSTables.sidecar(r.descriptor).source() != TieredSidecar.Source.DECODED)
            throw new IllegalArgumentException("sstable " + id + " of " + t + " is not a stub");
        obsolete(cfs, r, "stub " + id + " of " + t);
    }

    @Override
    public long materializeStub(TableRef t, String id) throws IOException
    {
        ColumnFamilyStore cfs = cfs(t);
        SSTableReader r = live(cfs, id);
        if (r == null)
            return 0;
        if (!TieredSSTables.isTiered(r) || TieredSSTables.sidecar(r.descriptor).source() != TieredSidecar.Source.DECODED)
            throw new IllegalArgumentException("sstable " + id + " of " + t + " is not a stub");
        return StubMaterialize.materialize(cfs, r, bridge.node().clock());
    }

    @Override
    public void relayoutStub(TableRef t, String id, StripeLayout next) throws IOException
    {
        ColumnFamilyStore cfs = cfs(t);
        SSTableReader r = live(cfs, id);
        if (r == null || !TieredSSTables.isTiered(r))
            throw new IllegalArgumentException("sstable " + id + " of " + t + " is not a live stub");
        TieredSidecar before = TieredSSTables.sidecar(r.descriptor);
        if (before.source() != TieredSidecar.Source.DECODED)
            throw new IllegalArgumentException("sstable " + id + " of " + t + " is not a stub");
        if (!before.stripe().equals(next))
            TieredSidecar.decoded(before.checksums(), next, before.self()).write(TieredSSTables.sidecarPath(r.descriptor));
        bridge.tiered().runtime().relayout(before, next);
    }

    /** Obsoletes a live SSTable in one lifecycle transaction (its files go once no read holds it); busy: retry later. */
    private static void obsolete(ColumnFamilyStore cfs, SSTableReader r, String what)
    {
        SSTableHold held = SSTableHold.tryAcquire(cfs, r, OperationType.UNKNOWN);
        if (held == null)
            throw new IllegalStateException(what + " is busy (compaction, purge or paused compactions); retry later");
        try (held)
        {
            held.txn().obsoleteOriginals();
            held.txn().finish();
        }
    }

    @Override
    public void retire(TableRef t, String id, String tag) throws IOException
    {
        ColumnFamilyStore cfs = cfs(t);
        SSTableReader r = live(cfs, id);
        if (r == null)
            return;
        String owner = bridge.frozen().frozen(cfs).get(id);
        if (!tag.equals(owner))
            throw new IllegalStateException("sstable " + id + " of " + t + " is frozen under " + owner + ", not " + tag + ": not retired");
        if (TieredSSTables.isTiered(r) && TieredSSTables.sidecar(r.descriptor).source() == TieredSidecar.Source.DECODED)
            throw new IllegalStateException("sstable " + id + " of " + t + " is a stub, not a member");
        obsolete(cfs, r, "member " + id + " of " + t);
    }

    @Override
    public Map<String, Map<Integer, Boolean>> shadowedFiles(TableRef t, boolean scan) throws IOException
    {
        ColumnFamilyStore cfs = cfs(t);
        Map<String, Double> coverage = bridge.obsolete().coverage(cfs, bridge.frozen()::isFrozen);
        return bridge.shadows().stripes(cfs, bridge.frozen().frozen(cfs), coverage, scan, bridge.node().clock());
    }

    /**
     * Installs data + components as a new frozen LOCAL SSTable (big format), crash-safe the way stubs are (registered
     * NEW in a lifecycle transaction before its first file), frozen under the tag before it is opened, with
     * {@code beforeLive} run before it becomes live.
     */
    @Override
    public String installRestored(TableRef t, Map<String, Path> files, String version, Path data, String tag, BeforeLive beforeLive)
    throws IOException
    {
        ColumnFamilyStore cfs = cfs(t);
        SSTableFormat<?, ?> big = DatabaseDescriptor.getSSTableFormats().get("big");
        Version v = big.getVersion(version);
        Descriptor desc = cfs.newSSTableDescriptor(cfs.getDirectories().getDirectoryForNewSSTables(), v);
        Map<Component, Path> sources = new LinkedHashMap<>();
        for (Map.Entry<String, Path> e : files.entrySet())
            sources.put(Component.parse(e.getKey(), big), e.getValue());
        sources.put(Components.DATA, data);
        Set<Component> all = new LinkedHashSet<>(sources.keySet());
        all.add(Components.TOC);
        LifecycleTransaction txn = cfs.getTracker().tryModify(Collections.emptyList(), OperationType.UNKNOWN);
        SSTableReader fresh = null;
        try
        {
            txn.trackNew(new SecondaryStubs.PendingSSTable(desc, all, cfs));
            for (Map.Entry<Component, Path> e : sources.entrySet())
                SecondaryStubs.copyDurably(e.getValue(), desc.fileFor(e.getKey()).toPath());
            TOCComponent.updateTOC(desc, all);
            SecondaryStubs.fsyncDirectory(desc.directory.toPath());
            bridge.frozen().registerBeforeLoad(cfs, desc.id.toString(), tag);
            beforeLive.accept(desc.id.toString(), desc.fileFor(Components.DATA).toPath().toAbsolutePath());
            fresh = SSTableReader.open(cfs, desc);
            txn.update(fresh, false);
            fresh = null;
            txn.finish();
        }
        catch (IOException | RuntimeException e)
        {
            if (fresh != null)
                fresh.selfRef().release();
            try
            {
                txn.abort();
            }
            catch (RuntimeException suppressed)
            {
                e.addSuppressed(suppressed);
            }
            throw e instanceof IOException ? (IOException) e : new IOException("cannot install the restored member as " + desc, e);
        }
        finally
        {
            txn.close();
        }
        return TieredSSTables.live(cfs, desc).orElseThrow(() -> new IOException(desc + " was installed but is not live"))
                             .descriptor.id.toString();
    }

    @Override
    public Merged mergeMember(TableRef t, String id, String tag, Predicate<String> replicated, double minShare) throws IOException
    {
        ColumnFamilyStore cfs = cfs(t);
        Map<String, String> tags = bridge.frozen().frozen(cfs);
        try (ColumnFamilyStore.RefViewFragment view = cfs.selectAndReference(View.selectFunction(SSTableSet.LIVE)))
        {
            SSTableReader f = null;
            for (SSTableReader r : view.sstables)
                if (r.descriptor.id.toString().equals(id))
                    f = r;
            // LOCAL, or offloaded (COLD: the scan reads it from the cold tier); never a stub
            if (f == null || !tag.equals(tags.get(id))
                || TieredSSTables.isTiered(f) && TieredSSTables.sidecar(f.descriptor).source() != TieredSidecar.Source.COLD)
                throw new IllegalStateException("sstable " + id + " of " + t + " is not a live member (LOCAL or COLD) frozen under " + tag);
            List<SSTableReader> shadows = MemberMerge.shadows(f, tag, view.sstables, tags, replicated);
            // a merge declined against these shadows is declined again: do not rewrite the member every round
            String key = cfs.metadata().id + "/" + id;
            java.util.Set<String> against = new java.util.TreeSet<>();
            shadows.forEach(g -> against.add(g.descriptor.id.toString()));
            against.add("share=" + minShare);
            if (against.equals(declinedMerges.get(key)))
                return null;
            Merged m = MemberMerge.merge(cfs, f, shadows, minShare, x -> bridge.frozen().registerBeforeLoad(cfs, x, tag), bridge.node().clock());
            if (m == null)
                declinedMerges.put(key, against);
            else
                declinedMerges.remove(key);
            declinedMerges.keySet().removeIf(k -> k.startsWith(cfs.metadata().id + "/") && tags.get(k.substring(k.indexOf('/') + 1)) == null);
            return m;
        }
    }

    /** Merges declined, by "table id/member id": the shadows (ids) and share they were declined against. */
    private final Map<String, java.util.Set<String>> declinedMerges = new java.util.concurrent.ConcurrentHashMap<>();

    @Override
    public PurgeResult purge(TableRef t, List<String> shadows, Predicate<String> eligible) throws IOException
    {
        ColumnFamilyStore cfs = cfs(t);
        List<SSTableReader> shadowReaders = new ArrayList<>();
        for (String id : shadows)
        {
            SSTableReader r = live(cfs, id);
            if (r != null)
                shadowReaders.add(r);
        }
        SecondaryStubs.PurgeStats st = bridge.stubs().purge(cfs, shadowReaders,
                                                            x -> !bridge.frozen().isFrozen(x) && eligible.test(x.descriptor.id.toString()));
        List<String> busy = new ArrayList<>();
        for (SSTableReader r : st.busy())
            busy.add(r.descriptor.id.toString());
        return new PurgeResult(st.examined(), st.rewritten(), busy, st.bytesBefore(), st.bytesAfter(), st.millis());
    }

    @Override
    public String coldKeyPrefix(TableRef t)
    {
        return TieredSSTables.coldKeyPrefix(t.keyspace(), t.table());
    }

    /** Live COLD SSTables, and every tiered sidecar under the table's directories (snapshots and backups included). */
    @Override
    public java.util.Set<String> referencedColdKeys(TableRef t) throws IOException
    {
        ColumnFamilyStore cfs = cfs(t);
        java.util.Set<String> keys = new java.util.HashSet<>();
        for (org.apache.cassandra.io.util.File dir : cfs.getDirectories().getCFDirectories())
        {
            if (!Files.isDirectory(dir.toPath()))
                continue;
            try (java.util.stream.Stream<Path> s = Files.walk(dir.toPath()))
            {
                for (Path p : (Iterable<Path>) s.filter(p -> p.getFileName().toString().endsWith("-" + TieredSSTables.SIDECAR_NAME))::iterator)
                {
                    try
                    {
                        TieredSidecar sc = TieredSidecar.read(p);
                        if (sc.source() == TieredSidecar.Source.COLD)
                            keys.add(sc.coldKey());
                    }
                    catch (NoSuchFileException e)
                    {
                        // deleted meanwhile
                    }
                }
            }
        }
        return keys;
    }

    @Override
    public List<Path> dataRoots()
    {
        List<Path> roots = new ArrayList<>();
        for (String dir : DatabaseDescriptor.getAllDataFileLocations())
            roots.add(Paths.get(dir).toAbsolutePath());
        return roots;
    }

    @Override
    public AutoCloseable pauseCompaction(List<TableRef> tables)
    {
        List<ColumnFamilyStore> paused = new ArrayList<>();
        for (TableRef t : tables)
        {
            ColumnFamilyStore cfs = ColumnFamilyStore.getIfExists(t.keyspace(), t.table());
            if (cfs == null || cfs.isAutoCompactionDisabled())
                continue;
            cfs.disableAutoCompaction();
            paused.add(cfs);
        }
        return () -> {
            for (ColumnFamilyStore cfs : paused)
                cfs.enableAutoCompaction();
        };
    }

    @Override
    public void streamKeyspace(String keyspace, boolean electTables) throws IOException
    {
        try
        {
            if (electTables)
                RebuildSources.stream(keyspace, bridge.node().clock());
            else
                StorageService.instance.rebuild(null, keyspace, null, null);
        }
        catch (RuntimeException e)
        {
            throw new IOException("Cassandra's rebuild (streaming " + keyspace + " from the other replicas) failed: " + e.getMessage(), e);
        }
    }
}
