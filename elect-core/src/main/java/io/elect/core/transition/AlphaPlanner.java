package io.elect.core.transition;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The storage-saving planner: a pure function from {@code storage_saving_target} (alpha) and a snapshot of the
 * ACTUAL bytes of the ELECT tables on every node to the actions that bring the hot-tier bytes to
 * {@code (1 - alpha) x} what full replication would use. No fanout constant is assumed: every ratio it needs
 * (secondary bytes per primary byte, stub bytes per replaced secondary byte, parity bytes per encoded byte) is
 * measured from the snapshot, falling back to the nominal value only when nothing has been measured yet.
 * The derivation is in docs/design/transitioning.md.
 *
 * <p>Actions, in this order (each only if the previous cannot reach the target alone):
 * <ol>
 * <li>encode eligible last-level primary data (each encoded byte removes its secondaries' copies, adds stubs and
 * parity; data that fills virtual slots of committed stripes, up to {@link Params#fillableBytes}, adds no parity and
 * is counted first);</li>
 * <li>offload hot parity to the cold tier (needs {@code offload_enabled});</li>
 * <li>offload encoded primary data older than the primary-offload age (needs {@code offload_enabled}).</li>
 * </ol>
 * The plan is also expressed as fractions so that every node can apply it to its own bytes without coordination:
 * node n encodes {@code encodeFraction x encodable(n)}, and so on. The planner is meant to run every round on a fresh
 * snapshot; it converges because each action's effect is measured in the next snapshot.
 */
public final class AlphaPlanner
{
    /**
     * The bytes of the ELECT tables on one node. {@code unencoded[level][role]}: live data not part of a stripe
     * (role 0 primary, roles >= 1 secondaries). The other fields are totals of the node:
     * {@code encodable} (unencoded last-level primary data that is a transition candidate, a subset of
     * {@code unencoded[*][0]}), {@code encodableOld} (the part of it older than the primary-offload age),
     * encoded primary data hot (and the part older than that age) and cold, stub bytes of secondaries whose rows
     * were encoded, the bytes those secondaries held before stubbing, and parity bytes hot and cold;
     * {@code obsolete}: the part of the encoded primaries' and replaced secondaries' bytes that newer versions
     * elsewhere shadow (kept only because encoded files are frozen; full replication of the live data would not);
     * {@code unreplicated}: the part of the encoded primaries' live bytes whose partitions lie outside the ranges the
     * node replicates (after a ring change, e.g. a move: the member stays where it is, the new replicas hold stubs of
     * it, so full replication would not hold those rows on this node).
     */
    public record NodeBytes(String node, long[][] unencoded, long encodable, long encodableOld, long encodedPrimaryHot,
                            long encodedPrimaryHotOld, long encodedPrimaryCold, long stubs, long replacedSecondaries,
                            long parityHot, long parityCold, long obsolete, long unreplicated)
    {
        /** Every encoded primary in the node's ranges. */
        public NodeBytes(String node, long[][] unencoded, long encodable, long encodableOld, long encodedPrimaryHot,
                         long encodedPrimaryHotOld, long encodedPrimaryCold, long stubs, long replacedSecondaries,
                         long parityHot, long parityCold, long obsolete)
        {
            this(node, unencoded, encodable, encodableOld, encodedPrimaryHot, encodedPrimaryHotOld, encodedPrimaryCold, stubs,
                 replacedSecondaries, parityHot, parityCold, obsolete, 0);
        }

        /** Without obsolete bytes (0). */
        public NodeBytes(String node, long[][] unencoded, long encodable, long encodableOld, long encodedPrimaryHot,
                         long encodedPrimaryHotOld, long encodedPrimaryCold, long stubs, long replacedSecondaries,
                         long parityHot, long parityCold)
        {
            this(node, unencoded, encodable, encodableOld, encodedPrimaryHot, encodedPrimaryHotOld, encodedPrimaryCold, stubs,
                 replacedSecondaries, parityHot, parityCold, 0);
        }

        public NodeBytes
        {
            Objects.requireNonNull(node, "node");
            Objects.requireNonNull(unencoded, "unencoded");
            for (long[] level : unencoded)
                for (long b : level)
                    nonNegative(node, "unencoded", b);
            nonNegative(node, "encodable", encodable);
            nonNegative(node, "encodableOld", encodableOld);
            nonNegative(node, "encodedPrimaryHot", encodedPrimaryHot);
            nonNegative(node, "encodedPrimaryHotOld", encodedPrimaryHotOld);
            nonNegative(node, "encodedPrimaryCold", encodedPrimaryCold);
            nonNegative(node, "stubs", stubs);
            nonNegative(node, "replacedSecondaries", replacedSecondaries);
            nonNegative(node, "parityHot", parityHot);
            nonNegative(node, "parityCold", parityCold);
            nonNegative(node, "obsolete", obsolete);
            nonNegative(node, "unreplicated", unreplicated);
            if (obsolete + unreplicated > encodedPrimaryHot + encodedPrimaryCold + replacedSecondaries)
                throw new IllegalArgumentException(node + ": obsolete " + obsolete + " and unreplicated " + unreplicated
                                                   + " exceed the encoded primary and replaced secondary bytes");
            if (unreplicated > encodedPrimaryHot + encodedPrimaryCold)
                throw new IllegalArgumentException(node + ": unreplicated " + unreplicated + " exceeds the encoded primary bytes");
            if (encodableOld > encodable)
                throw new IllegalArgumentException(node + ": encodableOld " + encodableOld + " > encodable " + encodable);
            if (encodedPrimaryHotOld > encodedPrimaryHot)
                throw new IllegalArgumentException(node + ": encodedPrimaryHotOld > encodedPrimaryHot");
            if (encodable > unencodedOfRole(unencoded, 0, true))
                throw new IllegalArgumentException(node + ": encodable " + encodable + " exceeds its unencoded primary bytes");
        }

        long unencodedPrimary()
        {
            return unencodedOfRole(unencoded, 0, true);
        }

        long unencodedSecondary()
        {
            return unencodedOfRole(unencoded, 0, false);
        }

        private static long unencodedOfRole(long[][] u, int role, boolean equal)
        {
            long s = 0;
            for (long[] level : u)
                for (int r = 0; r < level.length; r++)
                    if ((r == role) == equal)
                        s += level[r];
            return s;
        }

        private static void nonNegative(String node, String what, long v)
        {
            if (v < 0)
                throw new IllegalArgumentException(node + ": " + what + " must be >= 0, was " + v);
        }
    }

    /** Settings: alpha, the code, the switches, and the nominal ratios used before anything is measured. */
    /**
     * @param parityCorrection factor applied to the measured parity per encoded byte to get what a NEW stripe costs:
     *                         stripes that lost members keep their parity, so the cluster-wide ratio overstates it
     *                         (docs/design/updates.md); 1 when no stripe changed
     * @param fillableBytes    room in the virtual slots of committed stripes that rounds may fill (slots x code
     *                         length): data encoded there adds no parity, so its gain is the secondaries it frees
     *                         minus their stubs. Without it, a cluster whose stripes lost members (a decommission's
     *                         repair, removals) measures a parity ratio so high that encoding "saves nothing", and
     *                         the fills that would cost nothing never run (the simulation's seed 16 stopped at 8%
     *                         against alpha 0.6)
     */
    public record Params(double alpha, int k, int m, boolean encodingEnabled, boolean offloadEnabled, double nominalStubRatio,
                         double parityCorrection, double fillableBytes)
    {
        public Params(double alpha, int k, int m, boolean encodingEnabled, boolean offloadEnabled, double nominalStubRatio)
        {
            this(alpha, k, m, encodingEnabled, offloadEnabled, nominalStubRatio, 1.0, 0);
        }

        public Params(double alpha, int k, int m, boolean encodingEnabled, boolean offloadEnabled, double nominalStubRatio,
                      double parityCorrection)
        {
            this(alpha, k, m, encodingEnabled, offloadEnabled, nominalStubRatio, parityCorrection, 0);
        }

        public Params
        {
            if (Double.isNaN(fillableBytes) || fillableBytes < 0)
                throw new IllegalArgumentException("fillableBytes must be >= 0, was " + fillableBytes);
            if (Double.isNaN(parityCorrection) || parityCorrection <= 0 || parityCorrection > 1)
                throw new IllegalArgumentException("parityCorrection must be in (0, 1], was " + parityCorrection);
            if (Double.isNaN(alpha) || alpha < 0 || alpha >= 1)
                throw new IllegalArgumentException("alpha must be in [0, 1), was " + alpha);
            if (k < 1 || m < 1)
                throw new IllegalArgumentException("k and m must be >= 1, were " + k + ", " + m);
            if (Double.isNaN(nominalStubRatio) || nominalStubRatio < 0 || nominalStubRatio >= 1)
                throw new IllegalArgumentException("nominalStubRatio must be in [0, 1), was " + nominalStubRatio);
        }
    }

    /** What one node should do this round. */
    public record NodeAction(String node, long encodeBytes, long parityOffloadBytes, long primaryOffloadBytes)
    {
    }

    /**
     * The plan. Bytes are cluster totals; {@code projectedSaving} is what the hot tier saves once the plan is done
     * (with the measured ratios); {@code reachable} is false when the actions allowed cannot reach alpha, and
     * {@code limit} then says why.
     */
    public record Plan(double fullReplicationBytes, double hotBytes, double targetHotBytes, double encodeBytes,
                       double parityOffloadBytes, double primaryOffloadBytes, double encodeFraction,
                       double parityOffloadFraction, double primaryOffloadFraction, double projectedHotBytes,
                       double projectedSaving, boolean reachable, String limit, double secondaryPerPrimary,
                       double stubRatio, double parityPerEncoded, List<NodeAction> nodes)
    {
        public Map<String, Object> toMap()
        {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("full_replication_bytes", fullReplicationBytes);
            m.put("hot_bytes", hotBytes);
            m.put("target_hot_bytes", targetHotBytes);
            m.put("encode_bytes", encodeBytes);
            m.put("parity_offload_bytes", parityOffloadBytes);
            m.put("primary_offload_bytes", primaryOffloadBytes);
            m.put("projected_saving", projectedSaving);
            m.put("reachable", reachable);
            m.put("limit", limit);
            m.put("secondary_per_primary", secondaryPerPrimary);
            m.put("stub_ratio", stubRatio);
            m.put("parity_per_encoded", parityPerEncoded);
            return m;
        }
    }

    private AlphaPlanner()
    {
    }

    public static Plan plan(Params p, List<NodeBytes> cluster)
    {
        Objects.requireNonNull(p, "params");
        Objects.requireNonNull(cluster, "cluster");
        double up = 0, us = 0, enc = 0, encOld = 0, eph = 0, ephOld = 0, epc = 0, stubs = 0, repl = 0, ph = 0, pc = 0, obs = 0, unrepl = 0;
        for (NodeBytes n : cluster)
        {
            up += n.unencodedPrimary();
            us += n.unencodedSecondary();
            enc += n.encodable();
            encOld += n.encodableOld();
            eph += n.encodedPrimaryHot();
            ephOld += n.encodedPrimaryHotOld();
            epc += n.encodedPrimaryCold();
            stubs += n.stubs();
            repl += n.replacedSecondaries();
            ph += n.parityHot();
            pc += n.parityCold();
            obs += n.obsolete();
            unrepl += n.unreplicated();
        }
        // What full replication of the LIVE data would hold: obsolete versions kept by frozen files are cost (they
        // stay in hot), never part of the reference (a plain table's compaction would have dropped them); nor are
        // members' rows outside their node's ranges (their replicas count them through their stubs).
        double full = up + us + eph + epc + repl - obs - unrepl;
        double hot = up + us + eph + stubs + ph;
        double target = (1 - p.alpha()) * full;

        // Measured ratios (nominal until measured). rho: secondary bytes held per primary byte, from unencoded data
        // (it absorbs RF, per-replica compaction differences, and the share of ranges this table really replicates).
        double rho = up > 0 ? us / up : 0;
        double sigma = repl > 0 ? stubs / repl : p.nominalStubRatio();
        double pi = (eph + epc) > 0 ? p.parityCorrection() * (ph + pc) / (eph + epc) : (double) p.m() / p.k();
        double gain = rho * (1 - sigma) - pi;
        // data filling virtual slots adds no parity (see Params.fillableBytes)
        double fillGain = rho * (1 - sigma);

        double need = Math.max(0, hot - target);
        String limit = "";
        double e = 0, filled = 0;
        if (need > 0)
        {
            if (!p.encodingEnabled())
                limit = "erasure coding disabled";
            else if (cluster.size() < p.k() + p.m())
                limit = "cluster of " + cluster.size() + " nodes cannot hold k+m=" + (p.k() + p.m()) + " chunks on distinct nodes";
            else if (enc <= 0)
                limit = "no unencoded last-level primary data is eligible (all encoded, younger than transition_min_age_seconds, or hot)";
            else
            {
                if (fillGain > 0 && p.fillableBytes() > 0)
                {
                    filled = Math.min(Math.min(enc, p.fillableBytes()), need / fillGain);
                    need -= filled * fillGain;
                }
                if (need > 0 && gain <= 0)
                    limit = "encoding saves nothing (secondary bytes freed per primary byte " + fmt(fillGain) + " <= parity " + fmt(pi) + ")";
                else if (need > 0)
                {
                    double more = Math.min(enc - filled, need / gain);
                    need -= more * gain;
                    e = more;
                    if (need > 0)
                        limit = "encoding all eligible data (" + fmt(enc) + " bytes) is not enough";
                }
                e += filled;
            }
        }
        double parityAvail = ph + pi * (e - filled);
        double po = 0, dataAvail = ephOld + (enc > 0 ? e * encOld / enc : 0), dof = 0;
        if (need > 0 && p.offloadEnabled())
        {
            po = Math.min(need, parityAvail);
            need -= po;
            dof = Math.min(need, dataAvail);
            need -= dof;
            if (need > 0)
                limit = (limit.isEmpty() ? "" : limit + "; ")
                        + "offloading all parity and all encoded primary data older than the age limit is not enough";
        }
        else if (need > 0)
            limit = limit.isEmpty() ? "offload disabled" : limit + "; offload disabled";
        boolean reachable = need <= 1e-9 * Math.max(1, full);
        if (reachable)
            limit = "";
        double projectedHot = hot - (Math.max(0, hot - target) - need);
        double fe = enc > 0 ? e / enc : 0;
        double fp = parityAvail > 0 ? po / parityAvail : 0;
        double fd = dataAvail > 0 ? dof / dataAvail : 0;
        List<NodeAction> actions = new ArrayList<>();
        for (NodeBytes n : cluster)
        {
            double nodeEnc = fe * n.encodable();
            double nodeDataAvail = n.encodedPrimaryHotOld() + (n.encodable() > 0 ? nodeEnc * n.encodableOld() / n.encodable() : 0);
            // Parity of the stripes encoded this round lands on nodes chosen by ParityPlacement; the fraction is
            // applied to each node's hot parity as it stands when the node acts (see the class comment).
            actions.add(new NodeAction(n.node(), Math.round(nodeEnc), Math.round(fp * n.parityHot()), Math.round(fd * nodeDataAvail)));
        }
        return new Plan(full, hot, target, e, po, dof, fe, fp, fd, projectedHot, full > 0 ? 1 - projectedHot / full : 0,
                        reachable, limit, rho, sigma, pi, List.copyOf(actions));
    }

    private static String fmt(double d)
    {
        return String.format("%.4g", d);
    }
}
