package io.elect.core.transition;

import io.elect.core.stripes.StripeId;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Where the m parity chunks of a stripe go: a deterministic, decentralized, pure function of the stripe id, the
 * ring's nodes (with racks) and the nodes holding the stripe's data chunks. Every node computes the same answer from
 * the same inputs, with no coordination.
 *
 * <p>Method: rendezvous (highest-random-weight) hashing. Each eligible node (not holding a data chunk of the stripe,
 * not already chosen) gets the score {@code mix64(stripe.hi, stripe.lo, hash(node))}; the parity slots are filled one
 * at a time. When the topology has more than one rack, a slot goes to the best-scoring node among the racks that
 * currently hold the FEWEST chunks of the stripe (data and parity already placed), so chunks spread over racks as
 * evenly as the racks allow. Rendezvous hashing makes every node equally likely for every stripe, so parity load is
 * balanced in expectation, and a node joining or leaving moves only the parity that involved it.
 *
 * <p>Invariant: all k+m chunks are on distinct nodes. If fewer than m eligible nodes exist, it throws rather than
 * co-locating.
 */
public final class ParityPlacement
{
    /** A ring member. {@code rack} may be null when the topology has no racks. */
    public record Node(String id, String rack)
    {
        public Node
        {
            Objects.requireNonNull(id, "id");
        }
    }

    private ParityPlacement()
    {
    }

    /**
     * @param stripe    the stripe id
     * @param ring      every node of the ring (order irrelevant; ids unique)
     * @param dataNodes the nodes holding the stripe's real data chunks (virtual chunks have no node)
     * @param m         parity chunks (>= 1)
     * @return the m parity nodes, in parity-chunk order
     */
    public static List<Node> place(StripeId stripe, Collection<Node> ring, Collection<String> dataNodes, int m)
    {
        Objects.requireNonNull(stripe, "stripe");
        Objects.requireNonNull(ring, "ring");
        Objects.requireNonNull(dataNodes, "dataNodes");
        if (m < 1)
            throw new IllegalArgumentException("m must be >= 1, was " + m);
        Map<String, Node> byId = new HashMap<>();
        for (Node n : ring)
            if (byId.put(n.id(), n) != null)
                throw new IllegalArgumentException("ring: node id " + n.id() + " appears twice");
        Set<String> used = new HashSet<>();
        Map<String, Integer> perRack = new HashMap<>();
        for (String d : dataNodes)
        {
            Node n = byId.get(d);
            if (n == null)
                throw new IllegalArgumentException("dataNodes: " + d + " is not in the ring");
            if (!used.add(d))
                throw new IllegalArgumentException("dataNodes: " + d + " holds two data chunks of stripe " + stripe);
            perRack.merge(rackOf(n), 1, Integer::sum);
        }
        for (Node n : ring)
            perRack.putIfAbsent(rackOf(n), 0);
        boolean racks = perRack.size() > 1;

        List<Node> out = new ArrayList<>(m);
        for (int slot = 0; slot < m; slot++)
        {
            int minRackLoad = Integer.MAX_VALUE;
            if (racks)
                for (Node n : ring)
                    if (!used.contains(n.id()))
                        minRackLoad = Math.min(minRackLoad, perRack.get(rackOf(n)));
            Node best = null;
            long bestScore = 0;
            for (Node n : ring)
            {
                if (used.contains(n.id()) || (racks && perRack.get(rackOf(n)) != minRackLoad))
                    continue;
                long score = score(stripe, n.id());
                if (best == null || Long.compareUnsigned(score, bestScore) > 0
                    || (score == bestScore && n.id().compareTo(best.id()) < 0))
                {
                    best = n;
                    bestScore = score;
                }
            }
            if (best == null)
                throw new IllegalArgumentException("ring: " + ring.size() + " nodes cannot hold " + dataNodes.size()
                                                   + " data chunks and " + m + " parity chunks on distinct nodes");
            out.add(best);
            used.add(best.id());
            perRack.merge(rackOf(best), 1, Integer::sum);
        }
        return List.copyOf(out);
    }

    private static String rackOf(Node n)
    {
        return n.rack() == null ? "" : n.rack();
    }

    /** Stable across JVMs and versions: FNV-1a of the UTF-16 chars of the id, mixed with the stripe id. */
    static long score(StripeId stripe, String node)
    {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < node.length(); i++)
        {
            h ^= node.charAt(i);
            h *= 0x100000001b3L;
        }
        return mix(mix(stripe.hi() ^ h) ^ stripe.lo());
    }

    /** splitmix64 finalizer. */
    private static long mix(long z)
    {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
