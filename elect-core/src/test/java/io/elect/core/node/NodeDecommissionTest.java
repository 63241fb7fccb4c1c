package io.elect.core.node;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Golden cases of what keeps a drained node from leaving: {@link NodeDecommission#naming}. */
class NodeDecommissionTest
{
    private static StripeRecord record(int n, StripeState state, List<Member> members, String... parity)
    {
        return new StripeRecord(StripeId.ofMembers(List.of("ks.t/" + n)), "rs-cauchy-gf8-11d:k=2:m=1", 2, 1, 4096, members,
                                List.of(parity), state, 1, 0);
    }

    @Test
    void membersAndParityCountVirtualSlotsAndRemovableRowsDoNot()
    {
        Member a = new Member("n1", "ks.t/1", 100), b = new Member("n2", "ks.t/2", 100), c = new Member("n3", "ks.t/3", 100);
        List<StripeRecord> records = List.of(
            record(1, StripeState.COMMITTED, List.of(a, b), "n3"),               // member of n1
            record(2, StripeState.COMMITTED, List.of(b, c), "n1"),               // parity on n1
            record(3, StripeState.COMMITTED, List.of(b, Member.virtual()), "n3"), // not n1
            record(4, StripeState.RETIRED, List.of(a, c), "n2"),                 // retired: its row goes
            record(5, StripeState.ROLLED_BACK, List.of(a, b), "n3"),             // rolled back: its row goes
            record(6, StripeState.COMMITTED, List.of(c, a), "n2").beginChange(1, Member.virtual(), 10), // n1's member leaving: still named
            record(7, StripeState.PLANNED, List.of(b, c), "n1"));                // a stripe being built names it
        assertEquals(4, NodeDecommission.naming(records, "n1"));
        assertEquals(5, NodeDecommission.naming(records, "n2"));
        assertEquals(0, NodeDecommission.naming(records, "n9"));
    }

    @Test
    void leavesAfterTwoChecksWithNoStripeNamingIt()
    {
        long z = NodeDecommission.zeroSince(3, -1, 1_000);
        assertEquals(-1, z);
        z = NodeDecommission.zeroSince(0, z, 2_000); // first check with none
        assertEquals(2_000, z);
        assertEquals(false, NodeDecommission.drained(z, 2_000));
        z = NodeDecommission.zeroSince(1, z, 4_000); // a round that began before the mark placed a chunk on it
        assertEquals(-1, z);
        assertEquals(false, NodeDecommission.drained(z, 30_000));
        z = NodeDecommission.zeroSince(0, z, 6_000);
        z = NodeDecommission.zeroSince(0, z, 7_000);
        assertEquals(6_000, z);
        assertEquals(false, NodeDecommission.drained(z, 7_000)); // 1 s: under one check period
        assertEquals(true, NodeDecommission.drained(NodeDecommission.zeroSince(0, z, 8_000), 8_000));
    }
}
