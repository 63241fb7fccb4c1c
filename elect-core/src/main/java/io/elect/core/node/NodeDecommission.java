package io.elect.core.node;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.config.Json;
import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeRecord;

/**
 * {@code electtool decommission}: this node leaves the ring without any stripe losing a chunk (issue 18;
 * docs/design/topology.md "Draining before leaving"). Phases: DRAINING (the node is marked in the stripe store, the
 * coordinator's rounds move its chunks away, {@link Drains}) until no stripe record names it in two checks
 * ({@link #drained}), then
 * LEAVING (Cassandra's own decommission: the node's rows, its former members included, stream to the nodes that take
 * its ranges), then LEFT. A failure is FAILED with the reason; the mark stays, so running the command again continues.
 * {@link #cancel} during DRAINING removes the mark (the node stays a ring member; the members it kept are ordinary
 * SSTables that later rounds may encode again). Thread-safe.
 */
public final class NodeDecommission
{
    private static final Logger logger = LoggerFactory.getLogger(NodeDecommission.class);

    public enum Phase
    {
        IDLE, DRAINING, LEAVING, LEFT, CANCELLED, FAILED
    }

    /** How often the drain checks the stripe records. */
    static final long CHECK_MILLIS = 2_000;

    private NodeContext node;
    private volatile Phase phase = Phase.IDLE;
    private volatile int naming = -1;
    private volatile int namingAtStart = -1;
    private volatile String waiting = "";
    private volatile String error;
    private volatile long startedAt;
    private volatile long endedAt;
    private volatile boolean cancelled;
    /** This node's drain mark (its time) as {@link #status} last read it, or null. */
    private volatile Long lastMark;
    private Thread worker;

    synchronized void attach(NodeContext node)
    {
        this.node = node;
    }

    /**
     * The stripes a node must leave before it goes: every record naming it as a real member, a parity node or the
     * previous member of a change in flight, in any state but the removable ones (a stripe being built or changed
     * names it too).
     */
    public static int naming(List<StripeRecord> records, String n)
    {
        int out = 0;
        for (StripeRecord r : records)
        {
            if (r.state().rowRemovable())
                continue;
            boolean names = r.parityNodes().contains(n);
            for (Member m : r.members())
                names |= !m.isVirtual() && n.equals(m.node());
            // a change in flight still sends REMOVE_MEMBER to the previous member's node
            if (r.change() != null && !r.change().previous().isVirtual())
                names |= n.equals(r.change().previous().node());
            if (names)
                out++;
        }
        return out;
    }

    /** Since when (ms) the drain has seen no stripe naming the node: -1 while one does, else the first such check. */
    static long zeroSince(int naming, long zeroSince, long now)
    {
        return naming > 0 ? -1 : zeroSince < 0 ? now : zeroSince;
    }

    /**
     * Whether the drain is over: no stripe has named the node in two checks at least {@link #CHECK_MILLIS} apart. A
     * round that began before the mark was written re-reads the marks right before it creates a stripe or fills a
     * slot ({@code TransitionCoordinator#admission}), and a stripe's record is written before anything else, so a
     * chunk placed on the node by such a round shows in a check made after its record; the second check is that one
     * unless the round's re-read and its record write straddle it (milliseconds, against {@link #CHECK_MILLIS}).
     */
    static boolean drained(long zeroSince, long now)
    {
        return zeroSince >= 0 && now - zeroSince >= CHECK_MILLIS;
    }

    /**
     * Starts the decommission in the background (or reports the one running); {@code leave} is Cassandra's decommission
     * of this node, called once the drain is done. Refused, naming the reason, when the ring would keep fewer nodes
     * than a stripe's k + m.
     */
    public synchronized String start(Runnable leave)
    {
        if (node == null)
            throw new IllegalStateException("the ELECT node has not started");
        if (phase == Phase.DRAINING || phase == Phase.LEAVING)
            return status();
        if (phase == Phase.LEFT)
            throw new IllegalStateException("decommission: " + node.self() + " has left the ring already");
        List<StripeRecord> records;
        try
        {
            if (!node.store().ready())
                node.store().ensureReady(); // no round has run yet (a fresh cluster): the store of stripes and drain marks is created now
            records = node.store().list();
        }
        catch (RuntimeException e)
        {
            throw new IllegalStateException("decommission: the stripe store (elect_system) cannot be read yet (" + e.getMessage()
                                            + "); a store created a moment ago reaches the other nodes within seconds: run it again");
        }
        int members = node.ring().members().size();
        int width = node.config().dataChunks + node.config().parityChunks;
        for (StripeRecord r : records)
            if (!r.state().rowRemovable())
                width = Math.max(width, r.k() + r.m());
        if (members - 1 < width)
            throw new IllegalStateException("decommission refused: the ring would keep " + (members - 1) + " nodes, and stripes need "
                                            + width + " distinct nodes (k + m); add a node first");
        cancelled = false;
        error = null;
        endedAt = 0;
        startedAt = node.clock().millis();
        node.store().markDraining(node.self(), startedAt);
        namingAtStart = naming(node.store().list(), node.self());
        naming = namingAtStart;
        phase = Phase.DRAINING;
        logger.info("decommission of {}: draining, {} stripes name this node", node.self(), namingAtStart);
        worker = new Thread(() -> run(leave), "elect-decommission");
        worker.setDaemon(true);
        worker.start();
        return status();
    }

    /** Cancels a decommission that is still draining: removes the mark. Refused once Cassandra's decommission runs. */
    public synchronized String cancel()
    {
        if (node == null)
            throw new IllegalStateException("the ELECT node has not started");
        if (phase == Phase.LEAVING || phase == Phase.LEFT)
            throw new IllegalStateException("decommission of " + node.self() + " is " + phase + ": Cassandra's decommission is not cancelled");
        cancelled = true;
        node.store().unmarkDraining(node.self());
        if (phase != Phase.DRAINING)
        {
            phase = Phase.CANCELLED;
            endedAt = node.clock().millis();
        }
        logger.info("decommission of {} cancelled while draining: the node stays in the ring", node.self());
        return status();
    }

    private void run(Runnable leave)
    {
        try
        {
            long zeroSince = -1;
            int logged = naming;
            while (true)
            {
                if (cancelled)
                {
                    phase = Phase.CANCELLED;
                    endedAt = node.clock().millis();
                    return;
                }
                int n;
                try
                {
                    n = naming(node.store().list(), node.self());
                    // idempotent: a mark lost to a race is restored; under the monitor and only while not cancelled,
                    // so that a cancel() between the check above and this write (its unmark done) is not undone
                    synchronized (this)
                    {
                        if (cancelled)
                            continue;
                        node.store().markDraining(node.self(), startedAt);
                    }
                }
                catch (RuntimeException e)
                {
                    waiting = "stripe records not readable: " + e.getMessage();
                    node.clock().sleep(CHECK_MILLIS);
                    continue;
                }
                naming = n;
                List<String> down = node.ring().members().stream().filter(m -> !node.ring().isAlive(m)).toList();
                waiting = down.isEmpty() ? "" : "nodes down (every ring member must answer the moves): " + down;
                if (n != logged)
                {
                    logger.info("decommission of {}: {} of {} stripes still name this node ({} ms)", node.self(), n, namingAtStart,
                                node.clock().millis() - startedAt);
                    logged = n;
                }
                long now = node.clock().millis();
                zeroSince = zeroSince(n, zeroSince, now);
                if (drained(zeroSince, now))
                    break;
                node.clock().sleep(CHECK_MILLIS);
            }
            synchronized (this)
            {
                if (cancelled)
                {
                    phase = Phase.CANCELLED;
                    endedAt = node.clock().millis();
                    return;
                }
                phase = Phase.LEAVING;
            }
            long drained = node.clock().millis() - startedAt;
            logger.info("decommission of {}: drained ({} stripes moved off in {} ms); Cassandra's decommission starts", node.self(),
                        namingAtStart, drained);
            long start = node.clock().millis();
            leave.run();
            phase = Phase.LEFT;
            endedAt = node.clock().millis();
            logger.info("decommission of {}: left the ring ({} ms streaming, {} ms in all)", node.self(), endedAt - start, endedAt - startedAt);
        }
        catch (InterruptedException e)
        {
            Thread.currentThread().interrupt();
            fail("interrupted");
        }
        catch (RuntimeException e)
        {
            fail(e.toString());
        }
    }

    private void fail(String why)
    {
        Phase in = phase;
        error = why;
        phase = Phase.FAILED;
        endedAt = node.clock().millis();
        logger.warn("decommission of {} failed in phase {}: {} (the drain mark stays: run electtool decommission again, or --cancel)",
                    node.self(), in, why);
    }

    /**
     * The phase and progress, as JSON: phase, node, marked_draining (and marked_since_ms), stripes_at_start,
     * stripes_naming_node, waiting (what the drain waits for, or empty), elapsed_ms, error.
     */
    public String status()
    {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("phase", phase.name());
        NodeContext n = node;
        if (n != null)
        {
            out.put("node", n.self());
            Long mark = lastMark;
            // Not once Cassandra's decommission runs: a node leaving or gone from the ring waits out a QUORUM read's
            // timeout (seen: each status 10-13 s late after DECOMMISSIONED); the mark is not read by this node then.
            if (phase != Phase.LEAVING && phase != Phase.LEFT)
            {
                try
                {
                    mark = n.store().draining().get(n.self());
                    lastMark = mark;
                }
                catch (RuntimeException e)
                {
                    out.put("mark_error", e.toString());
                }
            }
            out.put("marked_draining", mark != null);
            if (mark != null)
                out.put("marked_since_ms", mark);
        }
        out.put("stripes_at_start", namingAtStart);
        out.put("stripes_naming_node", naming);
        out.put("waiting", phase == Phase.DRAINING ? waiting : ""); // what a drain that ended waited for is no news
        long now = n == null ? 0 : n.clock().millis();
        out.put("elapsed_ms", startedAt == 0 ? 0 : (endedAt > 0 ? endedAt : now) - startedAt);
        out.put("error", error);
        return Json.write(out);
    }

    /** Waits until the phase changes or the progress moves, at most {@code maxWaitMillis} (0..5000); then {@link #status}. */
    public String await(long maxWaitMillis) throws InterruptedException
    {
        if (maxWaitMillis < 0 || maxWaitMillis > 5000)
            throw new IllegalArgumentException("maxWaitMillis: " + maxWaitMillis + " is not in [0, 5000]");
        Phase p = phase;
        int s = naming;
        NodeContext n = node;
        if (n == null)
            return status();
        long start = n.clock().nanoTime();
        while (phase == p && naming == s && n.clock().millisSince(start) < maxWaitMillis)
            n.clock().sleep(50);
        return status();
    }
}
