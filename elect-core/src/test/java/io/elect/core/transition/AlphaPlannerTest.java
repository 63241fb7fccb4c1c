package io.elect.core.transition;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.elect.core.transition.AlphaPlanner.NodeAction;
import io.elect.core.transition.AlphaPlanner.NodeBytes;
import io.elect.core.transition.AlphaPlanner.Params;
import io.elect.core.transition.AlphaPlanner.Plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Golden cases of the alpha planner. The expected numbers are worked by hand in docs/design/transitioning.md
 * ("Worked example"): 6 nodes, RF=3, each node holding 100 primary bytes (90 last-level and eligible, all old) and
 * 200 secondary bytes; full replication = 1800.
 */
class AlphaPlannerTest
{
    private static final double EPS = 1e-6;

    /** Fresh cluster: nothing encoded yet. */
    private static List<NodeBytes> fresh(int nodes, long lastLevelPrimary, long upperPrimary, long secondaryPerLevel)
    {
        List<NodeBytes> out = new ArrayList<>();
        for (int i = 0; i < nodes; i++)
        {
            long[][] u = { { upperPrimary, secondaryPerLevel / 10, secondaryPerLevel / 10 },
                           { lastLevelPrimary, secondaryPerLevel * 9 / 10, secondaryPerLevel * 9 / 10 } };
            out.add(new NodeBytes("n" + i, u, lastLevelPrimary, lastLevelPrimary, 0, 0, 0, 0, 0, 0, 0));
        }
        return out;
    }

    /** 6 nodes, except 10 for (6,4): k+m chunks need k+m distinct nodes. */
    private static int nodes(int k, int m)
    {
        return Math.max(6, k + m);
    }

    private static Plan plan(double alpha, int k, int m)
    {
        return AlphaPlanner.plan(new Params(alpha, k, m, true, true, 0.0), fresh(nodes(k, m), 90, 10, 100));
    }

    // {alpha, k, m, encode, parityOffload, primaryOffload}; (6,4) on 10 nodes: full replication 3000.
    private static final double[][] GOLDEN = {
        { 0.3, 4, 2, 360, 0, 0 }, { 0.3, 2, 1, 360, 0, 0 }, { 0.3, 6, 4, 675, 0, 0 },
        { 0.6, 4, 2, 540, 270, 0 }, { 0.6, 2, 1, 540, 270, 0 }, { 0.6, 6, 4, 900, 600, 0 },
        { 0.8, 4, 2, 540, 270, 360 }, { 0.8, 2, 1, 540, 270, 360 }, { 0.8, 6, 4, 900, 600, 600 },
    };

    @Test
    void goldenRf3()
    {
        for (double[] g : GOLDEN)
        {
            Plan p = plan(g[0], (int) g[1], (int) g[2]);
            String what = "alpha=" + g[0] + " k=" + (int) g[1] + " m=" + (int) g[2];
            double full = 300.0 * nodes((int) g[1], (int) g[2]);
            assertEquals(full, p.fullReplicationBytes(), EPS, what);
            assertEquals(g[3], p.encodeBytes(), EPS, what + " encode");
            assertEquals(g[4], p.parityOffloadBytes(), EPS, what + " parity offload");
            assertEquals(g[5], p.primaryOffloadBytes(), EPS, what + " primary offload");
            assertEquals(g[0], p.projectedSaving(), EPS, what + " saving");
            assertTrue(p.reachable(), what);
            assertEquals(2.0, p.secondaryPerPrimary(), EPS);
            // Applying the per-node actions to the snapshot gives exactly the target.
            assertEquals((1 - g[0]) * full, apply(p, (int) g[1], (int) g[2]), p.nodes().size() * 1.0 + EPS, what + " applied");
        }
    }

    /** Hot bytes after every node applies its action, counted independently of the planner's totals. */
    private static double apply(Plan p, int k, int m)
    {
        double hot = 0;
        for (NodeAction a : p.nodes())
        {
            double encoded = a.encodeBytes();
            double primary = 100 - a.primaryOffloadBytes();                 // primaries stay, minus offloaded
            double secondaries = 200 - 2 * encoded;                         // replaced by zero-byte stubs
            double parity = encoded * m / k - a.parityOffloadBytes();       // parity of this node's share
            hot += primary + secondaries + parity;
        }
        // Parity offload per node is a fraction of the node's hot parity, which is 0 on a fresh snapshot: the plan's
        // cluster-wide parity offload applies in the next round; account for it here as the cluster total.
        return hot - p.parityOffloadBytes();
    }

    @Test
    void secondRoundConvergesOnMeasuredState()
    {
        // Round 2 of alpha=0.6 (4,2): per node 90 primary bytes are encoded; measured: stubs are 10% of the 180
        // secondary bytes they replaced, parity is 0.6 per encoded byte (padding). The planner uses these measured
        // ratios, not the nominal 0 and m/k.
        List<NodeBytes> c = new ArrayList<>();
        for (int i = 0; i < 6; i++)
            c.add(new NodeBytes("n" + i, new long[][]{ { 10, 10, 10 }, { 0, 0, 0 } }, 0, 0, 90, 90, 0, 18, 180, 54, 0));
        Plan p = AlphaPlanner.plan(new Params(0.6, 4, 2, true, true, 0.0), c);
        assertEquals(0.1, p.stubRatio(), 1e-9);
        assertEquals(0.6, p.parityPerEncoded(), 1e-9);
        assertEquals(1800, p.fullReplicationBytes(), EPS);
        // hot = 6 * (30 + 90 + 18 + 54) = 1152, target 720: nothing left to encode; offload all 324 parity bytes,
        // then 108 bytes of old encoded primary data.
        assertEquals(1152, p.hotBytes(), EPS);
        assertEquals(0, p.encodeBytes(), EPS);
        assertEquals(324, p.parityOffloadBytes(), EPS);
        assertEquals(108, p.primaryOffloadBytes(), EPS);
        assertTrue(p.reachable());
        assertEquals(0.6, p.projectedSaving(), EPS);
        for (NodeAction a : p.nodes())
        {
            assertEquals(54, a.parityOffloadBytes());
            assertEquals(18, a.primaryOffloadBytes());
        }
    }

    /**
     * Obsolete versions held by encoded files are cost, not data: the same cluster as the second round above, with
     * 10% of each node's encoded primary and replaced secondary bytes (27 of 270) shadowed by newer versions. Full
     * replication of the live data is 1800 - 162 = 1638; hot stays 1152, so the achieved saving is 1 - 1152/1638
     * (not 0.36) and the planner offloads 172.8 bytes of old primary data (not 108) to reach 0.6 of the live figure.
     */
    @Test
    void obsoleteVersionsAreCostNotData()
    {
        List<NodeBytes> c = new ArrayList<>();
        for (int i = 0; i < 6; i++)
            c.add(new NodeBytes("n" + i, new long[][]{ { 10, 10, 10 }, { 0, 0, 0 } }, 0, 0, 90, 90, 0, 18, 180, 54, 0, 27));
        Plan p = AlphaPlanner.plan(new Params(0.6, 4, 2, true, true, 0.0), c);
        assertEquals(1638, p.fullReplicationBytes(), EPS);
        assertEquals(1152, p.hotBytes(), EPS);
        assertEquals(0.4 * 1638, p.targetHotBytes(), EPS);
        assertEquals(324, p.parityOffloadBytes(), EPS);
        assertEquals(1152 - 0.4 * 1638 - 324, p.primaryOffloadBytes(), EPS);
        assertTrue(p.reachable());
        assertEquals(0.6, p.projectedSaving(), EPS);
        assertThrows(IllegalArgumentException.class,
                     () -> new NodeBytes("n", new long[][]{ { 0 } }, 0, 0, 10, 0, 0, 0, 5, 0, 0, 16));
    }

    /**
     * After a move, a node's encoded members hold rows of a range it no longer replicates (the member stays; the
     * range's new replica holds a stub of it, counted through its replicated share). The same cluster as above without
     * obsolete bytes, with 30 of each of two nodes' 90 encoded bytes outside their ranges: full replication is
     * 1800 - 60 = 1740, not 1800, and the achieved saving 1 - 1152/1740 (not 0.36, which counted those rows twice).
     */
    @Test
    void membersOutsideTheirNodesRangesAreNotReplicatedData()
    {
        List<NodeBytes> c = new ArrayList<>();
        for (int i = 0; i < 6; i++)
            c.add(new NodeBytes("n" + i, new long[][]{ { 10, 10, 10 }, { 0, 0, 0 } }, 0, 0, 90, 90, 0, 18, 180, 54, 0, 0, i < 2 ? 30 : 0));
        Plan p = AlphaPlanner.plan(new Params(0.6, 4, 2, true, true, 0.0), c);
        assertEquals(1740, p.fullReplicationBytes(), EPS);
        assertEquals(1152, p.hotBytes(), EPS);
        assertEquals(0.4 * 1740, p.targetHotBytes(), EPS);
        assertThrows(IllegalArgumentException.class, () -> new NodeBytes("n", new long[][]{ { 0 } }, 0, 0, 10, 0, 5, 0, 50, 0, 0, 0, 16),
                     "no more than the members' bytes");
        assertThrows(IllegalArgumentException.class, () -> new NodeBytes("n", new long[][]{ { 0 } }, 0, 0, 10, 0, 0, 0, 5, 0, 0, 6, 10),
                     "obsolete and unreplicated together no more than the encoded and replaced bytes");
    }

    /**
     * Stripes that lost members keep their parity: here 60 parity bytes per node stand for 20 encoded bytes (3 per
     * byte, against 0.5 for a new (4,2) stripe), so encoding a byte into a NEW stripe frees 1.8 secondary bytes net of
     * stubs and costs 3 of parity: "saves nothing". Data that fills virtual slots of those stripes adds no parity:
     * with 200 bytes of room the plan encodes 200 (freeing 360), offloads all 360 parity bytes and 18 old primary
     * bytes; with room for all it needs, it encodes 738 / 1.8 = 410 and offloads nothing. Per node: 90 eligible
     * last-level primary bytes, 180 secondary, 20 encoded (old), stubs 4 of 40 replaced bytes; full replication 1980,
     * hot 2124, target at alpha 0.3: 1386.
     */
    @Test
    void fillingVirtualSlotsCostsNoParity()
    {
        List<NodeBytes> c = new ArrayList<>();
        for (int i = 0; i < 6; i++)
            c.add(new NodeBytes("n" + i, new long[][]{ { 0, 0, 0 }, { 90, 90, 90 } }, 90, 90, 20, 20, 0, 4, 40, 60, 0));
        Plan none = AlphaPlanner.plan(new Params(0.3, 4, 2, true, true, 0.0, 1.0, 0), c);
        assertEquals(1980, none.fullReplicationBytes(), EPS);
        assertEquals(2124, none.hotBytes(), EPS);
        assertEquals(0, none.encodeBytes(), EPS);
        assertFalse(none.reachable());
        assertTrue(none.limit().contains("encoding saves nothing"), none.limit());

        Plan some = AlphaPlanner.plan(new Params(0.3, 4, 2, true, true, 0.0, 1.0, 200), c);
        assertEquals(200, some.encodeBytes(), EPS);
        assertEquals(360, some.parityOffloadBytes(), EPS);
        assertEquals(18, some.primaryOffloadBytes(), EPS);
        assertTrue(some.reachable(), some.limit());
        assertEquals(0.3, some.projectedSaving(), EPS);

        Plan room = AlphaPlanner.plan(new Params(0.3, 4, 2, true, true, 0.0, 1.0, 1000), c);
        assertEquals(410, room.encodeBytes(), EPS);
        assertEquals(0, room.parityOffloadBytes(), EPS);
        assertEquals(0, room.primaryOffloadBytes(), EPS);
        assertTrue(room.reachable());
        assertThrows(IllegalArgumentException.class, () -> new Params(0.3, 4, 2, true, true, 0.0, 1.0, -1));
    }

    @Test
    void unreachableByEncodingWhenOffloadDisabled()
    {
        Plan p = AlphaPlanner.plan(new Params(0.6, 4, 2, true, false, 0.0), fresh(6, 90, 10, 100));
        assertEquals(540, p.encodeBytes(), EPS);
        assertEquals(0, p.parityOffloadBytes(), EPS);
        assertEquals(0, p.primaryOffloadBytes(), EPS);
        assertFalse(p.reachable());
        assertEquals(810.0 / 1800, p.projectedSaving(), EPS);
        assertTrue(p.limit().contains("offload disabled"), p.limit());
    }

    @Test
    void youngDataIsNeverOffloaded()
    {
        List<NodeBytes> c = new ArrayList<>();
        for (int i = 0; i < 6; i++)
            c.add(new NodeBytes("n" + i, new long[][]{ { 10, 10, 10 }, { 90, 90, 90 } }, 90, 0, 0, 0, 0, 0, 0, 0, 0));
        Plan p = AlphaPlanner.plan(new Params(0.8, 4, 2, true, true, 0.0), c);
        assertEquals(0, p.primaryOffloadBytes(), EPS);
        assertFalse(p.reachable());
        assertEquals(0.6, p.projectedSaving(), EPS);
        assertTrue(p.limit().contains("age"), p.limit());
    }

    @Test
    void tinyClustersAndDegenerateInputs()
    {
        Plan tiny = AlphaPlanner.plan(new Params(0.3, 4, 2, true, true, 0.0), fresh(5, 90, 10, 100));
        assertEquals(0, tiny.encodeBytes(), EPS);
        assertFalse(tiny.reachable());
        assertTrue(tiny.limit().contains("5 nodes"), tiny.limit());

        Plan rf1 = AlphaPlanner.plan(new Params(0.3, 2, 1, true, true, 0.0), fresh(3, 90, 10, 0));
        assertEquals(0, rf1.encodeBytes(), EPS);
        assertTrue(rf1.limit().contains("saves nothing"), rf1.limit());

        Plan zero = AlphaPlanner.plan(new Params(0.0, 4, 2, true, true, 0.0), fresh(6, 90, 10, 100));
        assertEquals(0, zero.encodeBytes(), EPS);
        assertTrue(zero.reachable());

        Plan empty = AlphaPlanner.plan(new Params(0.6, 4, 2, true, true, 0.0), List.of());
        assertTrue(empty.reachable());
        assertEquals(0, empty.projectedSaving(), EPS);

        Plan disabled = AlphaPlanner.plan(new Params(0.3, 4, 2, false, true, 0.0), fresh(6, 90, 10, 100));
        assertEquals(0, disabled.encodeBytes(), EPS);
        assertTrue(disabled.limit().contains("erasure coding disabled"), disabled.limit());

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Params(1.0, 4, 2, true, true, 0));
        assertTrue(e.getMessage().contains("alpha"));
        e = assertThrows(IllegalArgumentException.class,
                         () -> new NodeBytes("x", new long[][]{ { 5 } }, 6, 0, 0, 0, 0, 0, 0, 0, 0));
        assertTrue(e.getMessage().contains("encodable"), e.getMessage());
    }
}
