package io.elect.ycsb;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.Vector;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Row;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.service.EmbeddedCassandraService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import site.ycsb.ByteIterator;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The binding against one real Cassandra 5.0.9 node started in this (forked) JVM on 127.0.0.1, storage port 27000,
 * CQL port 29042: the DB API round trip (values, NOT_FOUND, deletes, consistency levels really applied, scans in
 * token order), then real YCSB runs ({@code site.ycsb.Client} in a child JVM, as scripts/ycsb does) of a load and
 * workloads A and E from ycsb/workloads, checked against the table's contents.
 */
class CassandraCqlClientIT
{
    private static final int PORT = 29042;
    private static final String HOST = "127.0.0.1";
    private static EmbeddedCassandraService cassandra;
    private static CqlSession session;

    @BeforeAll
    static void startNode() throws Exception
    {
        Path dir = Path.of(System.getProperty("ycsb.it.dir", "target/it-node")).toAbsolutePath();
        deleteRecursively(dir);
        Files.createDirectories(dir);
        System.setProperty("cassandra.storagedir", dir.toString());
        System.setProperty("cassandra.config",
                           CassandraCqlClientIT.class.getResource("/ycsb-it-cassandra.yaml").toExternalForm());
        System.setProperty("cassandra-foreground", "yes");
        System.setProperty("cassandra.skip_wait_for_gossip_to_settle", "0");
        System.setProperty("cassandra.ring_delay_ms", "1000");
        long start = System.nanoTime();
        cassandra = new EmbeddedCassandraService();
        cassandra.start();
        System.out.println("Cassandra node up in " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");

        CreateTable.Spec spec = CreateTable.parse(new String[]{ "--table", "usertable", "--rf", "1", "--port",
                                                                Integer.toString(PORT), "--hosts", HOST });
        CreateTable.run(spec);
        session = Sessions.open(CassandraCqlOptions.parse(props()));
    }

    @AfterAll
    static void stopNode()
    {
        if (session != null)
            session.close();
        if (cassandra != null)
            cassandra.stop();
    }

    private static Properties props(String... kv)
    {
        Properties p = new Properties();
        p.setProperty(CassandraCqlOptions.HOSTS, HOST);
        p.setProperty(CassandraCqlOptions.PORT, Integer.toString(PORT));
        for (int i = 0; i < kv.length; i += 2)
            p.setProperty(kv[i], kv[i + 1]);
        return p;
    }

    private static CassandraCqlClient client(Properties p) throws Exception
    {
        CassandraCqlClient db = new CassandraCqlClient();
        db.setProperties(p);
        db.init();
        return db;
    }

    private static long token(String key)
    {
        return (Long) Murmur3Partitioner.instance.getToken(ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8)))
                                                 .getTokenValue();
    }

    @Test
    void dbApiRoundTripInTokenOrder() throws Exception
    {
        long seed = System.nanoTime();
        System.out.println("dbApiRoundTripInTokenOrder seed " + seed);
        Random rnd = new Random(seed);
        String table = "apitable";
        CreateTable.run(CreateTable.parse(new String[]{ "--table", table, "--rf", "1", "--port", Integer.toString(PORT),
                                                        "--hosts", HOST, "--fields", "2" }));
        CassandraCqlClient db = client(props(CassandraCqlOptions.WRITE_CL, "ALL"));
        try
        {
            Map<String, String> expected = new HashMap<>();
            for (int i = 0; i < 300; i++)
            {
                String key = KeyNames.keyName(rnd.nextInt(1_000_000), false, KeyNames.ELECT_ZERO_PADDING);
                String value = randomText(rnd, 1000);
                assertEquals(Status.OK, db.insert(table, key, StringByteIterator.getByteIteratorMap(
                    Map.of("field0", value))), key);
                expected.put(key, value);
            }
            int preparedAfterInserts = CassandraCqlClient.preparedCount();

            // Every read returns exactly what was written; a field never written is absent.
            for (Map.Entry<String, String> e : expected.entrySet())
            {
                Map<String, ByteIterator> row = new HashMap<>();
                assertEquals(Status.OK, db.read(table, e.getKey(), null, row), e.getKey());
                assertEquals(Set.of("field0"), row.keySet(), e.getKey());
                assertEquals(e.getValue(), row.get("field0").toString(), "seed " + seed);
            }
            assertEquals(Status.NOT_FOUND, db.read(table, "user99999999999999999999", null, new HashMap<>()));

            // Update two fields of one key, read one of them back by name.
            String some = expected.keySet().iterator().next();
            String v0 = randomText(rnd, 1000);
            String v1 = randomText(rnd, 10);
            assertEquals(Status.OK, db.update(table, some, StringByteIterator.getByteIteratorMap(
                Map.of("field1", v1, "field0", v0))));
            expected.put(some, v0);
            Map<String, ByteIterator> row = new HashMap<>();
            assertEquals(Status.OK, db.read(table, some, Set.of("field1"), row));
            assertEquals(Map.of("field1", v1), StringByteIterator.getStringMap(row));

            // Scans: the next N partitions in token order from the start key, exactly.
            TreeMap<Long, String> byToken = new TreeMap<>();
            expected.keySet().forEach(k -> byToken.put(token(k), k));
            List<String> starts = new ArrayList<>(expected.keySet());
            for (int s = 0; s < 20; s++)
            {
                String start = starts.get(rnd.nextInt(starts.size()));
                int limit = 1 + rnd.nextInt(100);
                Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
                assertEquals(Status.OK, db.scan(table, start, limit, null, rows));
                List<String> want = byToken.tailMap(token(start), true).values().stream().limit(limit).toList();
                // A ByteIterator is consumed by toString(): convert each row exactly once.
                List<Map<String, String>> got = rows.stream().map(StringByteIterator::getStringMap).toList();
                assertEquals(want, got.stream().map(r -> r.get(CqlStatements.KEY_COLUMN)).toList(),
                             "scan from " + start + " limit " + limit + " seed " + seed);
                for (Map<String, String> r : got)
                    assertEquals(expected.get(r.get(CqlStatements.KEY_COLUMN)), r.get("field0"), "seed " + seed);
            }

            // Deletes.
            assertEquals(Status.OK, db.delete(table, some));
            assertEquals(Status.NOT_FOUND, db.read(table, some, null, new HashMap<>()));

            // Prepared once per (operation, field set): these repeated operations prepared nothing new except
            // read(*), read(field1), update(field0,field1), scan(*) and delete.
            assertEquals(preparedAfterInserts + 5, CassandraCqlClient.preparedCount());
            long rows1 = session.execute("SELECT count(*) FROM ycsb." + table).one().getLong(0);
            assertEquals(expected.size() - 1, rows1);
        }
        finally
        {
            db.cleanup();
        }
    }

    /**
     * Token-aware routing needs the driver's token map and point statements whose partition key is a bind marker
     * (then a bound statement carries its routing key); the scan binds token(?), so it has no routing key.
     */
    @Test
    void pointStatementsAreRoutable()
    {
        assertTrue(session.getMetadata().getTokenMap().isPresent(), "driver token map");
        for (String cql : List.of(CqlStatements.read("ycsb", "usertable", null),
                                  CqlStatements.insert("ycsb", "usertable", List.of("field0")),
                                  CqlStatements.delete("ycsb", "usertable")))
        {
            var ps = session.prepare(cql);
            assertEquals(List.of(0), ps.getPartitionKeyIndices(), cql);
            var bound = ps.bind().setString(0, KeyNames.electKey(1));
            assertNotNull(bound.getRoutingKey(), cql);
            assertTrue(session.getMetadata().getTokenMap().get()
                              .getReplicas("ycsb", bound.getRoutingKey()).size() == 1, cql);
        }
        var update = session.prepare(CqlStatements.update("ycsb", "usertable", List.of("field0")));
        assertEquals(List.of(1), update.getPartitionKeyIndices());
        var scan = session.prepare(CqlStatements.scan("ycsb", "usertable", null));
        assertTrue(scan.getPartitionKeyIndices().isEmpty(), "a token-range scan has no routing key");
    }

    /** RF is 1, so level TWO is unavailable: an operation fails exactly when its configured level is TWO. */
    @Test
    void consistencyLevelsAreApplied() throws Exception
    {
        String key = KeyNames.electKey(424242);
        Map<String, ByteIterator> value = StringByteIterator.getByteIteratorMap(Map.of("field0", "v"));
        CassandraCqlClient writeTwo = client(props(CassandraCqlOptions.WRITE_CL, "TWO"));
        try
        {
            assertEquals(Status.ERROR, writeTwo.insert("usertable", key, value));
            assertEquals(Status.NOT_FOUND, writeTwo.read("usertable", key, null, new HashMap<>()));
        }
        finally
        {
            writeTwo.cleanup();
        }
        CassandraCqlClient readTwo = client(props(CassandraCqlOptions.READ_CL, "TWO",
                                                  CassandraCqlOptions.SCAN_CL, "ONE"));
        try
        {
            assertEquals(Status.OK, readTwo.insert("usertable", key, value));
            assertEquals(Status.ERROR, readTwo.read("usertable", key, null, new HashMap<>()));
            Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
            assertEquals(Status.OK, readTwo.scan("usertable", key, 1, null, rows));
            assertEquals(key, rows.get(0).get(CqlStatements.KEY_COLUMN).toString());
            assertEquals(Status.OK, readTwo.delete("usertable", key));
        }
        finally
        {
            readTwo.cleanup();
        }
        CassandraCqlClient scanTwo = client(props(CassandraCqlOptions.SCAN_CL, "TWO"));
        try
        {
            assertEquals(Status.ERROR, scanTwo.scan("usertable", key, 1, null, new Vector<>()));
        }
        finally
        {
            scanTwo.cleanup();
        }
    }

    /** A real YCSB load and workloads A and E through site.ycsb.Client, as scripts/ycsb runs them. */
    @Test
    void ycsbLoadThenWorkloadsAandE() throws Exception
    {
        int records = 500;
        session.execute("TRUNCATE ycsb.usertable");
        // dataintegrity: values are a function of key and field, so that workload A can verify what it reads.
        Map<String, Long> load = ycsb("-load", "workloada", "recordcount=" + records, "dataintegrity=true");
        assertEquals(records, load.get("INSERT Operations"));
        assertEquals(records, load.get("INSERT Return=OK"));
        assertEquals(records, count());
        for (Row r : session.execute("SELECT y_id, field0 FROM ycsb.usertable LIMIT 20"))
        {
            assertEquals(KeyNames.ELECT_KEY_LENGTH, r.getString(0).length(), r.getString(0));
            assertEquals(1000, r.getString(1).length());
        }

        // A: 50/50 reads and updates of existing keys; dataintegrity makes YCSB verify every value read.
        int opsA = 1000;
        Map<String, Long> a = ycsb("-t", "workloada", "recordcount=" + records, "operationcount=" + opsA,
                                   "dataintegrity=true");
        long reads = a.getOrDefault("READ Return=OK", 0L);
        long updates = a.getOrDefault("UPDATE Return=OK", 0L);
        assertEquals(opsA, reads + updates, a.toString());
        assertEquals(a.get("READ Operations"), reads, a.toString());
        assertTrue(reads > opsA / 4 && updates > opsA / 4, a.toString());
        assertEquals(reads, a.get("VERIFY Return=OK"), a.toString());
        assertEquals(records, count(), "updates must not add rows");

        // E: 95% scans of 1..100 rows in token order, 5% inserts of new keys.
        int opsE = 200;
        Map<String, Long> e = ycsb("-t", "workloade", "recordcount=" + records, "operationcount=" + opsE);
        long scans = e.getOrDefault("SCAN Return=OK", 0L);
        long inserts = e.getOrDefault("INSERT Return=OK", 0L);
        assertEquals(opsE, scans + inserts, e.toString());
        assertEquals(e.get("SCAN Operations"), scans, e.toString());
        assertTrue(inserts > 0, e.toString());
        assertEquals(records + inserts, count(), "every YCSB insert is a new row");
    }

    /**
     * {@code bench.Interleaved} (scripts/bench compare's driver): two loaded tables, workload A in 2 rounds of
     * 1-second slices; the slices come out in ABBA order, every slice did reads and updates of its own table
     * without a failure, and both tables really received updates during the run.
     */
    @Test
    void interleavedSlicesDriveBothTablesInAbbaOrder() throws Exception
    {
        int records = 300;
        for (String t : List.of("ta", "tb"))
        {
            CreateTable.run(CreateTable.parse(new String[]{ "--table", t, "--rf", "1", "--port", Integer.toString(PORT),
                                                            "--hosts", HOST, "--drop" }));
            Map<String, Long> load = ycsb("-load", "workloada", "recordcount=" + records, "table=" + t);
            assertEquals(records, load.get("INSERT Return=OK"));
        }
        long startMicros = System.currentTimeMillis() * 1000;
        List<String> cmd = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp", System.getProperty("java.class.path"),
            "-Dlogback.configurationFile=" + new File("target/classes/logback.xml").getAbsolutePath(),
            io.elect.ycsb.bench.Interleaved.class.getName(),
            "--workload", WorkloadFilesTest.dir().toAbsolutePath().resolve("workloada").toString(),
            "--tables", "ta,tb", "--rounds", "2", "--slice-seconds", "1", "--warmup-seconds", "1", "--threads", "2",
            "-p", "hosts=" + HOST, "-p", "port=" + PORT, "-p", "recordcount=" + records,
            "-p", "cassandra.writeconsistencylevel=ALL"));
        Path out = Files.createTempFile("interleaved-it", ".out");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile())
                                           .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        boolean done = p.waitFor(3, TimeUnit.MINUTES);
        if (!done)
            p.destroyForcibly();
        List<String> lines = Files.readAllLines(out);
        Files.delete(out);
        System.out.println("---- Interleaved ----\n" + String.join("\n", lines));
        assertTrue(done, "Interleaved did not finish");
        assertEquals(0, p.exitValue(), lines.toString());
        assertEquals(4, lines.size(), lines.toString());
        String[][] expected = { { "1", "ta", "1" }, { "1", "tb", "2" }, { "2", "tb", "1" }, { "2", "ta", "2" } };
        Pattern fields = Pattern.compile("\\{\"round\":(\\d+),\"table\":\"(\\w+)\",\"order\":(\\d+),"
                                         + "\"seconds\":([0-9.]+),\"ops\":(\\d+),\"ops_per_s\":([0-9.]+),"
                                         + "\"read_p50_ms\":([0-9.]+),.*\"update_p50_ms\":([0-9.]+),.*"
                                         + "\"failures\":\\{}}");
        for (int i = 0; i < 4; i++)
        {
            Matcher m = fields.matcher(lines.get(i));
            assertTrue(m.matches(), lines.get(i));
            assertEquals(expected[i][0], m.group(1), lines.get(i));
            assertEquals(expected[i][1], m.group(2), lines.get(i));
            assertEquals(expected[i][2], m.group(3), lines.get(i));
            double seconds = Double.parseDouble(m.group(4));
            long ops = Long.parseLong(m.group(5));
            assertTrue(seconds >= 1.0 && seconds < 10, lines.get(i));
            assertTrue(ops > 0, lines.get(i));
            assertEquals(ops / seconds, Double.parseDouble(m.group(6)), 0.1 + ops / seconds * 1e-3, lines.get(i));
        }
        for (String t : List.of("ta", "tb"))
        {
            long updated = 0;
            for (Row r : session.execute("SELECT writetime(field0) FROM ycsb." + t))
                if (r.getLong(0) >= startMicros)
                    updated++;
            assertTrue(updated > 0, t + ": no row was updated during the interleaved run");
        }
    }

    private static long count()
    {
        return session.execute("SELECT count(*) FROM ycsb.usertable").one().getLong(0);
    }

    /**
     * Runs {@code site.ycsb.Client} in a child JVM on this test's classpath and returns its summary as
     * "SECTION metric" -> value for integer metrics (e.g. "READ Return=OK" -> 997).
     */
    private static Map<String, Long> ycsb(String phase, String workload, String... extra) throws Exception
    {
        Path workloads = WorkloadFilesTest.dir().toAbsolutePath();
        List<String> cmd = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp", System.getProperty("java.class.path"),
            "-Dlogback.configurationFile=" + new File("target/classes/logback.xml").getAbsolutePath(),
            "site.ycsb.Client", phase, "-db", CassandraCqlClient.class.getName(),
            "-P", workloads.resolve(workload).toString(), "-threads", "4",
            "-p", "hosts=" + HOST, "-p", "port=" + PORT,
            "-p", "cassandra.writeconsistencylevel=ALL", "-p", "cassandra.readconsistencylevel=ONE"));
        for (String kv : extra)
        {
            cmd.add("-p");
            cmd.add(kv);
        }
        Path out = Files.createTempFile("ycsb-it", ".out");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        boolean done = p.waitFor(5, TimeUnit.MINUTES);
        if (!done)
            p.destroyForcibly();
        String text = Files.readString(out);
        Files.delete(out);
        System.out.println("---- YCSB " + phase + " " + workload + " ----\n" + text);
        assertTrue(done, "YCSB did not finish");
        assertEquals(0, p.exitValue(), text);
        Map<String, Long> summary = new HashMap<>();
        Matcher m = Pattern.compile("^\\[([A-Z-]+)\\], ([^,]+), (\\d+)$", Pattern.MULTILINE).matcher(text);
        while (m.find())
            summary.put(m.group(1) + " " + m.group(2).trim(), Long.parseLong(m.group(3)));
        assertNotNull(summary.get("OVERALL RunTime(ms)"), text);
        return summary;
    }

    private static String randomText(Random rnd, int length)
    {
        char[] c = new char[length];
        for (int i = 0; i < length; i++)
            c[i] = (char) (' ' + rnd.nextInt(95));
        return new String(c);
    }

    private static void deleteRecursively(Path dir) throws IOException
    {
        if (!Files.exists(dir))
            return;
        try (Stream<Path> paths = Files.walk(dir))
        {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList())
                Files.delete(p);
        }
    }
}
