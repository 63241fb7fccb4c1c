package io.elect.core.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletionStage;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.AsyncResultSet;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.metadata.Node;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.elect.core.it.LocalClusterScript;
import io.elect.core.it.LocalClusterScript.Result;
import io.elect.core.jmx.ElectNodeMBean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Redundancy transitioning end to end on a real 3-node cluster with the cold tier (RF = 3, RS k=2 m=1, alpha 0.6;
 * system properties elect.it.nodes/k/m/keys/alpha change them; by default, as in `scripts/elect test`, one cluster starts
 * at alpha 0 (nothing transitions while the data is loaded), alpha is set to 0.3 at runtime with `electtool alpha`, and
 * once that target is checked raised to 0.6 and then 0.8, each checked in turn):
 * the same data goes into a plain LCS table and an ELECT table; the coordinator encodes cold last-level primaries,
 * stubs the secondaries and offloads parity until the storage report says the target is reached. Then, measured
 * independently of our own accounting (Cassandra's "Space used (live)" plus the parity files on disk), the ELECT
 * table's hot bytes are within 2 points of (1 - alpha) x the plain table's (issue 20's target; files are indivisible,
 * and since offload moves the files nearest to what is still missing and rounds take damped half steps the saving
 * lands within about half of one file over the table's full-replication bytes: 0.2 and 0.3 points at alpha 0.8 in
 * the last two fresh-clone CI runs; the 3-point tolerance this replaces hid a 3.1-point miss of the first wave);
 * every key reads back at ONE and ALL;
 * updates and deletes after encoding read back from every replica; with a data node killed, every key still reads at
 * ONE (stubs reconstruct from the stripe).
 */
class TransitioningIT
{
    private static final LocalClusterScript SCRIPT = new LocalClusterScript("it-transition-run");
    // -Delect.it.nodes=6 -Delect.it.k=4 -Delect.it.m=2 runs the same test on six nodes with RS(4,2) (not in CI: time)
    private static final int NODES = Integer.getInteger("elect.it.nodes", 3);
    private static final int K = Integer.getInteger("elect.it.k", 2);
    private static final int M = Integer.getInteger("elect.it.m", 1);
    // -Delect.it.num_tokens=4 with -Delect.it.nodes=4 or more: vnodes (issue 18 item 5; with RF 3 on 3 nodes every
    // node replicates everything, so vnodes change nothing there)
    private static final int NUM_TOKENS = Integer.getInteger("elect.it.num_tokens", 1);
    private static final int KEYS = Integer.getInteger("elect.it.keys", 20000);
    private static final double ALPHA = Double.parseDouble(System.getProperty("elect.it.alpha", "0.3"));
    // -Delect.it.full=false: only the saving and every key at ONE and ALL at each target; with true (the default) the
    // crash mid-transition runs at the first target, and the updates after encoding, the member removal and the
    // degraded reads run once, at the last target
    private static final boolean FULL = Boolean.parseBoolean(System.getProperty("elect.it.full", "true"));
    // -Delect.it.then_alpha=0.6,0.8 (the default; empty for none): once the first target is checked, alpha is raised at
    // runtime on every node (`electtool alpha A`) to each of these in turn and the saving and every key are checked
    // again at the new target, on the same cluster (two cluster starts and loads less in CI than separate runs)
    private static final String THEN_ALPHA = System.getProperty("elect.it.then_alpha", "0.6,0.8");
    private static final String KS = "elect_transition_it";
    private static final ObjectMapper JSON = new ObjectMapper();

    private static CqlSession session;

    static
    {
        System.setProperty("logback.configurationFile", LocalClusterScript.REPO.resolve("elect-core/src/test/resources/elect-trees-logback.xml").toString());
    }

    @BeforeAll
    static void startCluster() throws Exception
    {
        Result r = SCRIPT.run(1500, "start", "--nodes", String.valueOf(NODES), "--num-tokens", String.valueOf(NUM_TOKENS),
                              "--fresh", "--wait-for-ports", "900",
                              "--set", "elect.data_chunks=" + K, "--set", "elect.parity_chunks=" + M,
                              // alpha 0 until the data is loaded, flushed and compacted (then electtool alpha): with
                              // the target in effect from the start, rounds encoded during a slow load and had converged
                              // before the crash step watched for a stripe in flight (a run under load: "no stripe was
                              // seen in flight within 300 s")
                              "--set", "elect.storage_saving_target=0.0", "--set", "elect.transition_min_age_seconds=0",
                              "--set", "elect.transition_interval_seconds=5", "--set", "elect.stripe_fill_wait_seconds=5", "--set", "elect.primary_offload_min_age_seconds=0",
                              "--set", "elect.cold_read_rate=1000");
        assertEquals(0, r.code(), "elect-cluster start failed:\n" + r.output());
        session = LocalClusterScript.session(LocalClusterScript.loopback(NODES));
    }

    @AfterAll
    static void stopCluster() throws Exception
    {
        if (session != null)
            session.close();
        SCRIPT.run(300, "stop", "--kill"); // a throwaway cluster: no drain (saves ~20 s)
    }

    @Test
    void encodesToTargetAndKeepsEveryKey() throws Exception
    {
        session.execute("CREATE KEYSPACE " + KS + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}");
        String cols = "(key text PRIMARY KEY, field0 text, field1 text, field2 text, field3 text)";
        session.execute("CREATE TABLE " + KS + ".plain " + cols + " WITH compaction = "
                        + "{'class': 'LeveledCompactionStrategy', 'sstable_size_in_mb': 1, 'fanout_size': 4}");
        session.execute("CREATE TABLE " + KS + ".usertable " + cols + " WITH compaction = "
                        + "{'class': 'io.elect.core.bridge.ElectCompactionStrategy', 'sstable_size_in_mb': 1, 'fanout_size': 4}"
                        + " AND read_repair = 'NONE'");
        for (String table : List.of("plain", "usertable"))
        {
            PreparedStatement put = session.prepare("INSERT INTO " + KS + "." + table + " (key, field0, field1, field2, field3) VALUES (?, ?, ?, ?, ?)");
            List<CompletionStage<AsyncResultSet>> inflight = new ArrayList<>();
            for (int k = 0; k < KEYS; k++)
            {
                inflight.add(session.executeAsync(put.bind(key(k), value(k, 0, 0), value(k, 0, 1), value(k, 0, 2), value(k, 0, 3))
                                                     .setConsistencyLevel(ConsistencyLevel.ALL)));
                if (inflight.size() >= 64)
                    drain(inflight);
            }
            drain(inflight);
        }
        for (int i = 1; i <= NODES; i++)
        {
            assertEquals(0, SCRIPT.run(180, "nodetool", String.valueOf(i), "flush", KS).code());
            assertEquals(0, SCRIPT.compact(i, KS).code());
        }

        // transitioning starts now, on loaded, compacted data
        setAlpha(ALPHA);
        // 1. A node killed with SIGKILL while a stripe is in flight (seen in elect_system.stripes, not guessed from
        //    timing), then restarted: the victim is a participant of that stripe (a data or parity node), seeded.
        if (FULL)
            crashMidTransition();
        List<Double> targets = new ArrayList<>(List.of(ALPHA));
        for (String a : THEN_ALPHA.split(","))
            if (!a.isBlank())
                targets.add(Double.parseDouble(a.trim()));
        for (int t = 0; t < targets.size(); t++)
        {
            double alpha = targets.get(t);
            if (t > 0)
            {
                setAlpha(alpha);
                System.out.printf("alpha raised at runtime from %.2f to %.2f on every node%n", targets.get(t - 1), alpha);
            }
            // the updates, member removal and degraded reads change the data (the plain table does not get them):
            // only after the last target's saving is measured
            convergeAndCheck(alpha, FULL && t == targets.size() - 1);
        }
    }

    /** {@code electtool alpha A} on every node, checked over JMX. */
    private static void setAlpha(double alpha) throws Exception
    {
        for (int i = 1; i <= NODES; i++)
        {
            Result r = SCRIPT.run(120, "electtool", String.valueOf(i), "alpha", String.valueOf(alpha));
            assertEquals(0, r.code(), "electtool alpha " + alpha + " on node " + i + ":\n" + r.output());
            assertEquals(alpha, ((Number) LocalClusterScript.jmxAttribute(i, ElectNodeMBean.OBJECT_NAME, "StorageSavingTarget")).doubleValue());
        }
    }

    private void crashMidTransition() throws Exception
    {
        Random seeded = new Random(Long.getLong("elect.it.seed", 20261123L));
        String inflight = null, inflightState = null;
        int victim = -1;
        long watchUntil = System.currentTimeMillis() + 300_000;
        while (inflight == null && System.currentTimeMillis() < watchUntil)
        {
            try
            {
                for (Row r : session.execute("SELECT record FROM elect_system.stripes"))
                {
                    java.nio.ByteBuffer b = r.getByteBuffer("record");
                    byte[] bytes = new byte[b.remaining()];
                    b.get(bytes);
                    io.elect.core.stripes.StripeRecord rec = io.elect.core.stripes.StripeRecordCodec.decode(bytes);
                    if (rec.state().isTerminal())
                        continue;
                    List<String> participants = new ArrayList<>(rec.parityNodes());
                    for (io.elect.core.stripes.Member m : rec.members())
                        if (!m.isVirtual())
                            participants.add(m.node());
                    String node = participants.get(seeded.nextInt(participants.size()));
                    victim = Integer.parseInt(node.substring(node.lastIndexOf('.') + 1));
                    inflight = rec.id().toString();
                    inflightState = rec.state().name();
                    break;
                }
            }
            catch (RuntimeException e)
            {
                // the stripes table does not exist until the first round
            }
            if (inflight == null)
                Thread.sleep(50);
        }
        assertTrue(inflight != null, "no stripe was seen in flight within 300 s: nothing to crash in the middle of");
        System.out.printf("crash test: seed %d, SIGKILL node %d while stripe %s was %s%n", Long.getLong("elect.it.seed", 20261123L),
                          victim, inflight, inflightState);
        assertEquals(0, SCRIPT.run(180, "kill", "--hard", String.valueOf(victim)).code());
        Thread.sleep(5000);
        assertEquals(0, SCRIPT.run(600, "restart-node", String.valueOf(victim)).code());
        // a runtime alpha is not persisted: the restarted node is back at cassandra.yaml's 0
        setAlpha(ALPHA);
    }

    /** Polls (5 s apart) with the same saving and stripe count before the saving is judged. */
    private static final int STABLE_POLLS = 4;

    private void convergeAndCheck(double alpha, boolean full) throws Exception
    {
        // 2. The coordinator converges on the target (its own report); stripes end committed or rolled back.
        JsonNode report = null;
        int stablePolls = 0, lastCommitted = -1;
        double lastAchieved = -1;
        long deadline = System.currentTimeMillis() + 1000L * Integer.getInteger("elect.it.converge_seconds", 600);
        while (System.currentTimeMillis() < deadline)
        {
            try
            {
                report = JSON.readTree((String) LocalClusterScript.jmxAttribute(1, ElectNodeMBean.OBJECT_NAME, "StorageJson"));
            }
            catch (Exception e)
            {
                System.out.println("storage report not available yet: " + e);
                Thread.sleep(5000);
                continue;
            }
            JsonNode t = table(report, "usertable");
            JsonNode stripes = report.get("stripes");
            int open = LocalClusterScript.inFlightStripes(stripes);
            double achieved = t.get("achieved_saving").asDouble();
            int committed = stripes.path("committed").asInt();
            // Settled: nothing in flight, inside the band, and the controller has stopped moving (the same saving and
            // stripes for STABLE_POLLS polls: offload acts only after two rounds without stripes), so the check below
            // judges where transitioning ends, not the first poll inside the band (which measured alpha 0.3 1.5
            // points short while the planner was still closing the gap). An overshoot cannot shrink: judged at once.
            boolean inBand = Math.abs(achieved - alpha) <= 0.02;
            boolean same = open == 0 && committed == lastCommitted && Math.abs(achieved - lastAchieved) < 0.002;
            stablePolls = same ? stablePolls + 1 : 0;
            lastCommitted = committed;
            lastAchieved = achieved;
            if (open == 0 && committed > 0 && (achieved > alpha + 0.02 || (inBand && stablePolls >= STABLE_POLLS)))
                break;
            Thread.sleep(5000);
        }
        System.out.println("storage report: " + report);
        JsonNode t = table(report, "usertable");
        assertTrue(report.get("stripes").path("committed").asInt() > 0, "stripes committed: " + report);
        assertEquals(alpha, report.get("target_saving").asDouble(), "the report's target is the alpha in effect");
        double reported = t.get("achieved_saving").asDouble();

        assertNoOrphans();

        // 3. Independent measurement: Cassandra's live bytes of both tables plus the parity files kept on disk.
        long plain = 0, elect = 0;
        for (int i = 1; i <= NODES; i++)
        {
            plain += liveBytes(i, "plain");
            elect += liveBytes(i, "usertable");
        }
        long parity = parityFileBytes(SCRIPT.runDir());
        double measured = 1 - (double) (elect + parity) / plain;
        System.out.printf("plain %d bytes, ELECT %d + parity %d bytes: measured saving %.3f, reported %.3f, target %.2f%n",
                          plain, elect, parity, measured, reported, alpha);
        // checked at the end, so that a miss still runs (and reports) every correctness check below
        String savingMiss = Math.abs(measured - alpha) <= 0.02 ? null
                            : "measured saving " + measured + " not within 2 points of " + alpha + "; report " + report;

        // 4. Every key at ONE and ALL.
        PreparedStatement get = session.prepare("SELECT field0, field3 FROM " + KS + ".usertable WHERE key = ?");
        for (ConsistencyLevel cl : List.of(ConsistencyLevel.ONE, ConsistencyLevel.ALL))
            checkAll(0, 1, k -> get.bind(key(k)).setConsistencyLevel(cl), k -> 0, k -> false, cl.name());
        if (!full)
        {
            assertNull(savingMiss);
            return;
        }

        // 5. Updates and deletes after encoding, read from every replica (each node coordinating at ONE).
        PreparedStatement update = session.prepare("UPDATE " + KS + ".usertable SET field0 = ?, field3 = ? WHERE key = ?");
        PreparedStatement delete = session.prepare("DELETE FROM " + KS + ".usertable WHERE key = ?");
        for (int k = 0; k < KEYS; k += 37)
            session.execute(update.bind(value(k, 1, 0), value(k, 1, 3), key(k)).setConsistencyLevel(ConsistencyLevel.ALL));
        for (int k = 5; k < KEYS; k += 53)
            session.execute(delete.bind(key(k)).setConsistencyLevel(ConsistencyLevel.ALL));
        for (int i = 1; i <= NODES; i++)
            assertEquals(0, SCRIPT.run(180, "nodetool", String.valueOf(i), "flush", KS).code());
        for (Node node : session.getMetadata().getNodes().values())
            checkAll(0, 7, k -> get.bind(key(k)).setConsistencyLevel(ConsistencyLevel.ONE).setNode(node),
                     k -> k % 37 == 0 ? 1 : 0, TransitioningIT::deleted, "via " + node.getEndPoint());

        // 5b. A member fully shadowed in a stripe that stays: every key in the span of one of node 1's encoded members
        //     written again, so that member is fully shadowed while its stripe-mate (node 2 or 3) is not; the
        //     coordinator removes it from its stripe (a new parity generation, stubs relaid out).
        Node n1 = session.getMetadata().getNodes().values().stream()
                         .filter(n -> n.getEndPoint().resolve().toString().contains("127.0.0.1:")).findFirst().orElseThrow();
        java.util.function.IntPredicate slice = MemberRemovalCheck.slice(session, n1, 1, KS, "usertable", KEYS, TransitioningIT::key);
        int rewritten = MemberRemovalCheck.overwrite(session, KS + ".usertable", KEYS, slice, TransitioningIT::key, TransitioningIT::value, 2);
        for (int i = 1; i <= NODES; i++)
            assertEquals(0, SCRIPT.run(180, "nodetool", String.valueOf(i), "flush", KS).code());
        int[] changed = { 0, 0 };
        long until = System.currentTimeMillis() + 240_000;
        // Wait for the removal itself (the coordinators' MembersRemoved), not for any changed stripe: a round may fill a
        // virtual slot first, which changes a stripe too (CI pre-check of 2026-11-28 05:40: 1 fill, 0 removed, when
        // this loop still stopped at the first changed stripe).
        while (System.currentTimeMillis() < until && (changed[0] == 0 || changed[1] > 0 || membersRemoved() == 0))
        {
            Thread.sleep(5000);
            changed = MemberRemovalCheck.changed(session);
        }
        System.out.printf("member removal: %d keys of a node-1 member's span rewritten; %d stripes changed (parity generation >= 1), %d in a change%n",
                          rewritten, changed[0], changed[1]);
        assertTrue(changed[0] > 0 && changed[1] == 0, "no member was removed from its stripe within 240 s (" + changed[0] + " changed, "
                                                       + changed[1] + " in a change)");
        java.util.function.IntUnaryOperator version = k -> slice.test(k) ? 2 : k % 37 == 0 ? 1 : 0;
        java.util.function.IntPredicate gone = k -> !slice.test(k) && deleted(k);
        for (Node node : session.getMetadata().getNodes().values())
            checkAll(0, 7, k -> get.bind(key(k)).setConsistencyLevel(ConsistencyLevel.ONE).setNode(node), version, gone,
                     "after member removal, via " + node.getEndPoint());
        assertNoOrphans();
        assertUpdatesReportCounts(changed[0]);

        // 6. A data node down: every key still reads at ONE (secondaries' stubs reconstruct from the stripe; the stubs
        //    of node 3's members in changed stripes decode with the new parity generation).
        assertEquals(0, SCRIPT.run(180, "kill", "--hard", "3").code());
        Thread.sleep(10_000); // failure detection
        checkAll(0, 1, k -> get.bind(key(k)).setConsistencyLevel(ConsistencyLevel.ONE), version, gone, "node 3 down");
        assertNull(savingMiss);
    }

    /**
     * Members removed so far, summed over the nodes' coordinator counters (the document {@code electtool updates
     * --json} prints, read over JMX here: three tool JVMs per 5-s poll cost more than the poll).
     */
    private static long membersRemoved() throws Exception
    {
        long removed = 0;
        for (int i = 1; i <= NODES; i++)
        {
            String doc;
            try
            {
                doc = (String) LocalClusterScript.jmxAttribute(i, ElectNodeMBean.OBJECT_NAME, "UpdatesJson");
            }
            catch (Exception e)
            {
                continue; // a node not answering now is asked again next time
            }
            removed += JSON.readTree(doc).path("coordinator").path("MembersRemoved").asLong();
        }
        return removed;
    }

    /**
     * {@code electtool updates --json} on every node: the coordinator counted the removals, the parity nodes computed
     * (at least) one new parity generation per changed stripe, and each generation is counted by how it was computed
     * (under update_policy auto a removal may re-encode from the remaining members, which can be offloaded or virtual:
     * the bytes fetched are printed, not asserted).
     */
    private static void assertUpdatesReportCounts(int changedStripes) throws Exception
    {
        long removed = 0, merged = 0, filled = 0, generations = 0, byWay = 0, fromNodes = 0, fromCold = 0;
        for (int i = 1; i <= NODES; i++)
        {
            Result r = SCRIPT.run(120, "electtool", String.valueOf(i), "updates", "--json");
            assertEquals(0, r.code(), "electtool updates on node " + i + ":\n" + r.output());
            String json = r.output().substring(r.output().indexOf('{'));
            com.fasterxml.jackson.databind.JsonNode d = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json);
            assertEquals(1, d.path("version").asInt(), json);
            assertEquals("auto", d.path("update_policy").asText(), json);
            com.fasterxml.jackson.databind.JsonNode p = d.path("parity_maintenance");
            removed += d.path("coordinator").path("MembersRemoved").asLong();
            merged += d.path("coordinator").path("MembersMerged").asLong();
            filled += d.path("coordinator").path("VirtualSlotsFilled").asLong() + d.path("coordinator").path("StripesWidened").asLong();
            generations += p.path("Changes").asLong();
            byWay += p.path("ByTwoVersions").asLong() + p.path("ByPushedDelta").asLong() + p.path("Reencoded").asLong();
            fromNodes += p.path("MemberBytesFromNodes").asLong();
            fromCold += p.path("MemberBytesFromColdTier").asLong();
        }
        System.out.printf("electtool updates: %d members removed, %d merged, %d filled or widened, %d parity generations, member bytes "
                          + "fetched: %d from other nodes, %d from the cold tier%n", removed, merged, filled, generations, fromNodes, fromCold);
        // merges are on by default: a member of another stripe that the rewrite left with enough obsolete bytes may
        // have been merged as well (its stripe changed too); rounds fill virtual slots (padded stripes, the slot the
        // removal emptied), a change too (CI of 2026-11-27 22:40: 1 removed, 3 stripes changed, 3 fills); the removal
        // itself is asserted by removed > 0
        assertTrue(removed > 0 && removed + merged + filled >= changedStripes,
                   removed + " members removed, " + merged + " merged, " + filled + " filled or widened, " + changedStripes + " stripes changed");
        assertTrue(generations >= changedStripes, generations + " parity generations, " + changedStripes + " stripes changed");
        assertEquals(generations, byWay, "every parity generation is counted by the way it was computed");
    }

    /**
     * Every stripe is terminal; every parity file, cold parity marker and frozen-registry entry on disk belongs to a
     * committed stripe of the generation on disk; no stub is half-fetched. Transitioning keeps running (step 5's
     * rewrites lower the saving, so new stripes may form while this checks), so the check is made on a quiescent
     * snapshot: the stripe table read before and after the disk scan must be equal and all terminal; otherwise it is
     * retried for up to 300 s, and the last snapshot's findings fail the test.
     */
    private static void assertNoOrphans() throws Exception
    {
        long deadline = System.currentTimeMillis() + 300_000;
        while (true)
        {
            java.util.Map<String, String> before = stripeStates();
            List<String> problems = new ArrayList<>();
            before.forEach((stripe, st) -> {
                if (!io.elect.core.stripes.StripeState.valueOf(st.substring(0, st.indexOf('@'))).isTerminal())
                    problems.add("stripe " + stripe + " ended " + st);
            });
            if (problems.isEmpty())
                scanForOrphans(before, problems);
            boolean quiescent = before.equals(stripeStates());
            if (quiescent && problems.isEmpty())
                return;
            if (System.currentTimeMillis() > deadline)
                fail((quiescent ? "" : "(stripes still changing) ") + String.join("; ", problems.subList(0, Math.min(5, problems.size()))));
            System.out.println("orphan check: not quiescent yet (" + (quiescent ? problems.size() + " findings, first: " + problems.get(0)
                                                                          : "stripes changed during the scan") + "), retrying");
            Thread.sleep(5000);
        }
    }

    /** Every stripe's state and parity generation, as "STATE@generation" by stripe id. */
    private static java.util.Map<String, String> stripeStates()
    {
        java.util.Map<String, String> states = new java.util.TreeMap<>();
        for (Row r : session.execute("SELECT id, record FROM elect_system.stripes").all())
        {
            java.nio.ByteBuffer id = r.getByteBuffer("id");
            byte[] idBytes = new byte[id.remaining()];
            id.duplicate().get(idBytes);
            java.nio.ByteBuffer rec = r.getByteBuffer("record");
            byte[] recBytes = new byte[rec.remaining()];
            rec.duplicate().get(recBytes);
            io.elect.core.stripes.StripeRecord record = io.elect.core.stripes.StripeRecordCodec.decode(recBytes);
            states.put(io.elect.core.stripes.StripeId.fromBytes(idBytes).toString(), record.state().name() + "@" + record.parityGeneration());
        }
        return states;
    }

    private static void scanForOrphans(java.util.Map<String, String> states, List<String> problems) throws IOException
    {
        java.util.Map<String, Long> committed = new java.util.HashMap<>();
        states.forEach((stripe, st) -> {
            if (st.startsWith(io.elect.core.stripes.StripeState.COMMITTED.name() + "@"))
                committed.put(stripe, Long.parseLong(st.substring(st.indexOf('@') + 1)));
        });
        try (Stream<Path> files = Files.walk(SCRIPT.runDir()))
        {
            for (Path p : (Iterable<Path>) files::iterator)
            {
                String name = p.getFileName().toString();
                String path = p.toString();
                if (name.endsWith(".parity") || name.endsWith(".cold"))
                {
                    Long generation = committed.get(name.substring(0, 32));
                    Matcher g = Pattern.compile("-p\\d+\\.g(\\d+)\\.").matcher(name);
                    long gen = g.find() ? Long.parseLong(g.group(1)) : 0;
                    if (generation == null)
                        problems.add("orphan parity " + p + " (committed: " + committed.size() + ")");
                    else if (generation != gen)
                        problems.add("parity " + p + " of generation " + gen + ", its stripe's is " + generation);
                }
                if (path.contains("/elect/frozen/") && name.endsWith(".txt"))
                    for (String line : Files.readAllLines(p))
                        if (line.startsWith("frozen=") && !committed.containsKey(line.substring(line.indexOf(' ') + 1)))
                            problems.add("orphan freeze " + line + " in " + p);
                if (path.contains("/cold/") && path.contains("/parity/"))
                    for (Path seg : p)
                        if (seg.toString().matches("[0-9a-f]{32}") && !committed.containsKey(seg.toString()))
                            problems.add("orphan cold parity object " + p);
                if (path.contains("/elect/stub-tmp/") && Files.isRegularFile(p))
                    problems.add("leftover stub download " + p);
            }
        }
        catch (java.io.UncheckedIOException | java.nio.file.NoSuchFileException e)
        {
            problems.add("files changed during the scan: " + e.getMessage()); // a file deleted while walking: not quiescent
        }
    }

    /**
     * Reads keys from, from + step, ... with up to 64 requests in flight and checks each row as {@link #check} does
     * (same assertions as one synchronous read per key, in a fraction of the time).
     */
    private static void checkAll(int from, int step, java.util.function.IntFunction<com.datastax.oss.driver.api.core.cql.Statement<?>> read,
                                 java.util.function.IntUnaryOperator version, java.util.function.IntPredicate deleted, String how) throws Exception
    {
        java.util.Map<Integer, CompletionStage<AsyncResultSet>> inflight = new java.util.LinkedHashMap<>();
        for (int k = from; k < KEYS; k += step)
        {
            inflight.put(k, session.executeAsync(read.apply(k)));
            if (inflight.size() >= 64 || k + step >= KEYS)
            {
                for (java.util.Map.Entry<Integer, CompletionStage<AsyncResultSet>> e : inflight.entrySet())
                {
                    int key = e.getKey();
                    check(e.getValue().toCompletableFuture().get().one(), key, version.applyAsInt(key), deleted.test(key), how);
                }
                inflight.clear();
            }
        }
    }

    private static boolean deleted(int k)
    {
        return k >= 5 && (k - 5) % 53 == 0;
    }

    private static void check(Row row, int k, int version, boolean deleted, String how)
    {
        if (deleted)
        {
            assertNull(row, "key " + key(k) + " deleted (" + how + ")");
            return;
        }
        assertNotNull(row, "key " + key(k) + " readable (" + how + ")");
        assertEquals(value(k, version, 0), row.getString(0), "key " + key(k) + " field0 (" + how + ")");
        assertEquals(value(k, version, 3), row.getString(1), "key " + key(k) + " field3 (" + how + ")");
    }

    private static JsonNode table(JsonNode report, String name)
    {
        for (JsonNode t : report.get("tables"))
            if (t.get("table").asText().equals(KS + "." + name))
                return t;
        throw new AssertionError("table " + name + " not in the storage report: " + report);
    }

    private static long liveBytes(int node, String table) throws Exception
    {
        Result r = SCRIPT.run(120, "nodetool", String.valueOf(node), "tablestats", KS + "." + table);
        Matcher m = Pattern.compile("Space used \\(live\\): (\\d+)").matcher(r.output());
        if (!m.find())
            fail("no live space in tablestats of node " + node + ":\n" + r.output());
        return Long.parseLong(m.group(1));
    }

    private static long parityFileBytes(Path runDir) throws IOException
    {
        try (Stream<Path> s = Files.walk(runDir))
        {
            return s.filter(p -> p.getFileName().toString().endsWith(".parity")).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    static String key(int k)
    {
        return String.format("user%020d", k);
    }

    /** 200 seeded pseudo-random characters: compresses about as little as YCSB's values. */
    static String value(int k, int version, int field)
    {
        Random r = new Random(((long) k << 20) ^ (version << 8) ^ field);
        StringBuilder sb = new StringBuilder(200);
        for (int i = 0; i < 200; i++)
            sb.append((char) ('!' + r.nextInt(90)));
        return sb.toString();
    }

    private static void drain(List<CompletionStage<AsyncResultSet>> inflight) throws Exception
    {
        for (CompletionStage<AsyncResultSet> f : inflight)
            f.toCompletableFuture().get();
        inflight.clear();
    }
}
