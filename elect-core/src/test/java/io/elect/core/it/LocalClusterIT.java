package io.elect.core.it;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import io.elect.core.it.LocalClusterScript.Result;
import io.elect.offload.ObjectInfo;
import io.elect.offload.s3.S3ColdStore;
import io.elect.offload.s3.S3ColdStoreConfig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The foundation end to end, through the user-facing scripts: {@code scripts/elect-cluster start --nodes 3 --tls}
 * (three real ELECT nodes on 127.0.0.1..3 with mutual TLS on Cassandra's internode port and the ELECT port, plus
 * S3Proxy as the cold tier), CQL at ALL and ONE with the Java driver, one object through the cold tier; then the
 * security checks of issue 19: the ELECT port serves only ring members with their own certificate
 * ({@link SecurityChecks}), a node started with a wrong keystore password stops with one line naming the setting,
 * a cold-tier client with a wrong secret fails without echoing it; then {@code stop}, after which no recorded
 * process may be alive, no port may be bound, and no secret (keystore passwords, S3 secret keys, right or wrong,
 * private keys) appears in any log or tool output of the run.
 */
class LocalClusterIT
{
    private static final LocalClusterScript SCRIPT = new LocalClusterScript("it-run");
    private static final Path RUN_DIR = SCRIPT.runDir();
    private static final int NODES = 3;
    private static final List<Long> pids = new ArrayList<>();

    @BeforeAll
    static void startCluster() throws Exception
    {
        Result r = cluster(1500, "start", "--nodes", String.valueOf(NODES), "--fresh", "--tls", "--wait-for-ports", "900");
        assertEquals(0, r.code(), "elect-cluster start failed:\n" + r.output());
        Result s = cluster(120, "status", "--json");
        Matcher m = Pattern.compile("\"pid\": (\\d+)").matcher(s.output());
        while (m.find())
            pids.add(Long.parseLong(m.group(1)));
        assertEquals(NODES + 1, pids.size(), "expected 3 node PIDs and the cold tier's:\n" + s.output());
    }

    @AfterAll
    static void stopCluster() throws Exception
    {
        cluster(300, "stop"); // idempotent; the test below asserts on its effects
    }

    @Test
    void clusterServesCqlAndColdTierThenStopsCleanly() throws Exception
    {
        Result status = cluster(120, "status", "--json");
        assertEquals(0, status.code(), status.output());
        for (int i = 1; i <= NODES; i++)
            assertTrue(status.output().contains("\"ip\": \"127.0.0." + i + "\", \"pid\""), status.output());
        assertEquals(NODES, count(status.output(), "\"ring\": \"UN\""), "every node UN:\n" + status.output());

        readsAndWritesAtAllAndOne();
        coldTierRoundTrip();
        List<String> outputs = new ArrayList<>();
        List<String> secrets = new ArrayList<>(secretsOfTheRun());
        transportSecurity(outputs);
        secrets.addAll(failuresWithBadCredentials());

        Result stop = cluster(300, "stop");
        assertEquals(0, stop.code(), stop.output());
        for (long pid : pids)
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "process " + pid + " still alive");
        for (int i = 1; i <= NODES; i++)
            assertFalse(listening("127.0.0." + i, 9042), "127.0.0." + i + ":9042 still bound");
        assertFalse(listening("127.0.0.1", 9000), "cold tier port still bound");
        Result after = cluster(60, "status");
        assertEquals(3, after.code(), after.output());
        assertTrue(after.output().contains("nothing running"), after.output());
        SecurityChecks.noSecretIn(RUN_DIR.resolve("cluster"), outputs, secrets);
    }

    /** The keystore password of the throw-away PKI and the cold tier's secret key. */
    private static List<String> secretsOfTheRun() throws IOException
    {
        String creds = Files.readString(RUN_DIR.resolve("cluster/cold/credentials"));
        Matcher m = Pattern.compile("secret_key=(\\S+)").matcher(creds);
        assertTrue(m.find(), "secret_key in the cold tier credentials");
        return List.of(SecurityChecks.password(RUN_DIR.resolve("cluster/tls")), m.group(1));
    }

    /** electtool status shows TLS on every node; ELECT traffic flows between the nodes; strangers are refused. */
    private static void transportSecurity(List<String> outputs) throws Exception
    {
        for (int i = 1; i <= NODES; i++)
        {
            Result st = SCRIPT.runTool(120, "bin/electtool", "-p", String.valueOf(7199 + 100 * (i - 1)), "status", "--json");
            outputs.add(st.output());
            assertEquals(0, st.code(), st.output());
            assertTrue(st.output().contains("\"transport_encryption\":\"tls TLSv1.3 (mutual, identity checked"), st.output());
        }
        // node 1 gathers every node's snapshot over the ELECT transport: mutual TLS between members works
        Result storage = SCRIPT.runTool(180, "bin/electtool", "-p", "7199", "storage", "--json");
        outputs.add(storage.output());
        assertEquals(0, storage.code(), storage.output());
        assertTrue(storage.output().contains("\"table\":\"it.ekv\"") && storage.output().contains("\"node\":\"127.0.0.3\""), storage.output());
        SecurityChecks.onlyRingMembersWithTheirCertificateRunVerbs(RUN_DIR.resolve("cluster/tls"));
        String metrics = (String) LocalClusterScript.jmxAttribute(1, "io.elect:type=Transport", "MetricsJson");
        outputs.add(metrics);
        assertTrue(metrics.contains("\"refused_callers\":2"), metrics);
        assertTrue(!metrics.contains("\"tls_handshake_failures\":0"), metrics);
    }

    /**
     * Node 3 restarted with a wrong keystore password stops at once with one line naming the setting; a cold-tier
     * client with a wrong secret key fails. Returns the wrong secrets (they must not be logged either).
     */
    private static List<String> failuresWithBadCredentials() throws Exception
    {
        String wrongPassword = "Wr0ngKeystorePw-" + System.nanoTime();
        Result kill = cluster(120, "kill", "3");
        assertEquals(0, kill.code(), kill.output());
        Path yaml = RUN_DIR.resolve("cluster/node3/cassandra.yaml");
        String original = Files.readString(yaml);
        Files.writeString(yaml, original.replaceFirst("(?m)^(\\s*keystore_password:).*$", "$1 " + wrongPassword));
        Result restart = cluster(180, "restart-node", "3", "--timeout", "120");
        assertTrue(restart.code() != 0, "node 3 must not start with a wrong keystore password:\n" + restart.output());
        String out = Files.readString(RUN_DIR.resolve("cluster/node3/stdout.log"));
        assertTrue(out.contains("server_encryption_options.keystore_password: wrong password for"), out.substring(Math.max(0, out.length() - 2000)));
        Files.writeString(yaml, original);

        String wrongSecret = "WrongS3Secret-" + System.nanoTime();
        Path creds = RUN_DIR.resolve("cluster/cold/wrong-credentials");
        String good = Files.readString(RUN_DIR.resolve("cluster/cold/credentials"));
        Files.writeString(creds, good.replaceFirst("secret_key=\\S+", "secret_key=" + wrongSecret));
        try (S3ColdStore store = new S3ColdStore(S3ColdStoreConfig.local(URI.create("http://127.0.0.1:9000"), "elect", creds)))
        {
            Exception e = org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
                                                                        () -> store.put("it/bad-creds", ByteBuffer.wrap(new byte[]{ 1 })));
            StringBuilder chain = new StringBuilder();
            for (Throwable t = e; t != null; t = t.getCause())
                chain.append(t).append('\n');
            assertTrue(!chain.toString().contains(wrongSecret), "the wrong secret key is echoed by the failure: " + chain);
        }
        return List.of(wrongPassword, wrongSecret);
    }

    private static void readsAndWritesAtAllAndOne()
    {
        DriverConfigLoader cfg = DriverConfigLoader.programmaticBuilder()
                                                   .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(60))
                                                   .build();
        List<InetSocketAddress> contacts = new ArrayList<>();
        for (int i = 1; i <= NODES; i++)
            contacts.add(new InetSocketAddress("127.0.0." + i, 9042));
        try (CqlSession s = CqlSession.builder().addContactPoints(contacts).withLocalDatacenter("datacenter1")
                                      .withConfigLoader(cfg).build())
        {
            s.execute("CREATE KEYSPACE IF NOT EXISTS it WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}");
            s.execute("CREATE TABLE IF NOT EXISTS it.kv (k int PRIMARY KEY, v text)");
            // an ELECT table: electtool storage then gathers every node's snapshot over the (TLS) ELECT transport
            s.execute("CREATE TABLE IF NOT EXISTS it.ekv (k int PRIMARY KEY, v text) WITH compaction = "
                      + "{'class': 'io.elect.core.bridge.ElectCompactionStrategy'} AND read_repair = 'NONE'");
            PreparedStatement put = s.prepare("INSERT INTO it.kv (k, v) VALUES (?, ?)");
            PreparedStatement get = s.prepare("SELECT v FROM it.kv WHERE k = ?");
            for (int k = 0; k < 200; k++)
                s.execute(put.bind(k, "value-" + k).setConsistencyLevel(ConsistencyLevel.ALL));
            for (ConsistencyLevel cl : List.of(ConsistencyLevel.ONE, ConsistencyLevel.ALL))
                for (int k = 0; k < 200; k++)
                {
                    Row row = s.execute(get.bind(k).setConsistencyLevel(cl)).one();
                    assertNotNull(row, "key " + k + " missing at " + cl);
                    assertEquals("value-" + k, row.getString("v"));
                }
            assertEquals(200, s.execute("SELECT count(*) FROM it.kv").one().getLong(0));
        }
    }

    private static void coldTierRoundTrip() throws IOException
    {
        Path creds = RUN_DIR.resolve("cluster/cold/credentials");
        assertTrue(Files.exists(creds), "cold tier credentials file " + creds);
        try (S3ColdStore store = new S3ColdStore(S3ColdStoreConfig.local(URI.create("http://127.0.0.1:9000"), "elect", creds)))
        {
            byte[] bytes = "ELECT cold tier round trip".getBytes(StandardCharsets.UTF_8);
            String key = "it/foundation/" + System.nanoTime();
            ObjectInfo info = store.put(key, ByteBuffer.wrap(bytes));
            assertEquals(bytes.length, info.length());
            ByteBuffer back = store.readAll(key);
            byte[] got = new byte[back.remaining()];
            back.get(got);
            assertEquals(new String(bytes, StandardCharsets.UTF_8), new String(got, StandardCharsets.UTF_8));
            store.delete(key);
            assertFalse(store.exists(key));
        }
    }

    private static int count(String s, String needle)
    {
        int n = 0;
        for (int i = s.indexOf(needle); i >= 0; i = s.indexOf(needle, i + 1))
            n++;
        return n;
    }

    private static boolean listening(String host, int port)
    {
        try (Socket sock = new Socket())
        {
            sock.connect(new InetSocketAddress(host, port), 500);
            return true;
        }
        catch (IOException e)
        {
            return false;
        }
    }

    private static Result cluster(int timeoutSeconds, String... args) throws Exception
    {
        return SCRIPT.run(timeoutSeconds, args);
    }
}
