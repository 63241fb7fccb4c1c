package io.elect.core.transition;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

import io.elect.coding.CauchyMatrix;
import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.ParityPlacement.Node;

/**
 * Scale-RS widening plan (docs/design/scaling.md): a pure function from the cluster's stripes, its live nodes, each
 * node's transition candidates and a target k' to which members join which stripes, the parity differences that
 * move, and the Scale-RS lower bound of those bytes. Plans only; executing a plan is not built.
 *
 * <p>Rules:
 * <ol>
 * <li>Only COMMITTED stripes of the {@link CauchyMatrix} family whose parity and member nodes are all live are
 * widened (a change waits for every one of them; one that left the ring never answers again: the simulation had a
 * widening stuck CHANGING on a decommissioned member's node); the others are reported with the reason, never silently
 * skipped.</li>
 * <li>Virtual-zero slots first, cluster-wide: a first pass fills the virtual slots of every stripe (in stripe id
 * order), a second pass adds new slots k, k+1, ... up to k'. A stripe that gets fewer new members than asked widens
 * to k + (new members it got): widening never creates virtual slots.</li>
 * <li>A member comes from a live node that holds no chunk of the stripe (data, parity, or a member just added), so
 * all chunks stay on distinct nodes. Among eligible nodes: the node whose rack holds the fewest chunks of the
 * stripe, then the node holding the fewest chunks cluster-wide (new nodes hold none: Scale-RS puts new chunks on
 * new nodes), then the smallest id. A node whose rack already holds {@link StripePlanner#membersPerRack} chunks of
 * the widened stripe (k' + m chunks) is not eligible, as in stripe formation and virtual-slot fills: with enough
 * racks no rack holds more than m chunks, so a rack down costs no more than the code tolerates. The node's first
 * unused candidate (callers pass them coldest first) is taken; a candidate joins one stripe at most.</li>
 * <li>Traffic (Scale-RS Policy-1, section 3.3.1 of the paper): the node of each added member sends that member's
 * parity difference a(j,i)*d_i, as long as the member, to each of the stripe's m parity nodes. Nothing else moves:
 * members stay on their nodes, and a longer member extends the chunks with zeros locally.</li>
 * </ol>
 */
public final class WideningPlanner
{
    /** A transition candidate of a node: an SSTable (member name) of {@code bytes} real bytes. */
    public record Candidate(String node, String sstable, long bytes)
    {
        public Candidate
        {
            Objects.requireNonNull(node, "node");
            Objects.requireNonNull(sstable, "sstable");
            if (bytes <= 0)
                throw new IllegalArgumentException("bytes must be > 0, was " + bytes + " for candidate " + node + "/" + sstable);
        }
    }

    /** One member joining a stripe at chunk index {@code slot} ({@code virtualSlot}: it replaces a virtual zero chunk). */
    public record Addition(int slot, boolean virtualSlot, String node, String sstable, long bytes)
    {
    }

    /** One parity difference sent: {@code bytes} from the node of a new member to a parity node of the stripe. */
    public record Transfer(StripeId stripe, int slot, String from, String to, long bytes)
    {
    }

    public enum Outcome
    {
        /** Every virtual slot filled and k' reached. */
        WIDENED,
        /** Some slots filled, not all (see the reason). */
        PARTIAL,
        /** Slots were asked for but none can be filled (see the reason). */
        CANNOT_WIDEN,
        /** Nothing to do: k >= k' and no virtual slot. */
        UNCHANGED,
        /** Not COMMITTED (in flight or rolled back): never widened. */
        NOT_COMMITTED
    }

    /** The plan of one stripe: its shape before and after, the members added, and why it is not fully widened. */
    public record StripePlan(StripeId id, Outcome outcome, String reason, int fromK, int toK, int m, String fromCodec,
                             String toCodec, long fromCodeLength, long toCodeLength, int slotsAsked,
                             List<Addition> additions)
    {
        /** The Scale-RS lower bound of this stripe's change: m times the bytes of every added member. */
        public long lowerBound()
        {
            long sum = 0;
            for (Addition a : additions)
                sum += a.bytes();
            return m * sum;
        }

        /**
         * The stripe's record as it would be once the widening committed (same id, COMMITTED, one version later):
         * virtual slots replaced, new members appended, the new k, codec id and code length. For planning chains
         * (k -> k' -> k'') and tests; nothing writes it.
         */
        public StripeRecord widened(StripeRecord before)
        {
            if (!before.id().equals(id))
                throw new IllegalArgumentException("before: stripe " + before.id() + " is not " + id);
            if (additions.isEmpty())
                return before;
            List<Member> members = new ArrayList<>(before.members());
            for (Addition a : additions)
            {
                Member m = new Member(a.node(), a.sstable(), a.bytes());
                if (a.slot() < members.size())
                    members.set(a.slot(), m);
                else
                    members.add(m);
            }
            return new StripeRecord(id, toCodec, toK, m, toCodeLength, members, before.parityNodes(), StripeState.COMMITTED,
                                    before.version() + 1, before.updatedAtMillis());
        }
    }

    /** Bytes a node sends and receives under the plan. */
    public record NodeTraffic(String node, long sentBytes, long receivedBytes)
    {
    }

    /**
     * The whole plan. {@code bytesMoved} sums the transfers; {@code lowerBound} sums the stripes' Scale-RS lower
     * bounds, computed from the additions alone (docs/design/scaling.md).
     */
    public record Plan(int targetK, List<StripePlan> stripes, List<Transfer> transfers, Map<String, NodeTraffic> perNode,
                       long bytesMoved, long lowerBound)
    {
    }

    private WideningPlanner()
    {
    }

    /**
     * @param stripes    the cluster's stripe records (every state; only COMMITTED ones are widened)
     * @param ring       the live ring nodes with their racks
     * @param candidates every live node's transition candidates, each node's in preference order (coldest first)
     * @param targetK    k', 1..255
     * @param alignment  the widened code length is rounded up to this (>= 1), as stripe formation does
     */
    public static Plan plan(Collection<StripeRecord> stripes, Collection<Node> ring, List<Candidate> candidates, int targetK,
                            long alignment)
    {
        Objects.requireNonNull(stripes, "stripes");
        Objects.requireNonNull(ring, "ring");
        Objects.requireNonNull(candidates, "candidates");
        if (targetK < 1 || targetK > CauchyMatrix.MAX_CHUNKS - 1)
            throw new IllegalArgumentException("targetK must be in 1.." + (CauchyMatrix.MAX_CHUNKS - 1) + ", was " + targetK);
        if (alignment < 1)
            throw new IllegalArgumentException("alignment must be >= 1, was " + alignment);
        Map<String, String> rackOf = new HashMap<>();
        for (Node n : ring)
            if (rackOf.put(n.id(), n.rack() == null ? "" : n.rack()) != null)
                throw new IllegalArgumentException("ring: node id " + n.id() + " appears twice");
        List<StripeRecord> sorted = new ArrayList<>(stripes);
        sorted.sort(Comparator.comparing(StripeRecord::id));
        Set<StripeId> seen = new HashSet<>();
        for (StripeRecord r : sorted)
            if (!seen.add(r.id()))
                throw new IllegalArgumentException("stripes: stripe " + r.id() + " appears twice");

        // Chunks per node cluster-wide (the "new node" preference), and members already encoded (never candidates).
        Map<String, Integer> load = new HashMap<>();
        Set<String> encoded = new HashSet<>();
        for (StripeRecord r : sorted)
        {
            for (Member mem : r.members())
                if (!mem.isVirtual())
                {
                    load.merge(mem.node(), 1, Integer::sum);
                    encoded.add(mem.node() + "|" + mem.sstable());
                }
            for (String p : r.parityNodes())
                load.merge(p, 1, Integer::sum);
        }
        Map<String, List<Candidate>> queues = new TreeMap<>();
        Set<String> offered = new HashSet<>();
        for (Candidate c : candidates)
        {
            if (!rackOf.containsKey(c.node()))
                throw new IllegalArgumentException("candidates: node " + c.node() + " is not a live ring node");
            String key = c.node() + "|" + c.sstable();
            if (!offered.add(key))
                throw new IllegalArgumentException("candidates: " + c.node() + "/" + c.sstable() + " appears twice");
            if (!encoded.contains(key))
                queues.computeIfAbsent(c.node(), n -> new ArrayList<>()).add(c);
        }

        int racks = new HashSet<>(rackOf.values()).size();
        Map<StripeId, Work> work = new LinkedHashMap<>();
        for (StripeRecord r : sorted)
            work.put(r.id(), new Work(r, targetK, rackOf, racks));
        for (boolean virtualPass : new boolean[]{ true, false })
            for (Work w : work.values())
                if (w.widenable)
                    w.fill(virtualPass, queues, load, rackOf);

        List<StripePlan> plans = new ArrayList<>();
        List<Transfer> transfers = new ArrayList<>();
        Map<String, long[]> traffic = new TreeMap<>();
        long moved = 0, bound = 0;
        for (Work w : work.values())
        {
            StripePlan p = w.result(alignment, rackOf);
            plans.add(p);
            bound += p.lowerBound();
            for (Addition a : p.additions())
                for (String parity : w.record.parityNodes())
                {
                    transfers.add(new Transfer(p.id(), a.slot(), a.node(), parity, a.bytes()));
                    traffic.computeIfAbsent(a.node(), n -> new long[2])[0] += a.bytes();
                    traffic.computeIfAbsent(parity, n -> new long[2])[1] += a.bytes();
                    moved += a.bytes();
                }
        }
        Map<String, NodeTraffic> perNode = new LinkedHashMap<>();
        for (Map.Entry<String, long[]> e : traffic.entrySet())
            perNode.put(e.getKey(), new NodeTraffic(e.getKey(), e.getValue()[0], e.getValue()[1]));
        return new Plan(targetK, List.copyOf(plans), List.copyOf(transfers), java.util.Collections.unmodifiableMap(perNode), moved, bound);
    }

    /** One stripe being planned: what it asks for, what it got. */
    private static final class Work
    {
        final StripeRecord record;
        final int targetK;
        final boolean widenable;
        final String blocked;
        final List<Integer> virtualSlots = new ArrayList<>();
        final int newSlots;
        final Set<String> holders = new HashSet<>();
        final Map<String, Integer> rackLoad = new HashMap<>();
        final List<Addition> added = new ArrayList<>();
        /** At most this many chunks of the widened stripe per rack (StripePlanner.membersPerRack). */
        final int perRack;

        Work(StripeRecord r, int targetK, Map<String, String> rackOf, int racks)
        {
            this.record = r;
            this.targetK = targetK;
            this.perRack = StripePlanner.membersPerRack(Math.max(r.k(), targetK), r.m(), racks);
            for (int i = 0; i < r.k(); i++)
                if (r.members().get(i).isVirtual())
                    virtualSlots.add(i);
                else
                    hold(r.members().get(i).node(), rackOf);
            for (String p : r.parityNodes())
                hold(p, rackOf);
            this.newSlots = Math.max(0, targetK - r.k());
            this.blocked = blockedReason(r, targetK, rackOf);
            this.widenable = blocked == null && slotsAsked() > 0;
        }

        int slotsAsked()
        {
            return virtualSlots.size() + newSlots;
        }

        private void hold(String node, Map<String, String> rackOf)
        {
            holders.add(node);
            rackLoad.merge(rackOf.getOrDefault(node, "?" + node), 1, Integer::sum);
        }

        private static String blockedReason(StripeRecord r, int targetK, Map<String, String> rackOf)
        {
            if (r.state() != StripeState.COMMITTED)
                return "state " + r.state() + ": only committed stripes are widened";
            if (!r.codecId().equals(CauchyMatrix.codecId(r.k(), r.m())))
                return "codec " + r.codecId() + " is not " + CauchyMatrix.codecId(r.k(), r.m()) + ": cannot be widened by differences";
            if (targetK + r.m() > CauchyMatrix.MAX_CHUNKS && targetK > r.k())
                return "k'=" + targetK + " with m=" + r.m() + " exceeds " + CauchyMatrix.MAX_CHUNKS + " chunks";
            for (String p : r.parityNodes())
                if (!rackOf.containsKey(p))
                    return "parity node " + p + " is not a live ring node: it could not apply the differences";
            for (Member mem : r.members())
                if (!mem.isVirtual() && !rackOf.containsKey(mem.node()))
                    return "member node " + mem.node() + " is not a live ring node: the change could not describe its member "
                           + "(a node that left the ring is taken out by the departure repair first)";
            return null;
        }

        /** Fills this pass's slots (virtual ones, or new ones k, k+1, ...) while an eligible node has a candidate. */
        void fill(boolean virtualPass, Map<String, List<Candidate>> queues, Map<String, Integer> load, Map<String, String> rackOf)
        {
            List<Integer> slots = new ArrayList<>();
            if (virtualPass)
                slots.addAll(virtualSlots);
            else
                for (int i = 0; i < newSlots; i++)
                    slots.add(record.k() + i);
            for (int slot : slots)
            {
                String node = best(queues, load, rackOf);
                if (node == null)
                    return; // no eligible node left: later slots cannot be filled either
                Candidate c = queues.get(node).remove(0);
                added.add(new Addition(slot, virtualPass, node, c.sstable(), c.bytes()));
                hold(node, rackOf);
                load.merge(node, 1, Integer::sum);
            }
        }

        private String best(Map<String, List<Candidate>> queues, Map<String, Integer> load, Map<String, String> rackOf)
        {
            String best = null;
            for (Map.Entry<String, List<Candidate>> e : queues.entrySet())
            {
                String n = e.getKey();
                if (e.getValue().isEmpty() || holders.contains(n) || rackLoad.getOrDefault(rackOf.get(n), 0) >= perRack)
                    continue;
                if (best == null || compare(n, best, load, rackOf) < 0)
                    best = n;
            }
            return best;
        }

        private int compare(String a, String b, Map<String, Integer> load, Map<String, String> rackOf)
        {
            int c = Integer.compare(rackLoad.getOrDefault(rackOf.get(a), 0), rackLoad.getOrDefault(rackOf.get(b), 0));
            if (c == 0)
                c = Integer.compare(load.getOrDefault(a, 0), load.getOrDefault(b, 0));
            return c != 0 ? c : a.compareTo(b);
        }

        StripePlan result(long alignment, Map<String, String> rackOf)
        {
            StripeRecord r = record;
            int newFilled = 0;
            long longest = 0;
            for (Addition a : added)
            {
                if (!a.virtualSlot())
                    newFilled++;
                longest = Math.max(longest, a.bytes());
            }
            int toK = r.k() + newFilled;
            long toLength = Math.max(r.codeLength(), longest == 0 ? 0 : ceil(longest, alignment));
            Outcome outcome;
            String reason;
            if (blocked != null)
            {
                outcome = r.state() == StripeState.COMMITTED ? Outcome.CANNOT_WIDEN : Outcome.NOT_COMMITTED;
                reason = blocked;
            }
            else if (slotsAsked() == 0)
            {
                outcome = Outcome.UNCHANGED;
                reason = r.k() > targetK ? "k=" + r.k() + " is above k'=" + targetK + " (narrowing is not supported)"
                                         : "already k=" + r.k() + " with no virtual slot";
            }
            else if (added.size() == slotsAsked())
            {
                outcome = Outcome.WIDENED;
                reason = null;
            }
            else
            {
                outcome = added.isEmpty() ? Outcome.CANNOT_WIDEN : Outcome.PARTIAL;
                reason = "needs " + slotsAsked() + " members from distinct live nodes holding none of its chunks, found "
                         + added.size() + " (live nodes outside the stripe: " + outside(rackOf)
                         + "; none of them has an unused candidate left"
                         + (perRack == Integer.MAX_VALUE ? "" : " on a rack holding fewer than " + perRack + " of its chunks") + ")";
            }
            String toCodec = toK == r.k() ? r.codecId() : CauchyMatrix.codecId(toK, r.m());
            return new StripePlan(r.id(), outcome, reason, r.k(), toK, r.m(), r.codecId(), toCodec, r.codeLength(),
                                  added.isEmpty() ? r.codeLength() : toLength, slotsAsked(), List.copyOf(added));
        }

        /** Live nodes holding no chunk of the stripe before this plan (sorted); "none" if there are none. */
        private String outside(Map<String, String> rackOf)
        {
            Set<String> before = new HashSet<>(holders);
            for (Addition a : added)
                before.remove(a.node());
            List<String> out = new ArrayList<>();
            for (String n : new java.util.TreeSet<>(rackOf.keySet()))
                if (!before.contains(n))
                    out.add(n);
            return out.isEmpty() ? "none" : String.join(", ", out);
        }

        private static long ceil(long v, long alignment)
        {
            return (v + alignment - 1) / alignment * alignment;
        }
    }
}
