package io.elect.core.node;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.coding.ErasureCoder;
import io.elect.core.node.LocalTables.TableFile;
import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.CountingMemberReader;
import io.elect.core.stripes.StripeMemberReader;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.stripes.ParityBuilder;
import io.elect.core.stripes.ParityDeltaApplier;
import io.elect.core.stripes.ParityFiles;
import io.elect.core.stripes.ParitySidecar;
import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.core.config.ColdTierStores;
import io.elect.core.transition.ParityUpdateCost;
import io.elect.core.transition.RemoteStripeParticipant;
import io.elect.core.transition.wire.ChangeMessages.MergeRequest;
import io.elect.core.transition.wire.ChangeMessages.MergeResult;
import io.elect.core.transition.wire.ChangeMessages.ParityChangeRequest;
import io.elect.core.transition.wire.ChangeMessages.RelayoutRequest;
import io.elect.core.transition.wire.ChangeMessages.RelayoutResult;
import io.elect.core.transition.wire.TransitionMessages.MemberLocation;
import io.elect.core.transition.wire.TransitionMessages.MemberRequest;
import io.elect.core.transition.wire.TransitionMessages.ParityInfo;
import io.elect.core.transition.wire.TransitionMessages.StubCount;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.core.transport.Verbs;
import io.elect.offload.ColdStore;

/**
 * This node's side of a stripe's member change (docs/design/updates.md item 4; verbs DESCRIBE_MEMBER,
 * PARITY_CHANGE, STUB_RELAYOUT, REMOVE_MEMBER in docs/formats/verbs.md). Each handler checks the stripe record's
 * state itself (a late or replayed request of another phase is refused or answered as done) and is idempotent.
 */
final class LocalChangeOps
{
    private static final Logger logger = LoggerFactory.getLogger(LocalChangeOps.class);
    /** Suffix of a previous parity generation recalled from the cold tier to compute the next one (never offloaded). */
    static final String RECALLED_SUFFIX = ".recalled";

    private final NodeContext node;
    private final MergeMarkers merges;
    private final MemberDeltas deltas;

    LocalChangeOps(NodeContext node, MergeMarkers merges)
    {
        this.node = node;
        this.merges = merges;
        this.deltas = new MemberDeltas(node, this::memberFile);
    }

    void register()
    {
        node.transport().register(Verbs.DESCRIBE_MEMBER, p -> describe(MemberRequest.decode(p)).encode());
        node.transport().register(Verbs.PARITY_CHANGE, p -> parityChange(ParityChangeRequest.decode(p)).encode());
        node.transport().register(Verbs.STUB_RELAYOUT, p -> relayout(RelayoutRequest.decode(p)).encode());
        node.transport().register(Verbs.REMOVE_MEMBER, p -> removeMember(MemberRequest.decode(p)).encode());
        node.transport().register(Verbs.MERGE_MEMBER, p -> merge(MergeRequest.decode(p)).encode());
        node.transport().register(Verbs.MEMBER_DELTA, p -> deltas.compute(
            io.elect.core.transition.wire.ChangeMessages.MemberDeltaRequest.decode(p)).encode());
        node.transport().register(Verbs.STUB_MATERIALIZE, p -> materialize(
            io.elect.core.transition.wire.ChangeMessages.MaterializeRequest.decode(p)).encode());
    }

    /**
     * STUB_MATERIALIZE: this node's stubs of member {@code slot} of a COMMITTED stripe become ordinary SSTables (the
     * member's node left the ring, issue 18). Refused unless the record still names the member on {@code departed}
     * and this node's ring view agrees that node has left (a stub is never unstubbed for a node that is merely down).
     * Idempotent: a retry finds no stub left (each is replaced atomically). Nothing happens once the slot is virtual.
     */
    io.elect.core.transition.wire.ChangeMessages.MaterializeResult materialize(
        io.elect.core.transition.wire.ChangeMessages.MaterializeRequest req) throws IOException
    {
        var none = new io.elect.core.transition.wire.ChangeMessages.MaterializeResult(0, 0);
        StripeRecord r = record(req.stripeId());
        if (req.slot() >= r.k())
            throw new IllegalArgumentException("stripe " + req.stripeId() + " has " + r.k() + " members, no slot " + req.slot());
        io.elect.core.stripes.Member m = r.members().get(req.slot());
        if (m.isVirtual())
            return none;
        if (r.state() != StripeState.COMMITTED || !m.node().equals(req.departed()))
            throw new IllegalStateException("stripe " + req.stripeId() + " is " + r.state() + " with member " + req.slot() + " on " + m.node()
                                            + ": stubs of a member on " + req.departed() + " are not materialized");
        if (!node.ring().hasLeft(req.departed()))
            throw new IllegalStateException(req.departed() + " has not left the ring for " + node.self() + ": stubs of its member "
                                            + req.slot() + " of stripe " + req.stripeId() + " are not materialized");
        TableRef t = req.table();
        if (!node.tables().exists(t))
            return none;
        int stubs = 0;
        long bytes = 0, start = node.clock().nanoTime();
        for (TableFile f : node.tables().files(t))
        {
            if (!f.isStub() || !req.stripeId().equals(f.frozenTag()) || f.sidecar().self() != req.slot())
                continue;
            bytes += node.tables().materializeStub(t, f.id());
            stubs++;
        }
        if (stubs > 0)
            logger.info("stripe {} ({}): {} stubs of member {} (its node {} left the ring) materialized, {} bytes ({} ms)", req.stripeId(), t,
                        stubs, req.slot(), req.departed(), bytes, node.clock().millisSince(start));
        return new io.elect.core.transition.wire.ChangeMessages.MaterializeResult(stubs, bytes);
    }

    private StripeRecord record(String stripeId)
    {
        return node.store().get(StripeId.parse(stripeId))
                   .orElseThrow(() -> new IllegalStateException("stripe " + stripeId + " has no record"));
    }

    /**
     * This node's live member file of the stripe named {@code sstable}: the file with that id, or else the one file
     * frozen under the stripe that the record does not name otherwise (an offloaded member has a new id; during a
     * merge the member's next version is frozen under the stripe too, and is never taken for the previous one:
     * neither once the record names it nor while a merge marker says what it is).
     */
    private TableFile memberFile(TableRef t, String sstable, String stripeId) throws IOException
    {
        StripeRecord r = node.store().get(StripeId.parse(stripeId)).orElse(null);
        java.util.Set<String> named = new java.util.HashSet<>();
        if (r != null)
        {
            // names of members on THIS node only: SSTable ids are per node (the simulation's repeat across nodes)
            r.members().stream().filter(m -> node.self().equals(m.node())).forEach(m -> named.add(m.sstable()));
            if (r.change() != null && node.self().equals(r.change().previous().node()))
                named.add(r.change().previous().sstable());
        }
        named.remove(RemoteStripeParticipant.memberName(t, sstable));
        TableFile tagged = null;
        int n = 0;
        for (TableFile f : node.tables().files(t))
        {
            if (f.isStub())
                continue;
            if (f.id().equals(sstable))
                return f;
            if (stripeId.equals(f.frozenTag()) && !named.contains(RemoteStripeParticipant.memberName(t, f.id())) && !merges.isNextVersion(t, f.id()))
            {
                tagged = f;
                n++;
            }
        }
        return n == 1 ? tagged : null; // two candidates are ambiguous
    }

    /**
     * MERGE_MEMBER: writes the next version of this node's member of a COMMITTED stripe (LocalTables#mergeMember:
     * without what newer members and stubs of other stripes that stubs have reached shadow), live, LOCAL and frozen
     * under the stripe beside the member, or declines. An offloaded (COLD) member is read from the cold tier for it
     * (recall-merge: its next version is hot until offloading picks it again). Idempotent: a next version this process wrote for the member
     * ({@link MergeMarkers}) is returned. Nothing names it until the coordinator records the change; NodeMaintenance
     * deletes one left unnamed.
     */
    MergeResult merge(MergeRequest req) throws IOException
    {
        TableRef t = req.table();
        StripeRecord r = record(req.stripeId());
        if (r.state() != StripeState.COMMITTED)
            throw new IllegalStateException("stripe " + req.stripeId() + " is " + r.state() + ": only a COMMITTED stripe's member is merged");
        String name = RemoteStripeParticipant.memberName(t, req.sstable());
        if (r.members().stream().noneMatch(m -> !m.isVirtual() && node.self().equals(m.node()) && name.equals(m.sstable())))
            throw new IllegalStateException("stripe " + req.stripeId() + " has no member " + name + " on " + node.self());
        // an offloaded member has a new id: memberFile finds it by the stripe's tag
        TableFile f = memberFile(t, req.sstable(), req.stripeId());
        if (f == null || f.isStub() || !req.stripeId().equals(f.frozenTag()))
            throw new IllegalStateException("member " + name + " of stripe " + req.stripeId() + " is not a live file of " + node.self());
        java.util.Optional<MergeMarkers.Marker> earlier = merges.of(req.stripeId(), t, f.id());
        if (earlier.isPresent())
            for (TableFile x : node.tables().files(t))
                if (x.id().equals(earlier.get().next()))
                    return new MergeResult(x.id(), x.dataBytes(), f.dataBytes()); // a retry: the next version already written
        long start = node.clock().nanoTime();
        LocalTables.Merged m = node.tables().mergeMember(t, f.id(), req.stripeId(), this::replicated, req.minShare());
        if (m == null)
        {
            logger.debug("member {} of stripe {} ({}) not merged: would free less than {} of its {} bytes", f.id(), req.stripeId(), t,
                         req.minShare(), f.dataBytes());
            return MergeResult.declined(f.dataBytes());
        }
        merges.put(new MergeMarkers.Marker(t, req.stripeId(), f.id(), m.id(), node.clock().millis()));
        logger.info("member {} ({}) of stripe {} ({}) merged into {}: {} -> {} data bytes ({} ms)", f.id(), f.source(), req.stripeId(), t,
                    m.id(), m.bytesBefore(), m.dataBytes(), node.clock().millisSince(start));
        return new MergeResult(m.id(), m.dataBytes(), m.bytesBefore());
    }

    /** Whether a stripe's stubs are on every replica of its members' ranges and stay (mergeMember's shadows). */
    private boolean replicated(String tag)
    {
        try
        {
            return node.store().get(StripeId.parse(tag)).map(x -> x.state().purgesMayHaveBegun()).orElse(false);
        }
        catch (IllegalArgumentException e)
        {
            return false; // not a stripe id
        }
    }

    /**
     * DESCRIBE_MEMBER: where a committed member's data can be read by any node and its chunk checksums: a LOCAL
     * member by this node's locator of its data file (checksums computed), a COLD one by its cold object's locator
     * (checksums from its sidecar).
     */
    MemberLocation describe(MemberRequest req) throws IOException
    {
        TableFile f = memberFile(req.table(), req.sstable(), req.stripeId());
        if (f == null || !req.stripeId().equals(f.frozenTag()))
            throw new IllegalStateException("no member " + req.sstable() + " of stripe " + req.stripeId() + " of " + req.table()
                                            + " is live on " + node.self());
        if (f.source() == LocalTables.Source.COLD)
            return new MemberLocation(LocatorMemberReader.cold(f.sidecar().coldStore(), f.sidecar().coldKey()), f.sidecar().checksums());
        Path data = f.dataPath().toAbsolutePath();
        try (FileChannel ch = FileChannel.open(data, StandardOpenOption.READ))
        {
            return new MemberLocation(RemoteStripeParticipant.nodeLocator(node.selfPeer(), data.toString()),
                                      ChunkChecksums.compute(ch, ChunkChecksums.DEFAULT_CHUNK_SIZE));
        }
    }

    /**
     * PARITY_CHANGE: generation g + 1 of this node's parity member from generation g (local, or recalled from the
     * cold tier into a temporary file) and the changed member's two versions, as a new local file (offloading picks it
     * up later). Refused unless the stripe is CHANGING to exactly that generation; a complete file already there (a
     * retry) is returned as it is.
     */
    ParityInfo parityChange(ParityChangeRequest req) throws IOException
    {
        TableRef t = req.table();
        StripeRecord r = record(req.stripeId());
        long gen = req.toGeneration();
        Path file = node.parity().hot(t.keyspace(), t.table(), req.stripeId(), req.index(), gen);
        if (r.parityGeneration() == gen && r.state() != StripeState.CHANGING)
        {
            var done = ParityBuilder.verify(file);
            if (done.isPresent() || Files.exists(ParityFiles.coldMarker(file)))
                return new ParityInfo(RemoteStripeParticipant.nodeLocator(node.selfPeer(), file.toAbsolutePath().toString()), r.codeLength());
        }
        if (r.state() != StripeState.CHANGING || r.parityGeneration() != gen)
            throw new IllegalStateException("stripe " + req.stripeId() + " is " + r.state() + " at parity generation " + r.parityGeneration()
                                            + ": no parity generation " + gen + " built");
        // Already there: a retry, or a rebuild of this node regenerated it from the record's (target) plan.
        long[] target = req.previous().dataLengths();
        target[req.slot()] = req.removal() ? 0 : req.afterChecksums().length();
        var present = ParityBuilder.verify(file);
        if (present.isPresent() && java.util.Arrays.equals(ParitySidecar.read(ParitySidecar.of(file)).dataLengths(), target))
            return new ParityInfo(RemoteStripeParticipant.nodeLocator(node.selfPeer(), file.toAbsolutePath().toString()), present.get().length());
        long start = node.clock().nanoTime();
        CountingMemberReader reader = new CountingMemberReader(node.tiered().members(), RemoteStripeParticipant.nodeLocator(node.selfPeer(), "/"));
        Path old = node.parity().hot(t.keyspace(), t.table(), req.stripeId(), req.index(), gen - 1);
        if (req.removal() && req.beforeChecksums().length() == 0)
            return reencode(req, old, start, reader, "encoded from the members other than " + req.slot() + " (its previous version is unreadable)");
        if (!Files.exists(old) && !Files.exists(ParityFiles.coldMarker(old)))
            return build(req, start, reader, "built here from its members (this node takes over the chunk)");
        String policy = node.config().updatePolicy;
        if ("reencode".equals(policy) || "auto".equals(policy) && autoReencodes(req, old))
            return reencode(req, old, start, reader, "encoded afresh from the members of the new plan (update_policy " + policy + ")");
        Path recalled = null;
        if (!Files.exists(old))
        {
            recalled = recall(t, req, old);
            old = recalled;
        }
        try
        {
            StripeLayout prev = req.previous();
            ErasureCoder coder = node.tiered().coders().get(prev.k(), prev.m());
            if (req.hasDelta() && !req.removal())
                return applyPushedDelta(req, coder, old, file, recalled, reader, start);
            ParityDeltaApplier.Version before = new ParityDeltaApplier.Version(
                verified(reader, prev, req.slot(), req.beforeChecksums()), req.beforeChecksums().length());
            ParityDeltaApplier.Version after = ParityDeltaApplier.Version.absent();
            if (!req.removal())
            {
                java.util.List<String> locators = new java.util.ArrayList<>(prev.locators());
                locators.set(req.slot(), req.afterLocator());
                long[] lengths = prev.dataLengths();
                lengths[req.slot()] = req.afterChecksums().length();
                StripeLayout next = new StripeLayout(prev.codecId(), prev.k(), prev.m(), lengths, prev.stripeLength(), locators);
                after = new ParityDeltaApplier.Version(verified(reader, next, req.slot(), req.afterChecksums()), req.afterChecksums().length());
            }
            long recalledBytes = recalled == null ? 0 : Files.size(recalled);
            ParityBuilder.ParityResult built = new ParityDeltaApplier(node.clock()).apply(coder, req.slot(), old, before, after, file);
            account("ByTwoVersions", reader, built.length(), recalledBytes, built.length());
            logger.info("parity {} of stripe {} ({}) generation {} -> {} by delta: member {} {} ({} -> {} bytes), {} bytes written; "
                        + "member bytes read: {}; previous parity read: {} bytes ({} ms)",
                        req.index(), req.stripeId(), t, gen - 1, gen, req.slot(), req.removal() ? "removed" : "replaced",
                        before.length(), after.length(), built.length(), reader, built.length(), node.clock().millisSince(start));
            return new ParityInfo(RemoteStripeParticipant.nodeLocator(node.selfPeer(), built.path().toAbsolutePath().toString()),
                                  built.length());
        }
        finally
        {
            if (recalled != null)
                ParityFiles.deleteHot(recalled);
        }
    }

    /** update_policy auto: whether re-encoding brings fewer bytes to this node than the delta ({@link ParityUpdateCost}). */
    private static boolean autoReencodes(ParityChangeRequest req, Path old) throws IOException
    {
        long[] next = req.previous().dataLengths();
        next[req.slot()] = req.removal() ? 0 : req.afterChecksums().length();
        long deltaBytes = req.hasDelta() ? req.deltaChecksums().length()
                                         : req.beforeChecksums().length() + (req.removal() ? 0 : req.afterChecksums().length());
        boolean cold = !Files.exists(old); // the caller checked that it is here or in the cold tier
        long code = cold ? ParityFiles.readColdMarker(ParityFiles.coldMarker(old)) : 0;
        return ParityUpdateCost.choose(next, deltaBytes, cold, code) == ParityUpdateCost.Way.REENCODE;
    }

    /**
     * The next generation from the member node's difference of the two versions (MEMBER_DELTA): one stream read,
     * each chunk verified against the difference's checksums.
     */
    private ParityInfo applyPushedDelta(ParityChangeRequest req, ErasureCoder coder, Path old, Path file, Path recalled,
                                        CountingMemberReader reader, long start) throws IOException
    {
        StripeLayout prev = req.previous();
        java.util.List<String> locators = new java.util.ArrayList<>(prev.locators());
        locators.set(req.slot(), req.deltaLocator());
        long[] lengths = prev.dataLengths();
        lengths[req.slot()] = req.deltaChecksums().length();
        StripeLayout viaDelta = new StripeLayout(prev.codecId(), prev.k(), prev.m(), lengths, prev.stripeLength(), locators);
        ParityDeltaApplier.Version delta = new ParityDeltaApplier.Version(verified(reader, viaDelta, req.slot(), req.deltaChecksums()),
                                                                          req.deltaChecksums().length());
        long recalledBytes = recalled == null ? 0 : Files.size(recalled);
        ParityBuilder.ParityResult built = new ParityDeltaApplier(node.clock())
            .applyDelta(coder, req.slot(), old, req.beforeChecksums().length(), req.afterChecksums().length(), delta, file);
        account("ByPushedDelta", reader, built.length(), recalledBytes, built.length());
        logger.info("parity {} of stripe {} ({}) generation {} -> {} by the member node's delta: member {} replaced ({} -> {} bytes), "
                    + "{} bytes written; member bytes read: {}; previous parity read: {} bytes ({} ms)", req.index(), req.stripeId(), req.table(),
                    req.toGeneration() - 1, req.toGeneration(), req.slot(), req.beforeChecksums().length(), req.afterChecksums().length(),
                    built.length(), reader, built.length(), node.clock().millisSince(start));
        return new ParityInfo(RemoteStripeParticipant.nodeLocator(node.selfPeer(), built.path().toAbsolutePath().toString()), built.length());
    }

    /**
     * The next generation encoded from the members of the new plan (the request's layout with the slot's next version,
     * or a zero chunk for a removal) at the previous generation's length (the code length the stubs' layouts keep):
     * update_policy reencode, and a removal whose previous member cannot be read (its node lost it).
     */
    private ParityInfo reencode(ParityChangeRequest req, Path old, long start, CountingMemberReader reader, String how) throws IOException
    {
        long length;
        if (Files.exists(old))
            length = ParitySidecar.read(ParitySidecar.of(old)).checksums().length();
        else if (Files.exists(ParityFiles.coldMarker(old)))
            length = ParityFiles.readColdMarker(ParityFiles.coldMarker(old));
        else // this node replaces a parity node that left the ring: the layout's code length is what the stubs keep
            length = req.previous().stripeLength();
        StripeLayout prev = req.previous();
        java.util.List<String> locators = new java.util.ArrayList<>(prev.locators());
        locators.set(req.slot(), req.removal() ? LocatorMemberReader.zero() : req.afterLocator());
        long[] lengths = prev.dataLengths();
        lengths[req.slot()] = req.removal() ? 0 : req.afterChecksums().length();
        StripeLayout target = new StripeLayout(prev.codecId(), prev.k(), prev.m(), lengths, length, locators);
        Path file = node.parity().hot(req.table().keyspace(), req.table().table(), req.stripeId(), req.index(), req.toGeneration());
        ParityBuilder.ParityResult built = new ParityBuilder(node.tiered().coders(), node.clock())
            .build(target, req.index(), reader, file.getParent(), file.getFileName().toString());
        account("Reencoded", reader, 0, 0, built.length());
        logger.info("parity {} of stripe {} ({}) generation {} {}: {} bytes written; member bytes read: {} ({} ms)", req.index(), req.stripeId(),
                    req.table(), req.toGeneration(), how, built.length(), reader, node.clock().millisSince(start));
        return new ParityInfo(RemoteStripeParticipant.nodeLocator(node.selfPeer(), built.path().toAbsolutePath().toString()), built.length());
    }

    /**
     * The next generation of a parity chunk this node never held (it replaces a parity node that left the ring, issue
     * 18): encoded from the members of the target layout (the request's previous layout with the slot's next version).
     */
    private ParityInfo build(ParityChangeRequest req, long start, CountingMemberReader reader, String how) throws IOException
    {
        StripeLayout prev = req.previous();
        java.util.List<String> locators = new java.util.ArrayList<>(prev.locators());
        long[] lengths = prev.dataLengths();
        locators.set(req.slot(), req.removal() ? LocatorMemberReader.zero() : req.afterLocator());
        lengths[req.slot()] = req.removal() ? 0 : req.afterChecksums().length();
        StripeLayout target = new StripeLayout(prev.codecId(), prev.k(), prev.m(), lengths, prev.stripeLength(), locators);
        Path file = node.parity().hot(req.table().keyspace(), req.table().table(), req.stripeId(), req.index(), req.toGeneration());
        ParityBuilder.ParityResult built = new ParityBuilder(node.tiered().coders(), node.clock())
            .build(target, req.index(), reader, file.getParent(), file.getFileName().toString());
        account("Reencoded", reader, 0, 0, built.length());
        logger.info("parity {} of stripe {} ({}) generation {} {}: {} bytes written; member bytes read: {} ({} ms)", req.index(), req.stripeId(),
                    req.table(), req.toGeneration(), how, built.length(), reader, node.clock().millisSince(start));
        return new ParityInfo(RemoteStripeParticipant.nodeLocator(node.selfPeer(), built.path().toAbsolutePath().toString()), built.length());
    }

    /** Downloads an offloaded previous generation beside its hot path, with a sidecar that checks it while it is read. */
    private Path recall(TableRef t, ParityChangeRequest req, Path hot) throws IOException
    {
        if (!Files.exists(ParityFiles.coldMarker(hot)))
            throw new IllegalStateException("parity " + req.index() + " generation " + (req.toGeneration() - 1) + " of stripe "
                                            + req.stripeId() + " is neither on " + node.self() + " nor in the cold tier");
        ColdStore store = node.tiered().store(ColdTierStores.DEFAULT_STORE)
                              .orElseThrow(() -> new IllegalStateException("parity " + hot + " is offloaded but no cold store is registered"));
        String key = ParityFiles.coldKey(t.keyspace(), t.table(), req.stripeId(), req.index(), req.toGeneration() - 1);
        long length = ParityFiles.readColdMarker(ParityFiles.coldMarker(hot));
        Path out = hot.resolveSibling(hot.getFileName() + RECALLED_SUFFIX);
        try (FileChannel ch = FileChannel.open(out, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE))
        {
            int window = 1 << 20;
            for (long off = 0; off < length; off += window)
            {
                ByteBuffer b = store.read(key, off, (int) Math.min(window, length - off));
                while (b.hasRemaining())
                    ch.write(b);
            }
            ch.force(true);
        }
        ChunkChecksums sums;
        try (FileChannel ch = FileChannel.open(out, StandardOpenOption.READ))
        {
            sums = ChunkChecksums.compute(ch, ChunkChecksums.DEFAULT_CHUNK_SIZE);
        }
        StripeLayout prev = req.previous();
        new ParitySidecar(prev.codecId(), prev.k(), prev.m(), req.index(), prev.dataLengths(), sums).write(out);
        logger.info("parity {} generation {} of stripe {} recalled from the cold tier ({} bytes) to compute generation {}",
                    req.index(), req.toGeneration() - 1, req.stripeId(), length, req.toGeneration());
        return out;
    }

    /**
     * Parity maintenance's cost in the node's metrics (group ParityMaintenance; what scripts/bench updates reports):
     * member bytes fetched from other nodes, from the cold tier and locally, previous-generation parity bytes read
     * ({@code parityRead}; {@code parityRecalled} of them were first downloaded from the cold tier: ParityBytesRecalled)
     * and parity bytes written; and how
     * the generation was computed ({@code how}: ByTwoVersions, ByPushedDelta or Reencoded, one count each).
     */
    private void account(String how, CountingMemberReader reader, long parityRead, long parityRecalled, long written)
    {
        node.metrics().counter("ParityMaintenance", how, null).inc();
        node.metrics().counter("ParityMaintenance", "MemberBytesFromNodes", null).inc(reader.network.sum());
        node.metrics().counter("ParityMaintenance", "MemberBytesFromColdTier", null).inc(reader.cold.sum());
        node.metrics().counter("ParityMaintenance", "ParityBytesRecalled", null).inc(parityRecalled);
        node.metrics().counter("ParityMaintenance", "MemberBytesLocal", null).inc(reader.local.sum());
        node.metrics().counter("ParityMaintenance", "ParityBytesRead", null).inc(parityRead);
        node.metrics().counter("ParityMaintenance", "ParityBytesWritten", null).inc(written);
        node.metrics().counter("ParityMaintenance", "Changes", null).inc();
    }

    /** Member {@code slot}'s bytes through its locator, each covering chunk verified against {@code sums}. */
    private ParityDeltaApplier.Bytes verified(StripeMemberReader reader, StripeLayout layout, int slot, ChunkChecksums sums)
    {
        String what = "member " + slot + " (" + layout.locators().get(slot) + ")";
        return (offset, length) -> {
            int cs = sums.chunkSize();
            long from = offset / cs * cs;
            long to = Math.min(sums.length(), (offset + length + cs - 1) / cs * cs);
            ByteBuffer got = reader.read(layout, slot, from, (int) (to - from));
            if (got.remaining() != to - from)
                throw new IOException(what + " returned " + got.remaining() + " of " + (to - from) + " bytes");
            for (long c = from; c < to; c += cs)
                sums.verify(what, (int) (c / cs), got.duplicate().position((int) (c - from)).limit((int) Math.min(to - from, c - from + cs)));
            return got.duplicate().position((int) (offset - from)).limit((int) (offset - from + length)).slice();
        };
    }

    /**
     * STUB_RELAYOUT: every stub of the stripe here switches to the request's plan; stubs of the changed member's
     * previous version are removed (a replacement's next version has its own stubs already, installed under the new
     * plan: they are kept). Done only while the stripe is
     * CHANGING to that generation; once it is past (CHANGED or COMMITTED at that generation) every stub has switched
     * and the answer is empty.
     */
    RelayoutResult relayout(RelayoutRequest req) throws IOException
    {
        StripeRecord r = record(req.stripeId());
        if (r.parityGeneration() == req.generation() && r.state() != StripeState.CHANGING)
            return new RelayoutResult(0, 0);
        if (r.state() != StripeState.CHANGING || r.parityGeneration() != req.generation())
            throw new IllegalStateException("stripe " + req.stripeId() + " is " + r.state() + " at parity generation "
                                            + r.parityGeneration() + ": stubs not switched to generation " + req.generation());
        boolean removal = LocatorMemberReader.isZero(req.slotLocator());
        TableRef t = req.table();
        if (!node.tables().exists(t))
            return new RelayoutResult(0, 0);
        int switched = 0, removed = 0;
        long start = node.clock().nanoTime();
        for (TableFile f : node.tables().files(t))
        {
            if (!f.isStub() || !req.stripeId().equals(f.frozenTag()))
                continue;
            StripeLayout own = f.sidecar().stripe();
            boolean next = !removal && own.locators().get(req.slot()).equals(req.slotLocator()) && own.memberLength(req.slot()) == req.slotLength();
            if (f.sidecar().self() == req.slot() && !next)
            {
                node.tables().removeStub(t, f.id());
                removed++;
            }
            else
            {
                node.tables().relayoutStub(t, f.id(), req.apply(f.sidecar().stripe()));
                switched++;
            }
        }
        if (switched + removed > 0)
            logger.info("stubs of stripe {} ({}) on parity generation {}: {} switched, {} of member {} removed ({} ms)", req.stripeId(), t,
                        req.generation(), switched, removed, req.slot(), node.clock().millisSince(start));
        return new RelayoutResult(switched, removed);
    }

    /**
     * REMOVE_MEMBER: deletes the changed slot's previous version on this node once the stripe is CHANGED (no stub
     * reads it any more); an offloaded member's cold object is left to the cold-tier garbage collection. Nothing to
     * do once the change is over; refused before CHANGED.
     */
    StubCount removeMember(MemberRequest req) throws IOException
    {
        StripeRecord r = record(req.stripeId());
        if (r.state() != StripeState.CHANGED)
        {
            if (r.state() == StripeState.COMMITTED || r.state().rowRemovable())
                return new StubCount(0, 0, 0);
            throw new IllegalStateException("stripe " + req.stripeId() + " is " + r.state() + ": its previous member is still read");
        }
        String name = RemoteStripeParticipant.memberName(req.table(), req.sstable());
        if (!name.equals(r.change().previous().sstable()) || !node.self().equals(r.change().previous().node()))
            throw new IllegalStateException("stripe " + req.stripeId() + "'s change replaces " + r.change().previous().descriptor()
                                            + ", not " + node.self() + "/" + name);
        deltas.drop(req.stripeId()); // every parity node has its next generation (CHANGED)
        if (!node.tables().exists(req.table()))
            return new StubCount(0, 0, 0);
        TableFile f = memberFile(req.table(), req.sstable(), req.stripeId());
        if (f == null || !req.stripeId().equals(f.frozenTag()))
            return new StubCount(0, 0, 0); // removed already
        long start = node.clock().nanoTime();
        node.tables().retire(req.table(), f.id(), req.stripeId());
        logger.info("member {} of stripe {} ({}, {}) removed by a member change: {} data bytes ({} ms)", f.id(), req.stripeId(),
                    req.table(), f.source(), f.dataBytes(), node.clock().millisSince(start));
        return new StubCount(1, f.dataBytes(), 0);
    }
}
