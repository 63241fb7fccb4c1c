package io.elect.core.bridge;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.io.sstable.Component;
import org.apache.cassandra.io.sstable.format.SSTableFormat.Components;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.locator.InetAddressAndPort;
import org.apache.cassandra.locator.Replica;
import org.apache.cassandra.utils.FBUtilities;

import io.elect.core.config.ColdTierStores;
import io.elect.core.config.ElectConfig;
import io.elect.core.tiered.ChunkChecksums;
import io.elect.core.tiered.LocatorMemberReader;
import io.elect.core.tiered.StripeMemberReader;
import io.elect.core.stripes.MemberServer;
import io.elect.core.stripes.NodeMemberReader;
import io.elect.core.stripes.ParityBuilder;
import io.elect.core.stripes.ParitySidecar;
import io.elect.core.tiered.TieredSidecar;
import io.elect.core.transition.RemoteStripeParticipant;
import io.elect.core.transition.wire.TransitionMessages;
import io.elect.core.transition.wire.TransitionMessages.BuildParityRequest;
import io.elect.core.transition.wire.TransitionMessages.ComponentRef;
import io.elect.core.transition.wire.TransitionMessages.DropParityRequest;
import io.elect.core.transition.wire.TransitionMessages.MemberInfo;
import io.elect.core.transition.wire.TransitionMessages.MemberRequest;
import io.elect.core.transition.wire.TransitionMessages.NodeSnapshot;
import io.elect.core.transition.wire.TransitionMessages.OffloadRequest;
import io.elect.core.transition.wire.TransitionMessages.ParityInfo;
import io.elect.core.transition.wire.TransitionMessages.SnapshotRequest;
import io.elect.core.transition.wire.TransitionMessages.StubRequest;
import io.elect.core.transition.wire.TransitionMessages.StubResult;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.core.transport.Peer;
import io.elect.core.transport.Transport;
import io.elect.core.transport.Verbs;
import io.elect.offload.ColdStore;

/**
 * This node's side of the transitioning verbs (docs/formats/verbs.md): its byte snapshot and candidates, pinning a
 * member, building a parity member, stubbing the secondaries of a member, installing a stub, commit, rollback and
 * dropping parity. Every handler is idempotent: the same request twice has the effect of one.
 *
 * <p>Local state outside Cassandra's directories ({@link ElectStateDir}): {@code parity/<ks>.<table>/<stripe>-p<j>.parity}
 * (hot parity members with their checksum sidecars, see docs/formats/parity-file.md) and
 * {@code parity/<ks>.<table>/<stripe>-p<j>.cold} (a parity member moved to the cold tier: its length, for accounting).
 */
final class LocalTransitionOps
{
    private static final Logger logger = LoggerFactory.getLogger(LocalTransitionOps.class);

    private final ElectConfig config;
    private final Transport transport;
    private final Peer self;
    private final StripeMemberReader members;
    private final NodeMemberReader nodes;
    private final Map<String, MemberInfo> pinned = new ConcurrentHashMap<>();
    /** Per stub (table/id): SSTables already purged against it (in memory: a restart re-examines each once). */
    private final Map<String, Set<String>> examined = new ConcurrentHashMap<>();
    private final ColdOffload offload = new ColdOffload(this::isPinned);
    private final NodeSnapshots snapshots;

    LocalTransitionOps(ElectConfig config, Transport transport, StripeMemberReader members, NodeMemberReader nodes)
    {
        this.nodes = nodes;
        this.snapshots = new NodeSnapshots(config, transport.localPeer().host());
        this.config = config;
        this.transport = transport;
        this.self = transport.localPeer();
        this.members = members;
    }

    /** This node's snapshot of the table (as SNAPSHOT returns it). */
    NodeSnapshot snapshot(TableRef t) throws IOException
    {
        return snapshots.snapshot(t);
    }

    void register()
    {
        // A node being rebuilt holds partial data: its snapshot would make the planner encode or offload against
        // bytes that are about to change, so rounds fail (and retry) until the rebuild is over.
        transport.register(Verbs.SNAPSHOT, p -> {
            if (NodeRebuild.running())
                throw new IllegalStateException("node " + self.host() + " " + NodeRebuild.REFUSAL);
            return snapshots.snapshot(SnapshotRequest.decode(p).table()).encode();
        });
        transport.register(Verbs.PIN, p -> pin(MemberRequest.decode(p)).encode());
        transport.register(Verbs.BUILD_PARITY, p -> buildParity(BuildParityRequest.decode(p)).encode());
        transport.register(Verbs.STUB, p -> stub(StubRequest.decode(p)).encode());
        transport.register(Verbs.STUB_INSTALL, p -> stubInstall(StubRequest.decode(p), true).encode());
        transport.register(Verbs.STRIPE_STATUS, p -> MemberRestore.statusOf(this, TransitionMessages.StripeStatusRequest.decode(p)).encode());
        transport.register(Verbs.COMMIT, p -> commit(MemberRequest.decode(p)));
        transport.register(Verbs.ROLLBACK, p -> rollback(MemberRequest.decode(p)));
        transport.register(Verbs.DROP_PARITY, p -> dropParity(DropParityRequest.decode(p)));
        transport.register(Verbs.OFFLOAD_PARITY, p -> offload.offloadParity(OffloadRequest.decode(p)).encode());
        transport.register(Verbs.OFFLOAD_PRIMARY, p -> offload.offloadPrimary(OffloadRequest.decode(p)).encode());
        // READ_MEMBER again, now with the fallback that serves files moved to the cold tier from there (replaces the
        // plain server TransitionService registered; same roots).
        try
        {
            new MemberServer(transport, ColdOffload.memberRoots(), new MemberServer.Fallback()
            {
                @Override
                public java.util.Optional<ByteBuffer> read(Path path, long offset, int length) throws IOException
                {
                    return offload.read(path, offset, length);
                }

                @Override
                public boolean overrides(Path path)
                {
                    return offload.overrides(path);
                }
            });
        }
        catch (IOException e)
        {
            throw new java.io.UncheckedIOException("READ_MEMBER server: " + e.getMessage(), e);
        }
    }

    ColdOffload offload()
    {
        return offload;
    }

    Transport transport()
    {
        return transport;
    }

    NodeMemberReader nodes()
    {
        return nodes;
    }

    StripeMemberReader members()
    {
        return members;
    }

    Peer self()
    {
        return self;
    }

    private boolean isPinned(TableRef table, String sstable)
    {
        String prefix = table + "/" + sstable + "/";
        for (String k : pinned.keySet())
            if (k.startsWith(prefix))
                return true;
        return false;
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

    static Path parityDir(TableRef t) throws IOException
    {
        Path dir = ElectStateDir.root().resolve("parity").resolve(t.keyspace() + "." + t.table());
        Files.createDirectories(dir);
        return dir;
    }

    /** {hot, cold} parity bytes of the table held by this node. */
    static long[] parityBytes(TableRef t) throws IOException
    {
        long hot = 0, cold = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(parityDir(t)))
        {
            for (Path p : ds)
            {
                String name = p.getFileName().toString();
                if (name.endsWith(".parity"))
                    hot += Files.size(p);
                else if (name.endsWith(".cold"))
                    cold += Long.parseLong(Files.readString(p, StandardCharsets.US_ASCII).trim());
            }
        }
        return new long[]{ hot, cold };
    }

    // ------------------------------------------------------------------ PIN / COMMIT / ROLLBACK

    MemberInfo pin(MemberRequest req) throws IOException
    {
        String key = req.table() + "/" + req.sstable() + "/" + req.stripeId();
        ColumnFamilyStore cfs = cfs(req.table());
        SSTableReader r = live(cfs, req.sstable());
        if (r == null)
            throw new IllegalStateException("sstable " + req.sstable() + " of " + req.table() + " is not live on " + self.host());
        if (TieredSSTables.isTiered(r))
            throw new IllegalStateException("sstable " + req.sstable() + " of " + req.table() + " is tiered; only local SSTables are encoded");
        FrozenSSTables.freeze(cfs, r, req.stripeId());
        MemberInfo cached = pinned.get(key);
        if (cached != null)
            return cached;
        Path data = r.descriptor.fileFor(Components.DATA).toPath().toAbsolutePath();
        ChunkChecksums sums;
        try (FileChannel ch = FileChannel.open(data, StandardOpenOption.READ))
        {
            sums = ChunkChecksums.compute(ch, ChunkChecksums.DEFAULT_CHUNK_SIZE);
        }
        List<ComponentRef> comps = new ArrayList<>();
        for (Component c : r.descriptor.discoverComponents())
        {
            if (c.equals(Components.DATA) || c.equals(Components.TOC))
                continue; // the stub's data is DECODED and its TOC is written by the secondary
            Path p = r.descriptor.fileFor(c).toPath().toAbsolutePath();
            if (Files.exists(p))
                comps.add(new ComponentRef(c.name(), p.toString(), Files.size(p)));
        }
        MemberInfo info = new MemberInfo(data.toString(), sums, comps);
        pinned.put(key, info);
        logger.info("pinned {} of {} for stripe {} ({} data bytes)", req.sstable(), req.table(), req.stripeId(), sums.length());
        return info;
    }

    byte[] commit(MemberRequest req)
    {
        pinned.remove(req.table() + "/" + req.sstable() + "/" + req.stripeId());
        return TransitionMessages.ok();
    }

    byte[] rollback(MemberRequest req) throws IOException
    {
        pinned.remove(req.table() + "/" + req.sstable() + "/" + req.stripeId());
        ColumnFamilyStore cfs = cfs(req.table());
        SSTableReader r = live(cfs, req.sstable());
        if (r == null)
            return TransitionMessages.ok();
        String owner = FrozenSSTables.frozen(cfs).get(r.descriptor.id.toString());
        if (owner != null && !owner.equals(req.stripeId()))
        {
            // An earlier attempt of this rollback already unfroze it here (another member's ROLLBACK failed, so the
            // stripe stayed ROLLING_BACK), and a later stripe has encoded it since: nothing of this stripe is left to
            // undo on this member, and failing would keep the stripe rolling back forever.
            logger.info("rollback of stripe {}: sstable {} of {} now belongs to stripe {}; nothing to undo", req.stripeId(),
                        req.sstable(), req.table(), owner);
            return TransitionMessages.ok();
        }
        FrozenSSTables.unfreeze(cfs, r, req.stripeId());
        return TransitionMessages.ok();
    }

    // ------------------------------------------------------------------ parity

    static String parityName(String stripeId, int index)
    {
        return stripeId + "-p" + index + ".parity";
    }

    static String coldParityKey(TableRef t, String stripeId, int index)
    {
        return "parity/" + t.keyspace() + "." + t.table() + "/" + stripeId + "/" + index;
    }

    ParityInfo buildParity(BuildParityRequest req) throws IOException
    {
        Path dir = parityDir(req.table());
        String name = parityName(req.stripeId(), req.index());
        Path coldMarker = dir.resolve(name.replace(".parity", ".cold"));
        String coldKey = coldParityKey(req.table(), req.stripeId(), req.index());
        if (Files.exists(coldMarker))
            return new ParityInfo(LocatorMemberReader.cold(ColdTierStores.DEFAULT_STORE, coldKey), req.layout().stripeLength());
        long start = System.nanoTime();
        ParityBuilder.ParityResult built = new ParityBuilder().build(req.layout(), req.index(), members, dir, name);
        if (!req.cold())
        {
            logger.info("parity {} of stripe {} ({}) built: {} bytes ({} ms)", req.index(), req.stripeId(), req.table(),
                        built.length(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            return new ParityInfo(RemoteStripeParticipant.nodeLocator(self, built.path().toAbsolutePath().toString()), built.length());
        }
        ColdStore store = TieredSSTables.store(ColdTierStores.DEFAULT_STORE)
                                        .orElseThrow(() -> new IllegalStateException("parity offload needs the cold tier (elect.offload_enabled and elect.cold_tier)"));
        store.put(coldKey, built.path());
        ColdOffload.writeColdMarker(coldMarker, built.length());
        deleteParityFile(built.path());
        logger.info("parity {} of stripe {} ({}) built and offloaded to {}: {} bytes ({} ms)", req.index(), req.stripeId(), req.table(),
                    coldKey, built.length(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        return new ParityInfo(LocatorMemberReader.cold(ColdTierStores.DEFAULT_STORE, coldKey), built.length());
    }

    byte[] dropParity(DropParityRequest req) throws IOException
    {
        Path dir = parityDir(req.table());
        String name = parityName(req.stripeId(), req.index());
        synchronized (offload.parityLock) // not interleaved with an OFFLOAD_PARITY of the same member
        {
            deleteParityFile(dir.resolve(name));
            Path coldMarker = dir.resolve(name.replace(".parity", ".cold"));
            var store = TieredSSTables.store(ColdTierStores.DEFAULT_STORE);
            if (store.isPresent())
                store.get().delete(coldParityKey(req.table(), req.stripeId(), req.index()));
            Files.deleteIfExists(coldMarker);
        }
        return TransitionMessages.ok();
    }

    // ------------------------------------------------------------------ stubs

    /** On a data node: stub every secondary replica of the member's range. */
    StubResult stub(StubRequest req) throws IOException
    {
        ColumnFamilyStore cfs = cfs(req.table());
        SSTableReader r = live(cfs, req.sstable());
        if (r == null)
            throw new IllegalStateException("sstable " + req.sstable() + " of " + req.table() + " is not live on " + self.host());
        MemberInfo info = pin(new MemberRequest(req.table(), req.sstable(), req.stripeId()));
        List<ComponentRef> comps = new ArrayList<>();
        for (ComponentRef c : info.components())
            comps.add(new ComponentRef(c.name(), RemoteStripeParticipant.nodeLocator(self, c.location()), c.length()));
        StubRequest install = new StubRequest(req.table(), req.sstable(), req.stripeId(), req.layout(), req.self(), info.checksums(), comps);
        InetAddressAndPort me = FBUtilities.getBroadcastAddressAndPort();
        List<CompletableFuture<byte[]>> calls = new ArrayList<>();
        for (Replica replica : Keyspace.open(req.table().keyspace()).getReplicationStrategy()
                                       .getNaturalReplicasForToken(r.getFirst().getToken()))
        {
            if (replica.endpoint().equals(me))
                continue;
            Peer peer = new Peer(replica.endpoint().getAddress().getHostAddress(), self.port());
            calls.add(transport.requestOnce(peer, Verbs.STUB_INSTALL, install.encode(), 15 * 60_000L));
        }
        StubResult total = new StubResult(0, 0, 0, 0);
        for (CompletableFuture<byte[]> c : calls)
            total = total.plus(StubResult.decode(await(c)));
        return total;
    }

    /**
     * On a secondary: fetch the member's non-data components, install the stub and, if {@code purge}, purge the older
     * row versions it shadows (a rebuild installs all its stubs first and purges against all of them in one pass).
     */
    StubResult stubInstall(StubRequest req, boolean purge) throws IOException
    {
        long start = System.nanoTime();
        ColumnFamilyStore cfs = cfs(req.table());
        Path tmp = ElectStateDir.root().resolve("stub-tmp").resolve(req.stripeId() + "-" + req.self());
        Files.createDirectories(tmp);
        try
        {
            Map<String, Path> files = new LinkedHashMap<>();
            for (ComponentRef c : req.components())
            {
                if (c.name().contains("/") || c.name().contains(".."))
                    throw new IllegalArgumentException("bad component name '" + c.name() + "'");
                // keep the source file name (<version>-<id>-<format>-<component>): install reads the version from it
                Path dest = tmp.resolve(Paths.get(LocatorMemberReader.NodeLocator.parse(c.location()).path()).getFileName().toString());
                fetch(c.location(), c.length(), dest);
                files.put(c.name(), dest);
            }
            SSTableReader stub = SecondaryStubs.install(cfs, files, req.layout(), req.self(), req.checksums());
            SecondaryStubs.PurgeStats stats = purge ? SecondaryStubs.purge(cfs, stub, s -> !FrozenSSTables.isFrozen(s))
                                                    : SecondaryStubs.PurgeStats.NONE;
            logger.info("stub of {} (stripe {} member {}) installed on {} as {}; purge {} -> {} bytes, {} busy ({} ms)",
                        req.sstable(), req.stripeId(), req.self(), req.table(), stub.descriptor.id, stats.bytesBefore(),
                        stats.bytesAfter(), stats.skippedBusy(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            return new StubResult(1, stats.bytesBefore(), stats.bytesAfter(), stats.skippedBusy());
        }
        finally
        {
            deleteTree(tmp);
        }
    }

    // ------------------------------------------------------------------ maintenance

    /**
     * Purges, against every stub of every ELECT table, the SSTables that appeared since its last purge (flushes and
     * compactions after the stub was installed may hold row versions the stub shadows: writes that were still in a
     * memtable at install time, or compaction outputs mixing purged and unpurged data). Each SSTable is examined once
     * per stub; SSTables busy in a compaction are retried next time.
     */
    void maintain()
    {
        Set<String> liveStubs = new HashSet<>();
        for (List<String> t : ElectTables.registered())
        {
            ColumnFamilyStore cfs = ColumnFamilyStore.getIfExists(t.get(0), t.get(1));
            if (cfs == null)
                continue;
            List<SSTableReader> live = new ArrayList<>(cfs.getLiveSSTables());
            for (SSTableReader stub : live)
            {
                if (!isStub(stub))
                    continue;
                String key = t.get(0) + "." + t.get(1) + "/" + stub.descriptor.id;
                liveStubs.add(key);
                Set<String> seen = examined.computeIfAbsent(key, x -> ConcurrentHashMap.newKeySet());
                Set<SSTableReader> todo = new HashSet<>();
                for (SSTableReader r : live)
                    if (!TieredSSTables.isTiered(r) && !FrozenSSTables.isFrozen(r) && !seen.contains(r.descriptor.id.toString())
                        && r.getFirst().compareTo(stub.getLast()) <= 0 && r.getLast().compareTo(stub.getFirst()) >= 0)
                        todo.add(r);
                if (todo.isEmpty())
                    continue;
                try
                {
                    SecondaryStubs.PurgeStats st = SecondaryStubs.purge(cfs, stub, todo::contains);
                    for (SSTableReader r : todo)
                        if (!st.busy().contains(r))
                            seen.add(r.descriptor.id.toString());
                    if (st.rewritten() > 0)
                        logger.info("re-purge of {} against stub {}: {} SSTables rewritten, {} -> {} bytes ({} ms)", cfs.metadata(),
                                    stub.descriptor.id, st.rewritten(), st.bytesBefore(), st.bytesAfter(), st.millis());
                }
                catch (IOException | RuntimeException e)
                {
                    logger.warn("re-purge of {} against stub {} failed (retried next time): {}", cfs.metadata(), stub.descriptor.id, e.toString());
                }
            }
        }
        examined.keySet().retainAll(liveStubs);
    }

    static boolean isStub(SSTableReader r)
    {
        if (!TieredSSTables.isTiered(r))
            return false;
        try
        {
            return TieredSSTables.sidecar(r.descriptor).source() == TieredSidecar.Source.DECODED;
        }
        catch (IOException e)
        {
            return false;
        }
    }

    private static void deleteParityFile(Path file) throws IOException
    {
        Files.deleteIfExists(file);
        Files.deleteIfExists(ParitySidecar.of(file));
    }

    static void deleteTree(Path dir) throws IOException
    {
        if (!Files.exists(dir))
            return;
        try (java.util.stream.Stream<Path> s = Files.walk(dir))
        {
            for (Path p : (Iterable<Path>) s.sorted(java.util.Comparator.reverseOrder())::iterator)
                Files.deleteIfExists(p);
        }
    }

    private void fetch(String locator, long length, Path dest) throws IOException
    {
        fetch(nodes, locator, length, dest);
    }

    /** Copies a whole {@code node:} file of known length to dest (fsynced), 1 MiB per request. */
    static void fetch(NodeMemberReader nodes, String locator, long length, Path dest) throws IOException
    {
        try (FileChannel out = FileChannel.open(dest, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE))
        {
            long off = 0;
            int window = 1 << 20;
            while (off < length)
            {
                int n = (int) Math.min(window, length - off);
                ByteBuffer b = nodes.read(LocatorMemberReader.NodeLocator.parse(locator), off, n);
                while (b.hasRemaining())
                    out.write(b);
                off += n;
            }
            out.force(true);
        }
    }

    private static byte[] await(CompletableFuture<byte[]> f) throws IOException
    {
        try
        {
            return f.get();
        }
        catch (InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        catch (java.util.concurrent.ExecutionException e)
        {
            throw new IOException(e.getCause() == null ? e.toString() : e.getCause().getMessage(), e.getCause());
        }
    }
}
