package io.elect.core.transition;

import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeId;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Stripe formation: a pure function from the pending candidates of the cluster to stripes of k data chunks held by
 * k DISTINCT nodes (a stripe whose data chunks shared a node would lose two chunks with that node).
 *
 * <p>Rules, applied until no stripe can be formed:
 * <ol>
 * <li>Each node contributes at most one chunk per stripe: its oldest-waiting candidate (then smallest id).</li>
 * <li>If at least k nodes have candidates, the k nodes whose head candidate has waited longest (ties: node id) form a
 * stripe.</li>
 * <li>Otherwise, if some candidate has waited at least {@code fillWaitMillis}, the nodes that have candidates form a
 * stripe and the rest is filled with virtual zero chunks (never stored, never read: all zeros by definition).</li>
 * </ol>
 * Every chunk is padded to the stripe's code length: the largest real size rounded up to {@code alignment}; the
 * real sizes are recorded so that padding is never returned to readers.
 *
 * <p>Racks (issue 18): given each node's rack and a per-rack cap ({@link #form(List, long, Map, int)}), a stripe takes
 * at most that many members from one rack: heads are taken in the order above, skipping a head whose rack is full
 * (it waits for a later stripe). {@link StripePlanner} sets the cap so that, with parity placed on the least-loaded
 * racks ({@link ParityPlacement}), no rack holds more than m chunks of a stripe when the racks allow it.
 */
public final class StripeFormer
{
    /** An SSTable chosen for transitioning on a node, waiting since {@code sinceMillis}. */
    public record Candidate(String node, String sstable, long bytes, long sinceMillis)
    {
        public Candidate
        {
            Objects.requireNonNull(node, "node");
            Objects.requireNonNull(sstable, "sstable");
            if (bytes <= 0)
                throw new IllegalArgumentException("bytes must be > 0, was " + bytes + " for " + sstable);
        }
    }

    /** A formed stripe: k members (in chunk order), each padded to {@code codeLength} bytes. */
    public record FormedStripe(StripeId id, List<Member> members, long codeLength)
    {
    }

    public record Result(List<FormedStripe> stripes, List<Candidate> leftover)
    {
    }

    private final int k;
    private final long alignment;
    private final long fillWaitMillis;

    public StripeFormer(int k, long alignment, long fillWaitMillis)
    {
        if (k < 1)
            throw new IllegalArgumentException("k must be >= 1, was " + k);
        if (alignment < 1)
            throw new IllegalArgumentException("alignment must be >= 1, was " + alignment);
        if (fillWaitMillis < 0)
            throw new IllegalArgumentException("fillWaitMillis must be >= 0, was " + fillWaitMillis);
        this.k = k;
        this.alignment = alignment;
        this.fillWaitMillis = fillWaitMillis;
    }

    public Result form(List<Candidate> pending, long nowMillis)
    {
        return form(pending, nowMillis, Map.of(), Integer.MAX_VALUE);
    }

    /**
     * {@link #form(List, long)} with at most {@code maxPerRack} members of a stripe in one rack; {@code rackOf} gives
     * each node's rack (a node it does not name is in a rack of its own).
     */
    public Result form(List<Candidate> pending, long nowMillis, Map<String, String> rackOf, int maxPerRack)
    {
        Objects.requireNonNull(pending, "pending");
        Objects.requireNonNull(rackOf, "rackOf");
        if (maxPerRack < 1)
            throw new IllegalArgumentException("maxPerRack must be >= 1, was " + maxPerRack);
        Comparator<Candidate> byWait = Comparator.comparingLong(Candidate::sinceMillis).thenComparing(Candidate::sstable);
        Map<String, List<Candidate>> queues = new LinkedHashMap<>();
        pending.stream().sorted(Comparator.comparing(Candidate::node).thenComparing(byWait))
               .forEach(c -> queues.computeIfAbsent(c.node(), n -> new ArrayList<>()).add(c));
        List<FormedStripe> out = new ArrayList<>();
        while (true)
        {
            List<Candidate> heads = new ArrayList<>();
            for (List<Candidate> q : queues.values())
                if (!q.isEmpty())
                    heads.add(q.get(0));
            // equal waits (candidates of one round): nodes with more candidates left go first, so that no node is
            // left alone with candidates that could have paired with others (k=2 on three nodes of two each: three
            // stripes, not two and a lone waiting node)
            heads.sort(Comparator.comparingLong(Candidate::sinceMillis)
                                 .thenComparing((Candidate c) -> -queues.get(c.node()).size())
                                 .thenComparing(Candidate::sstable).thenComparing(Candidate::node));
            if (heads.isEmpty())
                break;
            List<Candidate> spread = withinRackCap(heads, rackOf, maxPerRack);
            List<Candidate> chosen;
            if (spread.size() >= k)
                chosen = spread.subList(0, k);
            else if (nowMillis - spread.get(0).sinceMillis() >= fillWaitMillis)
                chosen = spread;
            else
                break;
            out.add(stripe(chosen));
            for (Candidate c : chosen)
                queues.get(c.node()).remove(0);
        }
        List<Candidate> leftover = new ArrayList<>();
        queues.values().forEach(leftover::addAll);
        return new Result(out, leftover);
    }

    /** The heads, in order, without those whose rack already has {@code maxPerRack} earlier heads. */
    private static List<Candidate> withinRackCap(List<Candidate> heads, Map<String, String> rackOf, int maxPerRack)
    {
        if (maxPerRack == Integer.MAX_VALUE)
            return heads;
        Map<String, Integer> taken = new java.util.HashMap<>();
        List<Candidate> out = new ArrayList<>();
        for (Candidate c : heads)
        {
            String rack = rackOf.getOrDefault(c.node(), "node:" + c.node());
            if (taken.merge(rack, 1, Integer::sum) <= maxPerRack)
                out.add(c);
        }
        return out;
    }

    private FormedStripe stripe(List<Candidate> chosen)
    {
        List<Member> members = new ArrayList<>(k);
        long max = 0;
        for (Candidate c : chosen)
        {
            members.add(new Member(c.node(), c.sstable(), c.bytes()));
            max = Math.max(max, c.bytes());
        }
        while (members.size() < k)
            members.add(Member.virtual());
        long codeLength = Math.multiplyExact((max + alignment - 1) / alignment, alignment);
        List<String> desc = new ArrayList<>();
        for (Member m : members)
            desc.add(m.descriptor());
        return new FormedStripe(StripeId.ofMembers(desc), List.copyOf(members), codeLength);
    }
}
