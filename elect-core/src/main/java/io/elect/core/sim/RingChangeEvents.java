package io.elect.core.sim;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.elect.core.node.NodeDecommission;
import io.elect.core.sim.SimCluster.SimNode;
import io.elect.core.sim.SimRows.Row;

/**
 * Ring changes of a {@link Simulation} (issue 18): the operator decommissions a node, as {@code nodetool decommission}
 * does it with ELECT's plugins on every node, or first drains it ({@code electtool decommission}: {@link #startDrain},
 * then the steps below once no stripe names it).
 *
 * <ol>
 * <li>LEAVING: the nodes that will take over the leaving node's ranges see them as pending
 *     ({@code Ring.willReplicate}); for about twice Cassandra's ring_delay (60 s) every live node runs its stub
 *     coverage every 5 s, as its own thread does (a node taking over a range whose encoded rows the leaving node held
 *     only as stubs gets those stubs: Cassandra's streams leave stubs out).</li>
 * <li>Streams: every row version the leaving node holds in its memtable and LOCAL files (replicated data and encoded
 *     members, not stubs, not COLD files: what Cassandra streams of ELECT tables) goes to each node that replicates
 *     its token after the change and did not before, as a new level-0 file.</li>
 * <li>LEFT: the node leaves the ring (never to return), its disk is deleted; every node re-splits the files whose
 *     rows changed role (the decoupled trees' re-classification); the coordinator's departure repair takes the
 *     stripes that name it once the grace period has passed.</li>
 * </ol>
 *
 * Faults are whatever the run has at that moment: a stub that stub coverage could not install in time is a read
 * the invariants catch, as it would be on a real cluster.
 */
final class RingChangeEvents
{
    /** LEAVING lasts this long (Cassandra: about 2 x ring_delay, 30 s by default), coverage every 5 s. */
    static final int LEAVING_SECONDS = 60, COVERAGE_EVERY_SECONDS = 5;

    private final Simulation sim;
    private final SimCluster c;

    RingChangeEvents(Simulation sim, SimCluster c)
    {
        this.sim = sim;
        this.c = c;
    }

    /**
     * The most distinct nodes a stripe needs: the configured k + m, or more for stripes an operator widened (k' + m);
     * what {@code electtool decommission} checks (simulation seed 506: a decommission left 4 nodes to stripes
     * widened to 4 + 1, and the repair had no spare node for them).
     */
    private int width(int k, int m)
    {
        int w = k + m;
        for (io.elect.core.stripes.StripeRecord r : c.stripes.list())
            if (!r.state().rowRemovable())
                w = Math.max(w, r.k() + r.m());
        return w;
    }

    /**
     * {@code electtool decommission} on {@code n}, its first part: the node is marked draining in the stripe store, and
     * the coordinator's rounds move its stripe chunks away while the run goes on (writes, faults, rounds);
     * {@link #decommission} then lets it leave once no stripe names it. Refused (false) unless the ring keeps
     * max(RF, k + m) nodes after it and the node is up.
     */
    boolean startDrain(SimNode n, int k, int m)
    {
        if (!n.up || c.nodes().size() - 1 < Math.max(c.rf, width(k, m)))
            return false;
        c.stripes.markDraining(n.id, c.clock.millis());
        sim.event("decommission " + n + ": draining, " + NodeDecommission.naming(c.stripes.list(), n.id) + " stripes name it");
        return true;
    }

    /**
     * Decommissions {@code n} if an operator could now: every node up and ready (Cassandra refuses to stream from a
     * down replica's ranges otherwise), no stripe change in flight, and enough nodes left for the replication factor
     * and a stripe's k + m chunks.
     * Returns whether it ran.
     */
    boolean decommission(SimNode n, int k, int m) throws IOException
    {
        return decommission(n, k, m, false);
    }

    /** {@link #decommission(SimNode, int, int)}, also while member changes are in flight if {@code changesInFlight}. */
    boolean decommission(SimNode n, int k, int m, boolean changesInFlight) throws IOException
    {
        int after = c.nodes().size() - 1;
        if (c.unavailable() > 0 || after < Math.max(c.rf, width(k, m)))
            return false;
        // a drained node leaves once no stripe names it (electtool decommission's condition)
        boolean drained = c.stripes.draining().containsKey(n.id);
        if (drained && NodeDecommission.naming(c.stripes.list(), n.id) > 0)
            return false;
        // A member change in flight (CHANGING, CHANGED) finishes without a node that left (StripeChanges; docs/design/
        // topology.md, "Changes in flight when a node leaves"): the in-flight departure decommissions with one. A new
        // stripe or a retirement in flight that involves the leaving node would wait for it forever; in the runs the
        // operator decommissions once `electtool status` shows no stripe outside a terminal state.
        if (c.stripes.list().stream().anyMatch(r -> !r.state().isTerminal() && (!changesInFlight || r.state() != io.elect.core.stripes.StripeState.CHANGING
                                                                                                    && r.state() != io.elect.core.stripes.StripeState.CHANGED)))
            return false;
        c.beginLeaving(n);
        sim.event("decommission " + n + ": leaving");
        int installed = 0;
        for (int s = 0; s < LEAVING_SECONDS; s += COVERAGE_EVERY_SECONDS)
        {
            c.clock.advance(COVERAGE_EVERY_SECONDS, TimeUnit.SECONDS);
            for (SimNode x : c.nodes())
                if (x.up)
                {
                    try
                    {
                        installed += x.node.ops().coverStubs();
                    }
                    catch (RuntimeException e)
                    {
                        sim.event("stub coverage on " + x + " failed: " + e.getClass().getSimpleName());
                    }
                }
        }
        // what n streams to each node that takes over a token (computed on the ring before it leaves)
        Map<SimNode, List<Row>> streams = new LinkedHashMap<>();
        for (Row r : n.tables.rowsForStreaming(t -> true))
        {
            Set<String> before = new HashSet<>();
            for (int i : c.replicaIndexes(r.token()))
                before.add(c.nodes().get(i).id);
            for (String id : c.replicasWithout(r.token(), n))
                if (!before.contains(id))
                    streams.computeIfAbsent(c.byId(id), x -> new ArrayList<>()).add(r);
        }
        c.leave(n);
        int misfits = 0;
        for (SimNode x : c.nodes())
            misfits += x.tables.reclassify();
        int streamed = 0;
        for (Map.Entry<SimNode, List<Row>> e : streams.entrySet())
        {
            e.getKey().tables.receiveStream(e.getValue());
            streamed += e.getValue().size();
        }
        sim.event("decommission " + n + (drained ? " (drained)" : "") + ": left; " + installed + " stubs installed while leaving, " + streamed + " rows streamed to "
                  + streams.keySet() + ", " + misfits + " files re-split by role");
        return true;
    }
}
