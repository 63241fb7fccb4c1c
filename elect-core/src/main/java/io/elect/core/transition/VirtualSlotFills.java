package io.elect.core.transition;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.ParityPlacement.Node;
import io.elect.core.transition.StripeFormer.Candidate;

/**
 * Which of a round's candidates fill virtual slots of committed stripes instead of forming new ones (issue 18,
 * Scale-RS's first step; docs/design/scaling.md "Filling virtual slots"). A pure function with golden cases
 * (VirtualSlotFillsTest).
 *
 * <p>Why: a stripe with virtual slots (formed padded when too few nodes had candidates, or narrowed by a member
 * removal, a merge or a departure) pays m parity chunks for fewer than k members. Filling a slot with a candidate
 * frees the candidate's secondary copies exactly as a new stripe would, and adds no parity byte: the parity of the
 * next generation is that of the current one plus the candidate's contribution (one read of the candidate per parity
 * node, Scale-RS's lower bound).
 *
 * <p>Rules: only COMMITTED stripes with no change under way; a candidate fills a slot only if its node is live and
 * holds no chunk of the stripe (data or parity: all k + m chunks stay on distinct nodes) and it is no longer than the
 * stripe's code length as recorded (its longest member rounded up to the alignment; a member longer than the parity
 * chunks grows them, ParityDeltaApplier). Stripes with the most virtual slots go first
 * (they pay the most parity per member), then by id; each takes its lowest virtual slot first. For a slot, the
 * candidate whose rack holds the fewest chunks of the stripe wins (racks spread as evenly as they allow, as parity
 * placement does), then the largest (it saves the most), then node and SSTable name; a candidate whose rack already
 * holds {@link StripePlanner#membersPerRack} chunks of the stripe does not fill it (with racks, no rack holds more
 * than m chunks when the racks allow it; RackIT found a fill putting a second chunk in a rack). A candidate fills at
 * most one slot; at most {@code max} fills per call.
 */
public final class VirtualSlotFills
{
    /** Fill virtual slot {@code slot} of {@code stripe} with {@code candidate}. */
    public record Fill(StripeRecord stripe, int slot, Candidate candidate)
    {
        public Member member()
        {
            return new Member(candidate.node(), candidate.sstable(), candidate.bytes());
        }
    }

    private VirtualSlotFills()
    {
    }

    /**
     * @param stripes    the table's stripe records (any state; only COMMITTED ones with virtual slots are filled)
     * @param candidates the round's chosen candidates of the table
     * @param live       the live ring members with their racks
     * @param max        at most this many fills
     */
    public static List<Fill> plan(Collection<StripeRecord> stripes, Collection<Candidate> candidates, Collection<Node> live, int max)
    {
        Map<String, String> rackOf = new HashMap<>();
        for (Node n : live)
            rackOf.put(n.id(), n.rack());
        Set<String> racks = new HashSet<>();
        rackOf.values().forEach(v -> racks.add(String.valueOf(v)));
        List<StripeRecord> open = new ArrayList<>();
        for (StripeRecord r : stripes)
            if (r.state() == StripeState.COMMITTED && r.change() == null && virtualSlots(r) > 0)
                open.add(r);
        open.sort(Comparator.comparingLong((StripeRecord r) -> -virtualSlots(r)).thenComparing(r -> r.id().toString()));
        Set<Candidate> used = new HashSet<>();
        List<Fill> fills = new ArrayList<>();
        for (StripeRecord r : open)
        {
            Set<String> holders = new HashSet<>(r.parityNodes());
            long limit = r.codeLength();
            for (Member m : r.members())
                if (!m.isVirtual())
                    holders.add(m.node());
            for (int slot = 0; slot < r.k() && fills.size() < max; slot++)
            {
                if (!r.members().get(slot).isVirtual())
                    continue;
                Map<String, Integer> perRack = new HashMap<>();
                for (String h : holders)
                    perRack.merge(String.valueOf(rackOf.get(h)), 1, Integer::sum);
                int cap = StripePlanner.membersPerRack(r.k(), r.m(), racks.size());
                Candidate best = null;
                for (Candidate c : candidates)
                {
                    if (used.contains(c) || holders.contains(c.node()) || !rackOf.containsKey(c.node()) || c.bytes() > limit
                        || c.bytes() <= 0)
                        continue;
                    // a rack already holding the most chunks of the stripe it may (StripePlanner.membersPerRack) gets no more
                    if (perRack.getOrDefault(String.valueOf(rackOf.get(c.node())), 0) >= cap)
                        continue;
                    if (best == null || better(c, best, perRack, rackOf))
                        best = c;
                }
                if (best == null)
                    break; // no candidate fits this stripe: its other virtual slots would find none either
                used.add(best);
                holders.add(best.node());
                fills.add(new Fill(r, slot, best));
            }
            if (fills.size() >= max)
                break;
        }
        return fills;
    }

    private static boolean better(Candidate a, Candidate b, Map<String, Integer> perRack, Map<String, String> rackOf)
    {
        int ra = perRack.getOrDefault(String.valueOf(rackOf.get(a.node())), 0);
        int rb = perRack.getOrDefault(String.valueOf(rackOf.get(b.node())), 0);
        if (ra != rb)
            return ra < rb;
        if (a.bytes() != b.bytes())
            return a.bytes() > b.bytes();
        int byNode = a.node().compareTo(b.node());
        return byNode != 0 ? byNode < 0 : a.sstable().compareTo(b.sstable()) < 0;
    }

    /** The stripe's virtual slots. */
    public static long virtualSlots(StripeRecord r)
    {
        return r.members().stream().filter(Member::isVirtual).count();
    }
}
