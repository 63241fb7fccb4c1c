package io.elect.core.transition;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.elect.coding.CauchyMatrix;
import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.ParityPlacement.Node;
import io.elect.core.transition.WideningPlanner.Addition;
import io.elect.core.transition.WideningPlanner.Candidate;
import io.elect.core.transition.WideningPlanner.NodeTraffic;
import io.elect.core.transition.WideningPlanner.Outcome;
import io.elect.core.transition.WideningPlanner.Plan;
import io.elect.core.transition.WideningPlanner.StripePlan;
import io.elect.core.transition.WideningPlanner.Transfer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Seeded properties of {@link WideningPlanner} over random clusters (3..12 nodes, 1..3 racks), random stripes (some
 * with virtual slots, some not committed) and random candidates:
 * <ul>
 * <li>bytes moved == the Scale-RS lower bound recomputed from the widened records alone (m x the bytes of every
 * member a widened record has that the old one did not; docs/design/scaling.md says every plan is optimal in the
 * model), hence also <= 1.05 x the bound;</li>
 * <li>every parity node of a stripe receives each new member's difference exactly once, no other transfer;</li>
 * <li>widened records are valid: all chunks on distinct nodes, codec id of the new k, virtual slots filled before
 * new ones, no candidate used twice, chunk length covers every member;</li>
 * <li>maximal: a stripe that is not fully widened has no eligible node with an unused candidate left.</li>
 * </ul>
 */
class WideningPlannerPropertyTest
{
    private static final int ROUNDS = 500;

    @Test
    void plansMoveExactlyTheLowerBoundAndKeepEveryInvariant()
    {
        long seed = Long.getLong("elect.test.seed", System.nanoTime());
        System.out.println("WideningPlannerPropertyTest: seed " + seed + " (replay with -Delect.test.seed=" + seed + ")");
        Random r = new Random(seed);
        for (int round = 0; round < ROUNDS; round++)
            check(r, "seed " + seed + " round " + round);
    }

    private static void check(Random r, String context)
    {
        int nodes = 3 + r.nextInt(10), racks = 1 + r.nextInt(3);
        List<Node> ring = new ArrayList<>();
        for (int i = 0; i < nodes; i++)
            ring.add(new Node("n" + i, racks == 1 ? null : "r" + (i % racks)));
        List<String> ids = ring.stream().map(Node::id).toList();
        List<StripeRecord> stripes = new ArrayList<>();
        int count = r.nextInt(8);
        for (int s = 0; s < count; s++)
        {
            int m = 1 + r.nextInt(Math.min(3, nodes - 1));
            int k = 1 + r.nextInt(Math.min(6, nodes - m));
            List<String> shuffled = new ArrayList<>(ids);
            Collections.shuffle(shuffled, r);
            List<Member> members = new ArrayList<>();
            long longest = 0;
            for (int i = 0; i < k; i++)
            {
                if (i > 0 && r.nextInt(4) == 0)
                    members.add(Member.virtual());
                else
                {
                    long bytes = 1 + r.nextInt(10_000);
                    longest = Math.max(longest, bytes);
                    members.add(new Member(shuffled.get(i), "s" + s + "-" + i, bytes));
                }
            }
            StripeState state = r.nextInt(6) == 0 ? StripeState.PARITY_BUILT : StripeState.COMMITTED;
            String codec = r.nextInt(30) == 0 ? "other-codec" : CauchyMatrix.codecId(k, m);
            // a parity node sometimes left the ring (not live)
            List<String> parity = new ArrayList<>(shuffled.subList(k, k + m));
            if (r.nextInt(15) == 0)
                parity.set(0, "gone");
            stripes.add(new StripeRecord(new StripeId(r.nextLong(), s), codec, k, m, (longest + 4095) / 4096 * 4096, members,
                                         parity, state, 3, 0));
        }
        List<Candidate> candidates = new ArrayList<>();
        for (String n : ids)
            for (int c = r.nextInt(4); c > 0; c--)
                candidates.add(new Candidate(n, "c-" + n + "-" + c, 1 + r.nextInt(20_000)));
        int targetK = 1 + r.nextInt(9);
        Plan plan = WideningPlanner.plan(stripes, ring, candidates, targetK, 4096);

        assertEquals(stripes.size(), plan.stripes().size(), context);
        Map<StripeId, StripeRecord> byId = new HashMap<>();
        for (StripeRecord s : stripes)
            byId.put(s.id(), s);
        Map<String, String> rackOf = new HashMap<>();
        for (Node n : ring)
            rackOf.put(n.id(), n.rack() == null ? "" : n.rack());
        int rackCount = new HashSet<>(rackOf.values()).size();
        long bound = 0;
        Set<String> used = new HashSet<>();
        Map<String, Long> expectedTransfers = new HashMap<>();
        for (StripePlan p : plan.stripes())
        {
            StripeRecord before = byId.get(p.id());
            StripeRecord after = p.widened(before); // validates the record
            String where = context + " stripe " + p.id() + " " + p.outcome() + " " + p.reason();
            if (p.outcome() == Outcome.NOT_COMMITTED || p.outcome() == Outcome.UNCHANGED)
                assertTrue(p.additions().isEmpty(), where);
            assertEquals(p.toK(), after.k(), where);
            assertEquals(after.k() == before.k() ? before.codecId() : CauchyMatrix.codecId(after.k(), after.m()), after.codecId(), where);
            assertTrue(after.k() <= Math.max(before.k(), targetK), where);
            // distinct nodes over data and parity
            Set<String> holders = new HashSet<>(after.parityNodes());
            for (Member mem : after.members())
                if (!mem.isVirtual())
                    assertTrue(holders.add(mem.node()), where + ": two chunks on " + mem.node());
            // racks: a member is added only to a rack holding at most the per-rack share of the widened stripe
            int cap = StripePlanner.membersPerRack(Math.max(before.k(), targetK), before.m(), rackCount);
            Map<String, Integer> perRack = new HashMap<>();
            for (String h : holders)
                perRack.merge(rackOf.getOrDefault(h, "?" + h), 1, Integer::sum);
            for (var a : p.additions())
                assertTrue(perRack.get(rackOf.get(a.node())) <= cap, where + ": rack of " + a.node() + " holds more than " + cap + " chunks");
            // no new virtual slot; virtual slots filled before new slots
            for (int i = before.k(); i < after.k(); i++)
                assertFalse(after.members().get(i).isVirtual(), where);
            if (after.k() > before.k())
                for (Member mem : after.members())
                    assertFalse(mem.isVirtual(), where + ": a new slot was filled while a virtual slot stayed empty");
            // the lower bound from the records alone: m x every member the widened record has and the old one lacks
            long added = 0;
            Set<Member> old = new HashSet<>(before.members());
            for (Member mem : after.members())
                if (!mem.isVirtual() && !old.contains(mem))
                {
                    added += mem.realBytes();
                    assertTrue(used.add(mem.node() + "|" + mem.sstable()), where + ": candidate used twice");
                    assertTrue(candidates.contains(new Candidate(mem.node(), mem.sstable(), mem.realBytes())), where);
                    for (String pn : before.parityNodes())
                        expectedTransfers.merge(p.id() + "|" + mem.node() + "->" + pn, mem.realBytes(), Long::sum);
                }
            bound += (long) before.m() * added;
            assertEquals((long) before.m() * added, p.lowerBound(), where);
            assertTrue(after.codeLength() >= before.codeLength(), where);
            // maximal: nothing fully widened leaves an eligible node with an unused candidate
            if (p.outcome() == Outcome.PARTIAL || (p.outcome() == Outcome.CANNOT_WIDEN && p.reason().startsWith("needs")))
                for (Candidate c : candidates)
                    assertFalse(!holders.contains(c.node()) && perRack.getOrDefault(rackOf.get(c.node()), 0) < cap && unusedAtEnd(plan, c),
                                where + ": eligible unused candidate " + c);
        }
        Map<String, Long> actualTransfers = new HashMap<>();
        long sent = 0, received = 0;
        for (Transfer t : plan.transfers())
        {
            assertFalse(t.from().equals(t.to()), context);
            actualTransfers.merge(t.stripe() + "|" + t.from() + "->" + t.to(), t.bytes(), Long::sum);
        }
        assertEquals(expectedTransfers, actualTransfers, context);
        for (NodeTraffic n : plan.perNode().values())
        {
            sent += n.sentBytes();
            received += n.receivedBytes();
        }
        assertEquals(bound, plan.lowerBound(), context);
        assertEquals(bound, plan.bytesMoved(), context + ": every plan is optimal in the model");
        assertEquals(bound, sent, context);
        assertEquals(bound, received, context);
        assertTrue(plan.bytesMoved() <= 1.05 * plan.lowerBound(), context);
    }

    /** Whether no stripe of the plan took the candidate (it stayed with its node). */
    private static boolean unusedAtEnd(Plan plan, Candidate c)
    {
        for (StripePlan p : plan.stripes())
            for (Addition a : p.additions())
                if (a.node().equals(c.node()) && a.sstable().equals(c.sstable()))
                    return false;
        return true;
    }
}
