package io.elect.core.sim;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import io.elect.core.config.ElectConfig;
import io.elect.core.sim.SimCluster.SimNode;
import io.elect.core.sim.SimRows.Row;

/**
 * One seeded whole-cluster simulation run: a random but reproducible sequence of client writes and reads, flushes,
 * compactions, transitioning rounds (encoding, stubs, offload), stub maintenance, process kills and restarts, lost
 * disks with replace and rebuild, network partitions, dropped, duplicated and delayed messages, and cold-tier faults,
 * over real node services ({@link SimCluster}); then a healing phase (faults off, every node back, rounds until the
 * cluster settles; the fault events and the healing are in {@link FaultEvents}) and the final invariants
 * ({@link Invariants}). Every decision is drawn from the seed's one {@link java.util.Random}; time is a manual clock;
 * so the same seed gives the same run, which the hash of its event trace shows.
 *
 * <p>Invariants checked during the run: every read of an acknowledged key returns its latest acknowledged version
 * (while no more than m nodes are unavailable to the reader, a read must succeed; beyond that it may fail, never
 * return a wrong value). At the end: see {@link Invariants}.
 */
public final class Simulation
{
    /** What to run. */
    public record Options(long seed, int steps, int nodes, int k, int m, double alpha, boolean hotness, Sabotage sabotage, Path workDir)
    {
        /** The cluster shape for a seed when not given: 3 to 6 nodes, k in [2, 4], m in [1, 2], k + m <= nodes. */
        public static Options forSeed(long seed, int steps, Sabotage sabotage, Path workDir)
        {
            java.util.SplittableRandom r = new java.util.SplittableRandom(seed); // well mixed for consecutive seeds
            int nodes = 3 + r.nextInt(4);
            int m = 1 + (nodes >= 5 ? r.nextInt(2) : 0);
            int k = 2 + r.nextInt(Math.max(1, Math.min(3, nodes - m - 1)));
            double alpha = new double[]{ 0.3, 0.45, 0.6 }[r.nextInt(3)];
            boolean hotness = r.nextInt(3) == 0;
            return new Options(seed, steps, nodes, k, m, alpha, hotness, sabotage, workDir);
        }
    }

    /** The outcome of one run. */
    public record Result(Options options, List<String> violations, String traceHash, Map<String, Object> stats, List<String> lastEvents)
    {
        public boolean ok()
        {
            return violations.isEmpty();
        }
    }

    static final int KEYS = 240;
    /** In hotness runs, this many keys (spread over the key space, shifting every 50 steps) get 70% of the reads. */
    static final int HOT_KEYS = 12;
    static final int ROWS_PER_FILE = 6;

    private final Options o;
    private final SimCluster c;
    /** Kills, restarts, lost disks, partitions, faults on and off, and the healing phase. */
    private final FaultEvents faults;
    private final Map<String, Row> acked = new TreeMap<>();
    private final List<String> violations = new ArrayList<>();
    private final Map<String, Object> stats = new LinkedHashMap<>();
    private final MessageDigest trace;
    private final ArrayDeque<String> recent = new ArrayDeque<>();
    private long writes;
    /** Rounds that ran while some node was down, and the stripes committed by them (issue 18: rounds go on). */
    private long roundsWithDown, committedWithDown;
    private int step;
    /**
     * alpha in effect: the seed's, until the operator raises it (in a third of the seeds with alpha below 0.6, by 0.15
     * at a step between a third and a half of the run, drawn from a generator of its own so that the other seeds'
     * traces do not change): cassandra.yaml of every node edited, and {@code electtool alpha} on every running node,
     * as an operator would do it (the runtime value alone is lost when a node restarts).
     */
    private double alpha;
    private final int raiseStep;
    /**
     * Member merges (issue 16) are on in half the seeds ({@link #mergesOn}); their event (half of one member's keys
     * written again, so that later members shadow part of it) draws from a generator of its own, so that the seeds
     * without merges keep their traces.
     */
    private final java.util.SplittableRandom mergeEvents;
    /** The step at which the operator widens stripes to k + 1 ({@link #widen}), or -1. */
    private final int widenStep;
    /**
     * From this step on the operator decommissions a node ({@link RingChangeEvents}; the first step at which every
     * node is ready), or -1: a third of the seeds whose cluster keeps max(RF, k + m) nodes after it, with node and step
     * drawn from a generator of their own so that the other seeds keep their traces.
     */
    private final int decommissionStep;
    private final java.util.SplittableRandom operatorRing;
    private final RingChangeEvents ringChanges;
    private boolean decommissioned;
    /**
     * Whether the decommission drains the node first ({@code electtool decommission}) rather than running Cassandra's
     * alone: two thirds of the decommissioning seeds, from a generator of its own (the other seeds keep their traces).
     */
    private final boolean drainFirst;
    /** The node being drained, until it has left. */
    private SimNode draining;

    private Simulation(Options o) throws IOException
    {
        this.o = o;
        this.alpha = o.alpha();
        java.util.SplittableRandom operator = new java.util.SplittableRandom(o.seed() ^ 0x0A1FA0A1FAL);
        int third = Math.max(1, o.steps() / 3);
        this.raiseStep = o.alpha() < 0.6 && operator.nextInt(3) == 0 ? third + operator.nextInt(Math.max(1, o.steps() / 2 - third + 1)) : -1;
        this.mergeEvents = new java.util.SplittableRandom(o.seed() ^ 0x3E26E5L);
        // the operator widens stripes by one data chunk (electtool widen --to k+1) in a third of the seeds with a node to
        // spare, at a step of the middle third; a generator of its own keeps the other seeds' traces
        java.util.SplittableRandom widening = new java.util.SplittableRandom(o.seed() ^ 0x5CA1E5L);
        this.widenStep = o.nodes() >= o.k() + o.m() + 1 && widening.nextInt(3) == 0 ? third + widening.nextInt(Math.max(1, third)) : -1;
        this.operatorRing = new java.util.SplittableRandom(o.seed() ^ 0xDEC0AA1L);
        boolean canLeave = o.nodes() - 1 >= Math.max(Math.min(3, o.nodes()), o.k() + o.m())
                           && !Boolean.getBoolean("elect.sim.no_ring_changes");
        this.decommissionStep = canLeave && operatorRing.nextInt(3) == 0 ? o.steps() / 4 + operatorRing.nextInt(Math.max(1, o.steps() / 2)) : -1;
        this.drainFirst = !Boolean.getBoolean("elect.sim.no_drain") && new java.util.SplittableRandom(o.seed() ^ 0xD2A1AL).nextInt(3) != 0;
        this.c = new SimCluster(o.seed(), o.workDir().resolve("seed-" + Long.toUnsignedString(o.seed())), o.nodes(), config(o, alpha),
                                ROWS_PER_FILE, o.sabotage());
        this.faults = new FaultEvents(this, c);
        this.ringChanges = new RingChangeEvents(this, c);
        try
        {
            this.trace = MessageDigest.getInstance("SHA-256");
        }
        catch (NoSuchAlgorithmException e)
        {
            throw new IllegalStateException(e);
        }
    }

    static ElectConfig config(Options o, double alpha)
    {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("data_chunks", o.k());
        m.put("parity_chunks", o.m());
        m.put("storage_saving_target", alpha);
        m.put("coder", "java");
        // hotness runs: files read more than 0.01/s (the hot keys') stay replicated, and come back from the cold tier
        m.put("cold_read_rate", o.hotness() ? 0.01 : 1000.0);
        m.put("transition_min_age_seconds", 60);
        m.put("primary_offload_min_age_seconds", 600);
        m.put("stripe_fill_wait_seconds", 300);
        m.put("transition_interval_seconds", 60);
        // files of a few hundred bytes: the default 4096 would make every code length 4096 and blind the planner's
        // parity correction (seed 16: a decommission's repairs left stripes with long parity it could not see)
        m.put("stripe_alignment_bytes", 64);
        m.put("transport_request_timeout_ms", 2000);
        m.put("transport_retries", 3);
        m.put("member_merge_enabled", mergesOn(o.seed()));
        m.put("member_merge_min_obsolete_share", 0.25);
        // the policy's age term acts within a run (members committed 10 simulated minutes ago merge at half the share)
        m.put("member_merge_age_seconds", 600);
        m.put("update_policy", updatePolicy(o.seed()));
        // -Delect.sim.fills=false: no virtual-slot fills (to tell whether a failing seed needs them)
        m.put("fill_virtual_slots", Boolean.parseBoolean(System.getProperty("elect.sim.fills", "true")));
        return ElectConfig.fromMap(m);
    }

    /**
     * Whether a seed without a decommission during its run ends with a plain one after settling (a quarter of them, by
     * a generator of their own): the node holding the most offloaded files leaves without draining, so its cold
     * objects have no owner left (during the run, offloading has rarely begun when a node leaves).
     */
    static boolean lateDecommission(long seed)
    {
        // -Delect.sim.late_decommission=false turns it off (to tell whether a failing seed needs it)
        return Boolean.parseBoolean(System.getProperty("elect.sim.late_decommission", "true"))
               && new java.util.SplittableRandom(seed ^ 0x1A7EDECL).nextInt(4) == 0;
    }

    /**
     * The late decommission: the node with the most COLD files leaves ({@code nodetool decommission}, no drain), the
     * cluster heals again (the departure repair, then the coordinator's deletion of the departed node's cold
     * objects, {@code DepartedColdObjects}); the invariants then find no orphaned object.
     */
    private void lateDecommission() throws IOException
    {
        SimNode leaving = null;
        long most = 0;
        for (SimNode n : c.nodes())
        {
            long cold = n.tables.files(SimCluster.TABLE).stream().filter(f -> f.source() == io.elect.core.node.LocalTables.Source.COLD).count();
            if (cold > most)
            {
                most = cold;
                leaving = n;
            }
        }
        if (leaving == null)
            return;
        String prefix = leaving.tables.coldKeyPrefix(SimCluster.TABLE); // before it leaves: its disk goes
        if (!ringChanges.decommission(leaving, o.k(), o.m()))
            return;
        decommissioned = true;
        long before = c.cold.list(prefix).size();
        stats.put("decommissions", 1);
        faults.heal();
        // the streamed and materialized copies are new: encoded again by then, they become offloadable only after
        // primary_offload_min_age_seconds (the operator waits as long; the saving invariant holds after that)
        advance(c.config.primaryOffloadMinAgeSeconds);
        faults.heal();
        long after = c.cold.list(prefix).size();
        event("late decommission of " + leaving + " (" + most + " COLD files): " + before + " cold objects under its prefix, " + after + " after healing");
        stats.put("departed_cold_objects", before);
        stats.put("departed_cold_objects_left", after);
    }

    /** Whether member merges are on in a seed's run (half the seeds, by a generator of their own). */
    static boolean mergesOn(long seed)
    {
        return new java.util.SplittableRandom(seed ^ 0x3E26E5L).nextInt(2) == 0;
    }

    /** A seed's update_policy: reencode, delta or auto, a third of the seeds each (own generator). */
    static String updatePolicy(long seed)
    {
        return List.of("reencode", "delta", "auto").get(new java.util.SplittableRandom(seed ^ 0x5E1C0DEL).nextInt(3));
    }

    /** Runs one simulation; never throws for a failure of the system under test (that is a violation). */
    public static Result run(Options o) throws IOException
    {
        Simulation s = new Simulation(o);
        try (SimCluster cluster = s.c)
        {
            s.runAll();
        }
        catch (RuntimeException e)
        {
            s.violation("the simulation itself failed at step " + s.step + ": " + e);
        }
        return new Result(o, List.copyOf(s.violations), HexFormat.of().formatHex(s.trace.digest()), s.stats, List.copyOf(s.recent));
    }

    private void runAll() throws IOException
    {
        for (SimNode n : c.nodes())
            c.start(n);
        event("start seed=" + Long.toUnsignedString(o.seed()) + " nodes=" + o.nodes() + " k=" + o.k() + " m=" + o.m() + " alpha=" + o.alpha()
              + " hotness=" + o.hotness() + " steps=" + o.steps() + " sabotage=" + o.sabotage());
        for (int i = 0; i < KEYS; i++)
            write("key" + i, false);
        for (SimNode n : c.nodes())
            n.tables.flush();
        for (step = 1; step <= o.steps(); step++)
            step();
        faults.heal();
        if (draining != null && !decommissioned)
        {
            // a drain begun late in the run: healing ran rounds, so no stripe may name the node any more
            decommissioned = ringChanges.decommission(draining, o.k(), o.m());
            if (!decommissioned)
                violation("the drain of " + draining + " did not finish after healing: "
                          + io.elect.core.node.NodeDecommission.naming(c.stripes.list(), draining.id) + " stripes still name it");
            else
            {
                stats.put("decommissions", 1);
                stats.put("drained_decommissions", 1);
                faults.heal();
            }
        }
        if (!decommissioned && lateDecommission(o.seed()))
            lateDecommission();
        if (!decommissioned && InFlightDepartures.applies(o.seed()))
            decommissioned = new InFlightDepartures(this, c, ringChanges, faults).run(o);
        new Invariants(this, c).check();
        stats.put("writes_acked", writes);
        stats.put("rounds_with_node_down", roundsWithDown);
        stats.put("stripes_committed_with_node_down", committedWithDown);
        stats.put("messages", c.network.messages());
        stats.putAll(c.tieredTotals());
    }

    // ------------------------------------------------------------------ events

    private void step() throws IOException
    {
        if (step == raiseStep)
            raiseAlpha();
        if (step == widenStep)
            widen();
        if (decommissionStep >= 0 && step >= decommissionStep && !decommissioned)
        {
            if (draining != null)
                decommissioned = ringChanges.decommission(draining, o.k(), o.m());
            else
            {
                SimNode leaving = c.nodes().get(operatorRing.nextInt(c.nodes().size()));
                if (drainFirst)
                    draining = ringChanges.startDrain(leaving, o.k(), o.m()) ? leaving : null;
                else
                    decommissioned = ringChanges.decommission(leaving, o.k(), o.m());
            }
            if (decommissioned)
            {
                stats.put("decommissions", 1);
                if (draining != null)
                    stats.put("drained_decommissions", 1);
            }
        }
        if (mergesOn(o.seed()) && mergeEvents.nextInt(25) == 0)
            overwritePartOfMember();
        int dice = c.random.nextInt(100);
        if (dice < 28)
            writes();
        else if (dice < 42)
            reads(o.hotness() ? 10 + c.random.nextInt(30) : 1 + c.random.nextInt(8));
        else if (dice < 50)
            onRandomUp("flush", n -> n.tables.flush());
        else if (dice < 56)
            onRandomUp("compact", n -> n.tables.compact());
        else if (dice < 66)
            rounds();
        else if (dice < 70)
            maintain();
        else if (dice < 80)
            advance(1 + c.random.nextInt(90));
        else if (dice < 83)
            faults.kill();
        else if (dice < 87)
            faults.restart();
        else if (dice < 88)
            faults.loseDisk();
        else if (dice < 91)
            faults.replace();
        else if (dice < 93)
            faults.partition();
        else if (dice < 96)
            faults.heal("partitions", false);
        else if (dice < 97)
            faults.toggleFaults();
        else if (dice < 99)
            overwriteMember();
        else
            overwriteAll();
    }

    /**
     * The operator runs {@code electtool widen --to k+1} on the coordinator (issue 18, Scale-RS): committed stripes
     * widen to k + 1 and take members from nodes holding no chunk of them. Refused (and logged) when no node
     * coordinates or a node is down; faults may hit it midway (recovery finishes a recorded change).
     */
    private void widen()
    {
        for (SimNode n : c.nodes())
            if (n.node != null && n.node.isStarted() && n.node.transitions().coordinating())
            {
                try
                {
                    String done = n.node.widenJson(o.k() + 1);
                    stats.put("widen_runs", ((Number) stats.getOrDefault("widen_runs", 0)).intValue() + 1);
                    event("widen --to " + (o.k() + 1) + " on " + n.id + ": " + done.substring(0, Math.min(200, done.length())));
                }
                catch (RuntimeException e)
                {
                    event("widen --to " + (o.k() + 1) + " on " + n.id + " refused or failed: " + e.getMessage());
                }
                return;
            }
        event("widen --to " + (o.k() + 1) + ": no node coordinates");
    }

    /** The operator raises alpha by 0.15: every node's cassandra.yaml, then {@code electtool alpha} on the running ones. */
    private void raiseAlpha()
    {
        double before = alpha;
        alpha = Math.round((alpha + 0.15) * 100) / 100.0;
        c.config = config(o, alpha);
        int running = 0;
        for (SimNode n : c.nodes())
            if (n.node != null && n.node.isStarted())
            {
                n.node.setSavingTarget(alpha);
                running++;
            }
        stats.put("alpha_raised_to", alpha);
        event("raise-alpha " + before + " -> " + alpha + " on " + running + " running nodes (and in every cassandra.yaml)");
    }

    /** alpha in effect now (see {@link #alpha}). */
    double alpha()
    {
        return alpha;
    }

    /**
     * Every key of one encoded member written again (no deletes): the member becomes fully shadowed while the other
     * members of its stripe stay live, which the member-removal step then takes out of its stripe (issue 16).
     */
    private void overwriteMember()
    {
        List<String> keys = List.of();
        String tag = null;
        SimNode n = c.nodes().get(c.random.nextInt(c.nodes().size()));
        Map<String, List<String>> members = n.tables.memberKeys();
        if (!members.isEmpty())
        {
            List<String> tags = new ArrayList<>(members.keySet());
            tag = tags.get(c.random.nextInt(tags.size()));
            keys = members.get(tag);
        }
        int ok = 0;
        for (String key : keys)
            ok += write(key, false) ? 1 : 0;
        event("overwrite-member " + n + " " + tag + " " + ok + "/" + keys.size());
    }

    /**
     * Half of the keys of one encoded member written again (merge seeds only; node, member and keys drawn from the
     * merge generator): once the new versions are encoded, later members shadow that half of it, and the merge step
     * replaces the member with its next version (issue 16).
     */
    private void overwritePartOfMember()
    {
        SimNode n = c.nodes().get(mergeEvents.nextInt(c.nodes().size()));
        Map<String, List<String>> members = n.tables.memberKeys();
        if (members.isEmpty())
            return;
        List<String> tags = new ArrayList<>(members.keySet());
        String tag = tags.get(mergeEvents.nextInt(tags.size()));
        List<String> keys = members.get(tag);
        int ok = 0, tried = 0;
        for (int i = mergeEvents.nextInt(2); i < keys.size(); i += 2, tried++)
            ok += write(keys.get(i), false) ? 1 : 0;
        event("overwrite-part-of-member " + n + " " + tag + " " + ok + "/" + tried + " of " + keys.size());
    }

    /**
     * The updates benchmark's full round: every key written again (no deletes). Members encoded before it become fully
     * shadowed on nodes that took every write, which the retire step then deletes (issue 16).
     */
    private void overwriteAll()
    {
        int ok = 0;
        for (int i = 0; i < KEYS; i++)
            ok += write("key" + i, false) ? 1 : 0;
        event("overwrite-all " + ok + "/" + KEYS);
    }

    private void writes()
    {
        int n = 1 + c.random.nextInt(12);
        int ok = 0;
        for (int i = 0; i < n; i++)
            ok += write("key" + c.random.nextInt(KEYS), c.random.nextInt(10) == 0) ? 1 : 0;
        event("writes " + ok + "/" + n);
    }

    private boolean write(String key, boolean delete)
    {
        byte[] value = null;
        if (!delete)
        {
            value = new byte[40 + c.random.nextInt(80)];
            c.random.nextBytes(value);
        }
        Row r = new Row(key, SimRows.token(key), ++writes, value);
        boolean ok = c.write(r);
        if (ok)
            acked.put(key, r);
        else
            writes--;
        return ok;
    }

    /** Reads keys at CL ONE and checks each against the model; see the class comment. */
    void reads(int count) throws IOException
    {
        int good = 0, clean = 0;
        for (int i = 0; i < count; i++)
        {
            // the hot set shifts every 50 steps: data that was cold turns hot (offloaded primaries come back)
            boolean hot = o.hotness() && c.random.nextInt(10) < 7;
            int shift = (step / 50) * 7;
            String key = "key" + (hot ? (c.random.nextInt(HOT_KEYS) * (KEYS / HOT_KEYS) + shift) % KEYS : c.random.nextInt(KEYS));
            int outcome = readAndCheck(key);
            good += outcome > 0 ? 1 : 0;
            clean += outcome == 0 ? 1 : 0;
        }
        event("reads ok=" + good + " failed_cleanly=" + clean + " of " + count);
    }

    /** 1: correct; 0: failed where failing is allowed (or no replica ready); -1: a violation was recorded. */
    int readAndCheck(String key)
    {
        long token = SimRows.token(key);
        SimNode r = c.readReplica(token);
        if (r == null)
            return 0;
        Row expected = acked.get(key);
        Row got;
        c.network.clearLost(r.id);
        try
        {
            got = r.tables.read(key);
        }
        catch (IOException | RuntimeException e)
        {
            if (unavailableTo(r) <= o.m())
            {
                violation("read of " + key + " on " + r + " failed with " + unavailableTo(r) + " nodes unavailable to it (m=" + o.m()
                          + "): " + e);
                return -1;
            }
            return 0;
        }
        boolean right = expected == null ? got == null || got.tombstone()
                                         : expected.tombstone() ? got == null || (got.tombstone() && got.ts() >= expected.ts())
                                                                : expected.equals(got);
        if (!right)
        {
            violation("read of " + key + " on " + r + " returned " + got + ", expected " + expected);
            return -1;
        }
        return 1;
    }

    /**
     * Nodes that are down, not ready, cut off from the reader, or unavailable to its last read because every attempt
     * of a request to them was lost (message loss with retries exhausted: what a real reader sees as a timeout).
     */
    private int unavailableTo(SimNode reader)
    {
        int u = c.departedStillNamed();
        for (SimNode n : c.nodes())
            if (!n.ready() || (n != reader && (c.network.partitioned(reader.id, n.id) || c.network.lost(reader.id).contains(n.id))))
                u++;
        return u;
    }

    @FunctionalInterface
    private interface NodeAction
    {
        void apply(SimNode n) throws IOException;
    }

    private void onRandomUp(String what, NodeAction a) throws IOException
    {
        List<SimNode> up = new ArrayList<>();
        for (SimNode n : c.nodes())
            if (n.up)
                up.add(n);
        if (up.isEmpty())
            return;
        SimNode n = up.get(c.random.nextInt(up.size()));
        a.apply(n);
        event(what + " " + n + " files=" + n.tables.fileCount());
    }

    /** A transitioning round on every live node (only the coordinator acts). */
    void rounds()
    {
        boolean someDown = c.nodes().stream().anyMatch(n -> !n.up);
        long committedBefore = committedStripes();
        for (SimNode n : c.nodes())
        {
            if (!n.up)
                continue;
            try
            {
                n.node.transitions().round();
            }
            catch (RuntimeException e)
            {
                event("round on " + n + " failed: " + e.getClass().getSimpleName());
            }
        }
        if (someDown)
        {
            roundsWithDown++;
            committedWithDown += committedStripes() - committedBefore;
        }
        event("rounds stripes=" + c.stripes.list().size());
    }

    private long committedStripes()
    {
        return c.stripes.list().stream().filter(r -> r.state() == io.elect.core.stripes.StripeState.COMMITTED).count();
    }

    void maintain()
    {
        for (SimNode n : c.nodes())
            if (n.up)
                n.node.ops().maintain();
        event("maintain");
    }

    void advance(int seconds)
    {
        c.clock.advance(seconds, TimeUnit.SECONDS);
        event("advance " + seconds + "s");
    }

    // ------------------------------------------------------------------ record keeping

    void event(String line)
    {
        String full = step + " " + c.clock.millis() + " " + line;
        trace.update(full.getBytes(StandardCharsets.UTF_8));
        trace.update((byte) '\n');
        recent.addLast(full);
        if (recent.size() > 40)
            recent.removeFirst();
    }

    void violation(String what)
    {
        violations.add("step " + step + ": " + what);
        event("VIOLATION " + what);
    }

    Options options()
    {
        return o;
    }

    Map<String, Row> acked()
    {
        return acked;
    }

    Map<String, Object> stats()
    {
        return stats;
    }
}
