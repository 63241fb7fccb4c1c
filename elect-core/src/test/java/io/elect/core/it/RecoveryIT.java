package io.elect.core.it;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DriverException;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.elect.core.it.LocalClusterScript;
import io.elect.core.it.LocalClusterScript.Result;
import io.elect.core.jmx.ElectNodeMBean;

import static io.elect.core.it.TransitioningIT.key;
import static io.elect.core.it.TransitioningIT.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Degraded reads and full-node recovery (issue 9) on a real 3-node cluster with the cold tier (RF = 3, RS k=2 m=1,
 * alpha 0.4, so that no parity is offloaded): after transitioning has encoded the ELECT table and some rows were updated,
 * <ol>
 * <li>one node killed: every key reads at CL ONE (stubs reconstruct the byte ranges read);</li>
 * <li>m + 1 = 2 nodes killed: reads of encoded rows whose stripe lost two members fail (the survivor's log names the
 *     unavailable members), while rows written after the failures read back;</li>
 * <li>the killed node's disk wiped and the node replaced (same address and token): {@code electtool rebuild} exits 0,
 *     {@code electtool verify} reports ok with the node's members checked, and every key (updates included) reads back
 *     at ONE and ALL, at ONE coordinated by the rebuilt node too.</li>
 * </ol>
 */
class RecoveryIT
{
    private static final LocalClusterScript SCRIPT = new LocalClusterScript("it-recovery-run");
    private static final int KEYS = Integer.getInteger("elect.it.recovery.keys", 6000);
    private static final String KS = "elect_recovery_it";
    /** Below 1 - (1 + m/k) / r = 0.5: every stripe stays on the hot tier, so m + 1 dead nodes really lose two members. */
    private static final double ALPHA = 0.4;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static CqlSession session;

    static
    {
        // No tiered chunk cache on the nodes: the stubs' purge reads (while every node is up) would otherwise leave
        // the whole small stub data cached, and reads with members down would never reach the stripe.
        SCRIPT.env.put("ELECT_JVM_OPTS", "-Delect.tiered.cache_bytes=0");
        System.setProperty("logback.configurationFile", LocalClusterScript.REPO.resolve("elect-core/src/test/resources/elect-trees-logback.xml").toString());
    }

    @BeforeAll
    static void startCluster() throws Exception
    {
        Result r = SCRIPT.run(1500, "start", "--nodes", "3", "--fresh", "--wait-for-ports", "900",
                              "--set", "elect.data_chunks=2", "--set", "elect.parity_chunks=1",
                              "--set", "elect.storage_saving_target=" + ALPHA, "--set", "elect.transition_min_age_seconds=0",
                              "--set", "elect.transition_interval_seconds=5", "--set", "elect.stripe_fill_wait_seconds=5",
                              "--set", "elect.primary_offload_min_age_seconds=0", "--set", "elect.cold_read_rate=1000");
        assertEquals(0, r.code(), "elect-cluster start failed:\n" + r.output());
        session = connect();
    }

    private static CqlSession connect()
    {
        return LocalClusterScript.session(LocalClusterScript.loopback(3));
    }

    @AfterAll
    static void stopCluster() throws Exception
    {
        if (session != null)
            session.close();
        SCRIPT.run(300, "stop", "--kill"); // a throwaway cluster: no drain (saves ~20 s)
    }

    @Test
    void degradedReadsAndNodeRebuild() throws Exception
    {
        session.execute("CREATE KEYSPACE " + KS + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}");
        session.execute("CREATE TABLE " + KS + ".usertable (key text PRIMARY KEY, field0 text, field3 text) WITH compaction = "
                        + "{'class': 'io.elect.core.bridge.ElectCompactionStrategy', 'sstable_size_in_mb': 1, 'fanout_size': 4}"
                        + " AND read_repair = 'NONE'");
        LocalClusterScript.loadUsertable(session, KS, KEYS);
        PreparedStatement put = session.prepare("INSERT INTO " + KS + ".usertable (key, field0, field3) VALUES (?, ?, ?)");
        for (int i = 1; i <= 3; i++)
        {
            assertEquals(0, SCRIPT.run(180, "nodetool", String.valueOf(i), "flush", KS).code());
            assertEquals(0, SCRIPT.compact(i, KS).code());
        }
        JsonNode report = awaitSettled();
        assertTrue(report.get("stripes").path("committed").asInt() > 0, "stripes committed: " + report);

        // updates after encoding: they live in the normal trees, shadowing the encoded versions
        PreparedStatement update = session.prepare("UPDATE " + KS + ".usertable SET field0 = ?, field3 = ? WHERE key = ?");
        for (int k = 0; k < KEYS; k += 29)
            session.execute(update.bind(value(k, 1, 0), value(k, 1, 3), key(k)).setConsistencyLevel(ConsistencyLevel.ALL));
        for (int i = 1; i <= 3; i++)
            assertEquals(0, SCRIPT.run(180, "nodetool", String.valueOf(i), "flush", KS).code());
        PreparedStatement get = session.prepare("SELECT field0, field3 FROM " + KS + ".usertable WHERE key = ?");

        // 1. One node down: every key at ONE.
        assertEquals(0, SCRIPT.run(180, "kill", "--hard", "3").code());
        Thread.sleep(10_000); // failure detection
        final PreparedStatement oneDown = get;
        checkAll(0, KEYS, 1, k -> oneDown.bind(key(k)).setConsistencyLevel(ConsistencyLevel.ONE), "node 3 down");

        // 2. m + 1 nodes down: encoded rows of stripes that lost two members fail cleanly; fresh rows read back.
        //    Which stripes lose more than m chunks depends on how they formed (a stripe of one real member, a virtual
        //    zero member and parity on node 1 loses only one; a later candidate may have filled the virtual slot, or be
        //    filling it): counted from the stripe records (rounds pause while node 3 is down, so none is added now),
        //    and the reads must fail exactly when there is one.
        int beyondM = stripesLosingMoreThanM(List.of("127.0.0.2", "127.0.0.3"), 1);
        System.out.println("committed stripes that lose more than m=1 chunks with nodes 2 and 3 down: " + beyondM);
        assertEquals(0, SCRIPT.run(180, "kill", "--hard", "2").code());
        Thread.sleep(10_000);
        // Only node 1 is up: it serves every read. Keys whose primary is node 1 read its own data and must all succeed;
        // a key of node 2's or node 3's range reads node 1's stub of an encoded member, whose stripe (k=2, m=1: all
        // three nodes) lost two members: it fails, and only with the clean error (a read failure naming the
        // unavailable members), never a timeout.
        com.datastax.oss.driver.api.core.metadata.TokenMap tokens = session.getMetadata().getTokenMap().orElseThrow();
        // every key, not a sample: a stripe's lost member may be a small fill member (a few partitions) that a sample of
        // every 7th key missed (fresh-clone CI pre-check at 5ee8142: 1 stripe beyond m, 0 of ~857 sampled reads failed)
        // 64 reads in flight (read one at a time, this loop took ~50 s of the CI run)
        List<Pending> inflight = new java.util.ArrayList<>();
        int[] outcomes = new int[2]; // failed, own keys read
        for (int k = 1; k < KEYS; k++)
        {
            if (k % 29 == 0)
                continue;
            com.datastax.oss.driver.api.core.metadata.token.Token token =
                tokens.newToken(com.datastax.oss.driver.api.core.type.codec.TypeCodecs.TEXT.encode(key(k), session.getContext().getProtocolVersion()));
            String primary = null;
            for (com.datastax.oss.driver.api.core.metadata.Node n : session.getMetadata().getNodes().values())
                for (com.datastax.oss.driver.api.core.metadata.token.TokenRange r : tokens.getTokenRanges(n))
                    if (r.contains(token))
                        primary = ((InetSocketAddress) n.getEndPoint().resolve()).getAddress().getHostAddress();
            inflight.add(new Pending(k, primary, session.executeAsync(get.bind(key(k)).setConsistencyLevel(ConsistencyLevel.ONE)).toCompletableFuture()));
            if (inflight.size() >= 64)
                twoDown(inflight, outcomes);
        }
        twoDown(inflight, outcomes);
        int failed = outcomes[0], ownOk = outcomes[1];
        System.out.println("nodes 2 and 3 down: " + failed + " of ~" + KEYS + " encoded-key reads failed, all of other nodes' ranges; "
                           + ownOk + " of node 1's own keys read");
        assertTrue(ownOk > 0, "node 1's own keys read back");
        if (beyondM == 0)
            assertEquals(0, failed, "no stripe lost more than m chunks, so every read must succeed");
        else
        {
            assertTrue(failed > 0, "with m+1 chunks of " + beyondM + " stripes down, some encoded reads must fail");
            String log = Files.readString(SCRIPT.runDir().resolve("cluster/node1/logs/system.log"));
            int at = log.lastIndexOf("unavailable");
            System.out.println("node 1's last 'unavailable' log line: " + (at < 0 ? "(none)" : log.substring(Math.max(0, log.lastIndexOf('\n', at)), Math.min(log.length(), at + 300))));
            // the failure is the clear one (more than m members down), not a timeout or a disk error
            assertTrue(log.contains("stripe members unavailable (more than m=1)"),
                       "node 1's log must name the unavailable stripe members of a failed read");
            assertFalse(log.contains("FSReadError"), "a failed remote read must not look like a local disk failure");
        }
        for (int k = KEYS; k < KEYS + 50; k++)
            session.execute(put.bind(key(k), value(k, 0, 0), value(k, 0, 3)).setConsistencyLevel(ConsistencyLevel.ONE));
        for (int k = KEYS; k < KEYS + 50; k++)
            check(session.execute(get.bind(key(k)).setConsistencyLevel(ConsistencyLevel.ONE)).one(), k, "fresh row, nodes 2, 3 down");

        // 3. Node 2 back; node 3 replaced with an empty disk and rebuilt.
        assertEquals(0, SCRIPT.run(600, "restart-node", "2").code());
        // node 3's data members as they were when its disk was lost (it is down: nothing adds a member on it meanwhile)
        java.util.Set<String> lost = dataMembersOf("127.0.0.3");
        Result replaced = SCRIPT.run(900, "replace-node", "3");
        assertEquals(0, replaced.code(), replaced.output());
        Thread.sleep(15_000); // gossip settles; schema reaches the replacement
        Result rebuild = SCRIPT.runTool(1800, "bin/electtool", "-p", "7399", "rebuild", "--throttle", "0");
        assertEquals(0, rebuild.code(), "electtool rebuild: " + rebuild.output());
        JsonNode status = JSON.readTree((String) LocalClusterScript.jmxAttribute(3, ElectNodeMBean.OBJECT_NAME, "RebuildJson"));
        System.out.println("rebuild status: " + status);
        assertEquals("done", status.path("state").asText());
        // the lost members still in a stripe once the rebuild is done (a removal or retire may have taken one meanwhile);
        // members formed on node 3 later (rounds go on: a fill or a new stripe) are not the rebuild's to restore
        java.util.Set<String> toRestore = new java.util.TreeSet<>(lost);
        toRestore.retainAll(dataMembersOf("127.0.0.3"));
        // verify checks COMMITTED stripes; a change a round began while node 3 was empty (a fill of a stripe with a
        // member there waits for the rebuild to restore it) finishes in the next rounds: wait for it
        long settle = System.currentTimeMillis() + 300_000;
        while (LocalClusterScript.inFlightStripes(JSON.readTree((String) LocalClusterScript.jmxAttribute(1, ElectNodeMBean.OBJECT_NAME,
                                                                                                          "StorageJson")).get("stripes")) > 0)
        {
            assertTrue(System.currentTimeMillis() < settle, "stripes still in flight 5 minutes after the rebuild");
            Thread.sleep(5000);
        }
        Result verify = SCRIPT.runTool(900, "bin/electtool", "-p", "7399", "verify", "--json");
        assertEquals(0, verify.code(), "electtool verify: " + verify.output());
        JsonNode v = JSON.readTree(verify.output().substring(verify.output().indexOf('{')));
        assertTrue(v.path("ok").asBoolean(), verify.output());
        assertTrue(v.path("data_members").asInt() + v.path("parity_members").asInt() > 0, "node 3 held members: " + verify.output());
        JsonNode counts = status.path("counts");
        assertFalse(toRestore.isEmpty(), "node 3 held data members when it was lost: " + lost);
        assertEquals(toRestore.size(), counts.path("primaries_restored").asInt() + counts.path("previous_versions_restored").asInt(),
                     "every data member node 3 lost decoded (" + toRestore + "): " + status);
        // A parity member can also be found intact: a transitioning round that ran between the replacement and the
        // rebuild (rounds every 5 s here) may have built it on the new node (a new stripe's BUILD_PARITY: "parity J of
        // stripe S (table) built"), or a member change of a stripe whose parity node it is encoded its next generation
        // there from the members ("... generation G built here from its members": fresh-clone CI pre-check of
        // 2026-11-28 11:35, which this pattern missed); then node 3's log says so.
        int intact = counts.path("parity_intact").asInt();
        assertEquals(v.path("parity_members").asInt(), counts.path("parity_regenerated").asInt() + counts.path("parity_cold_marked").asInt()
                                                       + intact, "every parity member restored: " + status);
        if (intact > 0)
            assertTrue(java.util.regex.Pattern.compile("parity \\d+ of stripe \\w+ \\(" + KS + "\\.usertable\\) (generation \\d+ )?built")
                                              .matcher(Files.readString(SCRIPT.runDir().resolve("cluster/node3/logs/system.log"))).find(),
                       "an intact parity member on the replaced node was built there after the replacement: " + status);

        session.close();
        session = connect();
        get = session.prepare("SELECT field0, field3 FROM " + KS + ".usertable WHERE key = ?");
        final PreparedStatement after = get;
        for (ConsistencyLevel cl : List.of(ConsistencyLevel.ONE, ConsistencyLevel.ALL))
            checkAll(0, KEYS + 50, 1, k -> after.bind(key(k)).setConsistencyLevel(cl), "after rebuild, " + cl);
        var node3 = session.getMetadata().getNodes().values().stream()
                           .filter(n -> n.getEndPoint().resolve().toString().contains("127.0.0.3")).findFirst().orElseThrow();
        checkAll(0, KEYS, 3, k -> after.bind(key(k)).setConsistencyLevel(ConsistencyLevel.ONE).setNode(node3), "after rebuild, via node 3");
    }

    private static JsonNode awaitSettled() throws Exception
    {
        JsonNode report = null;
        long deadline = System.currentTimeMillis() + 600_000;
        while (System.currentTimeMillis() < deadline)
        {
            try
            {
                report = JSON.readTree((String) LocalClusterScript.jmxAttribute(1, ElectNodeMBean.OBJECT_NAME, "StorageJson"));
                JsonNode stripes = report.get("stripes");
                int open = LocalClusterScript.inFlightStripes(stripes);
                double saving = report.get("tables").get(0).get("achieved_saving").asDouble();
                if (open == 0 && stripes.path("committed").asInt() > 0 && saving >= ALPHA - 0.02)
                    break;
            }
            catch (Exception e)
            {
                System.out.println("storage report not available yet: " + e);
            }
            Thread.sleep(5000);
        }
        System.out.println("storage report: " + report);
        return report;
    }

    /** Keys from, from + step, ... below to, read with up to 64 requests in flight, each checked as {@link #check}. */
    private record Pending(int key, String primary, java.util.concurrent.CompletableFuture<com.datastax.oss.driver.api.core.cql.AsyncResultSet> read)
    {
    }

    /**
     * Waits for reads made with nodes 2 and 3 down: a key of node 1's range must read back (counts[1]); any other may
     * fail only with the clean read failure of an unavailable stripe (counts[0]), never a timeout. Clears the list.
     */
    private static void twoDown(List<Pending> inflight, int[] counts) throws InterruptedException
    {
        for (Pending p : inflight)
        {
            Throwable error = null;
            Row row = null;
            try
            {
                row = p.read().get().one();
            }
            catch (java.util.concurrent.ExecutionException e)
            {
                error = e.getCause();
            }
            if (error == null)
            {
                check(row, p.key(), "nodes 2, 3 down");
                if ("127.0.0.1".equals(p.primary()))
                    counts[1]++;
            }
            else if (error instanceof com.datastax.oss.driver.api.core.servererrors.ReadFailureException)
            {
                assertFalse("127.0.0.1".equals(p.primary()), "key " + p.key() + " of node 1's own range failed: " + error);
                counts[0]++;
            }
            else
                throw new AssertionError("key " + p.key() + " (primary " + p.primary() + ") failed with " + error.getClass().getSimpleName()
                                         + ", not the clean read failure of an unavailable stripe: " + error, error);
        }
        inflight.clear();
    }

    private static void checkAll(int from, int to, int step,
                                 java.util.function.IntFunction<com.datastax.oss.driver.api.core.cql.Statement<?>> read, String how)
        throws Exception
    {
        java.util.Map<Integer, java.util.concurrent.CompletionStage<com.datastax.oss.driver.api.core.cql.AsyncResultSet>> inflight =
            new java.util.LinkedHashMap<>();
        for (int k = from; k < to; k += step)
        {
            inflight.put(k, session.executeAsync(read.apply(k)));
            if (inflight.size() >= 64 || k + step >= to)
            {
                for (var e : inflight.entrySet())
                    check(e.getValue().toCompletableFuture().get().one(), e.getKey(), how);
                inflight.clear();
            }
        }
    }

    private static void check(Row row, int k, String how)
    {
        int version = k < KEYS && k % 29 == 0 ? 1 : 0;
        assertNotNull(row, "key " + key(k) + " readable (" + how + ")");
        assertEquals(value(k, version, 0), row.getString(0), "key " + key(k) + " field0 (" + how + ")");
        assertEquals(value(k, version, 3), row.getString(1), "key " + key(k) + " field3 (" + how + ")");
    }

    /**
     * Data members on {@code node} in stripes whose secondaries may rely on them (the stripes a rebuild restores), as
     * "stripe/slot/descriptor"; for a replacement under way in a slot, its previous version (what the node held).
     * Read at QUORUM.
     */
    private static java.util.Set<String> dataMembersOf(String node) throws InterruptedException
    {
        List<io.elect.core.stripes.StripeRecord> records = null;
        for (int attempt = 1; records == null; attempt++)
            try
            {
                records = LocalClusterScript.stripeRecords(session, ConsistencyLevel.QUORUM);
            }
            catch (DriverException e)
            {
                // a node that has just restarted may not be seen up by the coordinator yet
                if (attempt == 12)
                    throw e;
                Thread.sleep(5000);
            }
        java.util.Set<String> out = new java.util.TreeSet<>();
        for (io.elect.core.stripes.StripeRecord rec : records)
        {
            if (!rec.state().purgesMayHaveBegun())
                continue;
            for (int i = 0; i < rec.k(); i++)
            {
                io.elect.core.stripes.Member mem = rec.members().get(i);
                if (rec.change() != null && rec.change().slot() == i && !rec.change().previous().isVirtual())
                    mem = rec.change().previous();
                if (!mem.isVirtual() && node.equals(mem.node()))
                    out.add(rec.id() + "/" + i + "/" + mem.descriptor());
            }
        }
        return out;
    }

    /**
     * Stripes that lose more than m chunks with {@code down} down: committed ones, and ones with a change under way
     * (a fill, a merge or a removal: stubs may be on either plan, so its slot counts as lost if either its previous
     * or its new member is down). Read at QUORUM (records are written by compare-and-set at QUORUM; node 1 alone may
     * have missed the last write).
     */
    private static int stripesLosingMoreThanM(List<String> down, int m)
    {
        int n = 0;
        for (io.elect.core.stripes.StripeRecord rec : LocalClusterScript.stripeRecords(session, ConsistencyLevel.QUORUM))
        {
            io.elect.core.stripes.StripeState st = rec.state();
            if (st != io.elect.core.stripes.StripeState.COMMITTED && st != io.elect.core.stripes.StripeState.CHANGING
                && st != io.elect.core.stripes.StripeState.CHANGED)
                continue;
            int lost = 0;
            for (int i = 0; i < rec.k(); i++)
            {
                io.elect.core.stripes.Member mem = rec.members().get(i);
                io.elect.core.stripes.Member before = rec.change() != null && rec.change().slot() == i ? rec.change().previous() : mem;
                if ((!mem.isVirtual() && down.contains(mem.node())) || (!before.isVirtual() && down.contains(before.node())))
                    lost++;
            }
            for (String p : rec.parityNodes())
                if (down.contains(p))
                    lost++;
            if (lost > m)
                n++;
        }
        return n;
    }
}
