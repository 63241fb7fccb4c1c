package io.elect.core.transition;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Function;

import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.wire.NodeSnapshot;

/**
 * Which stripes a round may retire (docs/design/updates.md, "retire fully shadowed stripes"). A pure function of the
 * nodes' snapshots and the stripe records, tested with golden cases.
 *
 * <p>A stripe is retirable when: every ring member answered a snapshot this round (a down node may hold a stub or a
 * member not seen); the stripe is COMMITTED; every node of a real member reports the stripe (it still has a file of
 * it) as fully shadowed; and no node reports a file of it that is not. Each node's report covers all of its files of
 * the stripe (members and stubs), measured against its own live data, so together the reports say that no replica can
 * return anything the stripe holds.
 */
public final class Retirement
{
    private Retirement()
    {
    }

    /**
     * The retirable stripes, in id order.
     *
     * @param ring    every ring member (live or down)
     * @param records the stripe record by id (empty: no row)
     */
    public static List<StripeId> retirable(Map<String, NodeSnapshot> snapshots, Collection<String> ring,
                                           Function<StripeId, Optional<StripeRecord>> records)
    {
        if (!snapshots.keySet().containsAll(ring))
            return List.of();
        TreeSet<String> candidates = new TreeSet<>();
        for (NodeSnapshot s : snapshots.values())
            for (Map.Entry<String, Boolean> e : s.stripes().entrySet())
                if (e.getValue())
                    candidates.add(e.getKey());
        List<StripeId> out = new ArrayList<>();
        for (String c : candidates)
        {
            StripeId id;
            try
            {
                id = StripeId.parse(c);
            }
            catch (IllegalArgumentException e)
            {
                continue; // a file frozen under a tag that is not a stripe id
            }
            Optional<StripeRecord> r = records.apply(id);
            if (r.isEmpty() || r.get().state() != StripeState.COMMITTED || !reportedEverywhere(c, r.get(), snapshots))
                continue;
            out.add(id);
        }
        return out;
    }

    private static boolean reportedEverywhere(String stripe, StripeRecord r, Map<String, NodeSnapshot> snapshots)
    {
        for (NodeSnapshot s : snapshots.values())
            if (Boolean.FALSE.equals(s.stripes().get(stripe)))
                return false;
        for (Member m : r.members())
        {
            if (m.isVirtual())
                continue;
            NodeSnapshot s = snapshots.get(m.node());
            if (s == null || !Boolean.TRUE.equals(s.stripes().get(stripe)))
                return false;
        }
        return true;
    }
}
