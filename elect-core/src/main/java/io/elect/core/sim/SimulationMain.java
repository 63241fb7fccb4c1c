package io.elect.core.sim;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code scripts/elect simulate [--seeds N | --seed S] [--steps N] [--first S] [--sabotage NAME] [--verbose]}: runs
 * seeded whole-cluster simulations ({@link Simulation}) and prints one line per failing seed with the command that
 * replays it, then a summary. Exit 0 if every seed passed, 1 if any failed, 2 on bad usage.
 */
public final class SimulationMain
{
    private SimulationMain()
    {
    }

    public static void main(String[] args) throws Exception
    {
        long first = 1;
        int seeds = 20;
        Long single = null;
        int steps = 300;
        Sabotage sabotage = Sabotage.NONE;
        boolean verbose = false;
        // tmpfs when there is one: the node services fsync what they write, which a disk would make the slowest part
        Path shm = Paths.get("/dev/shm");
        Path work = (Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Paths.get(System.getProperty("java.io.tmpdir")))
                    .resolve("elect-sim-" + ProcessHandle.current().pid());
        try
        {
            for (int i = 0; i < args.length; i++)
            {
                switch (args[i])
                {
                    case "--seeds" -> seeds = positive("--seeds", args[++i]);
                    case "--seed" -> single = Long.parseUnsignedLong(args[++i]);
                    case "--first" -> first = Long.parseUnsignedLong(args[++i]);
                    case "--steps" -> steps = positive("--steps", args[++i]);
                    case "--sabotage" -> sabotage = Sabotage.parse(args[++i]);
                    case "--work-dir" -> work = Paths.get(args[++i]);
                    case "--verbose" -> verbose = true;
                    default -> throw new IllegalArgumentException("unknown option '" + args[i] + "'");
                }
            }
        }
        catch (ArrayIndexOutOfBoundsException | IllegalArgumentException e)
        {
            System.err.println("simulate: " + (e instanceof ArrayIndexOutOfBoundsException ? "an option is missing its value" : e.getMessage()));
            System.err.println("usage: scripts/elect simulate [--seeds N | --seed S] [--first S] [--steps N] [--sabotage none|purge-drops-newer|parity-lost-after-ack] [--verbose]");
            System.exit(2);
        }
        if (!Files.exists(work))
        {
            // a work directory this run created goes when the run ends (also on Ctrl-C or SIGTERM); a given one stays
            Files.createDirectories(work);
            Path created = work;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try
                {
                    SimCluster.deleteTree(created);
                }
                catch (java.io.IOException e)
                {
                    System.err.println("simulate: could not remove " + created + ": " + e);
                }
            }, "simulate-cleanup"));
        }
        List<Long> list = new ArrayList<>();
        if (single != null)
            list.add(single);
        else
            for (long s = first; s < first + seeds; s++)
                list.add(s);
        long start = io.elect.core.util.Clock.SYSTEM.nanoTime();
        int failed = 0;
        int done = 0;
        int raised = 0; // seeds in which the operator raised alpha during the run
        int obsoleteBound = 0; // seeds whose alpha was out of reach only because frozen files keep obsolete versions
        long roundsDown = 0, committedDown = 0, retired = 0, removed = 0, widened = 0, merged = 0, mergeSeeds = 0, filled = 0, wider = 0, widenSeeds = 0, decommissions = 0, drained = 0, late = 0, departedCold = 0,
             inFlightParity = 0, inFlightMember = 0, inFlightFill = 0;
        long byTwo = 0, byPushed = 0, reencoded = 0;
        long lastProgress = start;
        for (long seed : list)
        {
            long now = io.elect.core.util.Clock.SYSTEM.nanoTime();
            if (now - lastProgress >= 30_000_000_000L) // long runs: one progress line on stderr every 30 s
            {
                System.err.printf("simulate: %d of %d seeds done, %d failed, %.0f s%n", done, list.size(), failed, (now - start) / 1e9);
                lastProgress = now;
            }
            done++;
            Simulation.Result r = Simulation.run(Simulation.Options.forSeed(seed, steps, sabotage, work));
            roundsDown += ((Number) r.stats().getOrDefault("rounds_with_node_down", 0L)).longValue();
            committedDown += ((Number) r.stats().getOrDefault("stripes_committed_with_node_down", 0L)).longValue();
            retired += ((Number) r.stats().getOrDefault("stripes_retired", 0L)).longValue();
            removed += ((Number) r.stats().getOrDefault("members_removed", 0L)).longValue();
            merged += ((Number) r.stats().getOrDefault("members_merged", 0L)).longValue();
            mergeSeeds += Simulation.mergesOn(seed) ? 1 : 0;
            byTwo += ((Number) r.stats().getOrDefault("parity_ByTwoVersions", 0L)).longValue();
            byPushed += ((Number) r.stats().getOrDefault("parity_ByPushedDelta", 0L)).longValue();
            reencoded += ((Number) r.stats().getOrDefault("parity_Reencoded", 0L)).longValue();
            widened += ((Number) r.stats().getOrDefault("padded_choices_widened", 0L)).longValue();
            filled += ((Number) r.stats().getOrDefault("virtual_slots_filled", 0L)).longValue();
            wider += ((Number) r.stats().getOrDefault("stripes_widened_k", 0L)).longValue();
            widenSeeds += r.stats().containsKey("widen_runs") ? 1 : 0;
            decommissions += r.stats().containsKey("decommissions") ? 1 : 0;
            drained += r.stats().containsKey("drained_decommissions") ? 1 : 0;
            late += r.stats().containsKey("departed_cold_objects") ? 1 : 0;
            departedCold += ((Number) r.stats().getOrDefault("departed_cold_objects", 0L)).longValue();
            inFlightParity += r.stats().containsKey("inflight_departures_parity") ? 1 : 0;
            inFlightMember += r.stats().containsKey("inflight_departures_member") ? 1 : 0;
            inFlightFill += r.stats().containsKey("inflight_departures_fill") ? 1 : 0;
            if (r.stats().containsKey("alpha_raised_to"))
                raised++;
            if (r.stats().containsKey("alpha_unreachable_obsolete"))
                obsoleteBound++;
            if (!r.ok())
            {
                failed++;
                System.out.printf("FAIL seed %s (%s): %d violations, first: %s%n  replay: scripts/elect simulate --seed %s --steps %d%s --verbose%n",
                                  Long.toUnsignedString(seed), shape(r.options()), r.violations().size(), r.violations().get(0),
                                  Long.toUnsignedString(seed), steps, sabotage == Sabotage.NONE ? "" : " --sabotage " + sabotage.name().toLowerCase().replace('_', '-'));
            }
            if (verbose || single != null)
            {
                System.out.printf("seed %s (%s): %s, trace %s, %s%n", Long.toUnsignedString(seed), shape(r.options()),
                                  r.ok() ? "ok" : "FAILED", r.traceHash(), r.stats());
                if (verbose)
                {
                    for (String v : r.violations())
                        System.out.println("  violation: " + v);
                    for (String e : r.lastEvents())
                        System.out.println("  event: " + e);
                }
            }
        }
        System.out.printf("simulate: %d seeds, %d steps each, sabotage %s: %d passed, %d failed (%.1f s); %d passed short of alpha "
                          + "because frozen files keep obsolete versions (invariant 5); %d rounds ran with a node down, "
                          + "committing %d stripes; %d stripes retired (fully shadowed); %d members removed from their stripes (fully shadowed); "
                          + "%d members merged (replaced by their next version) in the %d seeds with merges on; alpha raised at runtime in %d seeds; %d padded stripe choices widened to pay for their parity; %d virtual slots filled; %d stripes widened to k+1 in the %d seeds where the operator widened; "
                          + "a node decommissioned in %d seeds (drained first in %d; after settling, holding offloaded files, in %d: %d cold objects of departed nodes; with a change in flight, in %d holding its parity, %d another member, %d the member of a fill); parity generations computed from both member versions %d, from a pushed delta %d, re-encoded %d%n", list.size(), steps,
                          sabotage.name().toLowerCase(), list.size() - failed, failed, (io.elect.core.util.Clock.SYSTEM.nanoTime() - start) / 1e9,
                          obsoleteBound, roundsDown, committedDown, retired, removed, merged, mergeSeeds, raised, widened, filled, wider, widenSeeds, decommissions, drained, late, departedCold, inFlightParity, inFlightMember, inFlightFill, byTwo, byPushed, reencoded);
        System.exit(failed == 0 ? 0 : 1);
    }

    static String shape(Simulation.Options o)
    {
        return o.nodes() + " nodes, k=" + o.k() + " m=" + o.m() + ", alpha " + o.alpha() + (o.hotness() ? ", hotness" : "");
    }

    private static int positive(String name, String v)
    {
        int n = Integer.parseInt(v);
        if (n < 1)
            throw new IllegalArgumentException(name + " must be >= 1, got " + v);
        return n;
    }
}
