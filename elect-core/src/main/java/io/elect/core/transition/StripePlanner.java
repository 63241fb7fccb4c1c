package io.elect.core.transition;

import io.elect.core.stripes.StripeRecord;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

import io.elect.core.transition.ParityPlacement.Node;
import io.elect.core.transition.StripeFormer.Candidate;
import io.elect.core.transition.StripeFormer.FormedStripe;
import io.elect.core.stripes.Member;

/**
 * One planning round, pure: pending candidates -> stripes ({@link StripeFormer}) -> parity nodes
 * ({@link ParityPlacement}) -> PLANNED {@link StripeRecord}s ready for {@link StripeStateMachine#run}. A stripe whose
 * parity cannot be placed on distinct nodes (ring too small for its real data nodes + m), or with a data node no
 * longer in the ring, is not planned; its candidates are returned with the leftovers.
 */
public final class StripePlanner
{
    public record Round(List<StripeRecord> planned, List<Candidate> leftover)
    {
    }

    private final StripeFormer former;
    private final int k;
    private final int m;
    private final String codecId;

    public StripePlanner(int k, int m, String codecId, long alignment, long fillWaitMillis)
    {
        if (m < 1)
            throw new IllegalArgumentException("m must be >= 1, was " + m);
        this.former = new StripeFormer(k, alignment, fillWaitMillis);
        this.k = k;
        this.m = m;
        this.codecId = Objects.requireNonNull(codecId, "codecId");
    }

    public Round plan(List<Candidate> pending, Collection<Node> ring, long nowMillis)
    {
        java.util.Map<String, String> racks = new java.util.HashMap<>();
        for (Node n : ring)
            racks.put(n.id(), n.rack() == null ? "" : n.rack());
        StripeFormer.Result formed = former.form(pending, nowMillis, racks, membersPerRack(k, m, new java.util.HashSet<>(racks.values()).size()));
        List<StripeRecord> planned = new ArrayList<>();
        List<Candidate> leftover = new ArrayList<>(formed.leftover());
        for (FormedStripe s : formed.stripes())
        {
            List<String> dataNodes = new ArrayList<>();
            for (Member mem : s.members())
                if (!mem.isVirtual())
                    dataNodes.add(mem.node());
            boolean inRing = ring.stream().map(Node::id).collect(java.util.stream.Collectors.toSet()).containsAll(dataNodes);
            if (!inRing || ring.size() < dataNodes.size() + m)
            {
                for (Candidate c : pending)
                    for (Member mem : s.members())
                        if (!mem.isVirtual() && c.node().equals(mem.node()) && c.sstable().equals(mem.sstable()))
                            leftover.add(c);
                continue;
            }
            List<String> parity = new ArrayList<>();
            for (Node n : ParityPlacement.place(s.id(), ring, dataNodes, m))
                parity.add(n.id());
            planned.add(StripeRecord.planned(s.id(), s.members(), s.codeLength(), codecId, m, parity, nowMillis));
        }
        return new Round(planned, leftover);
    }

    /**
     * At most how many members of a stripe one rack may hold, with {@code racks} racks in the ring (issue 18): no
     * limit with one rack; otherwise m (a rack's loss then costs at most m chunks, once parity goes to the racks with
     * the fewest chunks), or the even share ceil((k + m) / racks) where m racks-worth cannot hold the stripe.
     */
    static int membersPerRack(int k, int m, int racks)
    {
        if (racks <= 1)
            return Integer.MAX_VALUE;
        return Math.max(m, (k + m + racks - 1) / racks);
    }
}
