package io.elect.core.transition;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.ParityPlacement.Node;
import io.elect.core.transition.StripeFormer.Candidate;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Golden cases of {@link VirtualSlotFills}: which candidate fills which virtual slot, and which never does. */
class VirtualSlotFillsTest
{
    private static final List<Node> RING = List.of(new Node("n1", "r1"), new Node("n2", "r2"), new Node("n3", "r1"), new Node("n4", "r3"),
                                                   new Node("n5", "r2"));
    /** The same nodes without racks. */
    private static final List<Node> NO_RACKS = RING.stream().map(n -> new Node(n.id(), null)).toList();

    private static StripeRecord stripe(String name, long codeLength, List<String> parity, Member... members)
    {
        return new StripeRecord(StripeId.ofMembers(List.of(name)), "rs", members.length, parity.size(), codeLength, List.of(members), parity,
                                StripeState.COMMITTED, 3, 1);
    }

    private static Member real(String node, String sstable, long bytes)
    {
        return new Member(node, sstable, bytes);
    }

    private static Candidate cand(String node, String sstable, long bytes)
    {
        return new Candidate(node, sstable, bytes, 0);
    }

    private static String fills(List<VirtualSlotFills.Fill> fs)
    {
        StringBuilder b = new StringBuilder();
        for (VirtualSlotFills.Fill f : fs)
            b.append(f.stripe().id().toString(), 0, 4).append('/').append(f.slot()).append('=').append(f.candidate().sstable()).append(' ');
        return b.toString().trim();
    }

    @Test
    void holdersOfAChunkCandidatesLongerThanTheCodeAndDownNodesNeverFillTheLargestOtherDoes()
    {
        // longest member 90, code length 100 (aligned): a member up to 100 bytes fits (the parity grows to it)
        StripeRecord s = stripe("a", 100, List.of("n2"), real("n1", "x", 90), Member.virtual());
        List<Candidate> c = List.of(cand("n1", "member-node", 99), cand("n2", "parity-node", 99), cand("n3", "small", 50),
                                    cand("n4", "too-long", 101), cand("n6", "down", 99), cand("n5", "largest", 80),
                                    cand("n5", "grows-the-code", 95));
        List<VirtualSlotFills.Fill> f = VirtualSlotFills.plan(List.of(s), c, NO_RACKS, 4);
        assertEquals(1, f.size());
        assertEquals(1, f.get(0).slot());
        assertEquals("grows-the-code", f.get(0).candidate().sstable());
        assertEquals(new Member("n5", "grows-the-code", 95), f.get(0).member());
    }

    @Test
    void theRackWithFewestChunksOfTheStripeWinsOverSize()
    {
        // k=3, m=1: n1 (r1) and parity n2 (r2); n4 is alone in r3
        StripeRecord s = stripe("b", 100, List.of("n2"), real("n1", "x", 100), Member.virtual(), Member.virtual());
        List<Candidate> c = List.of(cand("n3", "r1-big", 100), cand("n4", "r3-small", 10), cand("n5", "r2-mid", 60));
        List<VirtualSlotFills.Fill> f = VirtualSlotFills.plan(List.of(s), c, RING, 4);
        assertEquals(2, f.size());
        assertEquals("r3-small", f.get(0).candidate().sstable(), "slot 1: r3 holds no chunk");
        assertEquals(1, f.get(0).slot());
        // then r1, r2 and r3 each hold one chunk: the largest
        assertEquals("r1-big", f.get(1).candidate().sstable());
        assertEquals(2, f.get(1).slot());
    }

    /**
     * k=2, m=1 on three racks: the member on n1 (r1) and the parity on n2 (r2) leave r3 as the only rack a fill may
     * use (at most m = 1 chunk per rack, StripePlanner.membersPerRack): n3 (r1) and n5 (r2) never fill it, even alone.
     */
    @Test
    void aRackHoldingItsShareOfTheStripeGetsNoFill()
    {
        StripeRecord s = stripe("c", 100, List.of("n2"), real("n1", "x", 100), Member.virtual());
        assertEquals("", fills(VirtualSlotFills.plan(List.of(s), List.of(cand("n3", "r1", 100), cand("n5", "r2", 100)), RING, 4)));
        List<VirtualSlotFills.Fill> f = VirtualSlotFills.plan(List.of(s), List.of(cand("n3", "r1", 100), cand("n4", "r3", 10)), RING, 4);
        assertEquals(1, f.size());
        assertEquals("r3", f.get(0).candidate().sstable());
        // without racks the largest fills
        assertEquals("r1", VirtualSlotFills.plan(List.of(s), List.of(cand("n3", "r1", 100), cand("n4", "r3", 10)), NO_RACKS, 4)
                                           .get(0).candidate().sstable());
    }

    @Test
    void stripesWithMoreVirtualSlotsGoFirstACandidateFillsOnceAndMaxBounds()
    {
        StripeRecord one = stripe("one", 100, List.of("n2"), real("n1", "x", 100), Member.virtual(), real("n4", "y", 100));
        StripeRecord two = stripe("two", 100, List.of("n2"), real("n1", "z", 100), Member.virtual(), Member.virtual());
        StripeRecord changing = stripe("chg", 100, List.of("n2"), real("n1", "w", 100), Member.virtual(), Member.virtual())
            .moveTo(StripeState.COMMITTED, 2).beginChange(0, Member.virtual(), 3);
        StripeRecord planned = new StripeRecord(StripeId.ofMembers(List.of("pl")), "rs", 2, 1, 100, List.of(real("n1", "v", 1), Member.virtual()),
                                                List.of("n2"), StripeState.PLANNED, 1, 1);
        List<Candidate> c = List.of(cand("n4", "c4", 50), cand("n5", "c5", 40), cand("n3", "c3", 30));
        assertEquals(fills(List.of(new VirtualSlotFills.Fill(two, 1, c.get(0)), new VirtualSlotFills.Fill(two, 2, c.get(1)),
                                   new VirtualSlotFills.Fill(one, 1, c.get(2)))),
                     fills(VirtualSlotFills.plan(List.of(one, changing, planned, two), c, RING, 10)));
        // "two" (two virtual slots) takes n4 (the only rack without a chunk of it) and then the larger of the rest; with
        // max 2, "one" gets nothing
        assertEquals(2, VirtualSlotFills.plan(List.of(one, two), c, RING, 2).size());
        assertEquals(0, VirtualSlotFills.plan(List.of(one, two), c, RING, 0).size());
        // a stripe with no virtual slot, or no candidate: nothing
        StripeRecord full = stripe("full", 100, List.of("n2"), real("n1", "x", 100), real("n3", "q", 1));
        assertEquals(0, VirtualSlotFills.plan(List.of(full), c, RING, 4).size());
        assertEquals(0, VirtualSlotFills.plan(List.of(two), List.of(), RING, 4).size());
    }
}
