package io.elect.core.transition;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Golden cases of {@link WideningPlanner}; the seeded properties are in {@link WideningPlannerPropertyTest}. */
class WideningPlannerTest
{
    static StripeRecord stripe(long id, int m, long codeLength, List<Member> members, String... parity)
    {
        return new StripeRecord(new StripeId(0, id), CauchyMatrix.codecId(members.size(), m), members.size(), m, codeLength,
                                members, List.of(parity), StripeState.COMMITTED, 5, 1000);
    }

    static Member member(String node, String sstable, long bytes)
    {
        return new Member(node, sstable, bytes);
    }

    static List<Node> ring(String... ids)
    {
        return Arrays.stream(ids).map(id -> new Node(id, null)).toList();
    }

    static Candidate cand(String node, String sstable, long bytes)
    {
        return new Candidate(node, sstable, bytes);
    }

    private static NodeTraffic traffic(String node, long sent, long received)
    {
        return new NodeTraffic(node, sent, received);
    }

    @Test
    void fillingVirtualSlotsOnlyKeepsKAndTheCodec()
    {
        StripeRecord s = stripe(1, 2, 4096, List.of(member("A", "a1", 1000), member("B", "b1", 800), Member.virtual(), Member.virtual()),
                                "C", "D");
        Plan plan = WideningPlanner.plan(List.of(s), ring("A", "B", "C", "D", "E", "F"),
                                         List.of(cand("E", "e1", 300), cand("E", "e2", 50), cand("F", "f1", 5000), cand("A", "a9", 7)),
                                         4, 4096);
        StripePlan p = plan.stripes().get(0);
        assertEquals(Outcome.WIDENED, p.outcome());
        assertNull(p.reason());
        assertEquals(List.of(new Addition(2, true, "E", "e1", 300), new Addition(3, true, "F", "f1", 5000)), p.additions());
        assertEquals(4, p.toK());
        assertEquals("rs-cauchy-gf8-11d:k=4:m=2", p.toCodec());
        assertEquals(8192, p.toCodeLength(), "a 5000-byte member grows the 4096-byte chunks to the next alignment");
        assertEquals(Map.of("C", traffic("C", 0, 5300), "D", traffic("D", 0, 5300), "E", traffic("E", 600, 0),
                            "F", traffic("F", 10000, 0)), plan.perNode());
        assertEquals(10600, plan.bytesMoved());
        assertEquals(10600, plan.lowerBound());
        StripeRecord w = p.widened(s);
        assertEquals(List.of(member("A", "a1", 1000), member("B", "b1", 800), member("E", "e1", 300), member("F", "f1", 5000)), w.members());
        assertEquals(s.id(), w.id());
    }

    @Test
    void threeToFourToSixNodesWithK2M1()
    {
        // 3 nodes, k=2 m=1: every stripe uses every node.
        List<StripeRecord> stripes = List.of(
            stripe(1, 1, 4096, List.of(member("n1", "a", 1000), member("n2", "b", 1000)), "n3"),
            stripe(2, 1, 4096, List.of(member("n2", "c", 1000), member("n3", "d", 1000)), "n1"),
            stripe(3, 1, 4096, List.of(member("n3", "e", 1000), member("n1", "f", 1000)), "n2"));
        // n4 joins: k' = 3 (k' + m = 4 nodes). Only n4 is outside each stripe; n1's candidate is not eligible anywhere.
        Plan four = WideningPlanner.plan(stripes, ring("n1", "n2", "n3", "n4"),
                                         List.of(cand("n4", "g1", 100), cand("n4", "g2", 200), cand("n4", "g3", 300), cand("n1", "h1", 999)),
                                         3, 4096);
        assertEquals(List.of(Outcome.WIDENED, Outcome.WIDENED, Outcome.WIDENED), four.stripes().stream().map(StripePlan::outcome).toList());
        assertEquals(List.of(new Addition(2, false, "n4", "g1", 100)), four.stripes().get(0).additions());
        assertEquals(List.of(new Addition(2, false, "n4", "g2", 200)), four.stripes().get(1).additions());
        assertEquals(List.of(new Addition(2, false, "n4", "g3", 300)), four.stripes().get(2).additions());
        assertEquals("rs-cauchy-gf8-11d:k=3:m=1", four.stripes().get(0).toCodec());
        assertEquals(Map.of("n1", traffic("n1", 0, 200), "n2", traffic("n2", 0, 300), "n3", traffic("n3", 0, 100),
                            "n4", traffic("n4", 600, 0)), four.perNode());
        assertEquals(600, four.bytesMoved());
        assertEquals(600, four.lowerBound());

        // n5, n6 join: k' = 5. Each widened stripe now holds n1..n4; its two new members come from n5 and n6.
        List<StripeRecord> widened = new ArrayList<>();
        for (int i = 0; i < 3; i++)
            widened.add(four.stripes().get(i).widened(stripes.get(i)));
        Plan six = WideningPlanner.plan(widened, ring("n1", "n2", "n3", "n4", "n5", "n6"),
                                        List.of(cand("n5", "p1", 10), cand("n5", "p2", 20), cand("n5", "p3", 30),
                                                cand("n6", "q1", 40), cand("n6", "q2", 50), cand("n6", "q3", 60),
                                                cand("n4", "g4", 70)),
                                        5, 4096);
        assertEquals(List.of(new Addition(3, false, "n5", "p1", 10), new Addition(4, false, "n6", "q1", 40)), six.stripes().get(0).additions());
        assertEquals(List.of(new Addition(3, false, "n5", "p2", 20), new Addition(4, false, "n6", "q2", 50)), six.stripes().get(1).additions());
        assertEquals(List.of(new Addition(3, false, "n5", "p3", 30), new Addition(4, false, "n6", "q3", 60)), six.stripes().get(2).additions());
        assertEquals("rs-cauchy-gf8-11d:k=5:m=1", six.stripes().get(2).toCodec());
        assertEquals(Map.of("n1", traffic("n1", 0, 70), "n2", traffic("n2", 0, 90), "n3", traffic("n3", 0, 50),
                            "n5", traffic("n5", 60, 0), "n6", traffic("n6", 150, 0)), six.perNode());
        assertEquals(210, six.bytesMoved());
        assertEquals(210, six.lowerBound());
    }

    @Test
    void fourTwoToSixTwoPrefersNodesHoldingFewestChunks()
    {
        // 7 old nodes A..G, new H and I. S1 on A..F, S2 on B..G. Alignment 1024: 2000-byte members grow the chunks.
        StripeRecord s1 = stripe(1, 2, 1024, List.of(member("A", "a", 1000), member("B", "b", 1000), member("C", "c", 1000),
                                                    member("D", "d", 1000)), "E", "F");
        StripeRecord s2 = stripe(2, 2, 1024, List.of(member("B", "b2", 900), member("C", "c2", 900), member("D", "d2", 900),
                                                    member("E", "e2", 900)), "F", "G");
        List<Candidate> cands = List.of(cand("A", "a3", 500), cand("G", "g3", 500), cand("H", "h1", 2000), cand("H", "h2", 100),
                                        cand("I", "i1", 1500));
        Plan plan = WideningPlanner.plan(List.of(s1, s2), ring("A", "B", "C", "D", "E", "F", "G", "H", "I"), cands, 6, 1024);
        StripePlan p1 = plan.stripes().get(0), p2 = plan.stripes().get(1);
        // S1: G holds one chunk, H and I none: H, then I.
        assertEquals(List.of(new Addition(4, false, "H", "h1", 2000), new Addition(5, false, "I", "i1", 1500)), p1.additions());
        assertEquals(2048, p1.toCodeLength());
        assertEquals("rs-cauchy-gf8-11d:k=6:m=2", p1.toCodec());
        // S2: A, H and I now hold one chunk each; I has nothing left: A (id order), then H.
        assertEquals(List.of(new Addition(4, false, "A", "a3", 500), new Addition(5, false, "H", "h2", 100)), p2.additions());
        assertEquals(1024, p2.toCodeLength());
        assertEquals(Map.of("A", traffic("A", 1000, 0), "E", traffic("E", 0, 3500), "F", traffic("F", 0, 4100),
                            "G", traffic("G", 0, 600), "H", traffic("H", 4200, 0), "I", traffic("I", 3000, 0)), plan.perNode());
        assertEquals(2 * (3500 + 600), plan.lowerBound());
        assertEquals(plan.lowerBound(), plan.bytesMoved());
    }

    @Test
    void stripesThatCannotWidenAreReportedWithTheReason()
    {
        StripeRecord full = stripe(1, 1, 4096, List.of(member("n1", "a", 10), member("n2", "b", 10)), "n3");
        StripeRecord planned = new StripeRecord(new StripeId(0, 2), CauchyMatrix.codecId(2, 1), 2, 1, 4096,
                                                List.of(member("n2", "c", 10), member("n3", "d", 10)), List.of("n1"),
                                                StripeState.PLANNED, 1, 0);
        StripeRecord parityDown = stripe(3, 1, 4096, List.of(member("n1", "e", 10), member("n2", "f", 10)), "n9");
        StripeRecord wide = stripe(4, 1, 4096, List.of(member("n1", "g", 10), member("n2", "h", 10), member("n3", "i", 10),
                                                        Member.virtual()), "n4");
        Plan plan = WideningPlanner.plan(List.of(full, planned, parityDown, wide), ring("n1", "n2", "n3", "n4"),
                                         List.of(cand("n1", "x", 5), cand("n2", "y", 5)), 3, 4096);
        StripePlan p = plan.stripes().get(0);
        assertEquals(Outcome.CANNOT_WIDEN, p.outcome());
        assertEquals("needs 1 members from distinct live nodes holding none of its chunks, found 0 (live nodes outside the stripe: n4;"
                     + " none of them has an unused candidate left)", p.reason());
        assertEquals(2, p.toK());
        assertEquals(Outcome.NOT_COMMITTED, plan.stripes().get(1).outcome());
        assertTrue(plan.stripes().get(1).reason().contains("PLANNED"), plan.stripes().get(1).reason());
        assertEquals(Outcome.CANNOT_WIDEN, plan.stripes().get(2).outcome());
        assertTrue(plan.stripes().get(2).reason().contains("parity node n9 is not a live ring node"), plan.stripes().get(2).reason());
        // k=4 > k'=3, but its virtual slot is still filled (k unchanged); n4 holds its parity, n1..n3 its data: no node.
        assertEquals(Outcome.CANNOT_WIDEN, plan.stripes().get(3).outcome());
        assertEquals(0, plan.bytesMoved());
        assertEquals(0, plan.lowerBound());
        assertTrue(plan.transfers().isEmpty());
    }

    @Test
    void partialWideningNeverCreatesVirtualSlots()
    {
        StripeRecord s = stripe(1, 2, 4096, List.of(member("A", "a", 10), member("B", "b", 10)), "C", "D");
        Plan plan = WideningPlanner.plan(List.of(s), ring("A", "B", "C", "D", "E"), List.of(cand("E", "e", 40)), 4, 4096);
        StripePlan p = plan.stripes().get(0);
        assertEquals(Outcome.PARTIAL, p.outcome());
        assertEquals(3, p.toK(), "one new member: k 2 -> 3, not 4 with a virtual slot");
        assertEquals("rs-cauchy-gf8-11d:k=3:m=2", p.toCodec());
        assertEquals(80, plan.bytesMoved());
        StripePlan unchanged = WideningPlanner.plan(List.of(s), ring("A", "B", "C", "D", "E"), List.of(cand("E", "e", 40)), 2, 4096)
                                              .stripes().get(0);
        assertEquals(Outcome.UNCHANGED, unchanged.outcome());
        assertTrue(unchanged.additions().isEmpty());
    }

    @Test
    void racksComeBeforeLoad()
    {
        // S on racks r1 (A, B) and r2 (C); D (r1) and E (r2) are both new: E, on the rack with fewer chunks, first.
        StripeRecord s = stripe(1, 1, 4096, List.of(member("A", "a", 10), member("B", "b", 10)), "C");
        List<Node> ring = List.of(new Node("A", "r1"), new Node("B", "r1"), new Node("C", "r2"), new Node("D", "r1"), new Node("E", "r2"));
        Plan plan = WideningPlanner.plan(List.of(s), ring, List.of(cand("D", "d", 10), cand("E", "e", 10)), 3, 4096);
        assertEquals("E", plan.stripes().get(0).additions().get(0).node());
    }

    @Test
    void aRackHoldsNoMoreThanItsShareOfTheWidenedStripe()
    {
        // RS(2,1) on racks r1 (A), r2 (B), r3 (parity C), widened to k'=4: 5 chunks on 3 racks, at most
        // max(m, ceil(5/3)) = 2 per rack. Only r1 has new nodes (D, E): D joins (r1 then holds 2), E may not (3 in r1
        // would exceed the share), so the stripe widens by one and says why it stopped.
        StripeRecord s = stripe(1, 1, 4096, List.of(member("A", "a", 10), member("B", "b", 10)), "C");
        List<Node> ring = List.of(new Node("A", "r1"), new Node("B", "r2"), new Node("C", "r3"), new Node("D", "r1"), new Node("E", "r1"));
        StripePlan p = WideningPlanner.plan(List.of(s), ring, List.of(cand("D", "d", 10), cand("E", "e", 10)), 4, 4096)
                                      .stripes().get(0);
        assertEquals(Outcome.PARTIAL, p.outcome());
        assertEquals(List.of("D"), p.additions().stream().map(a -> a.node()).toList());
        assertEquals(3, p.toK());
        assertTrue(p.reason().contains("on a rack holding fewer than 2 of its chunks"), p.reason());
        // Without racks the same candidates widen it to k'=4.
        StripePlan flat = WideningPlanner.plan(List.of(s), ring("A", "B", "C", "D", "E"),
                                               List.of(cand("D", "d", 10), cand("E", "e", 10)), 4, 4096).stripes().get(0);
        assertEquals(Outcome.WIDENED, flat.outcome());
    }

    @Test
    void aStripeWithAMemberOffTheLiveRingIsNotWidened()
    {
        // B (a member) is down or left the ring: the change would wait for it (DESCRIBE_MEMBER) forever if it left
        StripeRecord s = stripe(1, 1, 4096, List.of(member("A", "a", 10), member("B", "b", 10)), "C");
        StripePlan p = WideningPlanner.plan(List.of(s), ring("A", "C", "D"), List.of(cand("D", "d", 10)), 3, 4096).stripes().get(0);
        assertEquals(Outcome.CANNOT_WIDEN, p.outcome());
        assertTrue(p.reason().contains("member node B is not a live ring node"), p.reason());
        assertTrue(p.additions().isEmpty());
    }

    @Test
    void badInputsNameTheField()
    {
        StripeRecord s = stripe(1, 1, 4096, List.of(member("A", "a", 10), member("B", "b", 10)), "C");
        List<Node> ring = ring("A", "B", "C", "D");
        assertMessage("targetK", () -> WideningPlanner.plan(List.of(s), ring, List.of(), 0, 4096));
        assertMessage("alignment", () -> WideningPlanner.plan(List.of(s), ring, List.of(), 3, 0));
        assertMessage("candidates: node Z", () -> WideningPlanner.plan(List.of(s), ring, List.of(cand("Z", "z", 1)), 3, 4096));
        assertMessage("appears twice", () -> WideningPlanner.plan(List.of(s), ring, List.of(cand("D", "z", 1), cand("D", "z", 2)), 3, 4096));
        assertMessage("stripes: stripe", () -> WideningPlanner.plan(List.of(s, s), ring, List.of(), 3, 4096));
        assertMessage("bytes must be > 0", () -> cand("D", "z", 0));
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable call)
    {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(expected), "message '" + e.getMessage() + "' should contain '" + expected + "'");
    }
}
