package io.elect.core.node;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.offload.ObjectInfo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Golden cases of which cold objects no node owns any more ({@link DepartedColdObjects}). */
class DepartedColdObjectsTest
{
    private static final String TIERED = "tiered/ks/t/";
    private static final String PARITY = "parity/ks.t/";

    private static ObjectInfo o(String key)
    {
        return new ObjectInfo(key, 10, 10);
    }

    private static StripeRecord record(int n, StripeState state, long generation, List<Member> members, String... parity)
    {
        StripeRecord r = new StripeRecord(StripeId.ofMembers(List.of("ks.t/" + n)), "rs-cauchy-gf8-11d:k=2:m=1", 2, 1, 4096, members,
                                          List.of(parity), state, 1, 0);
        return generation == 0 ? r : r.replan(members, List.of(parity), generation, state, 2);
    }

    @Test
    void dataObjectsOfOwnersNoLongerInTheRing()
    {
        assertEquals("host-a", DepartedColdObjects.owner(TIERED + "host-a/oa-3-Data.db", TIERED));
        assertNull(DepartedColdObjects.owner("tiered/ks/u/host-a/oa-3-Data.db", TIERED), "another table");
        assertNull(DepartedColdObjects.owner(TIERED + "oa-3-Data.db", TIERED), "no owner segment");
        List<ObjectInfo> objects = List.of(o(TIERED + "host-a/1-Data.db"), o(TIERED + "host-b/2-Data.db"), o(TIERED + "127.0.0.4_7000/3-Data.db"),
                                           o(TIERED + "host-gone/4-Data.db"), o("tiered/ks/u/host-gone/5-Data.db"));
        // host-b is down or joining (gossip knows it), 127.0.0.4_7000 a node's address form before it had a host id
        List<ObjectInfo> foreign = DepartedColdObjects.foreignData(objects, TIERED, Set.of("host-a", "host-b", "127.0.0.4_7000"));
        assertEquals(List.of(TIERED + "host-gone/4-Data.db"), foreign.stream().map(ObjectInfo::key).toList());
    }

    @Test
    void dataObjectsWaitWhileARecordNamesANodeOutsideTheRing()
    {
        Member a = new Member("n1", "ks.t/1", 100), b = new Member("n2", "ks.t/2", 100), gone = new Member("n9", "ks.t/9", 100);
        List<String> ring = List.of("n1", "n2", "n3");
        assertFalse(DepartedColdObjects.namesNonMembers(List.of(record(1, StripeState.COMMITTED, 0, List.of(a, b), "n3")), ring));
        // the departure repair has not taken these yet: a member, a parity chunk, a change's previous member
        assertTrue(DepartedColdObjects.namesNonMembers(List.of(record(2, StripeState.COMMITTED, 0, List.of(a, gone), "n3")), ring));
        assertTrue(DepartedColdObjects.namesNonMembers(List.of(record(3, StripeState.COMMITTED, 0, List.of(a, b), "n9")), ring));
        StripeRecord changing = record(4, StripeState.COMMITTED, 0, List.of(gone, b), "n3").beginChange(0, Member.virtual(), 10);
        assertTrue(DepartedColdObjects.namesNonMembers(List.of(changing), ring));
        // rows about to be removed do not count
        assertFalse(DepartedColdObjects.namesNonMembers(List.of(record(5, StripeState.RETIRED, 0, List.of(a, gone), "n9")), ring));
    }

    @Test
    void parityObjectsOfGenerationsNoRecordUses()
    {
        Member a = new Member("n1", "ks.t/1", 100), b = new Member("n2", "ks.t/2", 100);
        StripeRecord atTwo = record(1, StripeState.COMMITTED, 2, List.of(a, b), "n3");
        StripeRecord changing = record(2, StripeState.COMMITTED, 1, List.of(a, b), "n3").beginChange(1, Member.virtual(), 10);
        StripeRecord retired = record(3, StripeState.RETIRED, 0, List.of(a, b), "n3");
        StripeRecord building = record(4, StripeState.PARITY_BUILT, 0, List.of(a, b), "n3");
        Map<String, StripeRecord> byId = new HashMap<>();
        for (StripeRecord r : List.of(atTwo, changing, retired, building))
            byId.put(r.id().toString(), r);
        String s1 = PARITY + atTwo.id() + "/", s2 = PARITY + changing.id() + "/";
        List<ObjectInfo> objects = List.of(o(s1 + "0"), o(s1 + "0.g1"), o(s1 + "0.g2"),        // g0, g1 obsolete; g2 in use
                                           o(s2 + "0.g1"), o(s2 + "0.g2"),                      // a change in flight needs both
                                           o(PARITY + retired.id() + "/0"),                     // retired: obsolete
                                           o(PARITY + building.id() + "/0"),                    // being built: in use
                                           o(PARITY + "0123456789abcdef0123456789abcdef/0.g3"), // no record: obsolete
                                           o(PARITY + atTwo.id() + "/x.g1"), o(PARITY + "odd"),  // unparseable: left alone
                                           o("parity/ks.u/" + atTwo.id() + "/0"));              // another table
        List<String> obsolete = DepartedColdObjects.obsoleteParity(objects, PARITY, byId).stream().map(ObjectInfo::key).toList();
        assertEquals(List.of(s1 + "0", s1 + "0.g1", PARITY + retired.id() + "/0", PARITY + "0123456789abcdef0123456789abcdef/0.g3"), obsolete);
    }

    @Test
    void anObjectIsDeletedOnlyWhenFoundDeletableTwiceAGraceApart()
    {
        Map<String, Long> seen = new HashMap<>();
        long grace = DepartedColdObjects.CONFIRM_MILLIS;
        List<ObjectInfo> both = List.of(o(TIERED + "gone/1"), o(TIERED + "gone/2"));
        assertEquals(Set.of(), DepartedColdObjects.confirm(seen, both, 1_000, k -> k.startsWith(TIERED)));
        assertEquals(Set.of(), DepartedColdObjects.confirm(seen, both, 1_000 + grace - 1, k -> k.startsWith(TIERED)), "not a grace yet");
        // object 2 was found in use in between: its wait starts again
        assertEquals(Set.of(), DepartedColdObjects.confirm(seen, List.of(o(TIERED + "gone/1")), 1_000 + grace - 1, k -> k.startsWith(TIERED)));
        assertEquals(Set.of(TIERED + "gone/1"), DepartedColdObjects.confirm(seen, both, 1_000 + grace, k -> k.startsWith(TIERED)));
        assertEquals(Set.of(TIERED + "gone/2"), DepartedColdObjects.confirm(seen, both, 1_000 + 2 * grace, k -> k.startsWith(TIERED)));
        // another table's sweep does not forget this one's findings
        seen.clear();
        DepartedColdObjects.confirm(seen, List.of(o(TIERED + "gone/3")), 0, k -> k.startsWith(TIERED));
        DepartedColdObjects.confirm(seen, List.of(), 10, k -> k.startsWith("tiered/ks/u/"));
        assertEquals(Set.of(TIERED + "gone/3"), DepartedColdObjects.confirm(seen, List.of(o(TIERED + "gone/3")), grace, k -> k.startsWith(TIERED)));
    }
}
