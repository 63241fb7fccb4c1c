package io.elect.core.transition;

import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.stripes.Member;
import io.elect.core.transition.wire.TransitionMessages;
import io.elect.core.transition.wire.TransitionMessages.BuildParityRequest;
import io.elect.core.transition.wire.TransitionMessages.DropParityRequest;
import io.elect.core.transition.wire.ChangeMessages.ParityChangeRequest;
import io.elect.core.transition.wire.ChangeMessages.RelayoutRequest;
import io.elect.core.transition.wire.ChangeMessages.RelayoutResult;
import io.elect.core.transition.wire.TransitionMessages.MemberInfo;
import io.elect.core.transition.wire.TransitionMessages.MemberLocation;
import io.elect.core.transition.wire.TransitionMessages.MemberRequest;
import io.elect.core.transition.wire.TransitionMessages.ParityInfo;
import io.elect.core.transition.wire.TransitionMessages.StubRequest;
import io.elect.core.transition.wire.TransitionMessages.StripeRef;
import io.elect.core.transition.wire.TransitionMessages.StubCount;
import io.elect.core.transition.wire.TransitionMessages.StubResult;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.core.transport.Peer;
import io.elect.core.transport.Transport;
import io.elect.core.transport.Verbs;

/**
 * The cluster side of a stripe, over the transport (verbs in docs/formats/verbs.md):
 * <ul>
 * <li>ship = PIN on every data node: the member SSTable is frozen (out of compaction, persisted) and its node reports
 *     where its data and other components are and the data checksums. Parity nodes read the data members straight
 *     from the data nodes while encoding, so nothing is copied ahead: "shipped" means pinned and described.</li>
 * <li>parity = BUILD_PARITY on every parity node (it pulls the k members, encodes, stores its parity member with
 *     checksums, on local disk or in the cold tier).</li>
 * <li>install stubs = STUB on every data node, which installs the stub of its member on each secondary replica
 *     (STUB_INSTALL; nothing is purged);</li>
 * <li>purge = STUB_PURGE on every ring node: each purges against its stubs of the stripe;</li>
 * <li>commit = COMMIT on every data node; rollback = STUB_REMOVE on every ring node, then DROP_PARITY on parity nodes,
 *     then ROLLBACK (unfreeze) on data nodes.</li>
 * </ul>
 * Every verb is idempotent on the receiving side, so each step can be repeated after a crash or a timeout. Member
 * names are {@code <keyspace>.<table>/<sstable id>}, so one participant serves every table (recovery needs that).
 * Node ids are the nodes' addresses; {@code peerOf} maps them to transport peers.
 */
public final class RemoteStripeParticipant implements StripeParticipant
{
    private static final Logger logger = LoggerFactory.getLogger(RemoteStripeParticipant.class);
    /** Placeholder for parity locators in BUILD_PARITY layouts: parity builders never read parity members. */
    public static final String PENDING = "pending:parity";

    static final long SLOW_TIMEOUT_MILLIS = 15 * 60_000L;

    private final Transport transport;
    private final Function<String, Peer> peerOf;
    private final Predicate<StripeRecord> coldParity;
    private final java.util.function.Supplier<List<String>> ring;
    private final Predicate<String> alive;
    private final Map<StripeId, MemberInfo[]> described = new ConcurrentHashMap<>();
    private final StripeChanges changes;

    /** Every member taken as up (tests). */
    public RemoteStripeParticipant(Transport transport, Function<String, Peer> peerOf, Predicate<StripeRecord> coldParity,
                                   java.util.function.Supplier<List<String>> ring)
    {
        this(transport, peerOf, coldParity, ring, n -> true);
    }

    /**
     * @param ring  every ring member (stub removals go to each: any of them may hold a stub)
     * @param alive whether a member is up: purges go to the live ones only (see {@link #purgeSecondaries})
     */
    public RemoteStripeParticipant(Transport transport, Function<String, Peer> peerOf, Predicate<StripeRecord> coldParity,
                                   java.util.function.Supplier<List<String>> ring, Predicate<String> alive)
    {
        this(transport, peerOf, coldParity, ring, alive, n -> false);
    }

    /**
     * @param departed whether a node has left the ring for good (gone for the departure repair's grace period): a
     *                 member change in flight finishes without it (see {@link StripeChanges#change})
     */
    public RemoteStripeParticipant(Transport transport, Function<String, Peer> peerOf, Predicate<StripeRecord> coldParity,
                                   java.util.function.Supplier<List<String>> ring, Predicate<String> alive, Predicate<String> departed)
    {
        this.transport = transport;
        this.peerOf = peerOf;
        this.coldParity = coldParity;
        this.ring = ring;
        this.alive = alive;
        this.changes = new StripeChanges(transport, peerOf, ring, departed);
    }

    /**
     * Whether a merge's parity change asks the member's node for the difference of the two versions (MEMBER_DELTA;
     * update_policy delta) so that each parity node reads one stream instead of both versions. On by default.
     */
    public void pushDeltas(boolean on)
    {
        changes.pushDeltas(on);
    }

    /** {@code <keyspace>.<table>/<sstable id>} */
    public static String memberName(TableRef table, String sstableId)
    {
        return table.keyspace() + "." + table.table() + "/" + sstableId;
    }

    public static TableRef tableOf(String memberName)
    {
        int slash = memberName.indexOf('/');
        int dot = memberName.indexOf('.');
        if (slash < 0 || dot < 0 || dot > slash)
            throw new IllegalArgumentException("member name must be <keyspace>.<table>/<sstable id>, was '" + memberName + "'");
        return new TableRef(memberName.substring(0, dot), memberName.substring(dot + 1, slash));
    }

    /** The table of a stripe: that of its first real member (a stripe never mixes tables). */
    public static TableRef tableOf(StripeRecord stripe)
    {
        for (Member m : stripe.members())
            if (!m.isVirtual())
                return tableOf(m.sstable());
        throw new IllegalArgumentException("stripe " + stripe.id() + " has no real member");
    }

    public static String sstableOf(String memberName)
    {
        return memberName.substring(memberName.indexOf('/') + 1);
    }

    public static String nodeLocator(Peer peer, String absolutePath)
    {
        return LocatorMemberReader.node(peer.host(), peer.port(), java.nio.file.Paths.get(absolutePath));
    }

    @Override
    public void shipChunks(StripeRecord stripe)
    {
        describe(stripe, true);
    }

    @Override
    public void writeParity(StripeRecord stripe)
    {
        parityInfos(stripe, layoutWith(stripe, null));
    }

    @Override
    public void installStubs(StripeRecord stripe)
    {
        StripeLayout pending = layoutWith(stripe, null);
        List<ParityInfo> parity = parityInfos(stripe, pending);
        List<String> parityLocators = new ArrayList<>();
        for (ParityInfo p : parity)
            parityLocators.add(p.locator());
        StripeLayout layout = layoutWith(stripe, parityLocators);
        MemberInfo[] infos = describe(stripe, false);
        List<CompletableFuture<byte[]>> calls = new ArrayList<>();
        for (int i = 0; i < stripe.k(); i++)
        {
            Member m = stripe.members().get(i);
            if (m.isVirtual())
                continue;
            StubRequest req = new StubRequest(tableOf(m.sstable()), sstableOf(m.sstable()), stripe.id().toString(), layout, i,
                                              infos[i].checksums(), List.of());
            calls.add(slow(peerOf.apply(m.node()), Verbs.STUB, req.encode()));
        }
        StubResult total = new StubResult(0, 0, 0, 0);
        for (byte[] answer : awaitAll(calls, "STUB"))
            total = total.plus(StubResult.decode(answer));
        logger.info("stripe {}: stubs installed on {} secondaries", stripe.id(), total.secondaries());
    }

    @Override
    /**
     * STUB_PURGE on every LIVE member. A down member is skipped: purging is cleanup, not what makes the stripe safe
     * (its stubs are installed and its parity durable), and a node purges its files against every stub of a stripe
     * that is STUBS_INSTALLED or later in its periodic stub maintenance, which after a restart examines every file
     * again (LocalTransitionOps.maintain). Without the skip, a stripe formed while any member was down stayed
     * STUBS_INSTALLED until it returned (seen in the simulation: rounds with a node down committed nothing).
     */
    public void purgeSecondaries(StripeRecord stripe)
    {
        StubCount total = onNodes(stripe, Verbs.STUB_PURGE, ring.get().stream().filter(alive).toList());
        logger.info("stripe {}: secondaries purged against {} stubs: {} -> {} bytes", stripe.id(), total.stubs(),
                    total.bytesBefore(), total.bytesAfter());
    }

    /** Sends a StripeRef verb to every ring member and sums their answers; fails if any fails. */
    private StubCount onEveryNode(StripeRecord stripe, int verb)
    {
        return onNodes(stripe, verb, ring.get());
    }

    /** Sends a StripeRef verb to each of the nodes and sums their answers; fails if any fails. */
    private StubCount onNodes(StripeRecord stripe, int verb, List<String> nodes)
    {
        byte[] req = new StripeRef(tableOf(stripe), stripe.id().toString()).encode();
        List<CompletableFuture<byte[]>> calls = new ArrayList<>();
        for (String node : nodes)
            calls.add(slow(peerOf.apply(node), verb, req));
        int stubs = 0;
        long before = 0, after = 0;
        for (byte[] answer : awaitAll(calls, Verbs.name(verb)))
        {
            StubCount n = StubCount.decode(answer);
            stubs += n.stubs();
            before += n.bytesBefore();
            after += n.bytesAfter();
        }
        return new StubCount(stubs, before, after);
    }

    @Override
    public void commit(StripeRecord stripe)
    {
        forEachMember(stripe, Verbs.COMMIT);
        described.remove(stripe.id());
    }

    @Override
    public void rollback(StripeRecord stripe)
    {
        // Stubs first, parity after: until every node has answered STUB_REMOVE, a stub may still serve reads, and a
        // stub whose primary is down decodes from the parity. If any node does not answer, the rollback fails here
        // with the parity intact and is retried (dropping parity first lost reads in the simulation, seed 2894).
        StubCount removed = onEveryNode(stripe, Verbs.STUB_REMOVE);
        if (removed.stubs() > 0)
            logger.info("stripe {}: {} stubs removed by the rollback", stripe.id(), removed.stubs());
        dropParity(stripe);
        forEachMember(stripe, Verbs.ROLLBACK);
        described.remove(stripe.id());
    }

    /**
     * Stubs first (on every ring node: they are the only readers that decode), then the members on their nodes, then
     * the parity: at every moment what is left still decodes or is not read. Every node must answer (see
     * {@link #onNodes}); a failure leaves the stripe RETIRING and the next attempt redoes every step (idempotent).
     */
    @Override
    public void retire(StripeRecord stripe)
    {
        StubCount stubs = onEveryNode(stripe, Verbs.STUB_REMOVE);
        List<String> memberNodes = new ArrayList<>();
        for (Member m : stripe.members())
            if (!m.isVirtual() && !memberNodes.contains(m.node()) && inRing(m.node())) // a node that left took its files
                memberNodes.add(m.node());
        StubCount members = onNodes(stripe, Verbs.RETIRE_MEMBERS, memberNodes);
        dropParity(stripe);
        described.remove(stripe.id());
        logger.info("stripe {} retired: {} stubs, {} members ({} data bytes) and {} parity members deleted", stripe.id(),
                    stubs.stubs(), members.stubs(), members.bytesBefore(), stripe.m());
    }

    /** DROP_PARITY of every parity member of the record's generation (its local file, or its cold object and marker). */
    private void dropParity(StripeRecord stripe)
    {
        dropParity(stripe, stripe.parityGeneration());
    }

    private void dropParity(StripeRecord stripe, long generation)
    {
        List<CompletableFuture<byte[]>> calls = new ArrayList<>();
        for (int j = 0; j < stripe.m(); j++)
            if (inRing(stripe.parityNodes().get(j))) // a node that left took its files
                calls.add(transport.request(peerOf.apply(stripe.parityNodes().get(j)), Verbs.DROP_PARITY,
                                        new DropParityRequest(tableOf(stripe), stripe.id().toString(), j, generation).encode()));
        awaitAll(calls, "DROP_PARITY");
    }

    /** {@link StripeChanges#change}. */
    @Override
    public void change(StripeRecord stripe)
    {
        changes.change(stripe);
    }

    /** {@link StripeChanges#prepareMerge}. */
    public io.elect.core.transition.wire.ChangeMessages.MergeResult prepareMerge(StripeRecord stripe, int slot, double minShare)
    {
        return changes.prepareMerge(stripe, slot, minShare);
    }

    /** {@link StripeChanges#materialize}. */
    public io.elect.core.transition.wire.ChangeMessages.MaterializeResult materialize(StripeRecord stripe, int slot, String departed)
    {
        return changes.materialize(stripe, slot, departed);
    }

    /** {@link StripeChanges#finishChange}, then DROP_PARITY of the previous generation. */
    @Override
    public void finishChange(StripeRecord stripe)
    {
        changes.finishChange(stripe);
        dropParity(stripe, stripe.parityGeneration() - 1);
        described.remove(stripe.id());
    }

    private boolean inRing(String node)
    {
        return ring.get().contains(node);
    }

    private void forEachMember(StripeRecord stripe, int verb)
    {
        List<CompletableFuture<byte[]>> calls = new ArrayList<>();
        for (Member m : stripe.members())
            if (!m.isVirtual() && inRing(m.node())) // a node that left the ring took its pins and freezes with it
                calls.add(transport.request(peerOf.apply(m.node()), verb,
                                            new MemberRequest(tableOf(m.sstable()), sstableOf(m.sstable()), stripe.id().toString()).encode()));
        awaitAll(calls, Verbs.name(verb));
    }

    /** PIN every real member (idempotent) and remember where its files are; virtual members are null. */
    private MemberInfo[] describe(StripeRecord stripe, boolean fresh)
    {
        MemberInfo[] cached = fresh ? null : described.get(stripe.id());
        if (cached != null)
            return cached;
        MemberInfo[] infos = new MemberInfo[stripe.k()];
        List<CompletableFuture<byte[]>> calls = new ArrayList<>();
        for (Member m : stripe.members())
            calls.add(m.isVirtual() ? null
                                    : transport.request(peerOf.apply(m.node()), Verbs.PIN,
                                                        new MemberRequest(tableOf(m.sstable()), sstableOf(m.sstable()), stripe.id().toString()).encode()));
        List<byte[]> answers = awaitAll(calls, "PIN");
        for (int i = 0; i < calls.size(); i++)
        {
            if (calls.get(i) == null)
                continue;
            infos[i] = MemberInfo.decode(answers.get(i));
            long expected = stripe.members().get(i).realBytes();
            if (infos[i].checksums().length() != expected)
                throw new IllegalStateException("stripe " + stripe.id() + " member " + i + " (" + stripe.members().get(i).sstable()
                                                + ") has " + infos[i].checksums().length() + " data bytes, planned " + expected);
        }
        described.put(stripe.id(), infos);
        return infos;
    }

    /** The layout: data locators from the members' descriptions; parity locators given, or placeholders. */
    private StripeLayout layoutWith(StripeRecord stripe, List<String> parityLocators)
    {
        MemberInfo[] infos = describe(stripe, false);
        long[] lengths = new long[stripe.k()];
        List<String> locators = new ArrayList<>();
        long max = 0;
        for (int i = 0; i < stripe.k(); i++)
        {
            Member m = stripe.members().get(i);
            if (m.isVirtual())
            {
                locators.add(LocatorMemberReader.zero());
                continue;
            }
            lengths[i] = infos[i].checksums().length();
            max = Math.max(max, lengths[i]);
            locators.add(nodeLocator(peerOf.apply(m.node()), infos[i].dataPath()));
        }
        for (int j = 0; j < stripe.m(); j++)
            locators.add(parityLocators == null ? PENDING : parityLocators.get(j));
        return new StripeLayout(stripe.codecId(), stripe.k(), stripe.m(), lengths, max, locators);
    }

    private List<ParityInfo> parityInfos(StripeRecord stripe, StripeLayout pending)
    {
        boolean cold = coldParity.test(stripe);
        List<CompletableFuture<byte[]>> calls = new ArrayList<>();
        for (int j = 0; j < stripe.m(); j++)
            calls.add(slow(peerOf.apply(stripe.parityNodes().get(j)), Verbs.BUILD_PARITY,
                           new BuildParityRequest(tableOf(stripe), stripe.id().toString(), pending, j, cold).encode()));
        List<ParityInfo> out = new ArrayList<>();
        for (byte[] answer : awaitAll(calls, "BUILD_PARITY"))
            out.add(ParityInfo.decode(answer));
        return out;
    }

    /**
     * Waits for EVERY call (null entries are skipped and answer null) and only then fails with the first failure, so a
     * fan-out that throws has nothing of its own still in flight: the state machine's retry of a phase never overlaps
     * a request of the attempt before it (a rollback's retried STUB_REMOVE raced its own first attempt in CI). Failures
     * are IllegalStateExceptions naming {@code what} and the first cause; the others are suppressed into it.
     */
    public static List<byte[]> awaitAll(List<CompletableFuture<byte[]>> calls, String what)
    {
        List<byte[]> answers = new ArrayList<>(calls.size());
        RuntimeException first = null;
        for (CompletableFuture<byte[]> c : calls)
        {
            if (c == null)
            {
                answers.add(null);
                continue;
            }
            try
            {
                answers.add(await(c, what));
            }
            catch (RuntimeException e)
            {
                answers.add(null);
                if (first == null)
                    first = e;
                else
                    first.addSuppressed(e);
            }
        }
        if (first != null)
            throw first;
        return answers;
    }

    static byte[] await(CompletableFuture<byte[]> f, String what)
    {
        try
        {
            return f.get();
        }
        catch (InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(what + " interrupted", e);
        }
        catch (ExecutionException e)
        {
            Throwable c = e.getCause();
            throw new IllegalStateException(what + " failed: " + (c == null ? e : c.getMessage()), c);
        }
    }

    /**
     * Verbs that move whole members (encode, stub) run for as long as their data takes, far beyond the transport's
     * request timeout; they are sent once with {@link #SLOW_TIMEOUT_MILLIS} and retried by the state machine's next
     * attempt (they are idempotent).
     */
    private CompletableFuture<byte[]> slow(Peer peer, int verb, byte[] payload)
    {
        return transport.requestOnce(peer, verb, payload, SLOW_TIMEOUT_MILLIS);
    }
}
