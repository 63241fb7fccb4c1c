package io.elect.core.node;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.node.LocalTables.TableFile;
import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.RemoteStripeParticipant;
import io.elect.core.transition.wire.ChangeMessages.MergeRequest;
import io.elect.core.transition.wire.ChangeMessages.MergeResult;
import io.elect.core.transition.wire.ChangeMessages.ParityChangeRequest;
import io.elect.core.transition.wire.ChangeMessages.RelayoutRequest;
import io.elect.core.transition.wire.ChangeMessages.RelayoutResult;
import io.elect.core.transition.wire.TransitionMessages.MemberLocation;
import io.elect.core.transition.wire.TransitionMessages.MemberRequest;
import io.elect.core.transition.wire.TransitionMessages.StubCount;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.core.transport.Verbs;

/**
 * This node's side of a stripe's member change (docs/design/updates.md item 4; verbs DESCRIBE_MEMBER, MERGE_MEMBER,
 * STUB_RELAYOUT, REMOVE_MEMBER, STUB_MATERIALIZE in docs/formats/verbs.md; PARITY_CHANGE is {@link ParityChanges},
 * MEMBER_DELTA {@link MemberDeltas}). Each handler checks the stripe record's state itself (a late or replayed
 * request of another phase is refused or answered as done) and is idempotent.
 */
final class LocalChangeOps
{
    private static final Logger logger = LoggerFactory.getLogger(LocalChangeOps.class);

    private final NodeContext node;
    private final MergeMarkers merges;
    private final MemberDeltas deltas;
    /** The node's redirect table: a member restored by a rebuild under a new file is a {@code file:} target there. */
    private final Redirects redirects;

    /** Where the node's redirects are read (ColdOffload#redirects). */
    @FunctionalInterface
    interface Redirects
    {
        io.elect.core.stripes.RedirectTable get() throws IOException;
    }

    LocalChangeOps(NodeContext node, MergeMarkers merges, Redirects redirects)
    {
        this.node = node;
        this.merges = merges;
        this.redirects = redirects;
        this.deltas = new MemberDeltas(node, this::memberFile);
    }

    void register()
    {
        node.transport().register(Verbs.DESCRIBE_MEMBER, p -> describe(MemberRequest.decode(p)).encode());
        ParityChanges parity = new ParityChanges(node);
        node.transport().register(Verbs.PARITY_CHANGE, p -> parity.parityChange(ParityChangeRequest.decode(p)).encode());
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
     * member's node left the ring, or drains before leaving: issue 18). Refused unless the record still names the
     * member on {@code departed} and this node's ring view agrees that node has left, or the store marks it draining
     * (a stub is never unstubbed for a node that is merely down).
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
        if (!node.ring().hasLeft(req.departed()) && !Drains.marked(node, req.departed()))
            throw new IllegalStateException(req.departed() + " has not left the ring for " + node.self() + " and is not draining: stubs of its member "
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
        java.util.Set<Path> restoredForNamed = restoredCopies(named);
        TableFile tagged = null;
        int n = 0;
        for (TableFile f : node.tables().files(t))
        {
            if (f.isStub())
                continue;
            if (f.id().equals(sstable))
                return f;
            if (stripeId.equals(f.frozenTag()) && !named.contains(RemoteStripeParticipant.memberName(t, f.id())) && !merges.isNextVersion(t, f.id())
                && !restoredForNamed.contains(f.dataPath().toAbsolutePath().normalize()))
            {
                tagged = f;
                n++;
            }
        }
        return n == 1 ? tagged : null; // two candidates are ambiguous
    }

    /**
     * Data files a rebuild restored (under new ids) for members the record names: the targets of {@code file:}
     * redirects whose original data file carries one of those ids. The fallback above must never take one of them
     * for another member (simulation seed 604: a merge's REMOVE_MEMBER of the previous version deleted the restored
     * NEXT version, the member the record names, after its node's disk was lost and rebuilt mid-change).
     */
    private java.util.Set<Path> restoredCopies(java.util.Set<String> named) throws IOException
    {
        java.util.Set<Path> out = new java.util.HashSet<>();
        if (named.isEmpty())
            return out;
        java.util.Set<String> ids = new java.util.HashSet<>();
        for (String m : named)
            ids.add(m.substring(m.lastIndexOf('/') + 1));
        for (java.util.Map.Entry<Path, String> e : redirects.get().entries().entrySet())
        {
            if (!e.getValue().startsWith("file:"))
                continue;
            String original = String.valueOf(e.getKey().getFileName());
            for (String id : ids)
                if (original.contains("-" + id + "-"))
                    out.add(Path.of(e.getValue().substring("file:".length())).toAbsolutePath().normalize());
        }
        return out;
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
            throw new IllegalStateException("no member " + req.sstable() + " of stripe " + req.stripeId() + " of " + req.table() // StripeChanges.NO_MEMBER
                                            + " is live on " + node.self() + " (files frozen under the stripe here: " + taggedFiles(req.table(), req.stripeId()) + ")");
        if (f.source() == LocalTables.Source.COLD)
            return new MemberLocation(LocatorMemberReader.cold(f.sidecar().coldStore(), f.sidecar().coldKey()), f.sidecar().checksums());
        Path data = f.dataPath().toAbsolutePath();
        try (FileChannel ch = FileChannel.open(data, StandardOpenOption.READ))
        {
            return new MemberLocation(RemoteStripeParticipant.nodeLocator(node.selfPeer(), data.toString()),
                                      ChunkChecksums.compute(ch, ChunkChecksums.DEFAULT_CHUNK_SIZE));
        }
    }


    /** This node's files frozen under the stripe, for error messages: id, source, and whether a stub. */
    private java.util.List<String> taggedFiles(TableRef t, String stripeId) throws IOException
    {
        java.util.List<String> out = new java.util.ArrayList<>();
        if (node.tables().exists(t))
            for (TableFile f : node.tables().files(t))
                if (stripeId.equals(f.frozenTag()))
                    out.add(f.id() + "/" + f.source() + (f.isStub() ? "/stub" : ""));
        return out;
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
        io.elect.core.stripes.Member previous = r.change().previous();
        TableRef t = req.table();
        if (!node.tables().exists(t))
            return new RelayoutResult(0, 0);
        int switched = 0, removed = 0;
        long start = node.clock().nanoTime();
        for (TableFile f : node.tables().files(t))
        {
            if (!f.isStub() || !req.stripeId().equals(f.frozenTag()))
                continue;
            if (f.sidecar().self() == req.slot() && ofPrevious(f.sidecar().stripe().locators().get(req.slot()), previous,
                                                               r.members().get(req.slot()), removal, req.slotLocator()))
            {
                node.tables().removeStub(t, f.id());
                removed++;
            }
            else
            {
                StripeLayout next = req.apply(f.sidecar().stripe());
                if (f.sidecar().self() == req.slot())
                    next = keepOwnLocator(next, req.slot(), f.sidecar().stripe().locators().get(req.slot()));
                node.tables().relayoutStub(t, f.id(), next);
                switched++;
            }
        }
        if (switched + removed > 0)
            logger.info("stubs of stripe {} ({}) on parity generation {}: {} switched, {} of member {} removed ({} ms)", req.stripeId(), t,
                        req.generation(), switched, removed, req.slot(), node.clock().millisSince(start));
        return new RelayoutResult(switched, removed);
    }

    /**
     * A kept stub of the changed slot (the next version's, or a fill's) keeps the locator of its own member: the
     * request names the member's current file, which a rebuild of its node may have restored under another name
     * since the stub was installed (the old name is redirected there), and a stub's own member never moves.
     */
    private static StripeLayout keepOwnLocator(StripeLayout layout, int slot, String own)
    {
        java.util.List<String> locators = new java.util.ArrayList<>(layout.locators());
        locators.set(slot, own);
        return new StripeLayout(layout.codecId(), layout.k(), layout.m(), layout.dataLengths(), layout.stripeLength(), locators);
    }

    /**
     * Whether a stub of the changed slot (its data at {@code locator}) serves the change's previous version, which
     * STUB_RELAYOUT removes: none for a fill or a widening (the slot was virtual) or a parity move (the member stays),
     * every one for a removal, and for a
     * replacement the ones naming the previous version's file (on its node, the SSTable id in the file name; another kind
     * of locator: every one but the next version's). Not by
     * "every stub but the next version's locator": the next version may have been restored by a rebuild under another
     * file since its stubs were installed (found by the simulation: its stubs were removed as the previous version's,
     * and its secondaries had purged against them).
     */
    static boolean ofPrevious(String locator, io.elect.core.stripes.Member previous, io.elect.core.stripes.Member next, boolean removal,
                              String nextLocator)
    {
        if (previous.isVirtual() || previous.equals(next))
            return false; // a fill or widening (nothing was there), or a parity move (the member stays)
        if (removal)
            return true;
        if (!locator.startsWith(LocatorMemberReader.NODE))
            return !locator.equals(nextLocator); // not a file of a node: only the next version's own locator is kept
        LocatorMemberReader.NodeLocator where = LocatorMemberReader.NodeLocator.parse(locator);
        String id = previous.sstable().substring(previous.sstable().indexOf('/') + 1);
        return where.host().equals(previous.node()) && java.nio.file.Paths.get(where.path()).getFileName().toString().contains("-" + id + "-");
    }

    /**
     * REMOVE_MEMBER: deletes the changed slot's previous version on this node once the stripe is CHANGED (no stub
     * reads it any more); an offloaded member's cold object is left to the cold-tier garbage collection. While this
     * node drains ({@link Drains}) the member is kept instead, as an ordinary SSTable (its stubs were materialized). Nothing to
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
        if (Drains.marked(node, node.self()))
        {
            // leaving its stripe because this node drains: its rows are this replica's data until the node has left
            Drains.keepRows(node, req.table(), f, req.stripeId());
            return new StubCount(0, 0, 0);
        }
        long start = node.clock().nanoTime();
        node.tables().retire(req.table(), f.id(), req.stripeId());
        logger.info("member {} of stripe {} ({}, {}) removed by a member change: {} data bytes ({} ms)", f.id(), req.stripeId(),
                    req.table(), f.source(), f.dataBytes(), node.clock().millisSince(start));
        return new StubCount(1, f.dataBytes(), 0);
    }
}
