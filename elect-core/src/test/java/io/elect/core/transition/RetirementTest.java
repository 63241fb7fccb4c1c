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

/** Golden cases of which stripes a round may retire. */
class RetirementTest
{
    private static final List<String> RING = List.of("n1", "n2", "n3", "n4");
    private static final StripeId A = StripeId.ofMembers(List.of("a"));
    private static final StripeId B = StripeId.ofMembers(List.of("b"));

    /** A: members on n1, n2 (+ a virtual slot), parity on n3. */
    private static StripeRecord stripe(StripeId id, StripeState state)
    {
        return new StripeRecord(id, "rs-cauchy-gf8-11d:k=3:m=1", 3, 1, 4096,
                                List.of(new Member("n1", "ks.t/1", 4096), new Member("n2", "ks.t/2", 4096), Member.virtual()),
                                List.of("n3"), state, 1, 1);
    }

    private static NodeSnapshot snap(String node, Map<String, Boolean> stripes)
    {
        return new NodeSnapshot(node, new long[0][0], 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of(), 0, stripes);
    }

    private static List<StripeId> retirable(Map<String, Map<String, Boolean>> reports, Map<StripeId, StripeRecord> records)
    {
        Map<String, NodeSnapshot> snaps = new HashMap<>();
        reports.forEach((n, r) -> snaps.put(n, snap(n, r)));
        return Retirement.retirable(snaps, RING, id -> Optional.ofNullable(records.get(id)));
    }

    @Test
    void everyHolderMustReportEveryFileShadowed()
    {
        String a = A.toString();
        Map<StripeId, StripeRecord> records = Map.of(A, stripe(A, StripeState.COMMITTED));
        // members on n1 and n2 shadowed, a stub on n4 shadowed, n3 holds nothing of it (parity is not a row file)
        Map<String, Map<String, Boolean>> all = Map.of("n1", Map.of(a, true), "n2", Map.of(a, true), "n3", Map.of(), "n4", Map.of(a, true));
        assertEquals(List.of(A), retirable(all, records));
        // a stub on n4 with a surviving row: a replica could still return it
        assertEquals(List.of(), retirable(Map.of("n1", Map.of(a, true), "n2", Map.of(a, true), "n3", Map.of(), "n4", Map.of(a, false)), records));
        // a member node that no longer reports the stripe (its file not seen): not decided
        assertEquals(List.of(), retirable(Map.of("n1", Map.of(a, true), "n2", Map.of(), "n3", Map.of(), "n4", Map.of(a, true)), records));
        // a ring member without a snapshot this round (down): it may hold a stub
        assertEquals(List.of(), retirable(Map.of("n1", Map.of(a, true), "n2", Map.of(a, true), "n3", Map.of()), records));
    }

    @Test
    void onlyCommittedStripesWithRowsAndValidIds()
    {
        String a = A.toString(), b = B.toString();
        Map<String, Map<String, Boolean>> reports = Map.of("n1", Map.of(a, true, b, true, "not-a-stripe", true),
                                                           "n2", Map.of(a, true, b, true), "n3", Map.of(), "n4", Map.of());
        assertEquals(List.of(), retirable(reports, Map.of()), "no rows");
        assertEquals(List.of(), retirable(reports, Map.of(A, stripe(A, StripeState.SECONDARIES_STUBBED))), "not committed yet");
        assertEquals(List.of(), retirable(reports, Map.of(A, stripe(A, StripeState.RETIRING))), "already retiring: recovery's");
        List<StripeId> both = retirable(reports, Map.of(A, stripe(A, StripeState.COMMITTED), B, stripe(B, StripeState.COMMITTED)));
        assertEquals(2, both.size());
        assertEquals(both.get(0).toString().compareTo(both.get(1).toString()) < 0, true, "in id order");
    }
}
