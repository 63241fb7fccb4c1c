package io.elect.core.transition;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.wire.NodeSnapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Golden cases of which members a round asks to merge. */
class MemberMergesTest
{
    private static final List<String> RING = List.of("n1", "n2", "n3");
    private static final StripeId A = StripeId.ofMembers(List.of("a"));
    private static final StripeId B = StripeId.ofMembers(List.of("b"));

    /** Members on n1 (slot 0, 1000 bytes) and n2 (slot 1, 2000 bytes), parity on n3. */
    private static StripeRecord stripe(StripeId id, StripeState state)
    {
        return new StripeRecord(id, "rs-cauchy-gf8-11d:k=2:m=1", 2, 1, 2000,
                                List.of(new Member("n1", "ks.t/1", 1000), new Member("n2", "ks.t/2", 2000)), List.of("n3"), state, 1, 1);
    }

    private static NodeSnapshot snap(String node, Map<String, Long> mergeable, Map<String, Map<Integer, Boolean>> files)
    {
        Map<String, Boolean> stripes = new HashMap<>();
        files.forEach((s, f) -> stripes.put(s, !f.containsValue(false)));
        return new NodeSnapshot(node, new long[0][0], 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of(), 0, stripes, files, mergeable);
    }

    private static List<String> mergeable(Map<String, NodeSnapshot> snaps, Map<StripeId, StripeRecord> records, double share)
    {
        return MemberMerges.mergeable(snaps, RING, id -> Optional.ofNullable(records.get(id)), share).stream()
                           .map(c -> c.record().id() + "/" + c.slot() + "/" + c.obsoleteBytes()).toList();
    }

    @Test
    void membersAboveTheShareAreMergedLargestFirst()
    {
        Map<StripeId, StripeRecord> records = Map.of(A, stripe(A, StripeState.COMMITTED), B, stripe(B, StripeState.COMMITTED));
        Map<String, NodeSnapshot> snaps = Map.of(
            "n1", snap("n1", Map.of(A.toString(), 300L, B.toString(), 100L), Map.of()), // A: 30% of 1000; B: 10%
            "n2", snap("n2", Map.of(B.toString(), 900L), Map.of()),                        // B slot 1: 45% of 2000
            "n3", snap("n3", Map.of(), Map.of()));
        assertEquals(List.of(B + "/1/900", A + "/0/300"), mergeable(snaps, records, 0.25));
        assertEquals(List.of(B + "/1/900"), mergeable(snaps, records, 0.4));
        assertEquals(List.of(), mergeable(snaps, records, 0.5));
    }

    @Test
    void oneMemberPerStripeOnlyCommittedStripesAndEveryNodeAnswering()
    {
        Map<StripeId, StripeRecord> records = Map.of(A, stripe(A, StripeState.COMMITTED), B, stripe(B, StripeState.STUBS_INSTALLED));
        Map<String, NodeSnapshot> snaps = Map.of(
            "n1", snap("n1", Map.of(A.toString(), 600L, B.toString(), 900L), Map.of()),
            "n2", snap("n2", Map.of(A.toString(), 1900L), Map.of()),
            "n3", snap("n3", Map.of(), Map.of()));
        assertEquals(List.of(A + "/1/1900"), mergeable(snaps, records, 0.25), "one member of A (the larger), none of B (not committed yet)");
        Map<String, NodeSnapshot> two = new HashMap<>(snaps);
        two.remove("n3");
        assertEquals(List.of(), mergeable(two, records, 0.25), "a ring member did not answer");
    }

    /** The answer does not depend on the order the snapshots come in (a HashMap's, in the coordinator). */
    @Test
    void theAnswerDoesNotDependOnTheSnapshotOrder()
    {
        Map<StripeId, StripeRecord> records = Map.of(A, stripe(A, StripeState.COMMITTED), B, stripe(B, StripeState.COMMITTED));
        NodeSnapshot n1 = snap("n1", Map.of(A.toString(), 600L, B.toString(), 900L), Map.of());
        NodeSnapshot n2 = snap("n2", Map.of(A.toString(), 1900L, B.toString(), 500L), Map.of());
        NodeSnapshot n3 = snap("n3", Map.of(), Map.of());
        List<String> expected = List.of(A + "/1/1900", B + "/0/900");
        for (List<NodeSnapshot> order : List.of(List.of(n1, n2, n3), List.of(n2, n1, n3), List.of(n3, n2, n1)))
        {
            Map<String, NodeSnapshot> snaps = new java.util.LinkedHashMap<>();
            order.forEach(x -> snaps.put(x.node(), x));
            assertEquals(expected, mergeable(snaps, records, 0.25), "order " + snaps.keySet());
        }
    }

    @Test
    void aStripeTheRemovalStepTakesIsNotMerged()
    {
        Map<StripeId, StripeRecord> records = Map.of(A, stripe(A, StripeState.COMMITTED));
        int m = MemberRemoval.MEMBER_FILE;
        // n1's member fully shadowed (and its stubs): removal's, not a merge's
        Map<String, NodeSnapshot> snaps = Map.of(
            "n1", snap("n1", Map.of(A.toString(), 1000L), Map.of(A.toString(), Map.of(m, true, 1, false))),
            "n2", snap("n2", Map.of(A.toString(), 1500L), Map.of(A.toString(), Map.of(m, false, 0, true))),
            "n3", snap("n3", Map.of(), Map.of(A.toString(), Map.of(0, true, 1, false))));
        assertEquals(List.of(), mergeable(snaps, records, 0.25));
    }

    @Test
    void snapshotCarriesTheHints()
    {
        NodeSnapshot s = snap("n1", Map.of(A.toString(), 300L), Map.of());
        assertEquals(s.mergeable(), NodeSnapshot.decode(s.encode()).mergeable());
    }
}
