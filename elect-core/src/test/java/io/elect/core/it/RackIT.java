package io.elect.core.it;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import io.elect.core.it.LocalClusterScript.Result;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;

import static io.elect.core.it.RingChangeChecks.check;
import static io.elect.core.it.RingChangeChecks.saving;
import static io.elect.core.it.TransitioningIT.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Racks (issue 18 item 5): a real 6-node cluster in 3 racks ({@code scripts/elect-cluster start --racks 3}:
 * GossipingPropertyFileSnitch, node i in rack ((i-1) % 3) + 1), an ELECT table in a NetworkTopologyStrategy keyspace
 * (datacenter1: 3, so every key has one replica per rack), RS(2,1), alpha 0.6. Transitioning reaches alpha; every
 * committed stripe holds at most m = 1 chunk per rack (members by StripePlanner.membersPerRack, parity by
 * ParityPlacement); every key reads back at ONE and ALL; {@code electtool verify} passes on the six nodes; and with a
 * whole rack down (nodes 1 and 4 killed) every key still reads at ONE (one lost chunk per stripe at most).
 *
 * <p>Not part of {@code scripts/elect test}: run it with {@code mvn -pl elect-core -am verify -Dtest=none
 * -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=RackIT -Dfailsafe.failIfNoSpecifiedTests=false -Delect.it.racks=true}.
 */
@EnabledIfSystemProperty(named = "elect.it.racks", matches = "true")
class RackIT
{
    private static final LocalClusterScript SCRIPT = new LocalClusterScript("it-rack-run");
    private static final int NODES = 6, RACKS = 3;
    private static final int KEYS = Integer.getInteger("elect.it.racks.keys", 24000);
    private static final String KS = "elect_rack_it";
    private static final double ALPHA = 0.6;
    private static CqlSession session;

    @BeforeAll
    static void startCluster() throws Exception
    {
        Result r = SCRIPT.startTransitioning(NODES, List.of("--racks", String.valueOf(RACKS)));
        assertEquals(0, r.code(), "elect-cluster start failed:\n" + r.output());
        session = LocalClusterScript.session(List.of("127.0.0.2", "127.0.0.3"));
    }

    @AfterAll
    static void stopCluster() throws Exception
    {
        if (session != null)
            session.close();
        SCRIPT.run(300, "stop", "--kill"); // a throwaway cluster: no drain (saves ~20 s)
    }

    private static String rackOf(String node)
    {
        int i = Integer.parseInt(node.substring(node.lastIndexOf('.') + 1));
        return "rack" + ((i - 1) % RACKS + 1);
    }

    @Test
    void stripesSpreadOverRacksAndSurviveARack() throws Exception
    {
        String status = SCRIPT.run(120, "nodetool", "1", "status").output();
        assertTrue(status.contains("rack2") && status.contains("rack3"), "nodetool status shows the racks:\n" + status);
        LocalClusterScript.createElectUsertable(session, KS, "{'class': 'NetworkTopologyStrategy', 'datacenter1': 3}");
        LocalClusterScript.loadUsertable(session, KS, KEYS);
        SCRIPT.flushAndCompact(KS, NODES);
        LocalClusterScript.awaitSettled(ALPHA - 0.1);
        JsonNode now = RingChangeChecks.awaitSavingNear(ALPHA, 600_000);
        System.out.println("saving " + saving(now) + "; stripes " + now.path("stripes"));
        assertEquals(ALPHA, saving(now), 0.02, "the saving reaches alpha with racks: " + now);

        int stripes = 0;
        for (StripeRecord r : LocalClusterScript.stripeRecords(session, ConsistencyLevel.QUORUM))
        {
            if (r.state() != StripeState.COMMITTED)
                continue;
            Map<String, Integer> perRack = new HashMap<>();
            r.members().stream().filter(m -> !m.isVirtual()).forEach(m -> perRack.merge(rackOf(m.node()), 1, Integer::sum));
            r.parityNodes().forEach(p -> perRack.merge(rackOf(p), 1, Integer::sum));
            System.out.println("stripe " + r.id() + ": chunks per rack " + perRack);
            assertTrue(perRack.values().stream().allMatch(v -> v <= 1), "stripe " + r.id() + " holds more than m = 1 chunk in a rack: " + perRack);
            stripes++;
        }
        assertTrue(stripes > 0, "stripes committed");
        RingChangeChecks.assertChunksOnDistinctNodes(session);

        PreparedStatement get = session.prepare("SELECT field0, field3 FROM " + KS + ".usertable WHERE key = ?");
        for (int k = 0; k < KEYS; k++)
            for (ConsistencyLevel cl : List.of(ConsistencyLevel.ONE, ConsistencyLevel.ALL))
                check(session.execute(get.bind(key(k)).setConsistencyLevel(cl)).one(), k, cl + " with racks");
        for (int i = 1; i <= NODES; i++)
        {
            Result verify = SCRIPT.runTool(900, "bin/electtool", "-p", String.valueOf(7099 + 100 * i), "verify", "--json");
            assertEquals(0, verify.code(), "electtool verify on node " + i + ": " + verify.output());
        }
        // a whole rack down: every key still has two replicas, every stripe at most one lost chunk
        assertEquals(0, SCRIPT.run(180, "kill", "--hard", "1").code());
        assertEquals(0, SCRIPT.run(180, "kill", "--hard", "4").code());
        Thread.sleep(10_000);
        for (int k = 0; k < KEYS; k++)
            check(session.execute(get.bind(key(k)).setConsistencyLevel(ConsistencyLevel.ONE)).one(), k, "ONE with rack1 down");
    }
}
