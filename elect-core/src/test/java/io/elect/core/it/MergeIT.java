package io.elect.core.it;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.AsyncResultSet;
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
import static io.elect.core.it.TransitioningIT.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Member merges on a real cluster with a node killed in the middle of one (issue 16 items 1-4, docs/design/updates.md):
 * 3 nodes (RF = 3, RS k=2 m=1, alpha 0.6, cold tier on, {@code member_merge_enabled} with share 0.1,
 * {@code update_policy} from {@code -Delect.it.merge.policy}, default auto) encode an ELECT table; then a third of
 * the keys are written again (CL ALL) in rounds, so encoded members fill with obsolete versions and the coordinator
 * merges them. Whenever a stripe is seen CHANGING to a member's next version, one node is killed with SIGKILL, the
 * victims taking turns (property {@code elect.it.merge.victims}, default {@code member,parity,coordinator}): the
 * member's node (it holds both versions, the merge marker and the pushed delta), the stripe's first parity node (it
 * holds generation g and is computing g + 1), or the transitioning coordinator (the ring member with the smallest
 * address, which drives the change; the next one takes over and recovery finishes it). A kill counts only if the
 * record still shows the change afterwards (confirmed mid-change), and the node is started again. After
 * {@code elect.it.merge.kills} confirmed kills (default one per victim kind) and the cluster settled: no stripe is left in a change, every key reads its latest value at ONE and ALL,
 * {@code electtool verify} passes on every node, merges and parity generations were counted by {@code electtool
 * updates}, and every key still reads at ONE with a node down (stubs decode with the new parity generations).
 *
 * <p>Not part of {@code scripts/elect test} (it adds minutes): {@code mvn -pl elect-core -am verify -Dtest=none
 * -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=MergeIT -Dfailsafe.failIfNoSpecifiedTests=false
 * -Delect.it.merge=true [-Delect.it.merge.policy=reencode]}.
 */
@EnabledIfSystemProperty(named = "elect.it.merge", matches = "true")
class MergeIT
{
    private static final LocalClusterScript SCRIPT = new LocalClusterScript("it-merge-run");
    private static final int KEYS = Integer.getInteger("elect.it.merge.keys", 15000);
    private static final List<String> VICTIMS = List.of(System.getProperty("elect.it.merge.victims", "member,parity,coordinator")
                                                              .split(","));
    private static final int KILLS = Integer.getInteger("elect.it.merge.kills", VICTIMS.size());
    private static final String POLICY = System.getProperty("elect.it.merge.policy", "auto");
    private static final String KS = "elect_merge_it";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static CqlSession session;

    @BeforeAll
    static void startCluster() throws Exception
    {
        Result r = SCRIPT.startTransitioning(3, "elect.member_merge_enabled=true", "elect.member_merge_min_obsolete_share=0.1",
                                             "elect.update_policy=" + POLICY);
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
    void mergesSurviveKillsOfTheMembersNodeAParityNodeAndTheCoordinatorMidChange() throws Exception
    {
        session.execute("CREATE KEYSPACE " + KS + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}");
        session.execute("CREATE TABLE " + KS + ".usertable (key text PRIMARY KEY, field0 text, field3 text) WITH compaction = "
                        + "{'class': 'io.elect.core.bridge.ElectCompactionStrategy', 'sstable_size_in_mb': 1, 'fanout_size': 4}");
        LocalClusterScript.loadUsertable(session, KS, KEYS);
        flushAndCompact();
        awaitSettled(600_000);
        int[] version = new int[KEYS];

        PreparedStatement update = session.prepare("UPDATE " + KS + ".usertable SET field0 = ?, field3 = ? WHERE key = ?");
        int confirmed = 0, attempts = 0, round = 0;
        long deadline = System.currentTimeMillis() + 1_500_000;
        while (confirmed < KILLS && System.currentTimeMillis() < deadline)
        {
            // a round of overwrites: a third of the keys, a different third each round, at CL ALL
            round++;
            List<CompletionStage<AsyncResultSet>> inflight = new ArrayList<>();
            for (int k = round % 3; k < KEYS; k += 3)
            {
                version[k] = round;
                inflight.add(session.executeAsync(update.bind(value(k, round, 0), value(k, round, 3), key(k))
                                                        .setConsistencyLevel(ConsistencyLevel.ALL)));
                if (inflight.size() >= 128)
                    drain(inflight);
            }
            drain(inflight);
            flushAndCompact();
            // watch for a merge: a stripe CHANGING whose slot names a real next version on the previous member's node
            long roundEnd = System.currentTimeMillis() + 240_000;
            while (System.currentTimeMillis() < roundEnd && confirmed < KILLS)
            {
                StripeRecord changing = records().stream()
                                                          .filter(r -> r.state() == StripeState.CHANGING && r.change() != null
                                                                       && !r.members().get(r.change().slot()).isVirtual()
                                                                       && !r.change().previous().isVirtual() // a fill of a virtual slot is no merge
                                                                       && r.change().previous().node().equals(r.members().get(r.change().slot()).node()))
                                                          .findFirst().orElse(null);
                if (changing == null)
                {
                    Thread.sleep(100);
                    continue;
                }
                String kind = VICTIMS.get(confirmed % VICTIMS.size()).trim();
                String victim = switch (kind)
                {
                    case "member" -> changing.change().previous().node();
                    case "parity" -> changing.parityNodes().get(0);
                    case "coordinator" -> "127.0.0.1"; // every node is up: the smallest address coordinates
                    default -> throw new IllegalArgumentException("elect.it.merge.victims: unknown kind '" + kind
                                                                  + "'; allowed: member, parity, coordinator");
                };
                int node = Integer.parseInt(victim.substring(victim.lastIndexOf('.') + 1));
                assertEquals(0, SCRIPT.run(180, "kill", "--hard", String.valueOf(node)).code());
                attempts++;
                StripeRecord after = records().stream().filter(x -> x.id().equals(changing.id()))
                                                       .findFirst().orElseThrow();
                boolean mid = after.parityGeneration() == changing.parityGeneration()
                              && (after.state() == StripeState.CHANGING || after.state() == StripeState.CHANGED);
                System.out.printf("round %d: killed node %d (%s) while stripe %s was CHANGING to generation %d; afterwards %s at %d: %s%n",
                                  round, node, kind, changing.id(), changing.parityGeneration(), after.state(), after.parityGeneration(),
                                  mid ? "confirmed mid-change" : "the change had finished");
                if (mid)
                    confirmed++;
                Thread.sleep(5000);
                Result restarted = SCRIPT.run(900, "restart-node", String.valueOf(node));
                assertEquals(0, restarted.code(), "restart of node " + node + ": " + restarted.output());
                break;
            }
        }
        assertTrue(confirmed >= KILLS, confirmed + " kills confirmed mid-change (of " + attempts + " tried in " + round + " rounds)");
        awaitSettled(900_000);

        PreparedStatement get = session.prepare("SELECT field0, field3 FROM " + KS + ".usertable WHERE key = ?");
        for (int k = 0; k < KEYS; k++)
            for (ConsistencyLevel cl : List.of(ConsistencyLevel.ONE, ConsistencyLevel.ALL))
                check(session.execute(get.bind(key(k)).setConsistencyLevel(cl)).one(), k, version[k], cl + " after the merges");
        long merged = 0, generations = 0, pushed = 0;
        for (int i = 1; i <= 3; i++)
        {
            Result verify = SCRIPT.runTool(900, "bin/electtool", "-p", String.valueOf(7099 + 100 * i), "verify", "--json");
            assertEquals(0, verify.code(), "electtool verify on node " + i + ": " + verify.output());
            JsonNode u = JSON.readTree((String) LocalClusterScript.jmxAttribute(i, ElectNodeMBean.OBJECT_NAME, "UpdatesJson"));
            merged += u.path("coordinator").path("MembersMerged").asLong();
            generations += u.path("parity_maintenance").path("Changes").asLong();
            pushed += u.path("parity_maintenance").path("ByPushedDelta").asLong();
            System.out.println("electtool updates on node " + i + ": " + u);
        }
        long changedStripes = records().stream().filter(r -> r.parityGeneration() > 0).count();
        System.out.printf("%d confirmed kills mid-change in %d rounds; %d stripes at parity generation >= 1; counters since the last "
                          + "restarts: %d members merged, %d parity generations (%d from pushed deltas)%n", confirmed, round,
                          changedStripes, merged, generations, pushed);
        assertTrue(changedStripes > 0, "some stripe changed");

        // a node down: every key still reads at ONE (stubs decode with the stripes' current parity generations)
        assertEquals(0, SCRIPT.run(180, "kill", "--hard", "3").code());
        Thread.sleep(10_000);
        for (int k = 0; k < KEYS; k++)
            check(session.execute(get.bind(key(k)).setConsistencyLevel(ConsistencyLevel.ONE)).one(), k, version[k], "ONE with node 3 down");
    }

    /** The stripe records; a read that times out while a node was just killed or is starting is tried again. */
    private static List<StripeRecord> records() throws Exception
    {
        long deadline = System.currentTimeMillis() + 90_000;
        while (true)
        {
            try
            {
                return LocalClusterScript.stripeRecords(session);
            }
            catch (com.datastax.oss.driver.api.core.DriverException e)
            {
                if (System.currentTimeMillis() > deadline)
                    throw e;
                Thread.sleep(1000);
            }
        }
    }

    private static void flushAndCompact() throws Exception
    {
        for (int i = 1; i <= 3; i++)
        {
            assertEquals(0, SCRIPT.run(180, "nodetool", String.valueOf(i), "flush", KS).code());
            assertEquals(0, SCRIPT.compact(i, KS).code());
        }
    }

    /** Until no stripe is in flight or in a change, committed stripes exist and the saving is at least 0.5. */
    private static void awaitSettled(long millis) throws Exception
    {
        long deadline = System.currentTimeMillis() + millis;
        while (System.currentTimeMillis() < deadline)
        {
            JsonNode report = JSON.readTree((String) LocalClusterScript.jmxAttribute(1, ElectNodeMBean.OBJECT_NAME, "StorageJson"));
            JsonNode stripes = report.get("stripes");
            boolean changing = records().stream()
                                                 .anyMatch(r -> r.state() == StripeState.CHANGING || r.state() == StripeState.CHANGED);
            if (!changing && LocalClusterScript.inFlightStripes(stripes) == 0 && stripes.path("committed").asInt() > 0
                && report.get("tables").get(0).get("achieved_saving").asDouble() >= 0.5)
            {
                System.out.println("storage report: " + report);
                return;
            }
            Thread.sleep(5000);
        }
        throw new AssertionError("transitioning did not settle within " + millis / 1000 + " s");
    }

    private static void drain(List<CompletionStage<AsyncResultSet>> inflight) throws Exception
    {
        for (CompletionStage<AsyncResultSet> f : inflight)
            f.toCompletableFuture().get();
        inflight.clear();
    }

    private static void check(Row row, int k, int version, String how)
    {
        assertNotNull(row, "key " + key(k) + " readable (" + how + ")");
        assertEquals(value(k, version, 0), row.getString(0), "key " + key(k) + " field0 (" + how + ")");
        assertEquals(value(k, version, 3), row.getString(1), "key " + key(k) + " field3 (" + how + ")");
    }
}
