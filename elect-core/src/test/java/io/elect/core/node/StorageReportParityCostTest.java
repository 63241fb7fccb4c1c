package io.elect.core.node;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.wire.TransitionMessages.TableRef;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Golden cases of the storage report's parity cost split (issue 16: where parity beyond m/k of the data comes from). */
class StorageReportParityCostTest
{
    private static final TableRef T = new TableRef("ks", "t");

    private static StripeRecord stripe(String id, StripeState state, long code, Member... members)
    {
        return new StripeRecord(StripeId.ofMembers(List.of(id)), "rs-cauchy-gf8-11d:k=2:m=1", 2, 1, code, List.of(members),
                                List.of("10.0.0.3"), state, 1, 0);
    }

    private static Member m(String table, long bytes)
    {
        return new Member("10.0.0.1", table + "/nb-" + bytes + "-big", bytes);
    }

    @Test
    void splitsParityIntoNominalOverhangAndPadding()
    {
        List<StripeRecord> records = List.of(
            // full, equal, as built: parity 1000 = m/k x 2000, nothing else
            stripe("a", StripeState.COMMITTED, 1000, m("ks.t", 1000), m("ks.t", 1000)),
            // a merge shortened the longest member from 1000 to 600: 400 zeros kept, plus 200 for unequal members
            stripe("b", StripeState.COMMITTED, 1000, m("ks.t", 600), m("ks.t", 200)),
            // padded: one real member of 800 next to a virtual one; parity 800 = nominal 400 + padding 400
            stripe("c", StripeState.COMMITTED, 800, m("ks.t", 800), Member.virtual()),
            // not counted: another table's stripe, and a stripe still in flight
            stripe("d", StripeState.COMMITTED, 5000, m("ks.u", 5000), m("ks.u", 5000)),
            stripe("e", StripeState.PLANNED, 5000, m("ks.t", 5000), m("ks.t", 5000)));
        Map<String, Object> cost = StorageReport.parityCost(T, records);
        assertEquals(3, cost.get("committed_stripes"));
        assertEquals(2800L, cost.get("parity_bytes"));
        assertEquals(1800L, cost.get("nominal_bytes")); // (2000 + 800 + 800) / 2
        assertEquals(400L, cost.get("code_overhang_bytes"));
        assertEquals(1L, cost.get("padded_stripes"));
        assertEquals(400L, cost.get("padding_bytes"));
    }

    @Test
    void noStripesNoCost()
    {
        Map<String, Object> cost = StorageReport.parityCost(T, List.of());
        assertEquals(0, cost.get("committed_stripes"));
        assertEquals(0L, cost.get("parity_bytes"));
        assertEquals(0L, cost.get("nominal_bytes"));
    }
}
