package io.elect.core.sim;

import java.io.IOException;
import java.util.List;

import io.elect.core.sim.SimCluster.SimNode;

/**
 * The fault events of a {@link Simulation} and the healing that undoes them: process kills and restarts, lost disks
 * with replace and rebuild, network partitions, message and cold-tier faults switched on and off, the partial and
 * full heal, and the settling phase after the run (faults off, every node back, rounds until nothing changes). Each
 * event draws from the cluster's one generator ({@code c.random}) in the same order as before it moved here, so a
 * seed's trace is unchanged.
 *
 * <p>Separate from {@link Simulation} because these events only act on the cluster's nodes, network and cold tier;
 * they hold no model state of their own (the acknowledged rows, the trace, the statistics and the step stay in the
 * {@link Simulation}, which records every event and violation).
 */
final class FaultEvents
{
    private final Simulation sim;
    private final SimCluster c;
    private final Simulation.Options o;

    FaultEvents(Simulation sim, SimCluster c)
    {
        this.sim = sim;
        this.c = c;
        this.o = sim.options();
    }

    void kill()
    {
        if (c.unavailable() >= o.m())
            return;
        List<SimNode> up = c.nodes().stream().filter(n -> n.up).toList();
        SimNode n = up.get(c.random.nextInt(up.size()));
        c.kill(n);
        sim.event("kill " + n);
    }

    void restart() throws IOException
    {
        List<SimNode> down = c.nodes().stream().filter(n -> !n.up && !n.needsRebuild).toList();
        if (down.isEmpty())
            return;
        SimNode n = down.get(c.random.nextInt(down.size()));
        c.start(n);
        sim.event("restart " + n);
    }

    void loseDisk() throws IOException
    {
        if (c.unavailable() >= o.m() || c.nodes().stream().anyMatch(n -> n.needsRebuild))
            return;
        List<SimNode> up = c.nodes().stream().filter(n -> n.up).toList();
        SimNode n = up.get(c.random.nextInt(up.size()));
        c.loseDisk(n);
        sim.event("lose-disk " + n);
    }

    void replace() throws IOException
    {
        List<SimNode> lost = c.nodes().stream().filter(n -> n.needsRebuild).toList();
        if (lost.isEmpty())
            return;
        SimNode n = lost.get(c.random.nextInt(lost.size()));
        String state = c.replaceAndRebuild(n);
        sim.event("replace+rebuild " + n + " " + state + " " + n.node.rebuilds().lastCounts());
    }

    void partition()
    {
        if (c.network.partitions().size() >= 1)
            return;
        int a = c.random.nextInt(c.nodes().size()), b = c.random.nextInt(c.nodes().size());
        if (a == b)
            return;
        c.network.partition(c.nodes().get(a).id, c.nodes().get(b).id);
        sim.event("partition " + c.nodes().get(a) + " " + c.nodes().get(b));
    }

    void toggleFaults()
    {
        boolean on = c.random.nextBoolean();
        c.network.setFaults(on ? new SimNetwork.Faults(0.03, 0.03, 0.05, 0.1, 3000) : SimNetwork.Faults.NONE);
        SimColdTier.setFaults(c.cold, on);
        sim.event("faults " + (on ? "on" : "off"));
    }

    /** Heals the network (and, when all, turns faults off and brings every node back). */
    void heal(String what, boolean all) throws IOException
    {
        c.network.heal();
        if (all)
        {
            c.network.setFaults(SimNetwork.Faults.NONE);
            SimColdTier.setFaults(c.cold, false);
            for (SimNode n : c.nodes())
                if (!n.up && !n.needsRebuild)
                    c.start(n);
            for (SimNode n : c.nodes())
                if (n.needsRebuild)
                {
                    String state = c.replaceAndRebuild(n);
                    if (!state.equals("done"))
                        sim.violation("the rebuild of " + n + " did not finish after healing: " + n.node.rebuilds().status());
                }
        }
        sim.event("heal " + what);
    }

    /**
     * Faults off, every node back, then flush, compact and rounds (120 s apart) until nothing changes for longer than
     * the stripe fill wait (candidates of too few nodes wait that long before virtual chunks fill their stripe).
     */
    void heal() throws IOException
    {
        heal("all", true);
        String last = "";
        int same = 0, rounds = 0;
        int quiet = 2 + (int) Math.ceil(c.config.stripeFillWaitSeconds / 120.0);
        while (same < quiet && rounds < 80)
        {
            for (SimNode n : c.nodes())
            {
                n.tables.flush();
                n.tables.compact();
            }
            sim.advance(120);
            sim.rounds();
            sim.maintain();
            rounds++;
            sim.event("settle saving=" + savingNow());
            String now = c.stripes.list() + "/" + allFiles();
            same = now.equals(last) ? same + 1 : 0;
            last = now;
        }
        sim.stats().put("settle_rounds", rounds);
    }

    /** The coordinator's view of the achieved saving and plan, for the trace (NaN if it cannot say now). */
    private String savingNow()
    {
        for (SimNode n : c.nodes())
            if (n.up && n.node.transitions().coordinating())
            {
                try
                {
                    com.fasterxml.jackson.databind.JsonNode t = new com.fasterxml.jackson.databind.ObjectMapper()
                        .readTree(n.node.storageJson()).path("tables").path(0);
                    return String.format("%.4f hot=%d %s", t.path("achieved_saving").asDouble(), t.path("hot_bytes").asLong(), t.path("plan"));
                }
                catch (IOException | RuntimeException e)
                {
                    return "NaN (" + e.getMessage() + ")";
                }
            }
        return "NaN";
    }

    private String allFiles()
    {
        StringBuilder sb = new StringBuilder();
        for (SimNode n : c.nodes())
            sb.append(n.tables.fileIds()).append(';');
        return sb.toString();
    }
}
