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
 * reports at least the required share of its bytes obsolete ({@link NodeSnapshot#mergeable}, ObsoleteScan's figure
 * for the node's member of the stripe: partitions a newer version shadows), in a COMMITTED stripe. The node then
 * writes the member's next version (without what newer members and stubs of other stripes shadow) or declines when
 * that frees less than the required share; the change flow replaces the member with it. A pure function of the
 * snapshots, records and clock, tested with golden cases.
 *
 * <p>The required share ({@link Policy#requiredShare}) is {@code member_merge_min_obsolete_share}, halved by each of
 * two terms: <b>age</b> (the member's version has been in its stripe, unchanged, for at least
 * {@code member_merge_age_seconds}: obsolete bytes that stay that long are unlikely to be taken by a retirement or
 * removal, so a smaller gain is worth the rewrite) and <b>read cost</b> (the member is read more often than
 * {@code cold_read_rate}: every read of a key it holds an obsolete version of probes it as well, so its obsolete
 * bytes cost reads, not only space). A hot, old member merges at a quarter of the share.
 *
 * <p>Only with every ring member answering (as the retire and removal steps); stripes the retire or removal step
 * takes this round are left to it, and so is a member its own node reports fully shadowed (a member fully shadowed
 * is removed, not merged, also while its stubs' holders have not caught up yet); at most one member per stripe
 * (each change is its own parity generation); the largest obsolete byte counts first.
 */
public final class MemberMerges
{
    /** A member to merge and the share its next version must free (sent to its node with MERGE_MEMBER). */
    public record Candidate(StripeRecord record, int slot, long obsoleteBytes, double requiredShare)
    {
    }

    /**
     * @param minShare     {@code member_merge_min_obsolete_share}
     * @param agedAfterMillis {@code member_merge_age_seconds} x 1000; 0 turns the age term off
     * @param hotReadRate  {@code cold_read_rate}: a member read more often than this (reads/s) is hot
     */
    public record Policy(double minShare, long agedAfterMillis, double hotReadRate)
    {
        public Policy
        {
            if (!(minShare >= 0 && minShare <= 1) || agedAfterMillis < 0 || !(hotReadRate >= 0))
                throw new IllegalArgumentException("merge policy: share " + minShare + ", age " + agedAfterMillis + " ms, hot rate "
                                                   + hotReadRate + " out of range");
        }

        /** The share a member must have obsolete: minShare, halved once if aged and once if hot. */
        public double requiredShare(long ageMillis, double readRate)
        {
            double s = minShare;
            if (agedAfterMillis > 0 && ageMillis >= agedAfterMillis)
                s /= 2;
            if (readRate > hotReadRate)
                s /= 2;
            return s;
        }
    }

    private MemberMerges()
    {
    }

    /**
     * @param nowMillis the coordinator's clock: a member's age is {@code nowMillis - record.updatedAtMillis()} (the
     *                  record last moved when the stripe committed or its last change ended)
     */
    public static List<Candidate> mergeable(Map<String, NodeSnapshot> snapshots, Collection<String> ring,
                                            Function<StripeId, Optional<StripeRecord>> records, Policy policy, long nowMillis)
    {
        if (!snapshots.keySet().containsAll(ring))
            return List.of();
        Set<StripeId> taken = new HashSet<>(Retirement.retirable(snapshots, ring, records));
        for (MemberRemoval.Candidate c : MemberRemoval.removable(snapshots, ring, records))
            taken.add(c.record().id());
        List<Candidate> all = new ArrayList<>();
        for (NodeSnapshot s : snapshots.values())
            for (Map.Entry<String, NodeSnapshot.MergeHint> e : s.mergeable().entrySet())
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
                    // its node reports it fully shadowed: the removal step takes it once its stubs' holders agree
                    // (they follow within rounds); a merge now would write a next version of only the rows whose
                    // newer versions are not encoded yet, and race the removal (TransitioningIT, 2026-11-28)
                    if (Boolean.TRUE.equals(s.files().getOrDefault(e.getKey(), Map.of()).get(MemberRemoval.MEMBER_FILE)))
                        continue;
                    long obsolete = e.getValue().obsoleteBytes();
                    double share = policy.requiredShare(nowMillis - r.get().updatedAtMillis(), e.getValue().readRate());
                    if (obsolete >= share * m.realBytes())
                        all.add(new Candidate(r.get(), i, obsolete, share));
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
