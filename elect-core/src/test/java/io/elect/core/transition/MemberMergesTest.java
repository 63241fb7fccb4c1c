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

    /** Obsolete bytes per stripe, members never read. */
    private static NodeSnapshot snap(String node, Map<String, Long> obsolete, Map<String, Map<Integer, Boolean>> files)
    {
        Map<String, NodeSnapshot.MergeHint> hints = new HashMap<>();
        obsolete.forEach((id, b) -> hints.put(id, new NodeSnapshot.MergeHint(b, 0)));
        return snapWithHints(node, hints, files);
    }

    private static NodeSnapshot snapWithHints(String node, Map<String, NodeSnapshot.MergeHint> hints, Map<String, Map<Integer, Boolean>> files)
    {
        Map<String, Boolean> stripes = new HashMap<>();
        files.forEach((s, f) -> stripes.put(s, !f.containsValue(false)));
        return new NodeSnapshot(node, new long[0][0], 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of(), 0, stripes, files, hints);
    }

    /** The share-only policy (age and read-cost terms off). */
    private static List<String> mergeable(Map<String, NodeSnapshot> snaps, Map<StripeId, StripeRecord> records, double share)
    {
        return mergeable(snaps, records, new MemberMerges.Policy(share, 0, Double.MAX_VALUE), 0);
    }

    private static List<String> mergeable(Map<String, NodeSnapshot> snaps, Map<StripeId, StripeRecord> records, MemberMerges.Policy p,
                                          long now)
    {
        return MemberMerges.mergeable(snaps, RING, id -> Optional.ofNullable(records.get(id)), p, now).stream()
                           .map(c -> c.record().id() + "/" + c.slot() + "/" + c.obsoleteBytes()
                                     + (c.requiredShare() == p.minShare() ? "" : "@" + c.requiredShare())) // the share only where a term lowered it
                           .toList();
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

    /**
     * n1's member is fully shadowed on n1, but n2 and n3 do not report their stubs of it shadowed yet (the removal
     * cannot take the stripe this round): it is still not merged (the removal takes it once they catch up; before
     * 2026-11-28 a merge could win that race, TransitioningIT); n2's member, 30% obsolete, is.
     */
    @Test
    void aMemberItsNodeReportsFullyShadowedWaitsForTheRemoval()
    {
        Map<StripeId, StripeRecord> records = Map.of(A, stripe(A, StripeState.COMMITTED));
        int m = MemberRemoval.MEMBER_FILE;
        Map<String, NodeSnapshot> snaps = Map.of(
            "n1", snap("n1", Map.of(A.toString(), 1000L), Map.of(A.toString(), Map.of(m, true, 1, false))),
            "n2", snap("n2", Map.of(A.toString(), 600L), Map.of(A.toString(), Map.of(m, false, 0, false))),
            "n3", snap("n3", Map.of(), Map.of(A.toString(), Map.of(0, false, 1, false))));
        assertEquals(List.of(A + "/1/600"), mergeable(snaps, records, 0.25), "n1's (larger) is left to the removal");
        // n1's member 100% obsolete but not reported fully shadowed (e.g. a partition's newer version is elsewhere):
        Map<String, NodeSnapshot> partly = Map.of(
            "n1", snap("n1", Map.of(A.toString(), 1000L), Map.of(A.toString(), Map.of(m, false, 1, false))),
            "n2", snap("n2", Map.of(A.toString(), 500L), Map.of(A.toString(), Map.of(m, false, 0, false))),
            "n3", snap("n3", Map.of(), Map.of(A.toString(), Map.of(0, false, 1, false))));
        assertEquals(List.of(A + "/0/1000"), mergeable(partly, records, 0.25), "not fully shadowed: merged as before");
    }

    /**
     * The age and read-cost terms: with share 0.4, a member 30% obsolete merges only if its version is at least
     * member_merge_age_seconds old (required 0.2) or it is read more often than cold_read_rate (0.2); a member 15%
     * obsolete only if both (0.1). The required share travels with the candidate (the node declines below it).
     * Records updated at t = 1 ms; the age term is 1000 s.
     */
    @Test
    void agedOrHotMembersMergeAtHalfTheShareBothAtAQuarter()
    {
        Map<StripeId, StripeRecord> records = Map.of(A, stripe(A, StripeState.COMMITTED), B, stripe(B, StripeState.COMMITTED));
        MemberMerges.Policy p = new MemberMerges.Policy(0.4, 1_000_000, 0.5);
        long young = 1 + 999_999, old = 1 + 1_000_000;
        // n1: A slot 0 30% obsolete, never read; n2: B slot 1 15% obsolete (300 of 2000), read 2/s
        Map<String, NodeSnapshot> snaps = Map.of(
            "n1", snapWithHints("n1", Map.of(A.toString(), new NodeSnapshot.MergeHint(300, 0)), Map.of()),
            "n2", snapWithHints("n2", Map.of(B.toString(), new NodeSnapshot.MergeHint(300, 2.0)), Map.of()),
            "n3", snap("n3", Map.of(), Map.of()));
        assertEquals(List.of(), mergeable(snaps, records, p, young), "young: A needs 0.4, B (hot) 0.2");
        // equal obsolete bytes: by stripe id (B sorts first)
        assertEquals(List.of(B + "/1/300@0.1", A + "/0/300@0.2"), mergeable(snaps, records, p, old), "old: A 0.2, B (hot and old) 0.1");
        // the read-cost term alone: A read 0.6/s (> 0.5) while young
        Map<String, NodeSnapshot> hotA = new HashMap<>(snaps);
        hotA.put("n1", snapWithHints("n1", Map.of(A.toString(), new NodeSnapshot.MergeHint(300, 0.6)), Map.of()));
        assertEquals(List.of(A + "/0/300@0.2"), mergeable(hotA, records, p, young));
        // a read rate equal to cold_read_rate is not hot; the age term off (0) never applies
        hotA.put("n1", snapWithHints("n1", Map.of(A.toString(), new NodeSnapshot.MergeHint(300, 0.5)), Map.of()));
        assertEquals(List.of(), mergeable(hotA, records, p, young));
        assertEquals(List.of(), mergeable(snaps, records, new MemberMerges.Policy(0.4, 0, 0.5), Long.MAX_VALUE / 2));
    }

    @Test
    void snapshotCarriesTheHints()
    {
        NodeSnapshot s = snapWithHints("n1", Map.of(A.toString(), new NodeSnapshot.MergeHint(300, 1.25)), Map.of());
        assertEquals(s.mergeable(), NodeSnapshot.decode(s.encode()).mergeable());
        assertEquals(7, NodeSnapshot.SNAPSHOT_VERSION);
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> new NodeSnapshot.MergeHint(1, Double.NaN));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> new NodeSnapshot.MergeHint(-1, 0));
    }
}
