package io.elect.core.node;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.Departures;
import io.elect.core.transition.ParityPlacement.Node;
import io.elect.core.transition.RemoteStripeParticipant;
import io.elect.core.transition.StripeStateMachine;
import io.elect.core.transition.wire.ChangeMessages.MaterializeResult;
import io.elect.core.transition.wire.TransitionMessages.TableRef;

/**
 * The coordinator's repair of stripes that name nodes which left the ring (issue 18: decommission, removenode;
 * docs/design/topology.md "Nodes that left the ring"), one {@link Departures} step per stripe and round: the stubs
 * of a departed member become ordinary SSTables on their nodes, then the member is removed from its stripe (or the
 * stripe retired, when it was the last real member), parity chunks on departed nodes are rebuilt elsewhere in the
 * same change (or in a change that keeps every member). Each step is a stripe state-machine change, so a crash
 * anywhere is finished by the recovery; materializing is idempotent.
 *
 * <p>A node counts as departed once the ring ({@link Ring#hasLeft}) has said so for {@link #GRACE_MILLIS} in a row
 * (token metadata and gossip settle at start-up; a node is never taken for gone on one observation). Not
 * thread-safe: called from the coordinator's rounds only.
 */
final class DepartureRepair
{
    private static final Logger logger = LoggerFactory.getLogger(DepartureRepair.class);

    /** How long a node must have been seen gone before its stripes are repaired. */
    static final long GRACE_MILLIS = 60_000;
    /** Steps per table and round (each rewrites stubs and builds parity). */
    static final int MAX_STEPS_PER_ROUND = 4;

    private final NodeContext node;
    private final StripeStateMachine machine;
    private final RemoteStripeParticipant participant;
    private final Map<String, Long> leftSince = new ConcurrentHashMap<>();
    private List<StripeRecord> records = List.of();
    /** The nodes the records named at the last scan. */
    private Set<String> named = Set.of();
    private long lastScan = Long.MIN_VALUE / 2;
    /** How often the records are listed while no named node is seen gone. */
    static final long SCAN_MILLIS = 30_000;

    DepartureRepair(NodeContext node, StripeStateMachine machine, RemoteStripeParticipant participant)
    {
        this.node = node;
        this.machine = machine;
        this.participant = participant;
    }

    /**
     * The nodes named by stripe records that have left the ring for at least the grace period; remembers the records
     * for {@link #repair}. Lists the records at most every {@link #SCAN_MILLIS} while no node is seen gone (a scan of
     * every stripe each round would double the recovery's cost) unless {@code scan} (a node drains: its stripes are
     * repaired from fresh records every round); a failed listing answers none (next round retries).
     */
    Set<String> left(boolean scan)
    {
        long now = node.clock().millis();
        if (!scan && leftSince.isEmpty() && now - lastScan < SCAN_MILLIS && named.stream().noneMatch(node.ring()::hasLeft))
            return Set.of();
        List<StripeRecord> all;
        try
        {
            all = node.store().list();
        }
        catch (RuntimeException e)
        {
            logger.debug("stripe records not listed for the departure check: {}", e.toString());
            return Set.of();
        }
        lastScan = now;
        return left(all, now);
    }

    Set<String> left(List<StripeRecord> all, long now)
    {
        records = all;
        Set<String> named = new HashSet<>();
        for (StripeRecord r : all)
        {
            for (Member m : r.members())
                if (!m.isVirtual())
                    named.add(m.node());
            named.addAll(r.parityNodes());
        }
        this.named = Set.copyOf(named);
        Set<String> out = new TreeSet<>();
        for (String n : named)
        {
            if (!node.ring().hasLeft(n))
            {
                leftSince.remove(n);
                continue;
            }
            long since = leftSince.computeIfAbsent(n, x -> {
                logger.info("node {} named by stripes has left the ring; its stripes are repaired in {} s unless it returns", x, GRACE_MILLIS / 1000);
                return now;
            });
            if (now - since >= GRACE_MILLIS)
                out.add(n);
        }
        leftSince.keySet().retainAll(named);
        return out;
    }

    /**
     * Whether {@code node} has left the ring for good: the ring says so now and has said so for the grace period
     * (as of the last {@link #left} scan). Stripe changes in flight finish without such a node (StripeChanges).
     */
    boolean departed(String node)
    {
        Long since = leftSince.get(node);
        return since != null && this.node.clock().millis() - since >= GRACE_MILLIS && this.node.ring().hasLeft(node);
    }

    /**
     * Runs up to {@link #MAX_STEPS_PER_ROUND} steps for the table's stripes; returns how many finished (a step that
     * keeps failing must not stop the table's transitioning: the round goes on to plan when none finished).
     */
    int repair(TableRef table, Set<String> left, List<Node> live)
    {
        return repair(table, left, Set.of(), live);
    }

    /**
     * {@link #repair(TableRef, Set, List)} for the nodes that left and the nodes that drain (still up, marked by
     * {@link Drains}): a draining node is taken exactly like one that left (its chunks move away, its members leave
     * their stripes after their stubs are materialized), except that it answers: it keeps its members' rows.
     * {@code live} must not name a draining node (no chunk is moved onto one).
     */
    int repair(TableRef table, Set<String> left, Set<String> draining, List<Node> live)
    {
        Set<String> away = new TreeSet<>(left);
        away.addAll(draining);
        int tried = 0, done = 0, drainedSteps = 0;
        for (StripeRecord r : records)
        {
            if (tried >= MAX_STEPS_PER_ROUND)
                break;
            if (!RemoteStripeParticipant.tableOf(r).equals(table))
                continue;
            Optional<Departures.Plan> plan = Departures.plan(r, live, node.ring()::rack, away);
            if (plan.isEmpty())
                continue;
            tried++;
            Departures.Plan p = plan.get();
            long start = node.clock().nanoTime();
            try
            {
                MaterializeResult stubs = p.kind() == Departures.Kind.MOVE_PARITY ? new MaterializeResult(0, 0)
                                                                                  : participant.materialize(r, p.slot(), p.departed());
                StripeState end = p.kind() == Departures.Kind.RETIRE ? machine.retire(r.id())
                                                                    : machine.change(r, p.slot(), p.replacement(), p.parityNodes());
                if (end == StripeState.RETIRED)
                    node.store().delete(r.id());
                if (end == StripeState.COMMITTED || end == StripeState.RETIRED)
                {
                    done++;
                    Object who = p.departed() != null ? p.departed() : r.parityNodes().stream().filter(away::contains).toList();
                    boolean drained = p.departed() != null ? draining.contains(p.departed()) : r.parityNodes().stream().noneMatch(left::contains);
                    if (drained)
                        drainedSteps++;
                    logger.info("stripe {} of {} repaired {} {}: {} (slot {}), {} stubs ({} bytes) materialized, parity on {} ({} ms)",
                                r.id(), table, drained ? "to drain" : "after the departure of", who, p.kind(), p.slot(), stubs.stubs(),
                                stubs.bytes(), p.parityNodes(), node.clock().millisSince(start));
                }
            }
            catch (RuntimeException e)
            {
                logger.warn("repair of stripe {} of {} ({}) did not finish (retried next round; a recorded change is finished by recovery): {}",
                            r.id(), table, p.kind(), e.toString());
            }
        }
        node.metrics().counter("Topology", "StripesRepaired", table.toString()).inc(done);
        node.metrics().counter("Topology", "StripesRepaired", null).inc(done);
        node.metrics().counter("Topology", "StripesDrained", null).inc(drainedSteps);
        return done;
    }
}
