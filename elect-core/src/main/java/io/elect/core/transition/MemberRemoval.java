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
 * Which members a round may remove from their stripes (docs/design/updates.md item 4): a member whose every file
 * (the member on its node, its stubs on the secondaries) is fully shadowed, in a stripe whose other members are not
 * all shadowed (that stripe is {@link Retirement}'s). Removing it frees its data (hot or cold) and its stubs; the
 * stripe keeps its code length, its parity is recomputed without it (a parity generation). A pure function of the
 * snapshots and records, tested with golden cases.
 *
 * <p>Removable member i of stripe S when: every ring member answered this round; S is COMMITTED and keeps at least
 * one other real member; i's node reports its member file of S fully shadowed ({@code files[S][-1]}); no node
 * reports a stub of i that is not ({@code files[S][i] == false}); and S is not retirable whole. At most one member
 * per stripe per round (each change is its own parity generation).
 */
public final class MemberRemoval
{
    /** Key of a node's member file in {@link NodeSnapshot#files}. */
    public static final int MEMBER_FILE = -1;

    public record Candidate(StripeRecord record, int slot)
    {
    }

    private MemberRemoval()
    {
    }

    /** The removable members, at most one per stripe, in stripe id order. */
    public static List<Candidate> removable(Map<String, NodeSnapshot> snapshots, Collection<String> ring,
                                            Function<StripeId, Optional<StripeRecord>> records)
    {
        if (!snapshots.keySet().containsAll(ring))
            return List.of();
        TreeSet<String> stripes = new TreeSet<>();
        for (NodeSnapshot s : snapshots.values())
            s.files().forEach((stripe, files) -> {
                if (Boolean.TRUE.equals(files.get(MEMBER_FILE)))
                    stripes.add(stripe);
            });
        // every file shadowed: those stripes are retired whole instead (computed once: it scans every report)
        java.util.Set<StripeId> retirable = new java.util.HashSet<>(Retirement.retirable(snapshots, ring, records));
        List<Candidate> out = new ArrayList<>();
        for (String stripe : stripes)
        {
            StripeId id;
            try
            {
                id = StripeId.parse(stripe);
            }
            catch (IllegalArgumentException e)
            {
                continue;
            }
            Optional<StripeRecord> r = records.apply(id);
            if (r.isEmpty() || r.get().state() != StripeState.COMMITTED || r.get().realMembers() < 2)
                continue;
            if (retirable.contains(id))
                continue;
            for (int i = 0; i < r.get().k(); i++)
                if (removable(stripe, i, r.get().members().get(i), snapshots))
                {
                    out.add(new Candidate(r.get(), i));
                    break;
                }
        }
        return out;
    }

    private static boolean removable(String stripe, int slot, Member m, Map<String, NodeSnapshot> snapshots)
    {
        if (m.isVirtual())
            return false;
        NodeSnapshot own = snapshots.get(m.node());
        if (own == null || !Boolean.TRUE.equals(own.files().getOrDefault(stripe, Map.of()).get(MEMBER_FILE)))
            return false;
        for (NodeSnapshot s : snapshots.values())
            if (Boolean.FALSE.equals(s.files().getOrDefault(stripe, Map.of()).get(slot)))
                return false;
        return true;
    }
}
