package io.elect.core.sim;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The whole-cluster simulation in CI ({@link Simulation}, docs/design/simulation.md): {@value #SEEDS} seeds of
 * {@value #STEPS} steps each must pass every invariant (two at a time: seeds are independent and each one is
 * single-threaded and deterministic); the same seed must replay the same run (same trace hash); and each planted bug
 * ({@link Sabotage}) must be caught within the seeds run here. A failing seed is printed with its replay command.
 * {@code -Delect.sim.seeds=N} and {@code -Delect.sim.steps=N} change the numbers.
 */
class SimulationTest
{
    static final int SEEDS = 200;
    static final int STEPS = 150;
    static final int SABOTAGE_SEEDS = 12;

    private static Path work;

    @BeforeAll
    static void quiet() throws Exception
    {
        // a simulation logs every step of every node (and many expected failures under faults): keep errors only
        ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger("io.elect")).setLevel(Level.ERROR);
        Path shm = Paths.get("/dev/shm");
        work = (Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Paths.get("target"))
               .resolve("elect-sim-test-" + ProcessHandle.current().pid());
        Files.createDirectories(work);
    }

    /** The work directory goes with the test run (leftovers piled up in /dev/shm). */
    @AfterAll
    static void removeWork() throws Exception
    {
        SimCluster.deleteTree(work);
    }

    private static List<Simulation.Result> run(long first, int seeds, int steps, Sabotage sabotage) throws Exception
    {
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(2, Runtime.getRuntime().availableProcessors())));
        try
        {
            List<Future<Simulation.Result>> runs = new ArrayList<>();
            for (long s = first; s < first + seeds; s++)
            {
                long seed = s;
                runs.add(pool.submit(() -> Simulation.run(Simulation.Options.forSeed(seed, steps, sabotage, work))));
            }
            List<Simulation.Result> out = new ArrayList<>();
            for (Future<Simulation.Result> f : runs)
                out.add(f.get());
            return out;
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    private static String describe(Simulation.Result r, Sabotage sabotage)
    {
        return "seed " + Long.toUnsignedString(r.options().seed()) + " (" + SimulationMain.shape(r.options()) + "): "
               + r.violations().size() + " violations, first: " + r.violations().get(0) + "\n  replay: scripts/elect simulate --seed "
               + Long.toUnsignedString(r.options().seed()) + " --steps " + r.options().steps()
               + (sabotage == Sabotage.NONE ? "" : " --sabotage " + sabotage.name().toLowerCase().replace('_', '-')) + " --verbose";
    }

    @Test
    void everySeedKeepsTheInvariants() throws Exception
    {
        int seeds = Integer.getInteger("elect.sim.seeds", SEEDS), steps = Integer.getInteger("elect.sim.steps", STEPS);
        List<String> failures = new ArrayList<>();
        long decoded = 0, committed = 0, committedWithNodeDown = 0, retired = 0, merged = 0, filled = 0, decommissioned = 0, copied = 0, changed = 0, departedCold = 0,
             inFlightParity = 0, inFlightMember = 0, inFlightFill = 0;
        for (Simulation.Result r : run(1, seeds, steps, Sabotage.NONE))
        {
            if (!r.ok())
                failures.add(describe(r, Sabotage.NONE));
            decoded += ((Number) r.stats().getOrDefault("decoded_runs", 0)).longValue();
            committed += ((Number) r.stats().getOrDefault("stripes_committed", 0)).longValue();
            committedWithNodeDown += ((Number) r.stats().getOrDefault("stripes_committed_with_node_down", 0)).longValue();
            retired += ((Number) r.stats().getOrDefault("stripes_retired", 0)).longValue();
            merged += ((Number) r.stats().getOrDefault("members_merged", 0)).longValue();
            filled += ((Number) r.stats().getOrDefault("virtual_slots_filled", 0)).longValue();
            decommissioned += r.stats().containsKey("decommissions") ? 1 : 0;
            copied += ((Number) r.stats().getOrDefault("parity_Copied", 0L)).longValue();
            // a generation computed from a member's versions absorbed a member change, whose size is counted
            long byMember = ((Number) r.stats().getOrDefault("parity_ByTwoVersions", 0L)).longValue()
                            + ((Number) r.stats().getOrDefault("parity_ByPushedDelta", 0L)).longValue();
            long changedBytes = ((Number) r.stats().getOrDefault("parity_ChangedMemberBytes", 0L)).longValue();
            if (byMember > 0 && changedBytes <= 0)
                failures.add("seed " + Long.toUnsignedString(r.options().seed()) + ": " + byMember
                             + " parity generations from member versions, but ChangedMemberBytes " + changedBytes);
            changed += changedBytes;
            // a node that left after settling, holding offloaded files: its cold objects were all deleted by the
            // coordinator (DepartedColdObjects; the orphan invariant checks the rest of the bucket)
            long departedLeft = ((Number) r.stats().getOrDefault("departed_cold_objects_left", 0L)).longValue();
            if (departedLeft > 0)
                failures.add("seed " + Long.toUnsignedString(r.options().seed()) + ": " + departedLeft + " cold objects of the departed node left");
            departedCold += ((Number) r.stats().getOrDefault("departed_cold_objects", 0L)).longValue();
            inFlightParity += r.stats().containsKey("inflight_departures_parity") ? 1 : 0;
            inFlightMember += r.stats().containsKey("inflight_departures_member") ? 1 : 0;
            inFlightFill += r.stats().containsKey("inflight_departures_fill") ? 1 : 0;
        }
        assertEquals(List.of(), failures, failures.size() + " of " + seeds + " seeds failed");
        // the runs did what the invariants are about: stripes committed and degraded reads reconstructed data
        assertTrue(committed > seeds, "stripes committed over all seeds: " + committed);
        assertTrue(decoded > seeds, "degraded reads that decoded over all seeds: " + decoded);
        // rounds go on while nodes are down (issue 18): some stripes were committed by them, and the invariants held
        assertTrue(committedWithNodeDown > 0, "stripes committed by rounds run with a node down: " + committedWithNodeDown);
        // full overwrites shadow whole stripes, which the retire step deletes (issue 16), and the invariants held
        assertTrue(retired > 0, "stripes retired over all seeds: " + retired);
        // partly rewritten members are replaced by their next version in the seeds with merges on (issue 16)
        assertTrue(merged > 0, "members merged over all seeds: " + merged);
        // virtual slots (padded stripes, removed members) are filled by later candidates (issue 18), and the invariants held
        assertTrue(filled > 0, "virtual slots filled over all seeds: " + filled);
        // nodes left the ring (issue 18: decommission, departure repair) in some seeds, and the invariants held
        assertTrue(decommissioned > 0, "seeds in which a node was decommissioned: " + decommissioned);
        // their parity moves copied generation g to g + 1 (no member read), and every stripe still verified
        assertTrue(copied > 0, "parity generations copied by parity moves: " + copied);
        assertTrue(changed > 0, "bytes of member changes absorbed by parity generations: " + changed);
        // late plain decommissions of nodes holding offloaded files happened, and their objects were deleted
        assertTrue(departedCold > 0, "cold objects of departed nodes (deleted): " + departedCold);
        // nodes holding a parity chunk or another member of a stripe left while a change of it was in flight: the
        // change finished without them and the departure repair took the stripe; a fill whose member's node left was
        // abandoned (InFlightDepartures)
        assertTrue(inFlightParity > 0 && inFlightMember > 0 && inFlightFill > 0,
                   "seeds whose in-flight departure took a parity node: " + inFlightParity + ", another member's node: " + inFlightMember
                   + ", a fill's member: " + inFlightFill);
    }

    @Test
    void theSameSeedReplaysTheSameRun() throws Exception
    {
        Simulation.Result a = run(4242, 1, STEPS, Sabotage.NONE).get(0);
        Simulation.Result b = run(4242, 1, STEPS, Sabotage.NONE).get(0);
        assertTrue(a.ok(), a.violations().toString());
        assertEquals(a.traceHash(), b.traceHash(), "same seed, same trace");
        assertEquals(a.stats(), b.stats());
        Simulation.Result c = run(4243, 1, STEPS, Sabotage.NONE).get(0);
        assertTrue(!c.traceHash().equals(a.traceHash()), "another seed, another run");
    }

    @Test
    void aStubPurgeThatDropsNewerVersionsIsCaught() throws Exception
    {
        assertCaught(Sabotage.PURGE_DROPS_NEWER);
    }

    @Test
    void parityLostAfterItsAcknowledgementIsCaught() throws Exception
    {
        assertCaught(Sabotage.PARITY_LOST_AFTER_ACK);
    }

    @Test
    void retiringAStripeThatIsOnlyPartlyShadowedIsCaught() throws Exception
    {
        assertCaught(Sabotage.RETIRE_PARTLY_SHADOWED);
    }

    private static void assertCaught(Sabotage sabotage) throws Exception
    {
        int caught = 0;
        List<String> first = new ArrayList<>();
        for (Simulation.Result r : run(1, SABOTAGE_SEEDS, STEPS, sabotage))
            if (!r.ok())
            {
                caught++;
                if (first.isEmpty())
                    first.add(r.violations().get(0));
            }
        // Every seed should catch it; requiring most of them keeps the test about the invariants, not about luck.
        assertTrue(caught >= SABOTAGE_SEEDS / 2, sabotage + " was caught by " + caught + " of " + SABOTAGE_SEEDS + " seeds");
        System.out.println(sabotage + ": caught by " + caught + " of " + SABOTAGE_SEEDS + " seeds; e.g. " + first);
    }
}
