package io.elect.core.transition;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.Departures.Kind;
import io.elect.core.transition.Departures.Plan;
import io.elect.core.transition.ParityPlacement.Node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Golden cases of what a round does with a stripe naming nodes that left the ring (issue 18). */
class DeparturesTest
{
    private static final StripeId A = StripeId.ofMembers(List.of("a"));

    /** k=2 m=1 (or m=2): members on n1 and n2, parity on the given nodes. */
    private static StripeRecord stripe(StripeState state, List<String> parity, Member... members)
    {
        return new StripeRecord(A, "rs-cauchy-gf8-11d:k=2:m=" + parity.size(), 2, parity.size(), 4096, List.of(members), parity, state, 1, 1);
    }

    private static final Member M1 = new Member("n1", "ks.t/1", 4096);
    private static final Member M2 = new Member("n2", "ks.t/2", 4000);

    private static List<Node> live(String... ids)
    {
        return java.util.Arrays.stream(ids).map(id -> new Node(id, null)).toList();
    }

    private static Optional<Plan> plan(StripeRecord r, List<Node> live, Set<String> left)
    {
        return Departures.plan(r, live, n -> null, left);
    }

    @Test
    void nothingToDoWithoutADepartedNodeOrOutsideCommitted()
    {
        StripeRecord r = stripe(StripeState.COMMITTED, List.of("n3"), M1, M2);
        assertTrue(plan(r, live("n1", "n2", "n3", "n4"), Set.of()).isEmpty());
        assertTrue(plan(r, live("n1", "n2", "n3", "n4"), Set.of("n9")).isEmpty(), "a node the stripe does not name");
        assertTrue(plan(stripe(StripeState.CHUNKS_SHIPPED, List.of("n3"), M1, M2), live("n1", "n3", "n4"), Set.of("n2")).isEmpty(),
                   "a stripe being built is finished or rolled back by recovery first");
        assertTrue(plan(r.beginChange(0, Member.virtual(), 2), live("n1", "n3", "n4"), Set.of("n2")).isEmpty(),
                   "a change under way is finished by recovery first");
    }

    @Test
    void aDepartedMemberIsRemovedItsSlotVirtual()
    {
        StripeRecord r = stripe(StripeState.COMMITTED, List.of("n3"), M1, M2);
        Plan p = plan(r, live("n1", "n3", "n4"), Set.of("n2")).orElseThrow();
        assertEquals(Kind.REMOVE_MEMBER, p.kind());
        assertEquals(1, p.slot());
        assertTrue(p.replacement().isVirtual());
        assertEquals("n2", p.departed());
        assertEquals(List.of("n3"), p.parityNodes(), "parity stays where it is");
    }

    @Test
    void aDepartedParityNodeIsReplacedByALiveNodeWithoutAChunkWhileEveryMemberStays()
    {
        StripeRecord r = stripe(StripeState.COMMITTED, List.of("n3"), M1, M2);
        Plan p = plan(r, live("n1", "n2", "n4", "n5"), Set.of("n3")).orElseThrow();
        assertEquals(Kind.MOVE_PARITY, p.kind());
        assertEquals(0, p.slot(), "the first member on a live node is the change's (kept) slot");
        assertEquals(M1, p.replacement());
        assertEquals(1, p.parityNodes().size());
        assertTrue(Set.of("n4", "n5").contains(p.parityNodes().get(0)), p.parityNodes().toString());
        assertEquals(p.parityNodes(), plan(r, live("n5", "n4", "n2", "n1"), Set.of("n3")).orElseThrow().parityNodes(),
                     "the choice does not depend on the ring's order");
    }

    @Test
    void aDepartedMemberAndADepartedParityNodeGoInOneStep()
    {
        StripeRecord r = stripe(StripeState.COMMITTED, List.of("n3", "n4"), M1, M2);
        Plan p = plan(r, live("n2", "n3", "n5"), Set.of("n1", "n4")).orElseThrow();
        assertEquals(Kind.REMOVE_MEMBER, p.kind());
        assertEquals(0, p.slot());
        assertEquals(List.of("n3", "n5"), p.parityNodes(), "n4's chunk moves to n5, the only live node without a chunk");
    }

    @Test
    void theLastRealMemberDepartingRetiresTheStripe()
    {
        StripeRecord r = stripe(StripeState.COMMITTED, List.of("n3"), M1, Member.virtual());
        Plan p = plan(r, live("n2", "n3"), Set.of("n1")).orElseThrow();
        assertEquals(Kind.RETIRE, p.kind());
        assertEquals("n1", p.departed());
    }

    @Test
    void waitsWhenNoNodeCanTakeTheParityOrTwoMembersLeft()
    {
        StripeRecord r = stripe(StripeState.COMMITTED, List.of("n3"), M1, M2);
        assertTrue(plan(r, live("n1", "n2"), Set.of("n3")).isEmpty(), "every live node already holds a chunk");
        assertTrue(plan(r, live("n3", "n4"), Set.of("n1", "n2")).isEmpty(), "two members left: not handled, the stripe waits");
        StripeRecord twoParity = stripe(StripeState.COMMITTED, List.of("n3", "n4"), M1, M2);
        assertTrue(plan(twoParity, live("n1", "n2", "n5"), Set.of("n3", "n4")).isEmpty(), "one spare node for two chunks");
    }

    @Test
    void racksAreRespectedWhenThereAreEnough()
    {
        StripeRecord r = stripe(StripeState.COMMITTED, List.of("n3"), M1, M2);
        List<Node> ring = List.of(new Node("n1", "r1"), new Node("n2", "r2"), new Node("n4", "r1"), new Node("n5", "r3"));
        Plan p = Departures.plan(r, ring, n -> n.equals("n1") || n.equals("n4") ? "r1" : n.equals("n2") ? "r2" : "r3", Set.of("n3")).orElseThrow();
        assertEquals(List.of("n5"), p.parityNodes(), "r3 holds no chunk of the stripe; r1 already does");
    }

    @Test
    void beginChangeMovesParityAndAKeptMemberIsAParityMove()
    {
        StripeRecord r = stripe(StripeState.COMMITTED, List.of("n3"), M1, M2);
        StripeRecord moved = r.beginChange(0, M1, List.of("n4"), 5);
        assertEquals(List.of("n4"), moved.parityNodes());
        assertEquals(1, moved.parityGeneration());
        assertTrue(moved.changeKeepsMember());
        StripeRecord removal = r.beginChange(1, Member.virtual(), List.of("n3"), 5);
        assertFalse(removal.changeKeepsMember());
        assertNotEquals(r.parityNodes(), moved.parityNodes());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> r.beginChange(0, M1, List.of("n4", "n5"), 5));
    }
}
