package io.elect.core.sim;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.elect.core.node.LocalTables;
import io.elect.core.sim.SimCluster.SimNode;
import io.elect.core.stripes.ParityFiles;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.offload.ObjectInfo;

/**
 * The invariants checked once a simulation has healed and settled:
 * <ol>
 * <li>no stripe is left outside a terminal state (COMMITTED or ROLLED_BACK);</li>
 * <li>every acknowledged key reads back with its latest value, through its primary, and through a secondary while
 *     the primary is down (a degraded read: stubs reconstruct the bytes from the stripe);</li>
 * <li>every committed stripe decodes and its checksums match ({@code electtool verify} on every node: each data
 *     member served and reconstructed from k others, each parity member intact or in the cold tier);</li>
 * <li>no orphans: every hot parity file and cold marker belongs to a committed stripe whose parity member it is on
 *     that node; every parity object in the cold tier to a committed stripe; every offloaded primary's object in the
 *     cold tier to a live COLD file of its node;</li>
 * <li>the achieved saving (as the planner measures it, against full replication of the live data) is within 2
 *     points of alpha; or, when the plan says alpha is unreachable, the shortfall is explained by obsolete versions
 *     in frozen files: with them counted as data (the figure before issue 16's honest accounting) the saving is at
 *     least alpha - 2 points, i.e. the control loop did its part and ran out of eligible data. Frozen files cannot drop obsolete versions until
 *     updates are merged into encoded members (issue 16); such seeds are counted in the stat
 *     {@code alpha_unreachable_obsolete}.</li>
 * </ol>
 */
final class Invariants
{
    static final double SAVING_TOLERANCE = 0.02;

    private final Simulation sim;
    private final SimCluster c;

    Invariants(Simulation sim, SimCluster c)
    {
        this.sim = sim;
        this.c = c;
    }

    void check() throws IOException
    {
        stripesTerminal();
        readsBack();
        degradedReadsBack();
        stripesVerify();
        noOrphans();
        saving();
    }

    private void stripesTerminal()
    {
        int committed = 0;
        for (StripeRecord r : c.stripes.list())
        {
            if (!r.state().isTerminal())
                sim.violation("stripe " + r.id() + " is stuck in " + r.state() + " after healing");
            if (r.state() == StripeState.COMMITTED)
                committed++;
        }
        sim.stats().put("stripes_committed", committed);
    }

    private void readsBack()
    {
        int ok = 0;
        for (String key : sim.acked().keySet())
            ok += sim.readAndCheck(key) > 0 ? 1 : 0;
        sim.stats().put("final_reads_ok", ok);
        sim.event("final reads " + ok + "/" + sim.acked().size());
    }

    /** Each node down in turn: its primary keys read at CL ONE from a secondary. */
    private void degradedReadsBack() throws IOException
    {
        int ok = 0;
        for (SimNode down : c.nodes())
        {
            c.kill(down);
            for (String key : sim.acked().keySet())
                if (c.replicaIndexes(SimRows.token(key))[0] == down.index)
                    ok += sim.readAndCheck(key) > 0 ? 1 : 0;
            c.start(down);
        }
        long decoded = 0;
        for (SimNode n : c.nodes())
            decoded += n.node.tiered().decodedCounters().decodedRuns.sum();
        sim.stats().put("degraded_reads_ok", ok);
        sim.event("degraded reads " + ok);
    }

    private void stripesVerify() throws IOException
    {
        ObjectMapper json = new ObjectMapper();
        for (SimNode n : c.nodes())
        {
            JsonNode v = json.readTree(n.node.verify());
            if (!v.path("ok").asBoolean())
                sim.violation("verify on " + n + " failed: " + v.path("problems"));
        }
    }

    private void noOrphans() throws IOException
    {
        Map<String, StripeRecord> committed = new HashMap<>();
        for (StripeRecord r : c.stripes.list())
            if (r.state() == StripeState.COMMITTED)
                committed.put(r.id().toString(), r);
        for (SimNode n : c.nodes())
        {
            ParityFiles parity = new ParityFiles(n.dir.resolve("state"));
            Path dir = parity.dir(SimCluster.TABLE.keyspace(), SimCluster.TABLE.table());
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir))
            {
                for (Path p : ds)
                {
                    String name = p.getFileName().toString();
                    if (!name.endsWith(".parity") && !name.endsWith(".cold"))
                        continue;
                    // a cold marker names the hot file it stands for
                    Path hot = name.endsWith(".cold") ? p.resolveSibling(name.substring(0, name.length() - ".cold".length()) + ".parity") : p;
                    ParityFiles.Name pn = parity.parse(hot);
                    if (pn == null)
                    {
                        sim.violation("unparseable parity file " + name + " on " + n);
                        continue;
                    }
                    StripeRecord r = committed.get(pn.stripeId());
                    if (r == null || pn.index() >= r.m() || !r.parityNodes().get(pn.index()).equals(n.id)
                        || pn.generation() != r.parityGeneration())
                        sim.violation("orphaned parity " + name + " on " + n + " (stripe " + (r == null ? "not committed"
                                      : "does not place it here at generation " + pn.generation() + ", its generation is " + r.parityGeneration()) + ")");
                }
            }
        }
        for (ObjectInfo o : c.cold.list("parity/"))
        {
            String[] parts = o.key().split("/");
            StripeRecord r = parts.length == 4 ? committed.get(parts[2]) : null;
            String expected = r == null ? null : ParityFiles.coldKey(SimCluster.TABLE.keyspace(), SimCluster.TABLE.table(), parts[2],
                                                                     Integer.parseInt(parts[3].replaceAll("\\..*", "")), r.parityGeneration());
            if (r == null || !o.key().equals(expected))
                sim.violation("orphaned cold parity object " + o.key() + (r == null ? "" : " (generation " + r.parityGeneration() + " is " + expected + ")"));
        }
        Set<String> owned = new HashSet<>();
        for (SimNode n : c.nodes())
            for (LocalTables.TableFile f : n.tables.files(SimCluster.TABLE))
                if (f.source() == LocalTables.Source.COLD)
                    owned.add(f.sidecar().coldKey());
        for (ObjectInfo o : c.cold.list("tiered/"))
            if (!owned.contains(o.key()))
                sim.violation("orphaned cold object " + o.key() + " (no live COLD file owns it)");
    }

    /** Per node: bytes of unencoded files by role, encoded primaries, stubs, COLD files (the trace shows them). */
    private void describeNodes()
    {
        for (SimNode n : c.nodes())
        {
            long[] role = new long[4];
            long frozen = 0, stubs = 0, cold = 0;
            int stubCount = 0;
            java.util.Map<String, Integer> stubRoles = new java.util.TreeMap<>();
            for (LocalTables.TableFile f : n.tables.files(SimCluster.TABLE))
            {
                if (f.isStub())
                {
                    stubs += f.bytesOnDisk();
                    stubCount++;
                    String host = io.elect.core.stripes.LocatorMemberReader.NodeLocator.parse(
                        f.sidecar().stripe().locators().get(f.sidecar().self())).host();
                    stubRoles.merge(host + "/role" + f.role(), 1, Integer::sum);
                }
                else if (f.source() == LocalTables.Source.COLD)
                    cold += f.dataBytes();
                else if (f.frozenTag() != null)
                    frozen += f.bytesOnDisk();
                else
                    role[f.role() == null ? 3 : Math.min(2, f.role())] += f.bytesOnDisk();
            }
            sim.event(String.format("node %s: unencoded role0=%d role1=%d role2=%d spanning=%d, encoded=%d, %d stubs=%d %s, cold=%d", n,
                                    role[0], role[1], role[2], role[3], frozen, stubCount, stubs, stubRoles, cold));
        }
    }

    private void saving() throws IOException
    {
        describeNodes();
        SimNode coordinator = c.nodes().get(0);
        for (SimNode n : c.nodes())
            if (n.node.transitions().coordinating())
                coordinator = n;
        JsonNode report = new ObjectMapper().readTree(coordinator.node.storageJson());
        JsonNode table = report.path("tables").path(0);
        double achieved = table.path("achieved_saving").asDouble(Double.NaN);
        sim.stats().put("achieved_saving", achieved);
        sim.stats().put("hot_bytes", table.path("hot_bytes").asLong());
        sim.stats().put("cold_bytes", table.path("cold_bytes").asLong());
        sim.stats().put("obsolete_bytes", table.path("obsolete_bytes").asLong());
        double alpha = sim.alpha(); // raised during the run in some seeds
        if (!(Math.abs(achieved - alpha) <= SAVING_TOLERANCE))
        {
            double hot = table.path("hot_bytes").asDouble(), full = table.path("full_replication_bytes").asDouble();
            double obsolete = table.path("obsolete_bytes").asDouble();
            double withObsolete = full + obsolete > 0 ? 1 - hot / (full + obsolete) : 0;
            if (achieved < alpha && obsolete > 0 && !table.path("plan").path("reachable").asBoolean(true)
                && withObsolete >= alpha - SAVING_TOLERANCE)
            {
                sim.stats().put("alpha_unreachable_obsolete", 1);
                return;
            }
        }
        if (!(Math.abs(achieved - alpha) <= SAVING_TOLERANCE))
            sim.violation(String.format("achieved saving %.4f is more than %.2f from alpha %.2f after settling (plan %s)", achieved,
                                        SAVING_TOLERANCE, alpha, table.path("plan")));
    }
}
