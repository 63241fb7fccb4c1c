package io.elect.core.transition;

import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeRecord;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.elect.core.transition.ParityPlacement.Node;
import io.elect.core.transition.wire.TransitionMessages.CandidateInfo;
import io.elect.core.transition.wire.NodeSnapshot;
import io.elect.core.transition.wire.TransitionMessages.TableRef;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A coordinator round over modelled snapshots: how much each node encodes follows the plan, candidates go coldest
 * first, stripes take k distinct nodes with parity elsewhere, and a lone node's candidates wait for
 * {@code stripe_fill_wait} before virtual chunks fill the stripe.
 */
class TransitionCoordinatorTest
{
    private static final TableRef T = new TableRef("ks", "t");
    private static final List<Node> RING = List.of(new Node("10.0.0.1", "r1"), new Node("10.0.0.2", "r1"), new Node("10.0.0.3", "r1"));

    /** A node with 100 primary bytes per candidate (last level), and twice its primary bytes as secondaries. */
    private static NodeSnapshot node(String id, int candidates)
    {
        List<CandidateInfo> c = new ArrayList<>();
        for (int i = 0; i < candidates; i++)
            c.add(new CandidateInfo(id + "-s" + i, 100, 0.001 * i, 10_000)); // coldest first
        long primary = 100L * candidates;
        long[][] unencoded = new long[3][3];
        unencoded[2][0] = primary;
        unencoded[2][1] = primary;
        unencoded[2][2] = primary;
        return new NodeSnapshot(id, unencoded, primary, primary, 0, 0, 0, 0, 0, 0, 0, c);
    }

    /** Every node of RING with {@code candidates} candidates. */
    private static Map<String, NodeSnapshot> ringOf(int candidates)
    {
        Map<String, NodeSnapshot> snaps = new LinkedHashMap<>();
        for (Node n : RING)
            snaps.put(n.id(), node(n.id(), candidates));
        return snaps;
    }

    private static TransitionCoordinator.Settings settings(double alpha, long fillWaitMillis)
    {
        return new TransitionCoordinator.Settings(alpha, 2, 1, "rs-test", true, false, 64, fillWaitMillis, 100);
    }

    @Test
    void chosenFollowsTheShareColdestFirst()
    {
        NodeSnapshot s = node("10.0.0.1", 5);
        assertEquals(List.of(), TransitionCoordinator.chosen(s, 0));
        assertEquals(List.of("10.0.0.1-s0"), names(TransitionCoordinator.chosen(s, 60)));   // at least half a candidate
        assertEquals(List.of(), TransitionCoordinator.chosen(s, 40));                        // less than half: nothing
        assertEquals(List.of("10.0.0.1-s0", "10.0.0.1-s1", "10.0.0.1-s2"), names(TransitionCoordinator.chosen(s, 250)));
        assertEquals(5, TransitionCoordinator.chosen(s, 10_000).size());
    }

    @Test
    void aSmallRemainderSplitOverNodesStillPicksWholeCandidates()
    {
        // three nodes, 100-byte candidates: a plan of 120 bytes gives each node 40 (< half a candidate: nothing)
        List<NodeSnapshot> snaps = List.of(node("10.0.0.1", 2), node("10.0.0.2", 2), node("10.0.0.3", 2));
        for (NodeSnapshot s : snaps)
            assertEquals(List.of(), TransitionCoordinator.chosen(s, 40));
        assertEquals(List.of("10.0.0.1"), List.copyOf(TransitionCoordinator.chosenClusterWide(snaps, 120).keySet()));
        assertEquals(List.of("10.0.0.1", "10.0.0.2"), List.copyOf(TransitionCoordinator.chosenClusterWide(snaps, 160).keySet()));
        assertEquals(List.of("10.0.0.1-s0"), names(TransitionCoordinator.chosenClusterWide(snaps, 160).get("10.0.0.1")));
        assertEquals(Map.of(), TransitionCoordinator.chosenClusterWide(snaps, 40));       // less than half of any: nothing
        assertEquals(3, TransitionCoordinator.chosenClusterWide(snaps, 10_000).size());    // at most one per node
    }

    @Test
    void perNodeRoundingThatAddsUpToAnOvershootFallsBackToTheClusterWideChoice()
    {
        // alpha 0.05 of F = 3 x 1200 = 3600: need 180, gain 1.5 -> encode 120 = 40 per node... under half a candidate:
        // cluster-wide, one candidate. With 4 nodes and alpha 0.075 the ask is 180 = 45 per node (under half: the
        // cluster-wide choice again). A plan whose per-node shares are just over half a candidate (60 each) would
        // take one candidate per node: 3 x 100 = 300 for an ask of 180, more than 1.5x: cluster-wide, 2 candidates.
        Map<String, NodeSnapshot> snaps = ringOf(4);
        AlphaPlanner.Plan plan = TransitionCoordinator.plan(settings(0.075, 0), snaps.values());
        assertEquals(180, plan.encodeBytes(), 1e-6);
        for (AlphaPlanner.NodeAction a : plan.nodes())
            assertEquals(60, a.encodeBytes(), "per-node share: " + a);
        assertEquals(List.of(1, 1, 1), List.of(TransitionCoordinator.chosen(snaps.get("10.0.0.1"), 60).size(),
                                               TransitionCoordinator.chosen(snaps.get("10.0.0.2"), 60).size(),
                                               TransitionCoordinator.chosen(snaps.get("10.0.0.3"), 60).size()));
        Map<String, List<CandidateInfo>> choice = TransitionCoordinator.choose(plan, snaps, 1.0);
        assertEquals(2, choice.values().stream().mapToInt(List::size).sum(), "300 bytes for an ask of 180 overshoots: " + choice);
        // a larger ask keeps the per-node choice: 2 per node (240 each -> 2 x 100, within half a candidate)
        AlphaPlanner.Plan big = TransitionCoordinator.plan(settings(0.3, 0), snaps.values());
        assertEquals(6, TransitionCoordinator.choose(big, snaps, 1.0).values().stream().mapToInt(List::size).sum());
    }

    /**
     * Encoding stalled short of alpha (the ask is under half of every candidate, so no stripe forms): the hot bytes
     * above the target are asked of parity offload instead; otherwise the plan's own offload ask stands.
     */
    @Test
    void stalledEncodingHandsTheRemainingGapToParityOffload()
    {
        // alpha 0.3 of F = 3 x 1200 with candidates of 100: the plan asks 720 bytes of encoding, no parity offload
        Map<String, NodeSnapshot> snaps = ringOf(4);
        AlphaPlanner.Plan plan = TransitionCoordinator.plan(settings(0.3, 0), snaps.values());
        assertEquals(720, plan.encodeBytes(), 1e-6);
        assertEquals(0, plan.parityOffloadBytes(), 1e-6);
        assertEquals(0, TransitionCoordinator.parityOffloadAsk(plan, false), 1e-6, "encoding not stalled: the plan's ask");
        assertEquals(plan.hotBytes() - plan.targetHotBytes(), TransitionCoordinator.parityOffloadAsk(plan, true), 1e-6,
                     "stalled: the hot bytes above the target");
        assertEquals(1080, TransitionCoordinator.parityOffloadAsk(plan, true), 1e-6);
        // nothing asked of encoding (target reached, or already an offload ask): unchanged
        AlphaPlanner.Plan reached = TransitionCoordinator.plan(settings(0.0, 0), snaps.values());
        assertEquals(0, reached.encodeBytes(), 1e-6);
        assertEquals(reached.parityOffloadBytes(), TransitionCoordinator.parityOffloadAsk(reached, true), 1e-6);
    }

    @Test
    void roundEncodesThePlannedShareOnDistinctNodes()
    {
        Map<String, NodeSnapshot> snaps = ringOf(4);
        InMemoryStripeStore store = new InMemoryStripeStore();
        ModelParticipant model = new ModelParticipant(store, 1);
        AtomicLong clock = new AtomicLong(1_000_000);
        StripeStateMachine machine = new StripeStateMachine(store, model, clock::get);
        // alpha 0.3 of F = 3 x 1200: need 1080; g = rho (2) - pi (0.5) = 1.5 -> encode 720 = 240 per node. The gap
        // (1080 of 3600) is far above DAMPED_GAP, so the round carries out half: 120 per node, one candidate each
        TransitionCoordinator c = new TransitionCoordinator(settings(0.3, 60_000), clock::get);
        TransitionCoordinator.RoundResult r = c.round(T, snaps, RING, machine, p -> {});
        assertEquals(720, r.plan().encodeBytes(), 1e-6);
        assertEquals(0.5, TransitionCoordinator.encodeShare(r.plan()));
        assertEquals(1, r.planned(), "3 candidates (one per node) of 3 nodes make 1 stripe of k=2 (the third waits)");
        assertEquals(1, r.committed());
        Set<String> members = new HashSet<>();
        for (StripeRecord s : store.list())
        {
            Set<String> nodes = new HashSet<>(s.parityNodes());
            for (Member m : s.members())
            {
                assertTrue(nodes.add(m.node()), "k+m chunks on distinct nodes: " + s);
                assertTrue(members.add(m.sstable()), "a member in one stripe only");
                assertEquals(T, RemoteStripeParticipant.tableOf(m.sstable()));
            }
        }
        for (String m : members)
            assertTrue(m.endsWith("-s0") || m.endsWith("-s1"), "coldest first: " + members);
    }

    @Test
    void aStripeIsNotFormedWhenAdmissionRefusesOneOfItsNodes()
    {
        // a node marked draining after the round began (the node layer's admission re-reads the marks): the stripe the
        // round planned with it is not created, and nothing of it reaches the store
        Map<String, NodeSnapshot> snaps = ringOf(4);
        InMemoryStripeStore store = new InMemoryStripeStore();
        AtomicLong clock = new AtomicLong(1_000_000);
        StripeStateMachine machine = new StripeStateMachine(store, new ModelParticipant(store, 1), clock::get);
        TransitionCoordinator c = new TransitionCoordinator(settings(0.3, 60_000), clock::get);
        List<java.util.Collection<String>> asked = new java.util.ArrayList<>();
        c.admission(nodes -> {
            asked.add(nodes);
            return false;
        });
        TransitionCoordinator.RoundResult r = c.round(T, snaps, RING, machine, p -> {});
        assertEquals(0, r.planned());
        assertEquals(0, r.committed());
        assertTrue(store.list().isEmpty(), "no record of a refused stripe: " + store.list());
        assertEquals(1, asked.size());
        assertEquals(3, asked.get(0).size(), "k + m = 3 distinct nodes asked about: " + asked);
        // admitted again: the next round forms it
        c.admission(nodes -> true);
        assertEquals(1, c.round(T, snaps, RING, machine, p -> {}).committed());
    }

    @Test
    void aHalfStepTooSmallForAnyCandidateTakesTheFullStep()
    {
        Map<String, NodeSnapshot> snaps = ringOf(4);
        InMemoryStripeStore store = new InMemoryStripeStore();
        AtomicLong clock = new AtomicLong(1_000_000);
        StripeStateMachine machine = new StripeStateMachine(store, new ModelParticipant(store, 1), clock::get);
        // alpha 0.0375 of F = 3600: encode 0.0375 x 3600 / 1.5 = 90 bytes; the gap (135) is above DAMPED_GAP (72), so
        // the damped share is 45, under half of any 100-byte candidate; the full 90 takes one (the round used to
        // plan nothing here, forever: alpha 0.3 stalled 3.2 points short in scripts/bench storage --quick)
        TransitionCoordinator c = new TransitionCoordinator(settings(0.0375, 0), clock::get);
        TransitionCoordinator.RoundResult r = c.round(T, snaps, RING, machine, p -> {});
        assertEquals(90, r.plan().encodeBytes(), 1e-6);
        assertEquals(0.5, TransitionCoordinator.encodeShare(r.plan()));
        assertEquals(Map.of(), TransitionCoordinator.choose(r.plan(), snaps, 0.5));
        assertEquals(1, r.planned(), "one candidate, its stripe filled with a virtual chunk (no fill wait)");
        assertEquals(1, r.committed());
    }

    @Test
    void newSettingsApplyFromTheNextRound()
    {
        // electtool alpha: the coordinator of a table outlives a change of alpha and must plan with the new one
        Map<String, NodeSnapshot> snaps = ringOf(4);
        InMemoryStripeStore store = new InMemoryStripeStore();
        AtomicLong clock = new AtomicLong(1_000_000);
        StripeStateMachine machine = new StripeStateMachine(store, new ModelParticipant(store, 1), clock::get);
        TransitionCoordinator c = new TransitionCoordinator(settings(0.0375, 0), clock::get);
        assertEquals(90, c.round(T, snaps, RING, machine, p -> {}).plan().encodeBytes(), 1e-6);
        c.settings(settings(0.3, 0));
        assertEquals(720, c.round(T, snaps, RING, machine, p -> {}).plan().encodeBytes(), 1e-6, "alpha 0.3 from the next round");
    }

    @Test
    void aLoneNodeWaitsThenVirtualChunksFill()
    {
        Map<String, NodeSnapshot> snaps = new LinkedHashMap<>();
        snaps.put("10.0.0.1", node("10.0.0.1", 2));
        snaps.put("10.0.0.2", node("10.0.0.2", 0));
        snaps.put("10.0.0.3", node("10.0.0.3", 0));
        InMemoryStripeStore store = new InMemoryStripeStore();
        AtomicLong clock = new AtomicLong(1_000_000);
        StripeStateMachine machine = new StripeStateMachine(store, new ModelParticipant(store, 2), clock::get);
        TransitionCoordinator c = new TransitionCoordinator(settings(0.6, 30_000), clock::get);
        assertEquals(0, c.round(T, snaps, RING, machine, p -> {}).planned(), "one node's candidates wait");
        clock.addAndGet(29_000);
        assertEquals(0, c.round(T, snaps, RING, machine, p -> {}).planned(), "still within the fill wait");
        clock.addAndGet(2_000);
        TransitionCoordinator.RoundResult r = c.round(T, snaps, RING, machine, p -> {});
        assertNotEquals(0, r.planned(), "after the wait, virtual chunks fill the stripe");
        for (StripeRecord s : store.list())
            assertTrue(s.members().stream().anyMatch(Member::isVirtual), "virtual member: " + s);
    }

    @Test
    void laterCandidatesFillThePaddedStripesVirtualSlotInsteadOfFormingAStripe()
    {
        Map<String, NodeSnapshot> snaps = new LinkedHashMap<>();
        snaps.put("10.0.0.1", node("10.0.0.1", 1));
        snaps.put("10.0.0.2", node("10.0.0.2", 0));
        snaps.put("10.0.0.3", node("10.0.0.3", 0));
        InMemoryStripeStore store = new InMemoryStripeStore();
        AtomicLong clock = new AtomicLong(1_000_000);
        ModelParticipant participant = new ModelParticipant(store, 2);
        StripeStateMachine machine = new StripeStateMachine(store, participant, clock::get);
        TransitionCoordinator c = new TransitionCoordinator(settings(0.6, 0), clock::get);
        assertEquals(1, c.round(T, snaps, RING, machine, p -> {}, store.list()).committed(), "a padded stripe (no wait)");
        StripeRecord padded = store.list().get(0);
        assertEquals(1, padded.realMembers());
        String parityNode = padded.parityNodes().get(0);
        String other = "10.0.0.2".equals(parityNode) ? "10.0.0.3" : "10.0.0.2";
        // the two other nodes now have a candidate each (node 1's is encoded): the one holding no chunk fills the slot
        snaps.put("10.0.0.1", node("10.0.0.1", 0));
        snaps.put("10.0.0.2", node("10.0.0.2", 1));
        snaps.put("10.0.0.3", node("10.0.0.3", 1));
        TransitionCoordinator.RoundResult r = c.round(T, snaps, RING, machine, p -> {}, store.list());
        assertEquals(1, r.filled());
        assertEquals(0, r.planned(), "a round that filled forms no stripe: the next one plans again");
        StripeRecord filled = store.get(padded.id()).orElseThrow();
        assertEquals(0, filled.members().stream().filter(Member::isVirtual).count());
        assertEquals(other, filled.members().stream().filter(m -> !m.node().equals("10.0.0.1")).findFirst().orElseThrow().node());
        assertEquals(1, filled.parityGeneration());
        for (StripeRecord other2 : store.list())
            if (!other2.id().equals(padded.id()))
                assertTrue(other2.members().stream().noneMatch(m -> other.equals(m.node())), "the filling candidate formed no stripe: " + other2);
        assertEquals(100L * (1 + r.committed()), r.encodedBytes(), "the fill's bytes count as encoded");
        // without fillable stripes (a node down, or fill_virtual_slots off) nothing is filled
        snaps.put("10.0.0.1", node("10.0.0.1", 0));
        snaps.put("10.0.0.2", node("10.0.0.2", 0));
        snaps.put("10.0.0.3", node("10.0.0.3", 0));
        snaps.put(parityNode, node(parityNode, 0));
        assertEquals(0, c.round(T, snaps, RING, machine, p -> {}).filled());
    }

    private static List<String> names(List<CandidateInfo> l)
    {
        List<String> out = new ArrayList<>();
        for (CandidateInfo c : l)
            out.add(c.sstable());
        return out;
    }

    private static StripeRecord committed(String id, long codeLength, Member... members)
    {
        return new StripeRecord(io.elect.core.stripes.StripeId.ofMembers(List.of(id)), "rs-test", members.length, 1, codeLength,
                                List.of(members), List.of("p"), io.elect.core.stripes.StripeState.COMMITTED, 2, 1);
    }

    @Test
    void parityCorrectionPricesNewStripesByFullUnchangedOnes()
    {
        TableRef t = new TableRef("ks", "t");
        StripeRecord full = committed("a", 100, new Member("n1", "ks.t/1", 100), new Member("n2", "ks.t/2", 100));
        // nothing changed, nothing padded: no correction
        assertEquals(1.0, TransitionCoordinator.parityCorrection(t, List.of(full)), 1e-12);
        // a stripe that lost a member keeps its parity (100) for 100 data bytes: the average is (100 + 100) / (200 + 100)
        StripeRecord changed = committed("b", 100, new Member("n1", "ks.t/3", 100), new Member("n2", "ks.t/4", 100))
            .beginChange(1, Member.virtual(), 2).moveTo(io.elect.core.stripes.StripeState.CHANGED, 3).endChange(4);
        assertEquals((100.0 / 200) / (200.0 / 300), TransitionCoordinator.parityCorrection(t, List.of(full, changed)), 1e-12);
        // a padded stripe (one real member) is not what encoding more data costs either
        StripeRecord padded = committed("c", 100, new Member("n1", "ks.t/5", 100), Member.virtual());
        assertEquals((100.0 / 200) / (200.0 / 300), TransitionCoordinator.parityCorrection(t, List.of(full, padded)), 1e-12);
        // no full unchanged stripe at all: the nominal m / k (1/2) against the average (2 x 100 / 200)
        assertEquals(0.5 / 1.0, TransitionCoordinator.parityCorrection(t, List.of(changed, padded)), 1e-12);
        // a stripe whose longest member (100) was removed keeps its code length (100) but its parity files store
        // only the longest remaining member (40): priced at what is stored, (100 + 40) / (200 + 40), not by the code
        // length ((100 + 100) / 240: 0.6)
        StripeRecord shortened = committed("e", 100, new Member("n1", "ks.t/6", 100), new Member("n2", "ks.t/7", 40))
            .beginChange(0, Member.virtual(), 2).moveTo(io.elect.core.stripes.StripeState.CHANGED, 3).endChange(4);
        assertEquals(40, shortened.storedParityBytes());
        assertEquals((100.0 / 200) / (140.0 / 240), TransitionCoordinator.parityCorrection(t, List.of(full, shortened)), 1e-12);
        // another table's stripes and stripes in flight do not count; nothing committed: 1
        StripeRecord other = committed("d", 100, new Member("n1", "ks.u/1", 10), Member.virtual());
        assertEquals(1.0, TransitionCoordinator.parityCorrection(t, List.of(full, other)), 1e-12);
        assertEquals(1.0, TransitionCoordinator.parityCorrection(t, List.of()), 1e-12);
    }

    @Test
    void aSmallChoiceIsWidenedUntilItsStripePaysForItsParity()
    {
        // 10 nodes, RS(4,2), rho 2 (sigma 0): a one-member stripe frees 2 x 100 bytes and costs 2 x 128 (the member
        // aligned to 64): widened with the smallest head of another node (90 bytes): frees 380, costs 256: net 124,
        // under twice the gap (alpha 0.01 of F = 10 x 900 + 90 x 3 - 10: 92.6 bytes of hot to save): taken.
        Map<String, NodeSnapshot> snaps = new LinkedHashMap<>();
        for (int i = 1; i <= 10; i++)
            snaps.put("10.0.1." + i, node("10.0.1." + i, 3));
        snaps.put("10.0.1.7", sized("10.0.1.7", 90));
        AlphaPlanner.Plan plan = TransitionCoordinator.plan(new TransitionCoordinator.Settings(0.01, 4, 2, "rs-test", true, false, 64, 0, 100),
                                                            snaps.values());
        assertEquals(2.0, plan.secondaryPerPrimary(), 1e-9);
        assertTrue(plan.hotBytes() - plan.targetHotBytes() > 62 && plan.hotBytes() - plan.targetHotBytes() < 124, plan.toMap().toString());
        Map<String, List<CandidateInfo>> one = new java.util.TreeMap<>(Map.of("10.0.1.1", List.of(snaps.get("10.0.1.1").candidates().get(0))));
        Map<String, List<CandidateInfo>> widened = TransitionCoordinator.viable(one, snaps, plan, 4, 2, 64);
        assertEquals(List.of("10.0.1.1", "10.0.1.7"), List.copyOf(widened.keySet()), "the smallest other head joins: " + widened);
        // a gap under half the widened stripe's gain (alpha 0.005: 47.6 bytes): widening would overshoot more than
        // forming nothing misses by: the choice stays as it is
        AlphaPlanner.Plan small = TransitionCoordinator.plan(new TransitionCoordinator.Settings(0.005, 4, 2, "rs-test", true, false, 64, 0, 100),
                                                             snaps.values());
        assertEquals(one, TransitionCoordinator.viable(one, snaps, small, 4, 2, 64));
        // (2,1) at rho 2: one member frees 200 > 128 of parity: kept as it is
        assertEquals(one, TransitionCoordinator.viable(one, snaps, plan, 2, 1, 64));
        // no measured secondaries (rho 0): no stripe ever pays, nothing to gain by widening: as it is
        AlphaPlanner.Plan unmeasured = TransitionCoordinator.plan(new TransitionCoordinator.Settings(0.01, 4, 2, "rs-test", true, false, 64, 0, 100),
                                                                  List.of(primariesOnly("10.0.1.1", 100)));
        assertEquals(0.0, unmeasured.secondaryPerPrimary(), 1e-9);
        assertEquals(one, TransitionCoordinator.viable(one, snaps, unmeasured, 4, 2, 64));
        // several candidates per node, or k nodes already: returned as they are
        Map<String, List<CandidateInfo>> two = Map.of("10.0.1.1", snaps.get("10.0.1.1").candidates().subList(0, 2));
        assertEquals(two, TransitionCoordinator.viable(two, snaps, plan, 4, 2, 64));
    }

    /** A node holding only primaries (no secondary measured: rho 0). */
    private static NodeSnapshot primariesOnly(String id, long bytes)
    {
        long[][] unencoded = new long[3][3];
        unencoded[2][0] = bytes;
        return new NodeSnapshot(id, unencoded, bytes, bytes, 0, 0, 0, 0, 0, 0, 0, List.of(new CandidateInfo(id + "-s0", bytes, 0, 10_000)));
    }

    /** A node with one candidate of {@code bytes} and twice its primary bytes as secondaries. */
    private static NodeSnapshot sized(String id, long bytes)
    {
        long[][] unencoded = new long[3][3];
        unencoded[2][0] = bytes;
        unencoded[2][1] = bytes;
        unencoded[2][2] = bytes;
        return new NodeSnapshot(id, unencoded, bytes, bytes, 0, 0, 0, 0, 0, 0, 0, List.of(new CandidateInfo(id + "-s0", bytes, 0, 10_000)));
    }
}
