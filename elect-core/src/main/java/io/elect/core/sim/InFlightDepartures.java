package io.elect.core.sim;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import io.elect.core.sim.SimCluster.SimNode;

/**
 * The simulation's changes in flight when a participant leaves (issue 18, docs/design/topology.md "Changes in flight
 * when a node leaves"): after settling, in a quarter of the seeds without another decommission, the coordinator's
 * record of a stripe change is written as if its first participant call had failed, and a node that change needs
 * leaves with a plain decommission. Healing must finish (or abandon) the change without the departed node, and the
 * departure repair then takes the stripe; the invariants check the rest.
 */
final class InFlightDepartures
{
    private final Simulation sim;
    private final SimCluster c;
    private final RingChangeEvents ringChanges;
    private final FaultEvents faults;
    /** Whether a node left (the fill variant's decommission). */
    private boolean left;

    InFlightDepartures(Simulation sim, SimCluster c, RingChangeEvents ringChanges, FaultEvents faults)
    {
        this.sim = sim;
        this.c = c;
        this.ringChanges = ringChanges;
        this.faults = faults;
    }

    /**
     * Whether a seed without a decommission during its run (and without the late one) ends with a plain decommission
     * of a node that a stripe change in flight names (a quarter of them, by a generator of their own).
     */
    static boolean applies(long seed)
    {
        // -Delect.sim.inflight_departure=false turns it off (to tell whether a failing seed needs it)
        return Boolean.parseBoolean(System.getProperty("elect.sim.inflight_departure", "true"))
               && new java.util.SplittableRandom(seed ^ 0x1F11D3EL).nextInt(4) == 0;
    }

    /**
     * A change in flight when a participant leaves (docs/design/topology.md "Changes in flight when a node leaves"):
     * after settling, the coordinator records a member change of a COMMITTED stripe (a change that keeps the member
     * and moves no parity: the smallest change, standing for any whose first call failed) and the node of another
     * member or of a parity chunk of that stripe leaves with a plain decommission before any participant call.
     * Healing must finish the change without the departed node (its chunk unreadable for good), then the departure
     * repair removes its member or moves its parity; the invariants then check every key, every stripe terminal and
     * no orphan. In a third of these runs the fill variant ({@link #fill}) instead, where the stripe has a virtual
     * slot. Returns whether a node left.
     */
    boolean run(Simulation.Options o) throws IOException
    {
        java.util.SplittableRandom pick = new java.util.SplittableRandom(o.seed() ^ 0xF11D3L);
        List<io.elect.core.stripes.StripeRecord> committed = new ArrayList<>();
        for (io.elect.core.stripes.StripeRecord r : c.stripes.list())
            if (r.state() == io.elect.core.stripes.StripeState.COMMITTED)
                committed.add(r);
        if (committed.isEmpty())
            return false;
        int variant = pick.nextInt(3); // 0: a fill's member leaves, 1: a parity node, 2: another member's node
        if (variant == 0)
        {
            // on a stripe with a virtual slot (few are left after settling: fills take them)
            for (io.elect.core.stripes.StripeRecord v : committed)
                if (v.members().contains(io.elect.core.stripes.Member.virtual()) && fill(o, v))
                    return left;
            variant = 1;
        }
        // another member's node needs a stripe with two real members (a padded stripe has one)
        List<io.elect.core.stripes.StripeRecord> eligible = variant == 2 ? committed.stream().filter(x -> x.realMembers() >= 2).toList() : committed;
        if (eligible.isEmpty())
        {
            eligible = committed;
            variant = 1;
        }
        io.elect.core.stripes.StripeRecord r = eligible.get(pick.nextInt(eligible.size()));
        List<Integer> slots = new ArrayList<>();
        for (int i = 0; i < r.k(); i++)
            if (!r.members().get(i).isVirtual())
                slots.add(i);
        int slot = slots.get(pick.nextInt(slots.size()));
        List<String> others = new ArrayList<>();
        if (variant == 1)
            others.addAll(r.parityNodes());
        else
            for (int i = 0; i < r.k(); i++)
                if (i != slot && !r.members().get(i).isVirtual())
                    others.add(r.members().get(i).node());
        String victim = others.get(pick.nextInt(others.size()));
        boolean parity = r.parityNodes().contains(victim);
        io.elect.core.stripes.StripeRecord next = r.beginChange(slot, r.members().get(slot), r.parityNodes(), c.clock.millis());
        if (c.stripes.replan(r, next) == io.elect.core.transition.StripeStore.Outcome.CONFLICT)
            return false;
        sim.event("stripe " + r.id() + " CHANGING (slot " + slot + " kept, generation " + next.parityGeneration() + ") when " + victim
              + ", holding " + (parity ? "a parity chunk" : "another member") + " of it, leaves");
        if (!ringChanges.decommission(c.byId(victim), o.k(), o.m(), true))
        {
            sim.event("in-flight departure: the decommission of " + victim + " was refused");
            faults.heal();
            return false;
        }
        sim.stats().put("decommissions", 1);
        sim.stats().put(parity ? "inflight_departures_parity" : "inflight_departures_member", 1);
        faults.heal();
        io.elect.core.stripes.StripeRecord after = c.stripes.get(r.id()).orElse(null);
        if (after != null && (!after.state().isTerminal() || after.parityNodes().contains(victim)
                              || after.members().stream().anyMatch(x -> !x.isVirtual() && x.node().equals(victim))))
            sim.violation("stripe " + r.id() + " still names " + victim + ", which left with its change in flight: " + after);
        sim.event("in-flight departure of " + victim + ": stripe " + r.id() + " is " + (after == null ? "gone" : after.state() + " at generation "
              + after.parityGeneration() + " on " + after.parityNodes()));
        return true;
    }

    /**
     * The fill variant of {@link #run}: a fill of a virtual slot of {@code r} with a member on a node
     * holding no chunk of it is recorded (CHANGING), and that node leaves before the member was taken (PIN): the fill
     * must be abandoned (no stub of the member exists), the stripe COMMITTED at its previous generation. The member is
     * named, not real: nothing asks the departed node for it. False (nothing done) if {@code r} has no virtual slot or
     * every node holds a chunk of it.
     */
    private boolean fill(Simulation.Options o, io.elect.core.stripes.StripeRecord r) throws IOException
    {
        int slot = r.members().indexOf(io.elect.core.stripes.Member.virtual());
        java.util.Set<String> holders = new java.util.HashSet<>(r.parityNodes());
        r.members().stream().filter(x -> !x.isVirtual()).forEach(x -> holders.add(x.node()));
        SimNode victim = c.nodes().stream().filter(n -> !holders.contains(n.id)).findFirst().orElse(null);
        if (slot < 0 || victim == null)
            return false;
        io.elect.core.stripes.Member named = new io.elect.core.stripes.Member(victim.id, SimCluster.TABLE.keyspace() + "." + SimCluster.TABLE.table()
                                                                                  + "/9x" + Math.abs(r.id().hashCode() % 1000), 100);
        io.elect.core.stripes.StripeRecord next = r.beginFill(slot, named, c.clock.millis());
        if (c.stripes.replan(r, next) == io.elect.core.transition.StripeStore.Outcome.CONFLICT)
            return false;
        sim.event("stripe " + r.id() + " CHANGING (virtual slot " + slot + " filled by " + named.descriptor() + ") when " + victim + " leaves");
        if (!ringChanges.decommission(victim, o.k(), o.m(), true))
        {
            sim.event("in-flight departure: the decommission of " + victim + " was refused");
            faults.heal();
            return true;
        }
        left = true;
        sim.stats().put("decommissions", 1);
        sim.stats().put("inflight_departures_fill", 1);
        faults.heal();
        io.elect.core.stripes.StripeRecord after = c.stripes.get(r.id()).orElse(null);
        if (after != null && (after.state() != io.elect.core.stripes.StripeState.COMMITTED && after.state() != io.elect.core.stripes.StripeState.RETIRED
                              || after.members().stream().anyMatch(x -> !x.isVirtual() && x.node().equals(victim.id))))
            sim.violation("stripe " + r.id() + " still names " + victim + ", whose fill was in flight when it left: " + after);
        sim.event("in-flight fill departure of " + victim + ": stripe " + r.id() + " is " + (after == null ? "gone" : after.state() + " at generation "
              + after.parityGeneration()));
        return true;
    }
}
