package io.elect.core.it;

import io.elect.core.bridge.ElectTables;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.AsyncResultSet;
import com.datastax.oss.driver.api.core.cql.ExecutionInfo;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.QueryTrace;
import com.datastax.oss.driver.api.core.cql.ResultSet;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.TraceEvent;
import com.datastax.oss.driver.api.core.metadata.Node;
import com.datastax.oss.driver.api.core.metadata.TokenMap;
import com.datastax.oss.driver.api.core.metadata.token.Token;
import com.datastax.oss.driver.api.core.type.codec.TypeCodecs;
import com.datastax.oss.driver.api.core.ProtocolVersion;
import com.datastax.oss.driver.internal.core.metadata.token.Murmur3Token;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.elect.core.it.LocalClusterScript;
import io.elect.core.it.LocalClusterScript.Result;
import io.elect.core.trees.RoleRanges;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Decoupled trees on a real 3-node cluster (scripts/elect-cluster, RF = 3, SimpleStrategy, num_tokens 1), checked
 * against a role map computed here, independently, from the driver's view of the ring:
 * after load, flush and compaction no SSTable on any node spans two roles, and each node's reported role of every
 * SSTable is the one the ring gives; sampled keys' primary copies sit in role-0 SSTables of the ring's primary;
 * CL ONE reads execute on the primary (tracing); with one node stopped, CL ONE reads still return every key and
 * QUORUM writes succeed.
 */
class DecoupledTreesIT
{
    private static final LocalClusterScript SCRIPT = new LocalClusterScript("it-trees-run");
    private static final Path REPO = LocalClusterScript.REPO;
    private static final int NODES = 3;
    private static final int KEYS = 3000;
    private static final String KS = "elect_trees_it";
    private static final ObjectMapper JSON = new ObjectMapper();

    private static CqlSession session;

    static
    {
        // the driver would otherwise log at DEBUG (logback's default without a configuration)
        System.setProperty("logback.configurationFile", REPO.resolve("elect-core/src/test/resources/elect-trees-logback.xml").toString());
    }

    @BeforeAll
    static void startCluster() throws Exception
    {
        Result r = cluster(1500, "start", "--nodes", String.valueOf(NODES), "--fresh", "--no-cold-tier", "--wait-for-ports", "900");
        assertEquals(0, r.code(), "elect-cluster start failed:\n" + r.output());
        session = LocalClusterScript.session(LocalClusterScript.loopback(NODES));
    }

    @AfterAll
    static void stopCluster() throws Exception
    {
        if (session != null)
            session.close();
        cluster(300, "stop", "--kill"); // a throwaway cluster: no drain (saves ~20 s)
    }

    @Test
    void rolesPrimaryReadsAndDegradedMode() throws Exception
    {
        session.execute("CREATE KEYSPACE " + KS + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}");
        session.execute("CREATE TABLE " + KS + ".usertable (key text PRIMARY KEY, field0 text) WITH compaction = "
                        + "{'class': 'io.elect.core.bridge.ElectCompactionStrategy', 'sstable_size_in_mb': 1, 'fanout_size': 4}"
                        + " AND read_repair = 'NONE' AND speculative_retry = 'NONE'");
        PreparedStatement put = session.prepare("INSERT INTO " + KS + ".usertable (key, field0) VALUES (?, ?)");
        List<CompletionStage<AsyncResultSet>> inflight = new ArrayList<>();
        for (int k = 0; k < KEYS; k++)
        {
            inflight.add(session.executeAsync(put.bind(key(k), value(k, 0)).setConsistencyLevel(ConsistencyLevel.ALL)));
            if (inflight.size() >= 64)
                drain(inflight);
        }
        drain(inflight);
        for (int i = 1; i <= NODES; i++)
        {
            assertEquals(0, cluster(180, "nodetool", String.valueOf(i), "flush", KS).code());
            assertEquals(0, cluster(300, "nodetool", String.valueOf(i), "compact", KS).code());
        }

        // Independent role map per node from the driver's ring: ring walk from the range's end token, RF = 3.
        TokenMap tokenMap = session.getMetadata().getTokenMap().orElseThrow();
        TreeMap<Long, String> ring = new TreeMap<>();
        for (Node n : session.getMetadata().getNodes().values())
            for (Token t : tokenMap.getTokens(n))
                ring.put(((Murmur3Token) t).getValue(), n.getBroadcastRpcAddress().orElseThrow().getAddress().getHostAddress());
        assertEquals(NODES, ring.size(), "num_tokens 1 on 3 nodes: " + ring);
        Map<String, RoleRanges<Long>> expected = new HashMap<>();
        List<Long> tokens = new ArrayList<>(ring.keySet());
        for (String node : new LinkedHashSet<>(ring.values()))
        {
            List<Integer> roles = new ArrayList<>();
            for (int i = 0; i < tokens.size(); i++)
            {
                List<String> replicas = new ArrayList<>();
                for (int j = 0; replicas.size() < Math.min(3, NODES); j++)
                {
                    String r = ring.get(tokens.get((i + j) % tokens.size()));
                    if (!replicas.contains(r))
                        replicas.add(r);
                }
                roles.add(replicas.indexOf(node));
            }
            expected.put(node, RoleRanges.fromRing(tokens, roles));
        }

        // 1. No SSTable spans two roles; the reported role is the ring's; every node has all three trees.
        Map<String, JsonNode> sstables = new HashMap<>();
        for (int i = 1; i <= NODES; i++)
        {
            String node = "127.0.0." + i;
            JsonNode list = JSON.readTree((String) jmx(i, "sstablesJson", KS, "usertable"));
            sstables.put(node, list);
            Set<Integer> rolesSeen = new java.util.TreeSet<>();
            for (JsonNode s : list)
            {
                Integer role = expected.get(node).spanRole(Long.parseLong(s.get("first_token").asText()),
                                                           Long.parseLong(s.get("last_token").asText()));
                assertNotNull(role, node + ": SSTable spans two roles: " + s);
                assertEquals(role.toString(), s.get("role").asText(), node + ": role of " + s);
                rolesSeen.add(role);
            }
            assertEquals(Set.of(0, 1, 2), rolesSeen, node + " has a tree per role: " + list);
            JsonNode doc = JSON.readTree((String) jmx(i, "tableJson", KS, "usertable"));
            assertEquals(0, doc.get("tables").get(0).get("misfits").asInt(), doc.toString());
        }

        // 2. Sampled keys: the primary's copy is in a role-0 SSTable; 3. CL ONE reads execute on the primary.
        PreparedStatement get = session.prepare("SELECT field0 FROM " + KS + ".usertable WHERE key = ?");
        for (int k = 0; k < KEYS; k += KEYS / 8)
        {
            long token = ((Murmur3Token) tokenMap.newToken(TypeCodecs.TEXT.encode(key(k), ProtocolVersion.DEFAULT))).getValue();
            Map.Entry<Long, String> owner = ring.ceilingEntry(token);
            String primary = (owner != null ? owner : ring.firstEntry()).getValue();
            int primaryIndex = Integer.parseInt(primary.substring(primary.lastIndexOf('.') + 1));
            Result files = cluster(60, "nodetool", String.valueOf(primaryIndex), "getsstables", KS, "usertable", key(k));
            int matched = 0;
            for (JsonNode s : sstables.get(primary))
                if (files.output().contains("/" + s.get("file").asText() + "-Data.db"))
                {
                    assertEquals("0", s.get("role").asText(), "key " + key(k) + " on primary " + primary + ": " + s);
                    matched++;
                }
            assertTrue(matched > 0, "key " + key(k) + " found in the primary's SSTables: " + files.output());

            ResultSet rs = session.execute(get.bind(key(k)).setConsistencyLevel(ConsistencyLevel.ONE).setTracing(true));
            assertEquals(value(k, 0), rs.one().getString(0));
            QueryTrace trace = rs.getExecutionInfo().getQueryTrace();
            Set<String> readers = new LinkedHashSet<>();
            for (TraceEvent e : trace.getEvents())
                if (e.getActivity() != null && e.getActivity().startsWith("Executing single-partition query"))
                    readers.add(e.getSourceAddress().getAddress().getHostAddress());
            assertEquals(Set.of(primary), readers, "CL ONE read of " + key(k) + " executed on the primary only");
        }

        // 4. Degraded mode: node 3 stopped; CL ONE reads return every key, QUORUM writes succeed.
        assertEquals(0, cluster(180, "kill", "3").code());
        PreparedStatement update = session.prepare("UPDATE " + KS + ".usertable SET field0 = ? WHERE key = ?");
        for (int k = 0; k < KEYS; k += 10)
            session.execute(update.bind(value(k, 1), key(k)).setConsistencyLevel(ConsistencyLevel.QUORUM));
        for (int k = 0; k < KEYS; k++)
        {
            Row row = session.execute(get.bind(key(k)).setConsistencyLevel(ConsistencyLevel.ONE)).one();
            assertNotNull(row, "key " + key(k) + " readable at ONE with node 3 down");
            // updated keys: both live replicas took the QUORUM write, and ONE reads only go to live replicas
            assertEquals(value(k, k % 10 == 0 ? 1 : 0), row.getString(0), "key " + key(k));
        }
    }

    private static String key(int k)
    {
        return String.format("user%020d", k);
    }

    private static String value(int k, int version)
    {
        return "v" + version + "-" + k + "-" + "x".repeat(200);
    }

    private static void drain(List<CompletionStage<AsyncResultSet>> inflight) throws Exception
    {
        for (CompletionStage<AsyncResultSet> f : inflight)
            f.toCompletableFuture().get();
        inflight.clear();
    }

    private static Object jmx(int node, String operation, String... args) throws Exception
    {
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + (7199 + 100 * (node - 1)) + "/jmxrmi");
        try (JMXConnector c = JMXConnectorFactory.connect(url))
        {
            MBeanServerConnection mbs = c.getMBeanServerConnection();
            String[] sig = new String[args.length];
            java.util.Arrays.fill(sig, String.class.getName());
            return mbs.invoke(new ObjectName(ElectTables.MBEAN_NAME), operation, args, sig);
        }
    }

    private static Result cluster(int timeoutSeconds, String... args) throws Exception
    {
        return SCRIPT.run(timeoutSeconds, args);
    }
}
