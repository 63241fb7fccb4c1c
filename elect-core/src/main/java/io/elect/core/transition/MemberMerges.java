package io.elect.core.transition;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.wire.NodeSnapshot;

/**
 * Which members a round asks their nodes to merge (issue 16, docs/design/updates.md "merge"): a member whose node
 * reports at least {@code minShare} of its bytes obsolete ({@link NodeSnapshot#mergeable}, ObsoleteScan's figure
 * for the node's LOCAL member of the stripe: partitions a newer version shadows), in a COMMITTED stripe. The node
 * then writes the member's next version (without what newer members and stubs of other stripes shadow) or declines
 * when that frees less than asked; the change flow replaces the member with it. A pure function of the snapshots
 * and records, tested with golden cases.
 *
 * <p>Only with every ring member answering (as the retire and removal steps); stripes the retire or removal step
 * takes this round are left to it (a member fully shadowed is removed, not merged); at most one member per stripe
 * (each change is its own parity generation); the largest obsolete byte counts first.
 */
public final class MemberMerges
{
    public record Candidate(StripeRecord record, int slot, long obsoleteBytes)
    {
    }

    private MemberMerges()
    {
    }

    public static List<Candidate> mergeable(Map<String, NodeSnapshot> snapshots, Collection<String> ring,
                                            Function<StripeId, Optional<StripeRecord>> records, double minShare)
    {
        if (!snapshots.keySet().containsAll(ring))
            return List.of();
        Set<StripeId> taken = new HashSet<>(Retirement.retirable(snapshots, ring, records));
        for (MemberRemoval.Candidate c : MemberRemoval.removable(snapshots, ring, records))
            taken.add(c.record().id());
        List<Candidate> all = new ArrayList<>();
        for (NodeSnapshot s : snapshots.values())
            for (Map.Entry<String, Long> e : s.mergeable().entrySet())
            {
                StripeId id;
                try
                {
                    id = StripeId.parse(e.getKey());
                }
                catch (IllegalArgumentException x)
                {
                    continue;
                }
                if (taken.contains(id))
                    continue;
                Optional<StripeRecord> r = records.apply(id);
                if (r.isEmpty() || r.get().state() != StripeState.COMMITTED)
                    continue;
                for (int i = 0; i < r.get().k(); i++)
                {
                    Member m = r.get().members().get(i);
                    if (m.isVirtual() || !s.node().equals(m.node()) || m.realBytes() <= 0)
                        continue;
                    if (e.getValue() >= minShare * m.realBytes())
                        all.add(new Candidate(r.get(), i, e.getValue()));
                }
            }
        // largest first, then by stripe and slot: the same answer whatever order the snapshots came in
        all.sort(Comparator.comparingLong(Candidate::obsoleteBytes).reversed()
                           .thenComparing(c -> c.record().id().toString()).thenComparingInt(Candidate::slot));
        List<Candidate> out = new ArrayList<>();
        Set<StripeId> seen = new HashSet<>();
        for (Candidate c : all)
            if (seen.add(c.record().id())) // one member per stripe: its largest
                out.add(c);
        return out;
    }
}
