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

/** Golden cases of which members a round may remove from their stripes. */
class MemberRemovalTest
{
    private static final List<String> RING = List.of("n1", "n2", "n3", "n4");
    private static final StripeId A = StripeId.ofMembers(List.of("a"));
    private static final String S = A.toString();
    private static final int M = MemberRemoval.MEMBER_FILE;

    /** Members on n1 (slot 0) and n2 (slot 1), a virtual slot 2, parity on n3. */
    private static StripeRecord stripe(StripeState state)
    {
        return new StripeRecord(A, "rs-cauchy-gf8-11d:k=3:m=1", 3, 1, 4096,
                                List.of(new Member("n1", "ks.t/1", 4096), new Member("n2", "ks.t/2", 4096), Member.virtual()),
                                List.of("n3"), state, 1, 1);
    }

    /** files per node: slot -> shadowed; the per-stripe answer is derived as a node reports it (AND of its files). */
    private static List<String> removable(Map<String, Map<Integer, Boolean>> files, StripeRecord record)
    {
        Map<String, NodeSnapshot> snaps = new HashMap<>();
        for (String n : RING)
        {
            if (!files.containsKey(n))
                continue;
            Map<Integer, Boolean> f = files.get(n);
            Map<String, Boolean> stripes = f.isEmpty() ? Map.of() : Map.of(S, !f.containsValue(false));
            snaps.put(n, new NodeSnapshot(n, new long[0][0], 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of(), 0, stripes,
                                          f.isEmpty() ? Map.of() : Map.of(S, f)));
        }
        return MemberRemoval.removable(snaps, RING, id -> id.equals(A) ? Optional.of(record) : Optional.empty())
                            .stream().map(c -> c.record().id() + "/" + c.slot()).toList();
    }

    @Test
    void aShadowedMemberWhoseStubsAreShadowedIsRemoved()
    {
        StripeRecord r = stripe(StripeState.COMMITTED);
        // n1's member (slot 0) fully shadowed, its stub on n4 too; n2's member is live, its stub on n4 too
        Map<String, Map<Integer, Boolean>> files = Map.of("n1", Map.of(M, true), "n2", Map.of(M, false), "n3", Map.of(),
                                                          "n4", Map.of(0, true, 1, false));
        assertEquals(List.of(S + "/0"), removable(files, r));
    }

    @Test
    void aStubWithASurvivingRowOrAMissingAnswerKeepsTheMember()
    {
        StripeRecord r = stripe(StripeState.COMMITTED);
        // the stub of slot 0 on n4 still holds a row no newer version shadows on n4
        assertEquals(List.of(), removable(Map.of("n1", Map.of(M, true), "n2", Map.of(M, false), "n3", Map.of(),
                                                 "n4", Map.of(0, false, 1, false)), r));
        // n4 did not answer this round: it may hold a stub of slot 0
        assertEquals(List.of(), removable(Map.of("n1", Map.of(M, true), "n2", Map.of(M, false), "n3", Map.of()), r));
        // the member's own node does not report it shadowed (not checked yet)
        assertEquals(List.of(), removable(Map.of("n1", Map.of(M, false), "n2", Map.of(M, false), "n3", Map.of(),
                                                 "n4", Map.of(0, true, 1, false)), r));
    }

    @Test
    void onlyCommittedStripesThatKeepAMemberAndAreNotRetirableWhole()
    {
        Map<String, Map<Integer, Boolean>> files = Map.of("n1", Map.of(M, true), "n2", Map.of(M, false), "n3", Map.of(),
                                                          "n4", Map.of(0, true, 1, false));
        assertEquals(List.of(), removable(files, stripe(StripeState.STUBS_INSTALLED)), "not COMMITTED");
        assertEquals(List.of(), removable(files, stripe(StripeState.COMMITTED).beginChange(1, Member.virtual(), 2)), "a change under way");
        // every file shadowed: the whole stripe is retired instead
        Map<String, Map<Integer, Boolean>> all = Map.of("n1", Map.of(M, true), "n2", Map.of(M, true), "n3", Map.of(),
                                                        "n4", Map.of(0, true, 1, true));
        assertEquals(List.of(), removable(all, stripe(StripeState.COMMITTED)));
        // the last real member is never removed (slot 1 was removed before; slot 0 alone is left)
        StripeRecord one = stripe(StripeState.COMMITTED).beginChange(1, Member.virtual(), 2).moveTo(StripeState.CHANGED, 3).endChange(4);
        assertEquals(List.of(), removable(Map.of("n1", Map.of(M, true), "n2", Map.of(), "n3", Map.of(), "n4", Map.of(0, true)), one));
        // one member per stripe and round, the first shadowed one
        Map<String, Map<Integer, Boolean>> both = Map.of("n1", Map.of(M, true), "n2", Map.of(M, true), "n3", Map.of(),
                                                         "n4", Map.of(0, true, 1, true, 2, false));
        assertEquals(List.of(S + "/0"), removable(both, stripe(StripeState.COMMITTED)));
    }
}
