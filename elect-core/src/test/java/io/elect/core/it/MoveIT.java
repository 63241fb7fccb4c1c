package io.elect.core.it;

import java.nio.file.Files;
import java.util.List;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.metadata.Node;
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
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node with encoded data changes its token (issue 18 item 2, {@code nodetool move}; docs/design/topology.md
 * "Move"): a real 4-node cluster (RF = 3, RS k=2 m=1, alpha 0.6, cold tier on, evenly spaced tokens) encodes an
 * ELECT table, then node 4 moves from 2^62 to 2^61, halfway to node 3's token: the range (2^61, 2^62] leaves node 4's
 * replica set and joins node 3's. Cassandra streams node 3 that range from the replicas that keep it, whose copies of
 * the encoded rows are stubs (streams leave them out); node 3's stub coverage must install those stubs while the move
 * is under way. Afterwards every key reads back at ONE and ALL and at ONE through node 3 and node 4 as coordinators,
 * the saving returns to within 2 points of alpha, {@code electtool verify} passes on the four nodes, and every
 * third key reads at ONE with node 2 killed.
 *
 * <p>Not part of {@code scripts/elect test}: run it with {@code mvn -pl elect-core -am verify -Dtest=none
 * -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=MoveIT -Dfailsafe.failIfNoSpecifiedTests=false -Delect.it.move=true}.
 */
@EnabledIfSystemProperty(named = "elect.it.move", matches = "true")
class MoveIT
{
    private static final LocalClusterScript SCRIPT = new LocalClusterScript("it-move-run");
    private static final int KEYS = Integer.getInteger("elect.it.move.keys", 24000);
    private static final String KS = "elect_move_it";
    private static final double ALPHA = 0.6;
    /** Node 4's token before (scripts/lib/elect_cluster.py: evenly spaced, -2^63 + 3 * 2^62) and after the move. */
    private static final long FROM = 1L << 62, TO = 1L << 61;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static CqlSession session;

    @BeforeAll
    static void startCluster() throws Exception
    {
        Result r = SCRIPT.startTransitioning(4);
        assertEquals(0, r.code(), "elect-cluster start failed:\n" + r.output());
        session = LocalClusterScript.session(LocalClusterScript.loopback(4));
    }

    @AfterAll
    static void stopCluster() throws Exception
    {
        if (session != null)
            session.close();
        SCRIPT.run(300, "stop", "--kill"); // a throwaway cluster: no drain (saves ~20 s)
    }

    @Test
    void aNodeWithEncodedDataMoves() throws Exception
    {
        String yaml4 = Files.readString(SCRIPT.runDir().resolve("cluster/node4/cassandra.yaml"));
        assertTrue(yaml4.contains("initial_token: " + FROM), "node 4 starts at token " + FROM);
        LocalClusterScript.createElectUsertable(session, KS);
        LocalClusterScript.loadUsertable(session, KS, KEYS);
        SCRIPT.flushAndCompact(KS, 4);
        JsonNode before = LocalClusterScript.awaitSettled(ALPHA - 0.1);
        System.out.println("before the move: " + before.path("stripes") + ", saving " + saving(before));

        long t0 = System.currentTimeMillis();
        Result moved = SCRIPT.run(1800, "nodetool", "4", "move", String.valueOf(TO));
        assertEquals(0, moved.code(), "nodetool move: " + moved.output());
        long moveMs = System.currentTimeMillis() - t0;
        assertTrue(SCRIPT.run(120, "nodetool", "1", "ring").output().contains(String.valueOf(TO)),
                   "node 1 sees node 4 at its new token");
        System.out.println("node 4 moved to " + TO + " in " + moveMs + " ms");

        // node 3 gained (2^61, 2^62] from the move: the stubs of the encoded rows in it came from its stub coverage
        String log3 = Files.readString(SCRIPT.runDir().resolve("cluster/node3/logs/system.log"));
        long coverage3 = log3.lines().filter(l -> l.contains("installed: this node replicates part of its span")).count();
        System.out.println("stubs installed on node 3 after the ring change: " + coverage3);
        log3.lines().filter(l -> l.contains("installed: this node replicates part of its span")).limit(10).forEach(System.out::println);
        // node 4's members span its old range (0, 2^62]: some hold rows of (2^61, 2^62], whose stubs node 3 now needs
        assertTrue(coverage3 > 0, "node 3 installed stubs of the encoded rows of the range it gained");

        PreparedStatement get = session.prepare("SELECT field0, field3 FROM " + KS + ".usertable WHERE key = ?");
        for (int k = 0; k < KEYS; k++)
            for (ConsistencyLevel cl : List.of(ConsistencyLevel.ONE, ConsistencyLevel.ALL))
                check(session.execute(get.bind(key(k)).setConsistencyLevel(cl)).one(), k, cl + " after the move");
        // reads at ONE coordinated by the two nodes whose replica sets changed (a coordinator that is a replica
        // answers from itself first)
        for (String coordinator : List.of("127.0.0.3", "127.0.0.4"))
        {
            Node node = session.getMetadata().getNodes().values().stream()
                               .filter(n -> n.getEndPoint().resolve().toString().contains(coordinator)).findFirst().orElseThrow();
            for (int k = 0; k < KEYS; k += 2)
                check(session.execute(get.bind(key(k)).setConsistencyLevel(ConsistencyLevel.ONE).setNode(node)).one(), k,
                      "ONE via " + coordinator + " after the move");
        }

        // the rows streamed to node 3 are replicated data until transitioning encodes them again
        SCRIPT.flushAndCompact(KS, 4);
        JsonNode now = RingChangeChecks.awaitSavingNear(ALPHA, 900_000);
        System.out.println("saving " + saving(now) + " " + (System.currentTimeMillis() - t0) / 1000 + " s after the move began; "
                           + "stripes " + now.path("stripes"));
        assertEquals(ALPHA, saving(now), 0.02, "the saving returns to within 2 points of alpha: " + now);
        // node 4 lost only part of its own primary range; stubs it holds are of its secondary ranges, which it keeps
        System.out.println("stubs removed as strays on node 4: " + Files.readString(SCRIPT.runDir().resolve("cluster/node4/logs/system.log"))
                                                                       .lines().filter(l -> l.contains("no longer replicates any of its span")).count());

        RingChangeChecks.assertChunksOnDistinctNodes(session);
        for (int i = 1; i <= 4; i++)
        {
            Result verify = SCRIPT.runTool(900, "bin/electtool", "-p", String.valueOf(7099 + 100 * i), "verify", "--json");
            assertEquals(0, verify.code(), "electtool verify on node " + i + ": " + verify.output());
        }
        for (int k = 0; k < KEYS; k += 7)
            check(session.execute(get.bind(key(k)).setConsistencyLevel(ConsistencyLevel.ALL)).one(), k, "ALL after re-encoding");
        // one failure is still survivable: every third key at ONE with node 2 down
        assertEquals(0, SCRIPT.run(180, "kill", "--hard", "2").code());
        Thread.sleep(10_000);
        for (int k = 0; k < KEYS; k += 3)
            check(session.execute(get.bind(key(k)).setConsistencyLevel(ConsistencyLevel.ONE)).one(), k, "ONE with node 2 down");
    }



}
