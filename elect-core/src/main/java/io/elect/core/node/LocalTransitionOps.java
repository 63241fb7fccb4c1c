package io.elect.core.node;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.config.ColdTierStores;
import io.elect.core.node.LocalTables.TableFile;
import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.stripes.MemberServer;
import io.elect.core.stripes.NodeMemberReader;
import io.elect.core.stripes.ParityBuilder;
import io.elect.core.stripes.ParityFiles;
import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.RemoteStripeParticipant;
import io.elect.core.transition.wire.TransitionMessages;
import io.elect.core.transition.wire.TransitionMessages.BuildParityRequest;
import io.elect.core.transition.wire.TransitionMessages.ComponentRef;
import io.elect.core.transition.wire.TransitionMessages.DropParityRequest;
import io.elect.core.transition.wire.TransitionMessages.MemberInfo;
import io.elect.core.transition.wire.TransitionMessages.MemberRequest;
import io.elect.core.transition.wire.NodeSnapshot;
import io.elect.core.transition.wire.TransitionMessages.OffloadRequest;
import io.elect.core.transition.wire.TransitionMessages.ParityInfo;
import io.elect.core.transition.wire.TransitionMessages.SnapshotRequest;
import io.elect.core.transition.wire.TransitionMessages.StubRequest;
import io.elect.core.transition.wire.TransitionMessages.StripeRef;
import io.elect.core.transition.wire.TransitionMessages.StubCount;
import io.elect.core.transition.wire.TransitionMessages.StubResult;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.core.transport.Verbs;
import io.elect.offload.ColdStore;

/**
 * This node's side of the transitioning verbs (docs/formats/verbs.md): its byte snapshot and candidates, pinning a
 * member, building a parity member, stubbing the secondaries of a member, installing a stub, commit, rollback and
 * dropping parity; {@link #maintain} runs {@link NodeMaintenance}. Every handler is
 * idempotent: the same request twice has the effect of one. Written against {@link LocalTables}, {@link Ring} and the
 * transport only.
 *
 * <p>Local state outside the storage engine's directories: parity members under {@link ParityFiles} in the node's
 * state directory.
 */
public final class LocalTransitionOps
{
    private static final Logger logger = LoggerFactory.getLogger(LocalTransitionOps.class);

    private final NodeContext node;
    private final Map<String, MemberInfo> pinned = new ConcurrentHashMap<>();
    private final MergeMarkers merges;
    private final ColdOffload offload;
    private final NodeSnapshots snapshots;
    private final NodeRebuilds rebuilds;
    private final NodeMaintenance maintenance;
    private final StubCoverage coverage;

    LocalTransitionOps(NodeContext node, NodeRebuilds rebuilds)
    {
        this.node = node;
        this.rebuilds = rebuilds;
        this.snapshots = new NodeSnapshots(node);
        this.merges = new MergeMarkers(node.stateDir());
        // a merge's next version, not named by a record yet, stays LOCAL: the change flow reads it by its id
        this.offload = new ColdOffload(node, (t, id) -> isPinned(t, id) || merges.isNextVersion(t, id), snapshots::readRate);
        this.maintenance = new NodeMaintenance(node, this, offload, merges);
        this.coverage = new StubCoverage(node, this);
    }

    /** This node's snapshot of the table (as SNAPSHOT returns it). */
    NodeSnapshot snapshot(TableRef t) throws IOException
    {
        return snapshots.snapshot(t);
    }

    /** Where STUB_INSTALL downloads a stub's components before installing them (one directory per install). */
    static final String STUB_DOWNLOADS = "stub-tmp";

    /**
     * Removes stub downloads a crash interrupted (a SIGKILL during STUB_INSTALL skips its cleanup; found by
     * TransitioningIT's crash test). Called before the verbs are registered, so no install is running; an interrupted
     * install is never resumed from its download: the stripe's owner sends STUB_INSTALL again or rolls back. Returns
     * how many downloads were removed.
     */
    static int clearInterruptedStubDownloads(Path stateDir) throws IOException
    {
        Path dir = stateDir.resolve(STUB_DOWNLOADS);
        if (!Files.isDirectory(dir))
            return 0;
        int removed = 0;
        try (java.util.stream.Stream<Path> s = Files.list(dir))
        {
            for (Path p : (Iterable<Path>) s::iterator)
            {
                Futures.deleteTree(p);
                removed++;
            }
        }
        return removed;
    }

    void register() throws IOException
    {
        int interrupted = clearInterruptedStubDownloads(node.stateDir());
        if (interrupted > 0)
            logger.info("removed {} stub downloads interrupted by a crash ({}/{})", interrupted, node.stateDir(), STUB_DOWNLOADS);
        // A node being rebuilt holds partial data: its snapshot would make the planner encode or offload against
        // bytes that are about to change, so rounds fail (and retry) until the rebuild is over.
        node.transport().register(Verbs.SNAPSHOT, p -> {
            if (rebuilds.running())
                throw new IllegalStateException("node " + node.self() + " " + NodeRebuild.REFUSAL);
            return snapshots.snapshot(SnapshotRequest.decode(p).table()).encode();
        });
        node.transport().register(Verbs.PIN, p -> pin(MemberRequest.decode(p)).encode());
        node.transport().register(Verbs.BUILD_PARITY, p -> buildParity(BuildParityRequest.decode(p)).encode());
        node.transport().register(Verbs.STUB, p -> stub(StubRequest.decode(p)).encode());
        node.transport().register(Verbs.STUB_INSTALL, p -> stubInstall(StubRequest.decode(p)).encode());
        node.transport().register(Verbs.STUB_PURGE, p -> purgeStubs(StripeRef.decode(p)).encode());
        node.transport().register(Verbs.STUB_REMOVE, p -> removeStubs(StripeRef.decode(p)).encode());
        node.transport().register(Verbs.STRIPE_STATUS, p -> MemberRestore.statusOf(node, TransitionMessages.StripeStatusRequest.decode(p)).encode());
        node.transport().register(Verbs.COMMIT, p -> commit(MemberRequest.decode(p)));
        node.transport().register(Verbs.ROLLBACK, p -> rollback(MemberRequest.decode(p)));
        node.transport().register(Verbs.DROP_PARITY, p -> dropParity(DropParityRequest.decode(p)));
        node.transport().register(Verbs.RETIRE_MEMBERS, p -> retireMembers(StripeRef.decode(p)).encode());
        new LocalChangeOps(node, merges, offload::redirects).register();
        node.transport().register(Verbs.OFFLOAD_PARITY, p -> offload.offloadParity(OffloadRequest.decode(p)).encode());
        node.transport().register(Verbs.OFFLOAD_PRIMARY, p -> offload.offloadPrimary(OffloadRequest.decode(p)).encode());
        // READ_MEMBER, with the fallback that serves files moved to the cold tier (and restored under new names)
        List<Path> roots = new ArrayList<>(node.tables().dataRoots());
        roots.add(node.stateDir());
        new MemberServer(node.transport(), roots, new MemberServer.Fallback()
        {
            @Override
            public Optional<ByteBuffer> read(Path path, long offset, int length) throws IOException
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

    /** {@code electtool updates}: see {@link UpdatesReport}. */
    public String updatesJson() throws IOException
    {
        return UpdatesReport.json(node, merges);
    }

    ColdOffload offload()
    {
        return offload;
    }

    NodeContext node()
    {
        return node;
    }

    private boolean isPinned(TableRef table, String sstable)
    {
        String prefix = table + "/" + sstable + "/";
        for (String k : pinned.keySet())
            if (k.startsWith(prefix))
                return true;
        return false;
    }

    /** The live file of the table with this id; IllegalStateException naming node and table if there is none. */
    TableFile live(TableRef t, String id) throws IOException
    {
        return find(t, id).orElseThrow(() -> new IllegalStateException("sstable " + id + " of " + t + " is not live on "
                                                                        + node.self()));
    }

    Optional<TableFile> find(TableRef t, String id) throws IOException
    {
        for (TableFile f : node.tables().files(t))
            if (f.id().equals(id))
                return Optional.of(f);
        return Optional.empty();
    }

    /**
     * The live file that is this node's member of a stripe: the file with the member's id, or else the LOCAL file
     * frozen under the stripe's tag (a member a rebuild restored under a new id: a node holds at most one member of a
     * stripe). IllegalStateException naming node and table if there is neither.
     */
    TableFile member(TableRef t, String id, String stripeId) throws IOException
    {
        TableFile tagged = null;
        for (TableFile f : node.tables().files(t))
        {
            if (f.id().equals(id))
                return f;
            if (stripeId.equals(f.frozenTag()) && f.source() == LocalTables.Source.LOCAL)
                tagged = f;
        }
        if (tagged != null)
            return tagged;
        throw new IllegalStateException("sstable " + id + " of " + t + " is not live on " + node.self());
    }

    // ------------------------------------------------------------------ PIN / COMMIT / ROLLBACK

    MemberInfo pin(MemberRequest req) throws IOException
    {
        String key = req.table() + "/" + req.sstable() + "/" + req.stripeId();
        TableFile f;
        try
        {
            f = member(req.table(), req.sstable(), req.stripeId());
        }
        catch (IllegalStateException e)
        {
            throw new IllegalStateException(TransitionMessages.MEMBER_NOT_TAKEN + e.getMessage(), e);
        }
        if (f.frozenTag() != null && !f.frozenTag().equals(req.stripeId()))
            throw new IllegalStateException(TransitionMessages.MEMBER_NOT_TAKEN + "sstable " + req.sstable() + " of " + req.table() + " on "
                                            + node.self() + " belongs to stripe " + f.frozenTag());
        if (f.source() != LocalTables.Source.LOCAL)
            throw new IllegalStateException("sstable " + req.sstable() + " of " + req.table() + " is tiered; only local SSTables are encoded");
        node.tables().freeze(req.table(), f.id(), req.stripeId());
        MemberInfo cached = pinned.get(key);
        if (cached != null)
            return cached;
        Path data = f.dataPath().toAbsolutePath();
        ChunkChecksums sums;
        try (FileChannel ch = FileChannel.open(data, StandardOpenOption.READ))
        {
            sums = ChunkChecksums.compute(ch, ChunkChecksums.DEFAULT_CHUNK_SIZE);
        }
        List<ComponentRef> comps = new ArrayList<>();
        for (LocalTables.ComponentFile c : node.tables().components(req.table(), f.id()))
            comps.add(new ComponentRef(c.name(), c.path().toAbsolutePath().toString(), c.length()));
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
        Optional<TableFile> f = find(req.table(), req.sstable());
        if (f.isEmpty())
        {
            // a member restored under a new id by a rebuild
            for (TableFile t : node.tables().files(req.table()))
                if (req.stripeId().equals(t.frozenTag()))
                    f = Optional.of(t);
            if (f.isEmpty())
                return TransitionMessages.ok();
        }
        String owner = f.get().frozenTag();
        if (owner != null && !owner.equals(req.stripeId()))
        {
            // An earlier attempt of this rollback already unfroze it here (another member's ROLLBACK failed, so the
            // stripe stayed ROLLING_BACK), and a later stripe has encoded it since: nothing of this stripe is left to
            // undo on this member, and failing would keep the stripe rolling back forever.
            logger.info("rollback of stripe {}: sstable {} of {} now belongs to stripe {}; nothing to undo", req.stripeId(),
                        req.sstable(), req.table(), owner);
            return TransitionMessages.ok();
        }
        node.tables().unfreeze(req.table(), f.get().id(), req.stripeId());
        return TransitionMessages.ok();
    }

    /**
     * RETIRE_MEMBERS: deletes this node's members (local or offloaded) of a RETIRING stripe; their cold objects become
     * garbage of the cold-tier collection (while this node drains, {@link Drains}, they are kept as ordinary SSTables). Idempotent (nothing left: 0). Refused unless the store says RETIRING, so
     * that a stale or forged request never deletes the only copy of live data.
     */
    StubCount retireMembers(StripeRef ref) throws IOException
    {
        StripeState state = stripeState(ref.stripeId());
        if (state == null || state == StripeState.RETIRED)
            return new StubCount(0, 0, 0);
        if (state != StripeState.RETIRING)
            throw new IllegalStateException("stripe " + ref.stripeId() + " is " + state + ": its members are not retired");
        if (!node.tables().exists(ref.table()))
            return new StubCount(0, 0, 0);
        int n = 0;
        long bytes = 0;
        boolean draining = Drains.marked(node, node.self());
        for (TableFile f : node.tables().files(ref.table()))
            if (!f.isStub() && ref.stripeId().equals(f.frozenTag()))
            {
                if (draining)
                {
                    // retired because this node drains (its stubs were materialized): the rows stay, unfrozen
                    Drains.keepRows(node, ref.table(), f, ref.stripeId());
                    continue;
                }
                long start = node.clock().nanoTime();
                node.tables().retire(ref.table(), f.id(), ref.stripeId());
                n++;
                bytes += f.dataBytes();
                logger.info("member {} of stripe {} ({}, {}) retired: {} data bytes, every row shadowed ({} ms)", f.id(), ref.stripeId(),
                            ref.table(), f.source(), f.dataBytes(), node.clock().millisSince(start));
            }
        return new StubCount(n, bytes, 0);
    }

    // ------------------------------------------------------------------ parity

    ParityInfo buildParity(BuildParityRequest req) throws IOException
    {
        TableRef t = req.table();
        Path file = node.parity().hot(t.keyspace(), t.table(), req.stripeId(), req.index());
        Path coldMarker = ParityFiles.coldMarker(file);
        String coldKey = ParityFiles.coldKey(t.keyspace(), t.table(), req.stripeId(), req.index());
        if (Files.exists(coldMarker))
            return new ParityInfo(LocatorMemberReader.cold(ColdTierStores.DEFAULT_STORE, coldKey), req.layout().stripeLength());
        long start = node.clock().nanoTime();
        ParityBuilder.ParityResult built = new ParityBuilder(node.tiered().coders(), node.clock())
            .build(req.layout(), req.index(), node.tiered().members(), file.getParent(), file.getFileName().toString());
        if (!req.cold())
        {
            logger.info("parity {} of stripe {} ({}) built: {} bytes ({} ms)", req.index(), req.stripeId(), req.table(),
                        built.length(), node.clock().millisSince(start));
            return new ParityInfo(RemoteStripeParticipant.nodeLocator(node.selfPeer(), built.path().toAbsolutePath().toString()),
                                  built.length());
        }
        ColdStore store = node.tiered().store(ColdTierStores.DEFAULT_STORE)
                              .orElseThrow(() -> new IllegalStateException("parity offload needs the cold tier (elect.offload_enabled and elect.cold_tier)"));
        store.put(coldKey, built.path());
        ParityFiles.writeColdMarker(coldMarker, built.stored()); // the object's length: recalls read up to it
        ParityFiles.deleteHot(built.path());
        logger.info("parity {} of stripe {} ({}) built and offloaded to {}: {} bytes ({} ms)", req.index(), req.stripeId(), req.table(),
                    coldKey, built.length(), node.clock().millisSince(start));
        return new ParityInfo(LocatorMemberReader.cold(ColdTierStores.DEFAULT_STORE, coldKey), built.length());
    }

    byte[] dropParity(DropParityRequest req) throws IOException
    {
        TableRef t = req.table();
        Path file = node.parity().hot(t.keyspace(), t.table(), req.stripeId(), req.index(), req.generation());
        synchronized (offload.parityLock) // not interleaved with an OFFLOAD_PARITY of the same member
        {
            ParityFiles.deleteHot(file);
            var store = node.tiered().store(ColdTierStores.DEFAULT_STORE);
            if (store.isPresent())
                store.get().delete(ParityFiles.coldKey(t.keyspace(), t.table(), req.stripeId(), req.index(), req.generation()));
            Files.deleteIfExists(ParityFiles.coldMarker(file));
        }
        return TransitionMessages.ok();
    }

    // ------------------------------------------------------------------ stubs

    /** On a data node: stub every secondary replica of the member's range. */
    StubResult stub(StubRequest req) throws IOException
    {
        TableFile f = member(req.table(), req.sstable(), req.stripeId());
        MemberInfo info = pin(new MemberRequest(req.table(), req.sstable(), req.stripeId()));
        List<ComponentRef> comps = new ArrayList<>();
        for (ComponentRef c : info.components())
            comps.add(new ComponentRef(c.name(), RemoteStripeParticipant.nodeLocator(node.selfPeer(), c.location()), c.length()));
        StubRequest install = new StubRequest(req.table(), req.sstable(), req.stripeId(), req.layout(), req.self(), info.checksums(), comps);
        List<CompletableFuture<byte[]>> calls = new ArrayList<>();
        // every replica of the member's span: with vnodes it may cover ranges with different secondaries
        for (String replica : node.ring().replicasOfSpan(req.table().keyspace(), f.firstToken(), f.lastToken()))
        {
            if (replica.equals(node.self()))
                continue;
            calls.add(node.transport().requestOnce(node.peer(replica), Verbs.STUB_INSTALL, install.encode(), 15 * 60_000L));
        }
        StubResult total = new StubResult(0, 0, 0, 0);
        for (byte[] answer : RemoteStripeParticipant.awaitAll(calls, "STUB_INSTALL"))
            total = total.plus(StubResult.decode(answer));
        return total;
    }

    /**
     * On a secondary: fetch the member's non-data components and install the stub, tagged with the stripe; nothing is
     * purged (STUB_PURGE does that once the stripe is STUBS_INSTALLED; a rebuild purges against all its stubs in one
     * pass). Refused for a stripe that is rolling back or gone: its rollback removes stubs, and a late install (a slow
     * coordinator) must not leave one behind.
     */
    StubResult stubInstall(StubRequest req) throws IOException
    {
        long start = node.clock().nanoTime();
        StripeState state = stripeState(req.stripeId());
        if (state == null || removesStubs(state))
            throw new IllegalStateException("stripe " + req.stripeId() + " is " + (state == null ? "gone" : state) + ": no stub installed");
        // A stub of the same member (same stripe, slot and data checksums) under another layout: the member was
        // restored under another file by a rebuild of its node since this stub was installed (a retried change), or
        // the stub was switched to a later generation. It serves the same rows; a second one would only duplicate
        // them, and would name a file the stripe record does not.
        if (node.tables().exists(req.table()))
            for (TableFile f : node.tables().files(req.table()))
                if (f.isStub() && req.stripeId().equals(f.frozenTag()) && f.sidecar().self() == req.self()
                    && f.sidecar().checksums().equals(req.checksums()))
                {
                    logger.info("stub of {} (stripe {} member {}) already installed on {} as {}", req.sstable(), req.stripeId(), req.self(),
                                req.table(), f.id());
                    return new StubResult(1, 0, 0, 0);
                }
        Path tmp = node.stateDir().resolve(STUB_DOWNLOADS).resolve(req.stripeId() + "-" + req.self());
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
                fetch(node.nodes(), c.location(), c.length(), dest);
                files.put(c.name(), dest);
            }
            String stub = node.tables().installStub(req.table(), files, req.layout(), req.self(), req.checksums(), req.stripeId());
            logger.info("stub of {} (stripe {} member {}) installed on {} as {} ({} ms)", req.sstable(), req.stripeId(), req.self(),
                        req.table(), stub, node.clock().millisSince(start));
            return new StubResult(1, 0, 0, 0);
        }
        finally
        {
            Futures.deleteTree(tmp);
        }
    }

    /** STUB_PURGE: purges this node's files against its stubs of the stripe (the stripe is STUBS_INSTALLED or later). */
    StubCount purgeStubs(StripeRef ref) throws IOException
    {
        StripeState state = stripeState(ref.stripeId());
        if (state == null || !state.purgesMayHaveBegun())
            throw new IllegalStateException("stripe " + ref.stripeId() + " is " + (state == null ? "gone" : state)
                                            + ": its stubs are not purged against");
        if (!node.tables().exists(ref.table()))
            return new StubCount(0, 0, 0);
        List<String> stubs = new ArrayList<>();
        for (TableFile f : node.tables().files(ref.table()))
            if (f.isStub() && ref.stripeId().equals(f.frozenTag()))
                stubs.add(f.id());
        if (stubs.isEmpty())
            return new StubCount(0, 0, 0);
        long start = node.clock().nanoTime();
        LocalTables.PurgeResult r = node.tables().purge(ref.table(), stubs, id -> true);
        logger.info("purge of {} against {} stubs of stripe {}: {} SSTables rewritten, {} -> {} bytes, {} busy ({} ms)", ref.table(),
                    stubs.size(), ref.stripeId(), r.rewritten(), r.bytesBefore(), r.bytesAfter(), r.busy().size(),
                    node.clock().millisSince(start));
        return new StubCount(stubs.size(), r.bytesBefore(), r.bytesAfter());
    }

    /** Whether a stripe in this state takes its stubs away (rolling back, or retiring: see StripeState). */
    static boolean removesStubs(StripeState s)
    {
        return s == StripeState.ROLLING_BACK || s == StripeState.ROLLED_BACK || s == StripeState.RETIRING || s == StripeState.RETIRED;
    }

    /**
     * STUB_REMOVE: removes this node's stubs of a stripe being rolled back (nothing was purged against them) or
     * retired (every file of it fully shadowed: nothing a read can return). Refused while the stripe may be relied on.
     */
    StubCount removeStubs(StripeRef ref) throws IOException
    {
        StripeState state = stripeState(ref.stripeId());
        if (state != null && state.purgesMayHaveBegun())
            throw new IllegalStateException("stripe " + ref.stripeId() + " is " + state + ": its stubs are not removed");
        if (!node.tables().exists(ref.table()))
            return new StubCount(0, 0, 0);
        int n = 0;
        for (TableFile f : node.tables().files(ref.table()))
            if (f.isStub() && ref.stripeId().equals(f.frozenTag()))
            {
                node.tables().removeStub(ref.table(), f.id());
                n++;
                logger.info("stub {} of stripe {} ({}) removed: the stripe is {}", f.id(), ref.stripeId(), ref.table(),
                            state == StripeState.RETIRING ? "retiring" : "rolled back");
            }
        return new StubCount(n, 0, 0);
    }

    /** The stripe's state in the store, or null if it has no row. */
    StripeState stripeState(String stripeId)
    {
        return node.store().get(StripeId.parse(stripeId)).map(r -> r.state()).orElse(null);
    }

    /**
     * Whether this node's files may be purged against a stub: an untagged stub (installed by an older version,
     * which purged at install) or one whose stripe is STUBS_INSTALLED or later. Stubs of a stripe in PARITY_BUILT are
     * not relied on yet (it may still roll back).
     */
    boolean purgeAllowed(TableFile stub, java.util.Map<String, StripeState> cache)
    {
        if (stub.frozenTag() == null)
            return true;
        StripeState s = cache.computeIfAbsent(stub.frozenTag(), this::stripeStateOrGone);
        return s != null && s.purgesMayHaveBegun();
    }

    StripeState stripeStateOrGone(String tag)
    {
        try
        {
            return stripeState(tag);
        }
        catch (IllegalArgumentException e)
        {
            return null; // not a stripe id
        }
    }

    // ------------------------------------------------------------------ maintenance

    /**
     * Installs the stubs a ring change made this node need ({@link StubCoverage}); cheap when the ring did not change.
     * Run by every maintenance pass and, so that a node taking over ranges from a leaving one has its stubs before the
     * leaving node is gone (Cassandra's LEAVING phase lasts about twice ring_delay), every 5 s on its own thread.
     */
    public int coverStubs()
    {
        synchronized (coverage)
        {
            return coverage.run();
        }
    }

    /** One pass of the node's periodic maintenance (see {@link NodeMaintenance}). */
    public void maintain()
    {
        maintenance.run();
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
}
