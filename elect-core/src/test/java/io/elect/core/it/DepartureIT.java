package io.elect.core.it;

import java.nio.file.Files;
import java.util.List;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import io.elect.core.it.LocalClusterScript.Result;
import io.elect.core.jmx.ElectNodeMBean;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;

import static io.elect.core.it.TransitioningIT.key;
import static io.elect.core.it.RingChangeChecks.check;
import static io.elect.core.it.RingChangeChecks.storage;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node with encoded data leaves the ring (issue 18, docs/design/topology.md "Nodes that left the ring"): a real
 * 4-node cluster (RF = 3, RS k=2 m=1, alpha 0.6, cold tier on) encodes an ELECT table, then node 4 is decommissioned
 * ({@code nodetool decommission}, which streams its ranges) and stopped, or ({@code -Delect.it.departure.mode=removenode})
 * killed and removed with {@code nodetool removenode} (the remaining replicas stream its ranges, reading stubs of its
 * members through their stripes), or ({@code -Delect.it.departure.mode=inflight}) killed while a member change of a
 * stripe it takes part in is in flight, then removed (see {@link #INFLIGHT}), or ({@code -Delect.it.departure.mode=drain}) drained and decommissioned by
 * {@code electtool decommission} (no stripe names it when it leaves). With {@code -Delect.it.departure.nodes=N -Delect.it.departure.k=K
 * -Delect.it.departure.m=M}, node N of an N-node RS(K, M) cluster leaves instead; with
 * {@code -Delect.it.departure.kill=PATTERN} a first decommission is killed mid-way (see {@link #KILL_AT}); with
 * {@code -Delect.it.departure.num_tokens=N} every node has N tokens (vnodes); with {@code -Delect.it.departure.cancel=true}
 * (drain mode) a first {@code electtool decommission} is cancelled while it drains. Within a few minutes no stripe names node 4
 * any more (its members were removed from their stripes after their stubs were materialized, its parity chunks
 * rebuilt on other nodes, or its stripes retired), every key reads back at ONE and ALL, and {@code electtool verify}
 * passes on the three remaining nodes.
 *
 * <p>Not part of {@code scripts/elect test} (a fourth node and a decommission add minutes to CI): run it with
 * {@code mvn -pl elect-core -am verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=DepartureIT
 * -Dfailsafe.failIfNoSpecifiedTests=false -Delect.it.departure=true}.
 */
@EnabledIfSystemProperty(named = "elect.it.departure", matches = "true")
class DepartureIT
{
    private static final LocalClusterScript SCRIPT = new LocalClusterScript("it-departure-run");
    private static final int KEYS = Integer.getInteger("elect.it.departure.keys", 24000);
    private static final String KS = "elect_departure_it";
    /** Cluster size before the departure ({@code -Delect.it.departure.nodes}); the last node leaves. */
    private static final int NODES = Integer.getInteger("elect.it.departure.nodes", 4);
    /** RS k and m ({@code -Delect.it.departure.k}, {@code .m}; issue 18 asks for (4,2) shrinking 7 -> 6 too). */
    private static final int K = Integer.getInteger("elect.it.departure.k", 2), M = Integer.getInteger("elect.it.departure.m", 1);
    private static final String LEAVING = "127.0.0." + NODES;
    private static final String LEAVER = String.valueOf(NODES);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** {@code -Delect.it.departure.mode=removenode}: node 4 is killed and removed instead of decommissioned. */
    private static final boolean REMOVENODE = "removenode".equals(System.getProperty("elect.it.departure.mode"))
                                              || "inflight".equals(System.getProperty("elect.it.departure.mode"));
    /**
     * {@code -Delect.it.departure.mode=inflight}: removenode, with a member change in flight on a stripe node 4 takes
     * part in: every key of another node's member of that stripe is written again (the coordinator removes that
     * member), and node 4 is killed as soon as the change is recorded, before it answered every call; after the
     * removenode the change must finish without node 4 (docs/design/topology.md "Changes in flight when a node leaves").
     */
    private static final boolean INFLIGHT = "inflight".equals(System.getProperty("elect.it.departure.mode"));
    /**
     * {@code -Delect.it.departure.mode=drain}: node 4 leaves by {@code electtool decommission} (drained first: no stripe
     * names it when it leaves, docs/design/topology.md "Draining before leaving").
     */
    private static final boolean DRAIN = "drain".equals(System.getProperty("elect.it.departure.mode"));
    /**
     * {@code -Delect.it.departure.kill=PATTERN}: the leaving node is killed (SIGKILL) when its log shows PATTERN during
     * a first decommission (e.g. {@code "LEAVING: replaying batch log and streaming"}), restarted, and decommissioned
     * again; the checks are the same.
     */
    private static final String KILL_AT = System.getProperty("elect.it.departure.kill");
    /**
     * {@code -Delect.it.departure.cancel=true} (drain mode): before the decommission that leaves, a first one is
     * cancelled while it drains ({@link #cancelledWhileDraining}).
     */
    private static final boolean CANCEL = Boolean.getBoolean("elect.it.departure.cancel");
    /**
     * {@code -Delect.it.departure.alpha=A} (default 0.6): the storage saving target; at 0.8 every parity chunk and most
     * members are offloaded when node 4 leaves, so its cold objects are what the coordinator must delete after a plain
     * decommission (docs/design/topology.md "Cold objects of nodes that left").
     */
    private static final String ALPHA = System.getProperty("elect.it.departure.alpha", "0.6");
    /** Tokens per node ({@code elect-cluster start --num-tokens}): vnodes, issue 18 item 5. */
    private static final int NUM_TOKENS = Integer.getInteger("elect.it.departure.num_tokens", 1);
    private static CqlSession session;

    @BeforeAll
    static void startCluster() throws Exception
    {
        Result r = SCRIPT.startTransitioning(NODES, List.of("--num-tokens", String.valueOf(NUM_TOKENS)), "elect.data_chunks=" + K,
                                             "elect.parity_chunks=" + M, "elect.storage_saving_target=" + ALPHA);
        assertEquals(0, r.code(), "elect-cluster start failed:\n" + r.output());
        session = LocalClusterScript.session(LocalClusterScript.loopback(3));
    }

    @AfterAll
    static void stopCluster() throws Exception
    {
        if (session != null)
            session.close();
        SCRIPT.run(300, "stop", "--kill"); // a throwaway cluster: no drain (saves ~20 s)
    }

    @Test
    void stripesNamingADecommissionedNodeAreRepaired() throws Exception
    {
        LocalClusterScript.createElectUsertable(session, KS);
        LocalClusterScript.loadUsertable(session, KS, KEYS);
        SCRIPT.flushAndCompact(KS, NODES);
        LocalClusterScript.awaitSettled(0.5);
        int[] before = naming(LEAVING);
        System.out.println("committed stripes naming " + LEAVING + " before it leaves: " + before[0] + " with a data member, "
                           + before[1] + " with parity only");
        assertTrue(before[0] + before[1] > 0, "node " + LEAVER + " holds chunks of committed stripes");

        // node 4's offloaded members are objects under its host id in the cold tier (S3Proxy's filesystem backend)
        Row leaverId = session.execute("SELECT host_id FROM system.peers WHERE peer = '" + LEAVING + "'").one();
        assertNotNull(leaverId, "node 1 knows node " + LEAVER + "'s host id");
        java.nio.file.Path leaverCold = SCRIPT.runDir().resolve("cluster/cold/data/elect/tiered/" + KS + "/usertable/" + leaverId.getUuid(0));
        long coldBefore = coldObjects(leaverCold);
        long parityCold = 0;
        for (StripeRecord r : records())
            for (int j = 0; j < r.parityNodes().size(); j++)
                if (r.state() == StripeState.COMMITTED && LEAVING.equals(r.parityNodes().get(j))
                    && Files.exists(SCRIPT.runDir().resolve("cluster/cold/data/elect/" + io.elect.core.stripes.ParityFiles.coldKey(
                        KS, "usertable", r.id().toString(), j, r.parityGeneration()))))
                    parityCold++;
        System.out.println("cold objects of node " + LEAVER + " before it leaves: " + coldBefore + " data objects under its host id, "
                           + parityCold + " offloaded parity chunks");

        if (REMOVENODE)
        {
            // node 4 dies (its disk is gone for good), then the others remove it: its ranges are streamed from the
            // remaining replicas, which read stubs of node 4's members through the stripe (degraded decode)
            if (INFLIGHT)
                inFlight = killMidChange();
            else
                assertEquals(0, SCRIPT.run(180, "kill", "--hard", LEAVER).code());
            // removenode refuses a node still seen alive: wait until node 1's failure detector marks it down
            long down = System.currentTimeMillis() + 120_000;
            while (!SCRIPT.run(120, "nodetool", "1", "status").output().lines().anyMatch(l -> l.startsWith("DN") && l.contains(LEAVING + " ")))
            {
                assertTrue(System.currentTimeMillis() < down, "node 1 did not see node " + LEAVER + " down within 2 minutes");
                Thread.sleep(3000);
            }
            Result removed = SCRIPT.run(1800, "nodetool", "1", "removenode", leaverId.getUuid(0).toString());
            assertEquals(0, removed.code(), "nodetool removenode: " + removed.output());
        }
        else if (DRAIN)
        {
            if (KILL_AT != null)
                decommissionInterrupted();
            if (CANCEL)
                cancelledWhileDraining();
            long start = System.currentTimeMillis();
            Result drained = SCRIPT.runTool(1800, "bin/electtool", "-p", String.valueOf(7099 + 100 * NODES), "decommission");
            System.out.println("electtool decommission (" + (System.currentTimeMillis() - start) / 1000 + " s):\n" + drained.output());
            assertEquals(0, drained.code(), "electtool decommission: " + drained.output());
            // drained first: no stripe names the node at the moment it has left, and no repair is needed
            int[] now = naming(LEAVING);
            assertEquals(0, now[0] + now[1], "no stripe names node " + LEAVER + " once electtool decommission returns");
            assertEquals(0, SCRIPT.run(180, "kill", LEAVER).code());
        }
        else
        {
            if (KILL_AT != null)
                decommissionInterrupted();
            Result decommission = SCRIPT.run(1800, "nodetool", LEAVER, "decommission");
            assertEquals(0, decommission.code(), "nodetool decommission: " + decommission.output());
            assertEquals(0, SCRIPT.run(180, "kill", LEAVER).code());
        }

        // during the minute's grace, `electtool storage` names the departed node and its stripes
        JsonNode named = null;
        for (int i = 0; !DRAIN && i < 10 && (named == null || named.path(LEAVING).asInt() == 0); i++)
        {
            named = JSON.readTree((String) LocalClusterScript.jmxAttribute(1, ElectNodeMBean.OBJECT_NAME, "StorageJson"))
                        .path("stripes_naming_departed_nodes");
            Thread.sleep(1000);
        }
        if (!DRAIN)
        {
            System.out.println("storage report, stripes naming departed nodes: " + named);
            assertTrue(named.path(LEAVING).asInt() > 0, "the storage report names the departed node's stripes: " + named);
        }

        long deadline = System.currentTimeMillis() + 600_000;
        int[] left = naming(LEAVING);
        while ((left[0] + left[1] > 0 || open() > 0) && System.currentTimeMillis() < deadline)
        {
            Thread.sleep(5000);
            left = naming(LEAVING);
        }
        String log = Files.readString(SCRIPT.runDir().resolve("cluster/node1/logs/system.log"));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("repaired (?:after the departure of|to drain) \\S+: (\\w+)").matcher(log);
        java.util.Map<String, Integer> kinds = new java.util.TreeMap<>();
        while (m.find())
            kinds.merge(m.group(1), 1, Integer::sum);
        System.out.println("stripes repaired by kind: " + kinds + "; still naming " + LEAVING + ": " + left[0] + " + " + left[1]);
        assertEquals(0, left[0] + left[1], "no stripe names the decommissioned node any more");
        long repairedAt = System.currentTimeMillis();
        JsonNode after = JSON.readTree((String) LocalClusterScript.jmxAttribute(1, ElectNodeMBean.OBJECT_NAME, "StorageJson"));
        System.out.println("storage report after the repair: " + after);
        assertEquals(0, after.path("stripes_naming_departed_nodes").size(), after.toString());
        assertTrue(kinds.values().stream().mapToInt(Integer::intValue).sum() > 0, "the coordinator logged its repairs");
        if (INFLIGHT)
        {
            // the change killed in flight finished without node 4 (StripeChanges' "which left the ring" line), and the
            // stripe is committed without it
            List<String> without = log.lines().filter(l -> l.contains(inFlight.toString()) && l.contains("which left the ring")).toList();
            System.out.println("change of stripe " + inFlight + " finished without node " + LEAVER + ": " + without);
            assertTrue(!without.isEmpty(), "node 1 logged the change of stripe " + inFlight + " going on without node " + LEAVER);
            StripeRecord r = records().stream().filter(x -> x.id().equals(inFlight)).findFirst().orElse(null);
            assertTrue(r == null || r.state() == StripeState.COMMITTED || r.state() == StripeState.RETIRED, "stripe " + inFlight + ": " + r);
        }

        // a node that left without draining cannot delete its cold objects: the coordinator does, once no stripe names
        // it (two sweeps a minute apart); a drained node deleted its own (its members were kept and recalled)
        long coldDeadline = System.currentTimeMillis() + 300_000;
        long coldLeft = coldObjects(leaverCold);
        while (coldLeft > 0 && System.currentTimeMillis() < coldDeadline)
        {
            Thread.sleep(5000);
            coldLeft = coldObjects(leaverCold);
        }
        System.out.println("cold data objects under node " + LEAVER + "'s host id: " + coldBefore + " before it left, " + coldLeft
                           + " after the repair (" + (System.currentTimeMillis() - repairedAt) / 1000 + " s after it)");
        assertEquals(0, coldLeft, "no cold object of the departed node is left in " + leaverCold);
        // nor any parity object no record uses (the departed node's offloaded parity chunks after MOVE_PARITY)
        List<String> orphanParity = RingChangeChecks.orphanParityObjects(SCRIPT.runDir(), session, KS, "usertable");
        while (!orphanParity.isEmpty() && System.currentTimeMillis() < coldDeadline)
        {
            Thread.sleep(5000);
            orphanParity = RingChangeChecks.orphanParityObjects(SCRIPT.runDir(), session, KS, "usertable");
        }
        assertEquals(List.of(), orphanParity, "parity objects in the cold tier that no stripe record uses");

        int covered = 0;
        for (int i = 1; i < NODES; i++)
            covered += (int) Files.readString(SCRIPT.runDir().resolve("cluster/node" + i + "/logs/system.log")).lines()
                                  .filter(l -> l.contains("after a ring change")).count();
        System.out.println("stubs installed by stub coverage on nodes 1-" + (NODES - 1) + " (ranges taken over from node " + LEAVER + "): " + covered);

        PreparedStatement get = session.prepare("SELECT field0, field3 FROM " + KS + ".usertable WHERE key = ?");
        for (int k = 0; k < KEYS; k++)
            for (ConsistencyLevel cl : List.of(ConsistencyLevel.ONE, ConsistencyLevel.ALL))
                check(session.execute(get.bind(key(k)).setConsistencyLevel(cl)).one(), k, cl + " after node " + LEAVER + " left");
        for (int i = 1; i < NODES; i++)
        {
            Result verify = SCRIPT.runTool(900, "bin/electtool", "-p", String.valueOf(7099 + 100 * i), "verify", "--json");
            assertEquals(0, verify.code(), "electtool verify on node " + i + ": " + verify.output());
        }
        // measured, not asserted yet (issue 18 wants it back within 2 points of alpha): the saving once transitioning
        // has had the read-back and verify minutes to encode the re-replicated rows again
        JsonNode later = JSON.readTree((String) LocalClusterScript.jmxAttribute(1, ElectNodeMBean.OBJECT_NAME, "StorageJson"));
        System.out.println("saving right after the repair " + after.path("tables").path(0).path("achieved_saving").asDouble() + ", "
                           + (System.currentTimeMillis() - repairedAt) / 1000 + " s later "
                           + later.path("tables").path(0).path("achieved_saving").asDouble() + " (alpha " + ALPHA + ")");
        // single-node failures are still survivable: every key at ONE with node 3 down
        assertEquals(0, SCRIPT.run(180, "kill", "--hard", "3").code());
        Thread.sleep(10_000);
        for (int k = 0; k < KEYS; k += 3)
            check(session.execute(get.bind(key(k)).setConsistencyLevel(ConsistencyLevel.ONE)).one(), k, "ONE with node 3 down");
    }

    /**
     * A first decommission of the leaving node ({@code electtool decommission} in drain mode, else {@code nodetool}),
     * killed with SIGKILL when its log shows {@link #KILL_AT}; the node is restarted with its data and must come back
     * UN (Cassandra does not resume an interrupted decommission, nor does ELECT's: the drain mark stays, so the
     * coordinator goes on draining, and the operator runs the command again, which the caller does).
     */
    private static void decommissionInterrupted() throws Exception
    {
        java.nio.file.Path log = SCRIPT.runDir().resolve("cluster/node" + LEAVER + "/logs/system.log");
        long seenBefore = Files.readString(log).lines().filter(l -> java.util.regex.Pattern.compile(KILL_AT).matcher(l).find()).count();
        Thread first = new Thread(() -> {
            try
            {
                System.out.println("first decommission (to be killed): " + (DRAIN
                    ? SCRIPT.runTool(1800, "bin/electtool", "-p", String.valueOf(7099 + 100 * NODES), "decommission").code()
                    : SCRIPT.run(1800, "nodetool", LEAVER, "decommission").code()));
            }
            catch (Exception e)
            {
                System.out.println("first decommission: " + e);
            }
        });
        first.start();
        java.util.regex.Pattern at = java.util.regex.Pattern.compile(KILL_AT);
        long deadline = System.currentTimeMillis() + 300_000;
        while (Files.readString(log).lines().filter(l -> at.matcher(l).find()).count() <= seenBefore)
        {
            assertTrue(System.currentTimeMillis() < deadline, "node " + LEAVER + " never logged " + KILL_AT);
            Thread.sleep(50);
        }
        assertEquals(0, SCRIPT.run(180, "kill", "--hard", LEAVER).code());
        System.out.println("node " + LEAVER + " killed at /" + KILL_AT + "/ mid-decommission; restarting it");
        first.join(600_000);
        assertEquals(0, SCRIPT.run(600, "restart-node", LEAVER, "--timeout", "600").code());
        long up = System.currentTimeMillis() + 600_000;
        while (!SCRIPT.run(120, "nodetool", "1", "status").output().lines().anyMatch(l -> l.startsWith("UN") && l.contains(LEAVING + " ")))
        {
            assertTrue(System.currentTimeMillis() < up, "node " + LEAVER + " was not UN within 10 minutes of its restart");
            Thread.sleep(3000);
        }
        System.out.println("node " + LEAVER + " is UN again after the interrupted decommission: " + storage().path("stripes"));
    }

    /**
     * {@code electtool decommission --cancel} on a real cluster: node 3 is stopped first so that the drain cannot move
     * anything (every ring member must answer a move) and is certainly still DRAINING when the cancel arrives (a drain
     * with every node up finishes in seconds, and a cancel after it is refused); then the cancel must end the drain
     * (CANCELLED), remove the durable mark from {@code elect_system.drains}, leave node 4 a ring member holding what it
     * held, and the storage report must stop naming it; node 3 then returns and the caller decommissions for real.
     */
    private static void cancelledWhileDraining() throws Exception
    {
        String port = String.valueOf(7099 + 100 * NODES);
        int[] before = naming(LEAVING);
        assertEquals(0, SCRIPT.run(180, "kill", "--hard", "3").code());
        long down = System.currentTimeMillis() + 120_000;
        while (!SCRIPT.run(120, "nodetool", LEAVER, "status").output().lines().anyMatch(l -> l.startsWith("DN") && l.contains("127.0.0.3 ")))
        {
            assertTrue(System.currentTimeMillis() < down, "node " + LEAVER + " did not see node 3 down within 2 minutes");
            Thread.sleep(2000);
        }
        Result started = SCRIPT.runTool(300, "bin/electtool", "-p", port, "decommission", "--no-wait");
        assertEquals(0, started.code(), "electtool decommission --no-wait: " + started.output());
        JsonNode status = null;
        long waiting = System.currentTimeMillis() + 60_000;
        while (status == null || !status.path("waiting").asText("").contains("nodes down"))
        {
            assertTrue(System.currentTimeMillis() < waiting, "the drain did not report waiting for node 3: " + status);
            Thread.sleep(1000);
            status = decommissionStatus();
            assertEquals("DRAINING", status.path("phase").asText(), status.toString());
            assertTrue(status.path("marked_draining").asBoolean(), "the drain mark is written: " + status);
        }
        System.out.println("drain with node 3 down: " + status);
        assertEquals(1, session.execute("SELECT node FROM elect_system.drains").all().stream()
                               .filter(r -> LEAVING.equals(r.getString(0))).count(), "node " + LEAVER + " is marked draining");
        Result cancelled = SCRIPT.runTool(300, "bin/electtool", "-p", port, "decommission", "--cancel");
        System.out.println(cancelled.output());
        assertEquals(0, cancelled.code(), "electtool decommission --cancel: " + cancelled.output());
        long ended = System.currentTimeMillis() + 30_000;
        do
        {
            assertTrue(System.currentTimeMillis() < ended, "the drain did not end within 30 s of the cancel: " + status);
            Thread.sleep(1000);
            status = decommissionStatus();
        }
        while (!status.path("phase").asText().equals("CANCELLED"));
        // three checks (the worker restores a lost mark every 2 s while it drains: none may come after the cancel)
        for (int i = 0; i < 3; i++)
        {
            Thread.sleep(2500);
            assertEquals(0, session.execute("SELECT node FROM elect_system.drains").all().stream()
                                   .filter(r -> LEAVING.equals(r.getString(0))).count(), "the cancel removed node " + LEAVER + "'s drain mark");
            status = decommissionStatus();
            assertEquals(false, status.path("marked_draining").asBoolean(true), status.toString());
        }
        Result shown = SCRIPT.runTool(300, "bin/electtool", "-p", port, "decommission", "--status");
        System.out.println(shown.output());
        assertTrue(shown.code() == 0 && shown.output().contains("decommission CANCELLED"), "electtool decommission --status: " + shown.output());
        assertEquals(0, storage().path("stripes_naming_draining_nodes").size(), "no draining node in the storage report: " + storage());
        int[] after = naming(LEAVING);
        System.out.println("stripes naming node " + LEAVER + " before the cancelled drain " + (before[0] + before[1]) + ", after it "
                           + (after[0] + after[1]) + " (nothing can move with node 3 down)");
        assertTrue(SCRIPT.run(120, "nodetool", "1", "status").output().lines().anyMatch(l -> l.startsWith("U") && l.contains(LEAVING + " ")),
                   "node " + LEAVER + " is still a ring member");
        assertEquals(0, SCRIPT.run(600, "restart-node", "3", "--timeout", "600").code());
        long up = System.currentTimeMillis() + 600_000;
        while (!SCRIPT.run(120, "nodetool", "1", "status").output().lines().anyMatch(l -> l.startsWith("UN") && l.contains("127.0.0.3 ")))
        {
            assertTrue(System.currentTimeMillis() < up, "node 3 was not UN within 10 minutes of its restart");
            Thread.sleep(3000);
        }
        System.out.println("decommission of node " + LEAVER + " cancelled while draining (" + status + "); node 3 is back");
    }

    /** Files (objects) under a directory of the cold tier's filesystem backend; 0 when it does not exist. */
    /** The stripe whose change node 4 was killed in the middle of (inflight mode). */
    private static io.elect.core.stripes.StripeId inFlight;

    /**
     * Inflight mode: every key of a member of node 1, 2 or 3 whose stripe names node 4 (a parity chunk or another
     * member) is written again, the nodes flush, and node 4 is SIGKILLed as soon as that stripe is seen CHANGING
     * (polled every 10 ms), so that the change waits for it. Returns the stripe. Fails if the change finished first
     * (nothing would be in flight: run again).
     */
    private static io.elect.core.stripes.StripeId killMidChange() throws Exception
    {
        java.util.function.Predicate<StripeRecord> naming4 = r -> r.parityNodes().contains(LEAVING)
            || r.members().stream().anyMatch(m -> !m.isVirtual() && m.node().equals(LEAVING));
        java.util.function.IntPredicate slice = null;
        int owner = 0;
        for (int i = 1; i < NODES && slice == null; i++)
        {
            String addr = "127.0.0." + i + ":";
            com.datastax.oss.driver.api.core.metadata.Node n = session.getMetadata().getNodes().values().stream()
                .filter(x -> x.getEndPoint().resolve().toString().contains(addr)).findFirst().orElseThrow();
            slice = MemberRemovalCheck.slice(session, n, i, KS, "usertable", KEYS, TransitioningIT::key, naming4);
            owner = i;
        }
        assertNotNull(slice, "no member of nodes 1-" + (NODES - 1) + " in a stripe naming node " + LEAVER);
        java.util.Map<io.elect.core.stripes.StripeId, Long> generations = new java.util.HashMap<>();
        for (StripeRecord r : records())
            generations.put(r.id(), r.parityGeneration());
        // the same values again, newer timestamps: the member is fully shadowed, every read still sees version 0
        PreparedStatement put = session.prepare("INSERT INTO " + KS + ".usertable (key, field0, field3) VALUES (?, ?, ?)");
        List<java.util.concurrent.CompletionStage<com.datastax.oss.driver.api.core.cql.AsyncResultSet>> writes = new java.util.ArrayList<>();
        int rewritten = 0;
        for (int k = 0; k < KEYS; k++)
            if (slice.test(k))
            {
                rewritten++;
                writes.add(session.executeAsync(put.bind(key(k), TransitioningIT.value(k, 0, 0), TransitioningIT.value(k, 0, 3))
                                                   .setConsistencyLevel(ConsistencyLevel.ALL)));
                if (writes.size() >= 64)
                {
                    for (var w : writes)
                        w.toCompletableFuture().get();
                    writes.clear();
                }
            }
        for (var w : writes)
            w.toCompletableFuture().get();
        for (int i = 1; i <= NODES; i++)
            assertEquals(0, SCRIPT.run(180, "nodetool", String.valueOf(i), "flush", KS).code());
        // killed from here, not through the script (a Python start takes longer than a change's step: the first run
        // saw the stripe CHANGING and killed node 4 after the step had its answers)
        long pid = JSON.readTree(SCRIPT.runDir().resolve("cluster/cluster.json").toFile()).path("nodes").path(LEAVER).path("pid").asLong();
        ProcessHandle leaver = ProcessHandle.of(pid).orElseThrow(() -> new AssertionError("node " + LEAVER + " (pid " + pid + ") is not running"));
        long until = System.currentTimeMillis() + 300_000;
        while (System.currentTimeMillis() < until)
        {
            for (StripeRecord r : records())
            {
                if (!naming4.test(r) || r.parityGeneration() <= generations.getOrDefault(r.id(), Long.MAX_VALUE))
                    continue;
                if (r.state() == StripeState.CHANGING)
                {
                    leaver.destroyForcibly();
                    SCRIPT.run(180, "kill", "--hard", LEAVER); // the script's state: node 4 stopped
                    System.out.println("inflight: " + rewritten + " keys of a node-" + owner + " member rewritten; node " + LEAVER
                                       + " killed while stripe " + r.id() + " was CHANGING to generation " + r.parityGeneration()
                                       + " (parity on " + r.parityNodes() + ", members " + r.members() + ")");
                    return r.id();
                }
                throw new AssertionError("stripe " + r.id() + " changed to generation " + r.parityGeneration() + " before node " + LEAVER
                                         + " could be killed mid-change (" + r.state() + "): nothing in flight, run again");
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no change of a stripe naming node " + LEAVER + " within 300 s of rewriting " + rewritten + " keys");
    }

    private static long coldObjects(java.nio.file.Path dir) throws java.io.IOException
    {
        if (!Files.isDirectory(dir))
            return 0;
        try (java.util.stream.Stream<java.nio.file.Path> s = Files.walk(dir))
        {
            return s.filter(Files::isRegularFile).count();
        }
    }

    /** The leaving node's decommission status ({@code electtool decommission --status --json}'s document, over JMX). */
    private static JsonNode decommissionStatus() throws Exception
    {
        return JSON.readTree((String) LocalClusterScript.jmxAttribute(NODES, ElectNodeMBean.OBJECT_NAME, "DecommissionJson"));
    }

    /** Committed stripes naming {@code node}: [with a data member there, with only parity there]. */
    private static int[] naming(String node)
    {
        int[] out = new int[2];
        for (StripeRecord r : records())
        {
            if (r.state() == StripeState.ROLLED_BACK || r.state() == StripeState.RETIRED)
                continue;
            if (r.members().stream().anyMatch(x -> !x.isVirtual() && node.equals(x.node())))
                out[0]++;
            else if (r.parityNodes().contains(node))
                out[1]++;
        }
        return out;
    }

    private static int open()
    {
        int n = 0;
        for (StripeRecord r : records())
            if (r.state() != StripeState.COMMITTED && r.state() != StripeState.ROLLED_BACK && r.state() != StripeState.RETIRED)
                n++;
        return n;
    }

    private static List<StripeRecord> records()
    {
        return LocalClusterScript.stripeRecords(session);
    }


}
