package io.elect.core.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
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

import io.elect.core.it.LocalClusterScript.Result;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Many hosts, not one: {@code scripts/elect-cluster start --netns} runs each of 3 nodes in a network namespace of its
 * own (elect-nsI, address 198.18.0.I on a veth pair into a bridge with 198.18.0.254, where S3Proxy listens), so that
 * nothing can work through a loopback address shared by the nodes. With transitioning on (RS k=2 m=1, alpha 0.6: more
 * than encoding alone saves, so parity goes to the cold tier too), keys written at ALL through the driver connected to
 * the 198.18.0.x addresses end in committed stripes ({@code electtool storage --json}); every key reads back at ONE and
 * ALL; {@code electtool verify} passes on every node; every socket a node listens on is on its own address (none on
 * 127.0.0.1, none on a wildcard); the cold tier received objects; with node 3 stopped, every key still reads at ONE
 * (stubs decode from stripe members in the other namespaces); {@code stop} removes the namespaces, veths and bridge.
 * Needs root (network namespaces): it fails, naming the capability, where they cannot be created.
 */
class NetnsClusterIT
{
    private static final LocalClusterScript SCRIPT = new LocalClusterScript("it-netns-run");
    private static final int NODES = 3;
    private static final int KEYS = Integer.getInteger("elect.it.netns.keys", 3000);
    private static final double ALPHA = 0.6;
    private static final String KS = "elect_netns_it";
    private static final ObjectMapper JSON = new ObjectMapper();

    private static CqlSession session;

    static
    {
        // No tiered chunk cache (as in RecoveryIT): the reads with node 3 down must reach the stripe, not a cache.
        SCRIPT.env.put("ELECT_JVM_OPTS", "-Delect.tiered.cache_bytes=0");
        System.setProperty("logback.configurationFile", LocalClusterScript.REPO.resolve("elect-core/src/test/resources/elect-trees-logback.xml").toString());
    }

    static String address(int node)
    {
        return "198.18.0." + node;
    }

    @BeforeAll
    static void startCluster() throws Exception
    {
        Result r = SCRIPT.run(900, "start", "--netns", "--nodes", String.valueOf(NODES), "--fresh",
                              "--set", "elect.data_chunks=2", "--set", "elect.parity_chunks=1",
                              "--set", "elect.storage_saving_target=" + ALPHA, "--set", "elect.transition_min_age_seconds=0",
                              "--set", "elect.transition_interval_seconds=5", "--set", "elect.stripe_fill_wait_seconds=5",
                              "--set", "elect.primary_offload_min_age_seconds=0", "--set", "elect.cold_read_rate=1000");
        // Not a skip: a machine that cannot make namespaces fails here, and the script's message names what is missing.
        assertEquals(0, r.code(), "elect-cluster start --netns failed (it needs root: CAP_NET_ADMIN and CAP_SYS_ADMIN, "
                                  + "and iproute2's ip):\n" + r.output());
        List<String> hosts = new ArrayList<>();
        for (int i = 1; i <= NODES; i++)
            hosts.add(address(i));
        session = LocalClusterScript.session(hosts);
    }

    @AfterAll
    static void stopCluster() throws Exception
    {
        if (session != null)
            session.close();
        SCRIPT.run(300, "stop"); // idempotent; the test asserts on the effects of its own stop
    }

    @Test
    void transitionsReadsAndDegradedReadsAcrossNamespaces() throws Exception
    {
        // The driver learnt the nodes from the ring: their broadcast RPC addresses are the namespaces' own.
        for (Node n : session.getMetadata().getNodes().values())
            assertTrue(n.getEndPoint().resolve().toString().contains("198.18.0."), "driver endpoint " + n.getEndPoint());
        assertEquals(NODES, session.getMetadata().getNodes().size());

        session.execute("CREATE KEYSPACE " + KS + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}");
        session.execute("CREATE TABLE " + KS + ".usertable (key text PRIMARY KEY, field0 text, field3 text) WITH compaction = "
                        + "{'class': 'io.elect.core.bridge.ElectCompactionStrategy', 'sstable_size_in_mb': 1, 'fanout_size': 4}"
                        + " AND read_repair = 'NONE'");
        PreparedStatement put = session.prepare("INSERT INTO " + KS + ".usertable (key, field0, field3) VALUES (?, ?, ?)");
        List<CompletionStage<AsyncResultSet>> inflight = new ArrayList<>();
        for (int k = 0; k < KEYS; k++)
        {
            inflight.add(session.executeAsync(put.bind(TransitioningIT.key(k), TransitioningIT.value(k, 0, 0), TransitioningIT.value(k, 0, 3))
                                                 .setConsistencyLevel(ConsistencyLevel.ALL)));
            if (inflight.size() >= 64)
                drain(inflight);
        }
        drain(inflight);
        for (int i = 1; i <= NODES; i++)
        {
            assertEquals(0, SCRIPT.run(180, "nodetool", String.valueOf(i), "flush", KS).code());
            assertEquals(0, SCRIPT.compact(i, KS).code());
        }

        JsonNode report = awaitCommittedStripes();
        assertTrue(report.get("stripes").path("committed").asInt() > 0, "stripes committed: " + report);
        assertTrue(coldObjects() > 0, "the cold tier on the bridge address received no object; report " + report);

        PreparedStatement get = session.prepare("SELECT field0, field3 FROM " + KS + ".usertable WHERE key = ?");
        for (ConsistencyLevel cl : List.of(ConsistencyLevel.ONE, ConsistencyLevel.ALL))
            readAll(get, cl, cl.name());

        for (int i = 1; i <= NODES; i++)
        {
            Result v = SCRIPT.run(300, "electtool", String.valueOf(i), "verify", "--json");
            assertEquals(0, v.code(), "electtool verify on node " + i + ": " + v.output());
            JsonNode j = JSON.readTree(v.output().substring(v.output().indexOf('{')));
            assertTrue(j.path("ok").asBoolean(), "verify on node " + i + ": " + v.output());
        }

        for (int i = 1; i <= NODES; i++)
            assertListensOnlyOnOwnAddress(i);

        // Node 3 stopped: its primaries are read at ONE from the secondaries' stubs, decoded from the stripe's members
        // in the other namespaces.
        assertEquals(0, SCRIPT.run(180, "kill", "--hard", "3").code());
        Thread.sleep(10_000); // failure detection
        readAll(get, ConsistencyLevel.ONE, "node 3 down");

        session.close();
        session = null;
        Result stop = SCRIPT.run(300, "stop");
        assertEquals(0, stop.code(), stop.output());
        String namespaces = sh("ip", "netns", "list");
        assertFalse(namespaces.matches("(?s).*\\belect-ns\\d.*"), "namespaces left after stop:\n" + namespaces);
        String links = sh("ip", "-o", "link", "show");
        assertFalse(links.matches("(?s).*\\belect-(br0|v\\d|p\\d).*"), "links left after stop:\n" + links);
    }

    /**
     * Every TCP socket listening in node i's namespace (Cassandra's storage and CQL ports, the ELECT transport, JMX)
     * is on 198.18.0.i: none on 127.0.0.1 or another loopback address, none on a wildcard address.
     */
    private static void assertListensOnlyOnOwnAddress(int i) throws Exception
    {
        String ss = sh("ip", "netns", "exec", "elect-ns" + i, "ss", "-ltnH");
        List<String> local = new ArrayList<>();
        for (String line : ss.split("\n"))
            if (!line.isBlank())
                local.add(line.trim().split("\\s+")[3]);
        for (String want : List.of(":7000", ":9042", ":7070", ":7199"))
            assertTrue(local.contains(address(i) + want), "node " + i + " listens on " + address(i) + want + "; listening: " + local);
        for (String a : local)
            assertTrue(a.startsWith(address(i) + ":"), "node " + i + " has a socket on " + a + " (not its own address " + address(i)
                                                       + "); listening:\n" + ss);
    }

    private static JsonNode awaitCommittedStripes() throws Exception
    {
        JsonNode report = null;
        long deadline = System.currentTimeMillis() + 1000L * Integer.getInteger("elect.it.netns.converge_seconds", 240);
        while (System.currentTimeMillis() < deadline)
        {
            Result r = SCRIPT.run(120, "electtool", "1", "storage", "--json");
            if (r.code() == 0 && r.output().contains("{"))
            {
                report = JSON.readTree(r.output().substring(r.output().indexOf('{')));
                JsonNode stripes = report.get("stripes");
                double saving = report.get("tables").get(0).get("achieved_saving").asDouble();
                if (LocalClusterScript.inFlightStripes(stripes) == 0 && stripes.path("committed").asInt() > 0
                    && saving >= ALPHA - 0.05 && coldObjects() > 0)
                    break;
            }
            Thread.sleep(5000);
        }
        assertNotNull(report, "no storage report from electtool on " + address(1));
        System.out.println("storage report: " + report);
        return report;
    }

    /** Objects S3Proxy holds (its filesystem backend: one file per object under cold/data/BUCKET/). */
    private static long coldObjects() throws Exception
    {
        Path data = SCRIPT.runDir().resolve("cluster/cold/data");
        if (!Files.isDirectory(data))
            return 0;
        try (Stream<Path> s = Files.walk(data))
        {
            return s.filter(Files::isRegularFile).count();
        }
    }

    private static void readAll(PreparedStatement get, ConsistencyLevel cl, String how) throws Exception
    {
        Map<Integer, CompletionStage<AsyncResultSet>> inflight = new java.util.LinkedHashMap<>();
        for (int k = 0; k < KEYS; k++)
        {
            inflight.put(k, session.executeAsync(get.bind(TransitioningIT.key(k)).setConsistencyLevel(cl)));
            if (inflight.size() >= 64 || k == KEYS - 1)
            {
                for (Map.Entry<Integer, CompletionStage<AsyncResultSet>> e : inflight.entrySet())
                {
                    int key = e.getKey();
                    Row row = e.getValue().toCompletableFuture().get().one();
                    assertNotNull(row, "key " + TransitioningIT.key(key) + " readable (" + how + ")");
                    assertEquals(TransitioningIT.value(key, 0, 0), row.getString(0), "key " + TransitioningIT.key(key) + " field0 (" + how + ")");
                    assertEquals(TransitioningIT.value(key, 0, 3), row.getString(1), "key " + TransitioningIT.key(key) + " field3 (" + how + ")");
                }
                inflight.clear();
            }
        }
    }

    private static String sh(String... cmd) throws Exception
    {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0)
            fail(String.join(" ", cmd) + " exited " + p.exitValue() + ":\n" + out);
        return out;
    }

    private static void drain(List<CompletionStage<AsyncResultSet>> inflight) throws Exception
    {
        for (CompletionStage<AsyncResultSet> f : inflight)
            f.toCompletableFuture().get();
        inflight.clear();
    }
}
