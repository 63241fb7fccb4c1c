package io.elect.core.it;

import java.util.List;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import io.elect.core.it.LocalClusterScript.Result;

import static io.elect.core.it.TransitioningIT.key;
import static io.elect.core.it.RingChangeChecks.check;
import static io.elect.core.it.RingChangeChecks.saving;
import static io.elect.core.it.RingChangeChecks.storage;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node joins a cluster holding encoded data (issue 18 item 1, docs/design/topology.md "Bootstrap"): a real 3-node
 * cluster (RF = 3, RS k=2 m=1, alpha 0.6, cold tier on) encodes an ELECT table, then node 4 bootstraps
 * ({@code scripts/elect-cluster add-node}: Cassandra streams it its ranges from the current replicas). Afterwards
 * every key reads back at ONE and ALL, {@code electtool verify} passes on the four nodes, every committed stripe
 * has its chunks on distinct nodes, the saving returns to within 2 points of alpha, and every third key reads at ONE
 * with node 3 killed. With {@code -Delect.it.bootstrap.grow=N}, nodes 4 .. 3 + N join one after another, each
 * checked as above before the next (reads, its stubs, the saving back within 2 points).
 * {@code -Delect.it.bootstrap.num_tokens=N} starts the nodes with N tokens each (vnodes; joiners take N too). With
 * {@code -Delect.it.bootstrap.kill=PATTERN}, node 4 is killed with SIGKILL when its log shows PATTERN and restarted:
 * it must resume the join and pass the same checks.
 *
 * <p>Not part of {@code scripts/elect test} (a bootstrap adds minutes to CI): run it with
 * {@code mvn -pl elect-core -am verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=BootstrapIT
 * -Dfailsafe.failIfNoSpecifiedTests=false -Delect.it.bootstrap=true}.
 */
@EnabledIfSystemProperty(named = "elect.it.bootstrap", matches = "true")
class BootstrapIT
{
    private static final LocalClusterScript SCRIPT = new LocalClusterScript("it-bootstrap-run");
    private static final int KEYS = Integer.getInteger("elect.it.bootstrap.keys", 24000);
    private static final String KS = "elect_bootstrap_it";
    private static final double ALPHA = 0.6;
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Nodes that join one after another (3 -> 3 + GROW; issue 18 asks for 3 -> 4 -> 6: {@code -Delect.it.bootstrap.grow=3}). */
    private static final int GROW = Integer.getInteger("elect.it.bootstrap.grow", 1);
    /** A regex of node 4's log at which it is killed mid-join (see joinAfterAKill); null: no kill. */
    private static final String KILL_AT = System.getProperty("elect.it.bootstrap.kill");
    /** Tokens per node ({@code elect-cluster start --num-tokens}; joiners take as many): vnodes with issue 18 item 5. */
    private static final int NUM_TOKENS = Integer.getInteger("elect.it.bootstrap.num_tokens", 1);
    private static CqlSession session;

    @BeforeAll
    static void startCluster() throws Exception
    {
        Result r = SCRIPT.startTransitioning(3, List.of("--num-tokens", String.valueOf(NUM_TOKENS)));
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
    void aNodeJoinsAClusterWithEncodedData() throws Exception
    {
        LocalClusterScript.createElectUsertable(session, KS);
        LocalClusterScript.loadUsertable(session, KS, KEYS);
        SCRIPT.flushAndCompact(KS, 3);
        JsonNode before = LocalClusterScript.awaitSettled(ALPHA - 0.1);
        int committedBefore = before.path("stripes").path("committed").asInt();

        for (int joiner = 4; joiner <= 3 + GROW; joiner++)
            join(joiner, committedBefore, before);

        // stubs of spans a node no longer replicates at all are removed by its maintenance (stray stubs)
        int stray = 0;
        for (int i = 1; i < 3 + GROW; i++)
            stray += (int) java.nio.file.Files.readString(SCRIPT.runDir().resolve("cluster/node" + i + "/logs/system.log")).lines()
                                             .filter(l -> l.contains("no longer replicates any of its span")).count();
        System.out.println("stray stubs removed on nodes 1-" + (2 + GROW) + ": " + stray);
        // With vnodes a member's span crosses many ranges: a node that lost some still replicates part of every span,
        // so its stubs stay (counted as replicated data only for their share in its ranges, LocalTables.replicatedShare).
        if (NUM_TOKENS == 1)
            assertTrue(stray > 0, "the nodes that lost ranges to the joiners removed their stubs of those ranges");

        RingChangeChecks.assertChunksOnDistinctNodes(session);
        PreparedStatement get = session.prepare("SELECT field0, field3 FROM " + KS + ".usertable WHERE key = ?");
        for (int i = 1; i <= 3 + GROW; i++)
        {
            Result verify = SCRIPT.runTool(900, "bin/electtool", "-p", String.valueOf(7099 + 100 * i), "verify", "--json");
            assertEquals(0, verify.code(), "electtool verify on node " + i + ": " + verify.output());
        }
        for (int k = 0; k < KEYS; k += 7)
            check(session.execute(get.bind(key(k)).setConsistencyLevel(ConsistencyLevel.ALL)).one(), k, "ALL after re-encoding");
        // one failure is still survivable: every third key at ONE with node 3 down
        assertEquals(0, SCRIPT.run(180, "kill", "--hard", "3").code());
        Thread.sleep(10_000);
        for (int k = 0; k < KEYS; k += 3)
            check(session.execute(get.bind(key(k)).setConsistencyLevel(ConsistencyLevel.ONE)).one(), k, "ONE with node 3 down");
    }

    /** Node {@code joiner} bootstraps (killed mid-join first if asked, the first joiner only); checks of one join. */
    private static void join(int joiner, int committedBefore, JsonNode before) throws Exception
    {
        long t0 = System.currentTimeMillis();
        if (KILL_AT != null && joiner == 4)
            joinAfterAKill();
        else
        {
            Result joined = SCRIPT.run(1800, "add-node");
            assertEquals(0, joined.code(), "add-node: " + joined.output());
        }
        long joinMs = System.currentTimeMillis() - t0;
        JsonNode after = storage();
        System.out.println("node " + joiner + " joined in " + joinMs + " ms; saving before " + saving(before) + ", right after the join "
                           + saving(after) + "; storage report: " + after);

        // the joiner waited in write survey mode for the stubs of the encoded rows it replicates (JoinSurvey)
        String log = java.nio.file.Files.readString(SCRIPT.runDir().resolve("cluster/node" + joiner + "/logs/system.log"));
        java.util.regex.Matcher caughtUp = java.util.regex.Pattern.compile("joined the ring after its catch-up \\(.*\\): \\{(.*)\\}").matcher(log);
        assertTrue(caughtUp.find(), "node " + joiner + " logged its catch-up and join");
        System.out.println("node " + joiner + "'s catch-up: " + caughtUp.group(0));
        // (after a kill mid-catch-up, the resumed catch-up may have installed none: its steps were done before the kill)
        long stubBytes = 0;
        for (JsonNode n : after.path("tables").path(0).path("nodes"))
            if (n.path("node").asText().equals("127.0.0." + joiner))
                stubBytes = n.path("stub_bytes").asLong();
        assertTrue(stubBytes > 0, "node " + joiner + " holds stubs once it joined: " + after);

        PreparedStatement get = session.prepare("SELECT field0, field3 FROM " + KS + ".usertable WHERE key = ?");
        for (int k = 0; k < KEYS; k++)
            for (ConsistencyLevel cl : List.of(ConsistencyLevel.ONE, ConsistencyLevel.ALL))
                check(session.execute(get.bind(key(k)).setConsistencyLevel(cl)).one(), k, cl + " after node " + joiner + " joined");

        // the joiner's streamed copies are replicated data until transitioning encodes them again
        SCRIPT.flushAndCompact(KS, joiner);
        JsonNode now = RingChangeChecks.awaitSavingNear(ALPHA, 900_000);
        long backMs = System.currentTimeMillis() - t0;
        System.out.println("saving " + saving(now) + " " + backMs / 1000 + " s after node " + joiner + "'s join began (alpha " + ALPHA
                           + "); stripes committed before the first join " + committedBefore + ", now " + now.path("stripes"));
        assertEquals(ALPHA, saving(now), 0.02, "the saving returns to within 2 points of alpha after node " + joiner + " joined: " + now);
    }

    /**
     * {@code -Delect.it.bootstrap.kill=PATTERN}: node 4 is killed (SIGKILL) as soon as its log shows PATTERN (e.g.
     * {@code "Starting to bootstrap"}: mid-streaming; {@code "join catch-up of .* started"}: mid-catch-up), then
     * restarted with its data: the survey marker makes it resume the join, and it must end UN with its stubs.
     */
    private static void joinAfterAKill() throws Exception
    {
        assertEquals(0, SCRIPT.run(300, "add-node", "--no-wait").code());
        java.nio.file.Path log = SCRIPT.runDir().resolve("cluster/node4/logs/system.log");
        java.util.regex.Pattern at = java.util.regex.Pattern.compile(KILL_AT);
        long deadline = System.currentTimeMillis() + 300_000;
        while (!(java.nio.file.Files.exists(log) && at.matcher(java.nio.file.Files.readString(log)).find()))
        {
            assertTrue(System.currentTimeMillis() < deadline, "node 4 never logged " + KILL_AT);
            Thread.sleep(50);
        }
        assertEquals(0, SCRIPT.run(180, "kill", "--hard", "4").code());
        System.out.println("node 4 killed at /" + KILL_AT + "/; restarting it");
        assertEquals(0, SCRIPT.run(600, "restart-node", "4", "--timeout", "600").code());
        deadline = System.currentTimeMillis() + 600_000;
        while (!SCRIPT.run(120, "nodetool", "1", "status").output().lines().anyMatch(l -> l.startsWith("UN") && l.contains("127.0.0.4 ")))
        {
            assertTrue(System.currentTimeMillis() < deadline, "node 4 did not join within 10 minutes of its restart");
            Thread.sleep(3000);
        }
        assertTrue(java.nio.file.Files.readString(log).contains("resumes a bootstrap in write survey mode"),
                   "the restart resumed the join in survey mode");
    }



}
