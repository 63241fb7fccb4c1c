package io.elect.core.transition;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.transition.wire.ChangeMessages.ParityChangeRequest;
import io.elect.core.transition.wire.ChangeMessages.RelayoutRequest;
import io.elect.core.transition.wire.ChangeMessages.RelayoutResult;
import io.elect.core.transition.wire.TransitionMessages.MemberLocation;
import io.elect.core.transition.wire.TransitionMessages.MemberRequest;
import io.elect.core.transition.wire.TransitionMessages.ParityInfo;
import io.elect.core.transition.wire.TransitionMessages.StubRequest;
import io.elect.core.transition.wire.TransitionMessages.StubResult;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.core.transport.Peer;
import io.elect.core.transport.Transport;
import io.elect.core.transport.Verbs;

import static io.elect.core.transition.RemoteStripeParticipant.PENDING;
import static io.elect.core.transition.RemoteStripeParticipant.await;
import static io.elect.core.transition.RemoteStripeParticipant.awaitAll;
import static io.elect.core.transition.RemoteStripeParticipant.sstableOf;
import static io.elect.core.transition.RemoteStripeParticipant.tableOf;

/**
 * The member-change calls of {@link RemoteStripeParticipant} (docs/design/updates.md item 4, docs/design/topology.md):
 * a change's next parity generation and stub switch, a merge's next version, the materializing of a departed
 * member's stubs, and the deletion of a changed member's previous version. Same contracts as the participant's: every
 * call is idempotent and retried by the state machine.
 */
final class StripeChanges
{
    private static final Logger logger = LoggerFactory.getLogger(StripeChanges.class);

    private final Transport transport;
    private final Function<String, Peer> peerOf;
    private final Supplier<List<String>> ring;
    /**
     * Whether a node has left the ring for good (the departure repair's test: gone for its grace period). A change
     * in flight finishes without such a node's chunk ({@link #change}); the departure repair then takes the stripe.
     */
    private final java.util.function.Predicate<String> departed;

    /** Whether a replacement asks the member's node for the difference of its versions (update_policy delta). */
    private volatile boolean pushDeltas = true;

    void pushDeltas(boolean on)
    {
        pushDeltas = on;
    }

    StripeChanges(Transport transport, Function<String, Peer> peerOf, Supplier<List<String>> ring, java.util.function.Predicate<String> departed)
    {
        this.transport = transport;
        this.peerOf = peerOf;
        this.ring = ring;
        this.departed = departed;
    }

    /**
     * MEMBER_DELTA on the replaced member's node: where the parity nodes read the difference of its two versions
     * (one stream instead of two); null when the node cannot give it (the parity nodes then read both versions).
     */
    private MemberLocation delta(StripeRecord stripe, TableRef table)
    {
        StripeRecord.Change change = stripe.change();
        try
        {
            MemberLocation d = MemberLocation.decode(await(slow(peerOf.apply(change.previous().node()), Verbs.MEMBER_DELTA,
                                                                new io.elect.core.transition.wire.ChangeMessages.MemberDeltaRequest(
                                                                    table, stripe.id().toString(), stripe.parityGeneration(), change.slot()).encode()),
                                                           "MEMBER_DELTA"));
            long longer = Math.max(change.previous().realBytes(), stripe.members().get(change.slot()).realBytes());
            if (d.checksums().length() != longer)
                throw new IllegalStateException("the delta covers " + d.checksums().length() + " bytes, the longer version " + longer);
            return d;
        }
        catch (RuntimeException e)
        {
            logger.info("stripe {}: no delta of member {} from {} ({}): the parity nodes read both versions", stripe.id(), change.slot(),
                        change.previous().node(), e.getMessage());
            return null;
        }
    }

    /**
     * PARITY_CHANGE on every parity node (generation g + 1 from g and the slot's previous version, read through the
     * locator its node gives, DESCRIBE_MEMBER), then STUB_RELAYOUT on every ring node: all must answer (a stub left on
     * generation g would decode with parity deleted next). A replacement (a merge: the record's slot names the
     * member's next version, already live on its node) also installs the next version's stubs on its secondaries,
     * under the new generation, before STUB_RELAYOUT removes the previous version's.
     *
     * <p>Nodes that left the ring for good ({@link #departed}) while the change was in flight (it was recorded before
     * and kept failing, e.g. on the dead node a removenode then took out) are not waited for: another member's node
     * that left is unreadable ({@code gone:} locator; the parity nodes apply the difference, they cannot re-encode),
     * a parity node that left gets no generation g + 1 (its locator is {@code gone:}), and a merge or fill whose next
     * member's node left is abandoned if no stub of that member exists ({@link #nextGone}). The stripe then ends
     * COMMITTED naming the departed node, and the departure repair ({@link Departures}) removes its member or moves
     * its parity like any other's. A change that needs the departed node's bytes (a re-encoding: the slot's previous
     * version is unreadable too, or a parity node builds its chunk afresh) still waits (docs/design/topology.md).
     */
    void change(StripeRecord stripe)
    {
        StripeRecord.Change change = stripe.change();
        TableRef table = tableOf(stripe);
        if (stripe.changeFills())
            take(stripe);
        // the previous plan: every member's readable location (committed members may be offloaded: DESCRIBE_MEMBER)
        List<CompletableFuture<byte[]>> calls = new ArrayList<>();
        boolean[] left = new boolean[stripe.k()];
        for (int i = 0; i < stripe.k(); i++)
        {
            Member m = i == change.slot() ? change.previous() : stripe.members().get(i);
            left[i] = i != change.slot() && !m.isVirtual() && departed.test(m.node());
            calls.add(m.isVirtual() || left[i] || (i == change.slot() && !inRing(m.node())) ? null // a member whose node left: unreadable
                                    : transport.request(peerOf.apply(m.node()), Verbs.DESCRIBE_MEMBER,
                                                        new MemberRequest(tableOf(m.sstable()), sstableOf(m.sstable()), stripe.id().toString()).encode()));
        }
        // The previous version may be unreadable (its node lost its disk: a rebuild does not restore a member the
        // record no longer names, or it is down): then the parity nodes encode the next generation from the other
        // members instead of applying a difference (announced by a previous version of length 0).
        CompletableFuture<byte[]> previousCall = calls.set(change.slot(), null);
        List<byte[]> answers = awaitAll(calls, "DESCRIBE_MEMBER");
        MemberLocation previous;
        try
        {
            if (change.previous().isVirtual())
                previous = null; // a fill or a widening: the slot was virtual, its previous version is the zero chunk
            else if (previousCall == null)
                throw new IllegalStateException("its node " + change.previous().node() + " left the ring");
            else
            {
                previous = MemberLocation.decode(await(previousCall, "DESCRIBE_MEMBER"));
                // the node described another file frozen under the stripe: the previous version itself is gone (its
                // node lost its disk and the rebuild restored the slot's next version, which the record names)
                if (previous.checksums().length() != change.previous().realBytes())
                    throw new IllegalStateException("its node describes a file of " + previous.checksums().length()
                                                    + " data bytes, not the previous version's " + change.previous().realBytes());
            }
        }
        catch (RuntimeException e)
        {
            logger.info("stripe {}: previous member {} unreadable ({}): parity generation {} is encoded from the other members",
                        stripe.id(), change.previous().descriptor(), e.getMessage(), stripe.parityGeneration());
            previous = null;
        }
        long[] lengths = new long[stripe.k()];
        List<String> locators = new ArrayList<>();
        for (int i = 0; i < stripe.k(); i++)
        {
            Member m = i == change.slot() ? change.previous() : stripe.members().get(i);
            MemberLocation loc = i == change.slot() ? previous : answers.get(i) == null ? null : MemberLocation.decode(answers.get(i));
            if (left[i])
            {
                // unreadable for good, but its bytes are in generation g: the record's length keeps the layout's
                locators.add(LocatorMemberReader.gone(m.node()));
                lengths[i] = m.realBytes();
                logger.info("stripe {}: member {} ({}) is on {}, which left the ring: the change goes on without reading it",
                            stripe.id(), i, m.descriptor(), m.node());
                continue;
            }
            if (loc == null)
            {
                locators.add(LocatorMemberReader.zero());
                continue;
            }
            if (loc.checksums().length() != m.realBytes())
                throw new IllegalStateException("stripe " + stripe.id() + " member " + i + " (" + m.sstable() + ") has "
                                                + loc.checksums().length() + " data bytes, the record says " + m.realBytes());
            lengths[i] = loc.checksums().length();
            locators.add(loc.locator());
        }
        ChunkChecksums beforeSums = previous != null ? previous.checksums() : new ChunkChecksums(ChunkChecksums.DEFAULT_CHUNK_SIZE, 0, new int[0]);
        for (int j = 0; j < stripe.m(); j++)
            locators.add(PENDING);
        StripeLayout before = new StripeLayout(stripe.codecId(), stripe.k(), stripe.m(), lengths, stripe.codeLength(), locators);
        Member next = stripe.members().get(change.slot());
        // A replacement (a merge): the next version, live on the member's node beside the previous one
        if (!next.isVirtual() && stripe.changeReplaces() && departed.test(next.node()))
            nextGone(stripe, "its node " + next.node() + " left the ring");
        MemberLocation after;
        try
        {
            after = next.isVirtual() ? null : MemberLocation.decode(
                awaitAll(List.of(transport.request(peerOf.apply(next.node()), Verbs.DESCRIBE_MEMBER,
                                                   new MemberRequest(table, sstableOf(next.sstable()), stripe.id().toString()).encode())),
                         "DESCRIBE_MEMBER").get(0));
        }
        catch (RuntimeException e)
        {
            if (stripe.changeReplaces() && String.valueOf(e.getMessage()).contains(NO_MEMBER))
                nextGone(stripe, e.getMessage());
            throw e;
        }
        if (after != null && after.checksums().length() != next.realBytes())
        {
            // the node described another file frozen under the stripe: the next version itself is not live there
            if (stripe.changeReplaces())
                nextGone(stripe, "its node describes a file of " + after.checksums().length() + " bytes, not the next version's " + next.realBytes());
            throw new IllegalStateException("stripe " + stripe.id() + " member " + change.slot() + "'s next version " + next.sstable() + " has "
                                            + after.checksums().length() + " data bytes, the record says " + next.realBytes());
        }
        // no difference to compute when the member stays (a parity move: the parity nodes copy generation g; the
        // member node read a whole member, offloaded ones from the cold tier, to compute a zero delta: simulation log)
        MemberLocation delta = after != null && previous != null && pushDeltas && !stripe.changeKeepsMember()
                               && next.node().equals(change.previous().node()) ? delta(stripe, table) : null;
        List<CompletableFuture<byte[]>> parity = new ArrayList<>();
        for (int j = 0; j < stripe.m(); j++)
        {
            if (departed.test(stripe.parityNodes().get(j)))
            {
                parity.add(null); // no generation g + 1 there: the departure repair moves this chunk after the change
                continue;
            }
            ParityChangeRequest req = new ParityChangeRequest(table, stripe.id().toString(), j, stripe.parityGeneration(), change.slot(), before,
                                                              beforeSums, after == null ? null : after.locator(),
                                                              after == null ? null : after.checksums());
            if (delta != null)
                req = req.withDelta(delta.locator(), delta.checksums());
            parity.add(slow(peerOf.apply(stripe.parityNodes().get(j)), Verbs.PARITY_CHANGE, req.encode()));
        }
        List<String> parityLocators = new ArrayList<>();
        long parityLength = -1;
        List<byte[]> built = awaitAll(parity, "PARITY_CHANGE");
        for (int j = 0; j < stripe.m(); j++)
        {
            if (built.get(j) == null)
            {
                parityLocators.add(LocatorMemberReader.gone(stripe.parityNodes().get(j)));
                logger.info("stripe {}: parity {} is on {}, which left the ring: no generation {} there (the departure repair moves it)",
                            stripe.id(), j, stripe.parityNodes().get(j), stripe.parityGeneration());
                continue;
            }
            ParityInfo info = ParityInfo.decode(built.get(j));
            parityLocators.add(info.locator());
            parityLength = Math.max(parityLength, info.length());
        }
        RelayoutRequest relayout = new RelayoutRequest(table, stripe.id().toString(), stripe.parityGeneration(), change.slot(),
                                                       after == null ? LocatorMemberReader.zero() : after.locator(),
                                                       after == null ? 0 : after.checksums().length(), parityLocators);
        if (after != null && !stripe.changeKeepsMember())
        {
            // the next version's stubs on its secondaries, under the new generation, BEFORE the previous version's
            // stubs go (STUB_RELAYOUT removes them): a secondary always holds one of the two
            // the code length the parity chunks really have (the record's is rounded up to the alignment): what the
            // stubs transitioning built state, and what a rebuild of a parity node restores a cold marker from
            long longest = after.checksums().length();
            for (long l : lengths)
                longest = Math.max(longest, l);
            long code = parityLength >= longest ? parityLength : stripe.codeLength();
            StripeLayout nextLayout = relayout.apply(new StripeLayout(stripe.codecId(), stripe.k(), stripe.m(), lengths, code, locators));
            StubRequest stub = new StubRequest(table, sstableOf(next.sstable()), stripe.id().toString(), nextLayout, change.slot(),
                                               after.checksums(), List.of());
            StubResult installed = StubResult.decode(awaitAll(List.of(slow(peerOf.apply(next.node()), Verbs.STUB, stub.encode())), "STUB").get(0));
            awaitAll(List.of(transport.request(peerOf.apply(next.node()), Verbs.COMMIT, // drops the member node's pin of it
                                               new MemberRequest(table, sstableOf(next.sstable()), stripe.id().toString()).encode())), "COMMIT");
            logger.info("stripe {}: stubs of member {}'s next version {} installed on {} secondaries", stripe.id(), change.slot(),
                        next.descriptor(), installed.secondaries());
        }
        List<CompletableFuture<byte[]>> stubs = new ArrayList<>();
        for (String node : ring.get())
            stubs.add(slow(peerOf.apply(node), Verbs.STUB_RELAYOUT, relayout.encode()));
        RelayoutResult total = new RelayoutResult(0, 0);
        for (byte[] answer : awaitAll(stubs, "STUB_RELAYOUT"))
            total = total.plus(RelayoutResult.decode(answer));
        logger.info("stripe {}: member {} ({}) {} in parity generation {} (parity on {}); {} stubs switched, {} of it removed", stripe.id(),
                    change.slot(), change.previous().descriptor(),
                    stripe.changeReshapes() ? "added (the stripe widened to k=" + stripe.k() + ")" : after == null ? "removed"
                    : stripe.changeKeepsMember() ? "kept" : stripe.changeFills() ? "filled by " + next.descriptor() : "replaced by " + next.descriptor(),
                    stripe.parityGeneration(), stripe.parityNodes(), total.switched(), total.removed());
        if (stripe.changeFills())
            purgeFilled(stripe);
    }

    private static Member next(StripeRecord stripe)
    {
        return stripe.members().get(stripe.change().slot());
    }

    /**
     * A fill's first step: PIN of the new member on its node (frozen under the stripe: it can no longer be compacted
     * away). The node's definitive refusal (the SSTable is gone, or another stripe took it) abandons the fill once
     * {@link #abandonable} has made sure that no stub of it exists (an earlier attempt that took it and went on can
     * only have lost it with its node's disk, and then its stubs, if any, make it go forward). Any other failure (node
     * down, a compaction holding the file) is retried.
     */
    private void take(StripeRecord stripe)
    {
        Member m = next(stripe);
        if (departed.test(m.node()))
        {
            abandonable(stripe);
            throw new StripeParticipant.NextMemberGone("member not taken: its node " + m.node() + " left the ring");
        }
        MemberRequest req = new MemberRequest(tableOf(m.sstable()), sstableOf(m.sstable()), stripe.id().toString());
        io.elect.core.transition.wire.TransitionMessages.MemberInfo info;
        try
        {
            info = io.elect.core.transition.wire.TransitionMessages.MemberInfo.decode(
                awaitAll(List.of(transport.request(peerOf.apply(m.node()), Verbs.PIN, req.encode())), "PIN").get(0));
        }
        catch (RuntimeException e)
        {
            String why = String.valueOf(e.getMessage());
            int at = why.indexOf(io.elect.core.transition.wire.TransitionMessages.MEMBER_NOT_TAKEN);
            if (at < 0)
                throw e;
            abandonable(stripe);
            throw new StripeParticipant.NextMemberGone(why.substring(at));
        }
        if (info.checksums().length() != m.realBytes())
        {
            // Not the file the plan measured (every later step checks the length, so no attempt got further): give it
            // back to compaction (ROLLBACK unfreezes it for this stripe only) and abandon the fill.
            abandonable(stripe);
            awaitAll(List.of(transport.request(peerOf.apply(m.node()), Verbs.ROLLBACK, req.encode())), "ROLLBACK");
            throw new StripeParticipant.NextMemberGone("member not taken: " + m.descriptor() + " has " + info.checksums().length()
                                                    + " data bytes, the plan " + m.realBytes());
        }
    }

    /** How DESCRIBE_MEMBER says that a member is not live on its node (LocalChangeOps.describe). */
    static final String NO_MEMBER = "no member ";

    /**
     * A replacement whose next version is not live on its node (lost with its disk: a next version is frozen under
     * the stripe, nothing else removes it): abandoned if no node holds a stub of it ({@link #abandonable}), else
     * retried (a stub exists: the node's rebuild restores it from the stub).
     */
    private void nextGone(StripeRecord stripe, String why)
    {
        abandonable(stripe);
        throw new StripeParticipant.NextMemberGone("next version " + next(stripe).descriptor() + " gone: " + why);
    }

    /**
     * Before a fill or a replacement is abandoned: an earlier attempt may have taken the member and gone on before its node lost it
     * (a lost disk: a taken member is frozen, nothing else removes it). If any node holds a stub of it, secondaries
     * may have purged against that stub: the fill must go forward (the node's rebuild restores the member from the
     * stub), so this throws and the change is retried. Every ring node must answer (a down node may hold one).
     * Otherwise nothing was purged against the member and its rows are fully replicated: parity the earlier attempt
     * built for the next generation is dropped (DROP_PARITY, idempotent) and the fill may be abandoned.
     */
    private void abandonable(StripeRecord stripe)
    {
        Member m = next(stripe);
        var req = new io.elect.core.transition.wire.TransitionMessages.StripeStatusRequest(tableOf(stripe), stripe.id().toString(), m.node(),
                                                                                           m.sstable(), stripe.change().slot()).encode();
        List<String> asked = new ArrayList<>();
        List<CompletableFuture<byte[]>> calls = new ArrayList<>();
        for (String node : ring.get())
            if (!node.equals(m.node()))
            {
                asked.add(node);
                calls.add(transport.request(peerOf.apply(node), Verbs.STRIPE_STATUS, req));
            }
        List<byte[]> answers = awaitAll(calls, "STRIPE_STATUS");
        for (int i = 0; i < answers.size(); i++)
            if (io.elect.core.transition.wire.TransitionMessages.StripeStatus.decode(answers.get(i)).stub() != null)
                throw new IllegalStateException("stripe " + stripe.id() + ": the fill's member " + m.descriptor() + " is gone from its node but "
                                                + asked.get(i) + " holds a stub of it: the fill goes forward once the node's rebuild restores it");
        List<CompletableFuture<byte[]>> drops = new ArrayList<>();
        for (int j = 0; j < stripe.m(); j++)
            if (inRing(stripe.parityNodes().get(j)))
                drops.add(transport.request(peerOf.apply(stripe.parityNodes().get(j)), Verbs.DROP_PARITY,
                                            new io.elect.core.transition.wire.TransitionMessages.DropParityRequest(
                                                tableOf(stripe), stripe.id().toString(), j, stripe.parityGeneration()).encode()));
        awaitAll(drops, "DROP_PARITY");
    }

    /**
     * After a fill: STUB_PURGE on every live ring node, so the new member's secondaries drop the rows its stubs now
     * serve (what the fill saves). A node that does not answer purges in its periodic maintenance (the stripe is
     * CHANGING or later, purges allowed), so a failure here only logs.
     */
    private void purgeFilled(StripeRecord stripe)
    {
        byte[] req = new io.elect.core.transition.wire.TransitionMessages.StripeRef(tableOf(stripe), stripe.id().toString()).encode();
        List<CompletableFuture<byte[]>> calls = new ArrayList<>();
        for (String node : ring.get())
            calls.add(slow(peerOf.apply(node), Verbs.STUB_PURGE, req));
        long before = 0, after = 0;
        try
        {
            for (byte[] answer : awaitAll(calls, "STUB_PURGE"))
            {
                var n = io.elect.core.transition.wire.TransitionMessages.StubCount.decode(answer);
                before += n.bytesBefore();
                after += n.bytesAfter();
            }
            logger.info("stripe {}: secondaries of filled member {} purged: {} -> {} bytes", stripe.id(), next(stripe).descriptor(), before, after);
        }
        catch (RuntimeException e)
        {
            logger.info("stripe {}: purge after the fill of slot {} incomplete ({}); periodic maintenance purges the rest", stripe.id(),
                        stripe.change().slot(), e.getMessage());
        }
    }

    /**
     * MERGE_MEMBER to the node of member {@code slot} of a COMMITTED stripe: its next version is written (live, frozen
     * under the stripe, named by no record yet) or the merge declined; the caller records the change.
     */
    io.elect.core.transition.wire.ChangeMessages.MergeResult prepareMerge(StripeRecord stripe, int slot, double minShare)
    {
        Member m = stripe.members().get(slot);
        byte[] answer = awaitAll(List.of(slow(peerOf.apply(m.node()), Verbs.MERGE_MEMBER,
                                              new io.elect.core.transition.wire.ChangeMessages.MergeRequest(
                                                  tableOf(m.sstable()), sstableOf(m.sstable()), stripe.id().toString(), minShare).encode())),
                                 "MERGE_MEMBER").get(0);
        return io.elect.core.transition.wire.ChangeMessages.MergeResult.decode(answer);
    }

    private boolean inRing(String node)
    {
        return ring.get().contains(node);
    }

    /**
     * STUB_MATERIALIZE on every ring node: the stubs of member {@code slot} (whose node {@code departed} left the ring)
     * become ordinary SSTables; all must answer (a stub left would be removed by the change that follows).
     */
    io.elect.core.transition.wire.ChangeMessages.MaterializeResult materialize(StripeRecord stripe, int slot, String departed)
    {
        byte[] req = new io.elect.core.transition.wire.ChangeMessages.MaterializeRequest(tableOf(stripe), stripe.id().toString(), slot,
                                                                                          departed).encode();
        List<CompletableFuture<byte[]>> calls = new ArrayList<>();
        for (String node : ring.get())
            calls.add(slow(peerOf.apply(node), Verbs.STUB_MATERIALIZE, req));
        var total = new io.elect.core.transition.wire.ChangeMessages.MaterializeResult(0, 0);
        for (byte[] answer : awaitAll(calls, "STUB_MATERIALIZE"))
            total = total.plus(io.elect.core.transition.wire.ChangeMessages.MaterializeResult.decode(answer));
        return total;
    }

    /** REMOVE_MEMBER of the previous version on its node (the caller then drops the previous parity generation). */
    void finishChange(StripeRecord stripe)
    {
        Member previous = stripe.change().previous();
        // nothing to delete when the member stays (a parity move) or went with its node (it left the ring)
        if (!stripe.changeKeepsMember() && inRing(previous.node()))
            awaitAll(List.of(transport.request(peerOf.apply(previous.node()), Verbs.REMOVE_MEMBER,
                                               new MemberRequest(tableOf(previous.sstable()), sstableOf(previous.sstable()),
                                                                 stripe.id().toString()).encode())), "REMOVE_MEMBER");
    }

    private CompletableFuture<byte[]> slow(Peer peer, int verb, byte[] payload)
    {
        return transport.requestOnce(peer, verb, payload, RemoteStripeParticipant.SLOW_TIMEOUT_MILLIS);
    }
}
