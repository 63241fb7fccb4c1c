package io.elect.core.bridge;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;

import javax.management.ObjectName;

import com.codahale.metrics.Gauge;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.AsyncResultSet;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.elect.core.trees.RoleRanges;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.db.compaction.CompactionManager;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.dht.Token;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.metrics.CassandraMetricsRegistry;
import org.apache.cassandra.service.EmbeddedCassandraService;
import org.apache.cassandra.service.StorageService;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * One embedded node; the role map of keyspace {@value #KS} is given explicitly (three ranges with roles 0, 1, 2, as if
 * this node were primary, first and second secondary of three ring ranges), then moved (a topology change).
 * Checks: no live SSTable ever spans two roles after flushes and after compactions (background, major, re-split of
 * misfits); several levels are built per role; reads (point, paged full scan, token-range scans across role
 * boundaries) of the ELECT table equal those of a plain LCS table holding the same writes; the JMX document and the
 * gauges agree with the live SSTable set.
 */
class ElectCompactionStrategyTest
{
    private static final String KS = "elect_trees";
    private static final long B1 = -3074457345618258602L;
    private static final long B2 = 3074457345618258602L;

    private static EmbeddedCassandraService cassandra;
    private static CqlSession session;

    @BeforeAll
    static void startNode() throws Exception
    {
        Path base = Paths.get("target", "elect-trees-node-" + ProcessHandle.current().pid()).toAbsolutePath();
        cassandra = EmbeddedNode.start("elect-trees-node.yaml", "elect-trees-logback.xml", base, base);
        session = EmbeddedNode.session(19042);
    }

    @AfterAll
    static void stopNode() throws Exception
    {
        if (session != null)
            session.close();
        if (cassandra != null)
            StorageService.instance.drain();
    }

    private static RoleRanges<Token> ranges(long b1, long b2, int r0, int r1, int r2)
    {
        return RoleRanges.linear(List.of(new Murmur3Partitioner.LongToken(b1), new Murmur3Partitioner.LongToken(b2)),
                                 List.of(r0, r1, r2));
    }

    @Test
    void rolePartitionedTreesKeepReadsExact() throws Exception
    {
        long seed = System.nanoTime();
        System.out.println("ElectCompactionStrategyTest seed=" + seed);
        Random rnd = new Random(seed);
        NodeHandoff.bridge().roles().setOverrideForTesting(KS, ranges(B1, B2, 0, 1, 2));

        session.execute("CREATE KEYSPACE " + KS + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
        session.execute("CREATE TABLE " + KS + ".elect (key text PRIMARY KEY, field0 blob) WITH compaction = "
                        + "{'class': 'io.elect.core.bridge.ElectCompactionStrategy', 'sstable_size_in_mb': 1, 'fanout_size': 4}"
                        + " AND read_repair = 'NONE'");
        session.execute("CREATE TABLE " + KS + ".plain (key text PRIMARY KEY, field0 blob) WITH compaction = "
                        + "{'class': 'LeveledCompactionStrategy', 'sstable_size_in_mb': 1, 'fanout_size': 4}");
        ColumnFamilyStore elect = Keyspace.open(KS).getColumnFamilyStore("elect");
        ColumnFamilyStore plain = Keyspace.open(KS).getColumnFamilyStore("plain");
        elect.disableAutoCompaction();
        plain.disableAutoCompaction();

        // Four rounds of writes (overwrites and deletes included), each flushed: several L0 SSTables per role.
        int keys = 8000;
        for (int round = 0; round < 4; round++)
        {
            writeRound(rnd, keys, round);
            elect.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
            plain.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
            assertNoSSTableSpansTwoRoles(elect, ranges(B1, B2, 0, 1, 2), "after flush " + round);
        }
        assertTrue(elect.getLiveSSTables().size() >= 4 * 3, "flushes were split at role boundaries: "
                                                          + elect.getLiveSSTables().size());
        assertReadsEqual(rnd);

        // Background (leveled) compaction per role.
        elect.enableAutoCompaction();
        plain.enableAutoCompaction();
        awaitCompactions(elect);
        awaitCompactions(plain);
        assertNoSSTableSpansTwoRoles(elect, ranges(B1, B2, 0, 1, 2), "after leveled compaction");
        Map<Integer, ElectCompactionStrategy.RoleLevels> levels = strategy(elect).roleLevels();
        assertEquals(List.of(0, 1, 2), new ArrayList<>(levels.keySet()), "one tree per role: " + levels.keySet());
        for (Map.Entry<Integer, ElectCompactionStrategy.RoleLevels> e : levels.entrySet())
            assertTrue(e.getValue().sstables.length > 1 && e.getValue().sstables[1] > 0,
                       "role " + e.getKey() + " reached L1: " + java.util.Arrays.toString(e.getValue().sstables));
        assertReadsEqual(rnd);
        assertVisibilityMatches(elect);

        // A topology change moves both boundaries and permutes roles: straddling SSTables are re-split.
        RoleRanges<Token> moved = ranges(B1 / 2, B2 + B2 / 3, 2, 0, 1);
        NodeHandoff.bridge().roles().setOverrideForTesting(KS, moved);
        strategy(elect).currentRoles();
        assertTrue(strategy(elect).misfitCount() > 0, "moving the boundaries made misfits");
        CompactionManager.instance.submitBackground(elect);
        awaitCompactions(elect);
        assertEquals(0, strategy(elect).misfitCount(), "misfits were re-split");
        assertNoSSTableSpansTwoRoles(elect, moved, "after topology change");
        writeRound(rnd, keys, 4);
        elect.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
        plain.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
        assertNoSSTableSpansTwoRoles(elect, moved, "flush after topology change");
        assertReadsEqual(rnd);

        // Major compaction: one per role.
        elect.forceMajorCompaction();
        awaitCompactions(elect);
        assertNoSSTableSpansTwoRoles(elect, moved, "after major compaction");
        assertReadsEqual(rnd);
        assertVisibilityMatches(elect);
    }

    /**
     * A flush whose role shares are each under one SSTable's worth (but over a third of it) is merged into L1 in
     * every role tree, as the same writes' flush is in a plain LCS table (L0Promotion): without it each role tree
     * kept one small L0 SSTable and a point read probed two SSTables where the plain table probed one.
     */
    @Test
    void aRoleShareOfAFlushIsPromotedIntoL1LikeAPlainTablesFlush() throws Exception
    {
        String ks = "elect_promote";
        NodeHandoff.bridge().roles().setOverrideForTesting(ks, ranges(B1, B2, 0, 1, 2));
        session.execute("CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
        for (String t : new String[]{ "elect", "plain" })
            session.execute("CREATE TABLE " + ks + '.' + t + " (key text PRIMARY KEY, field0 blob) WITH compaction = {'class': '"
                            + (t.equals("elect") ? "io.elect.core.bridge.ElectCompactionStrategy" : "LeveledCompactionStrategy")
                            + "', 'sstable_size_in_mb': 1, 'fanout_size': 10} AND compression = {'enabled': 'false'}");
        ColumnFamilyStore elect = Keyspace.open(ks).getColumnFamilyStore("elect");
        ColumnFamilyStore plain = Keyspace.open(ks).getColumnFamilyStore("plain");
        elect.disableAutoCompaction();
        plain.disableAutoCompaction();
        Random rnd = new Random(42);
        // 6000 keys of 800 bytes (about 4.8 MB per table), major-compacted: every role tree holds L1 only
        write(ks, rnd, 6000, 1);
        for (ColumnFamilyStore cfs : new ColumnFamilyStore[]{ elect, plain })
        {
            cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
            cfs.forceMajorCompaction();
        }
        // overwrite every third key: a flush of about 1.6 MB, over the 1 MiB SSTable size; about 0.5 MB per role
        write(ks, rnd, 6000, 3);
        for (ColumnFamilyStore cfs : new ColumnFamilyStore[]{ elect, plain })
        {
            cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
            cfs.enableAutoCompaction();
            awaitCompactions(cfs);
        }
        assertEquals(0, plain.getCompactionStrategyManager().getSSTableCountPerLevel()[0],
                     "the plain table promoted its flush (LCS)");
        Map<Integer, ElectCompactionStrategy.RoleLevels> levels = strategy(elect).roleLevels();
        assertEquals(List.of(0, 1, 2), new ArrayList<>(levels.keySet()));
        for (Map.Entry<Integer, ElectCompactionStrategy.RoleLevels> e : levels.entrySet())
            assertEquals(0, e.getValue().sstables[0], "role " + e.getKey() + " promoted its share of the flush: "
                                                      + java.util.Arrays.toString(e.getValue().sstables));
        assertNoSSTableSpansTwoRoles(elect, ranges(B1, B2, 0, 1, 2), "after the promotion");
        Map<String, ByteBuffer> all = new TreeMap<>();
        for (Row row : session.execute(SimpleStatement.newInstance("SELECT key, field0 FROM " + ks + ".plain").setPageSize(500)))
            all.put(row.getString(0), row.getByteBuffer(1));
        assertEquals(6000, all.size());
        Map<String, ByteBuffer> electAll = new TreeMap<>();
        for (Row row : session.execute(SimpleStatement.newInstance("SELECT key, field0 FROM " + ks + ".elect").setPageSize(500)))
            electAll.put(row.getString(0), row.getByteBuffer(1));
        assertEquals(all, electAll, "reads of the ELECT table after the promotion");
    }

    /** Writes the same value of every every-th key of 0..keys-1 to ks.elect and ks.plain. */
    private void write(String ks, Random rnd, int keys, int every) throws Exception
    {
        PreparedStatement[] insert = { session.prepare("INSERT INTO " + ks + ".elect (key, field0) VALUES (?, ?)"),
                                       session.prepare("INSERT INTO " + ks + ".plain (key, field0) VALUES (?, ?)") };
        List<CompletionStage<AsyncResultSet>> inflight = new ArrayList<>();
        for (int i = 0; i < keys; i += every)
        {
            byte[] value = new byte[800];
            rnd.nextBytes(value);
            for (PreparedStatement p : insert)
                inflight.add(session.executeAsync(p.bind(String.format("user%019d", i), ByteBuffer.wrap(value))));
            if (inflight.size() >= 256)
                drain(inflight);
        }
        drain(inflight);
    }

    private void writeRound(Random rnd, int keys, int round) throws Exception
    {
        PreparedStatement[] insert = { session.prepare("INSERT INTO " + KS + ".elect (key, field0) VALUES (?, ?)"),
                                       session.prepare("INSERT INTO " + KS + ".plain (key, field0) VALUES (?, ?)") };
        PreparedStatement[] delete = { session.prepare("DELETE FROM " + KS + ".elect WHERE key = ?"),
                                       session.prepare("DELETE FROM " + KS + ".plain WHERE key = ?") };
        List<CompletionStage<AsyncResultSet>> inflight = new ArrayList<>();
        for (int i = 0; i < keys; i++)
        {
            if (round > 0 && rnd.nextInt(3) != 0)
                continue; // later rounds overwrite or delete a third of the keys
            String key = String.format("user%019d", i);
            boolean del = round > 0 && rnd.nextInt(10) == 0;
            byte[] value = new byte[200 + rnd.nextInt(400)];
            rnd.nextBytes(value);
            for (int t = 0; t < 2; t++)
                inflight.add(del ? session.executeAsync(delete[t].bind(key))
                                 : session.executeAsync(insert[t].bind(key, ByteBuffer.wrap(value))));
            if (inflight.size() >= 256)
                drain(inflight);
        }
        drain(inflight);
    }

    private static void drain(List<CompletionStage<AsyncResultSet>> inflight) throws Exception
    {
        for (CompletionStage<AsyncResultSet> f : inflight)
            f.toCompletableFuture().get();
        inflight.clear();
    }

    private static ElectCompactionStrategy strategy(ColumnFamilyStore cfs)
    {
        for (List<org.apache.cassandra.db.compaction.AbstractCompactionStrategy> holder : cfs.getCompactionStrategyManager().getStrategies())
            for (org.apache.cassandra.db.compaction.AbstractCompactionStrategy s : holder)
                if (s instanceof ElectCompactionStrategy && ((ElectCompactionStrategy) s).roleLevels().size() > 0)
                    return (ElectCompactionStrategy) s;
        fail("no ElectCompactionStrategy with SSTables on " + cfs);
        return null;
    }

    private static void assertNoSSTableSpansTwoRoles(ColumnFamilyStore cfs, RoleRanges<Token> roles, String when)
    {
        for (SSTableReader s : cfs.getLiveSSTables())
            assertNotNull(roles.spanRole(s.getFirst().getToken(), s.getLast().getToken()),
                          when + ": " + s + " spans [" + s.getFirst().getToken() + ", " + s.getLast().getToken()
                          + "] across roles " + roles);
    }

    private static void awaitCompactions(ColumnFamilyStore cfs) throws InterruptedException
    {
        long deadline = System.nanoTime() + 180_000_000_000L;
        int quiet = 0;
        while (quiet < 3)
        {
            if (System.nanoTime() > deadline)
                fail("compactions did not settle on " + cfs + ": " + cfs.getCompactionStrategyManager().getEstimatedRemainingTasks());
            CompactionManager.instance.submitBackground(cfs);
            Thread.sleep(300);
            boolean idle = CompactionManager.instance.getActiveCompactions() == 0
                           && CompactionManager.instance.getPendingTasks() == 0
                           && cfs.getCompactionStrategyManager().getEstimatedRemainingTasks() == 0;
            quiet = idle ? quiet + 1 : 0;
        }
    }

    /** Point reads, a paged full scan and token-range scans (crossing both boundaries) agree between the tables. */
    private void assertReadsEqual(Random rnd)
    {
        Map<String, ByteBuffer> electAll = scan("elect", "");
        Map<String, ByteBuffer> plainAll = scan("plain", "");
        assertTrue(plainAll.size() > 1000, "plain table has data: " + plainAll.size());
        assertEquals(plainAll, electAll, "paged full scans differ");
        long[][] spans = { { Long.MIN_VALUE, B1 }, { B1 - (1L << 60), B1 + (1L << 60) }, { B1, B2 },
                           { B2 - (1L << 61), Long.MAX_VALUE }, { rnd.nextLong() / 2, rnd.nextLong() / 2 + (1L << 62) } };
        for (long[] span : spans)
        {
            String where = " WHERE token(key) > " + span[0] + " AND token(key) <= " + span[1];
            Map<String, ByteBuffer> e = scan("elect", where);
            assertEquals(scan("plain", where), e, "token-range scan" + where);
        }
        PreparedStatement get = session.prepare("SELECT field0 FROM " + KS + ".elect WHERE key = ?");
        for (int i = 0; i < 300; i++)
        {
            String key = String.format("user%019d", rnd.nextInt(8000));
            Row row = session.execute(get.bind(key)).one();
            assertEquals(plainAll.get(key), row == null ? null : row.getByteBuffer(0), "point read " + key);
        }
    }

    private static Map<String, ByteBuffer> scan(String table, String where)
    {
        Map<String, ByteBuffer> out = new TreeMap<>();
        SimpleStatement st = SimpleStatement.newInstance("SELECT key, field0 FROM " + KS + '.' + table + where)
                                            .setPageSize(500);
        for (Row row : session.execute(st))
            out.put(row.getString(0), row.getByteBuffer(1));
        return out;
    }

    /** The JMX document and the gauges count exactly the live SSTables and their bytes, per role and level. */
    private static void assertVisibilityMatches(ColumnFamilyStore cfs) throws Exception
    {
        String json = (String) ManagementFactory.getPlatformMBeanServer()
                                                .getAttribute(new ObjectName(ElectTables.MBEAN_NAME), "TablesJson");
        JsonNode doc = new ObjectMapper().readTree(json);
        assertEquals(1, doc.get("version").asInt(), json);
        JsonNode table = null;
        for (JsonNode t : doc.get("tables"))
            if (t.get("keyspace").asText().equals(KS) && t.get("table").asText().equals("elect"))
                table = t;
        assertNotNull(table, "table listed: " + json);
        long count = 0;
        long bytes = 0;
        Map<String, Long> perRoleLevel = new HashMap<>();
        for (JsonNode role : table.get("roles"))
            for (JsonNode level : role.get("levels"))
            {
                count += level.get("sstables").asLong();
                bytes += level.get("bytes").asLong();
                perRoleLevel.put("role" + role.get("role").asText() + ".L" + level.get("level").asInt(), level.get("sstables").asLong());
            }
        long liveBytes = 0;
        for (SSTableReader s : cfs.getLiveSSTables())
            liveBytes += s.onDiskLength();
        assertEquals(cfs.getLiveSSTables().size(), count, json);
        assertEquals(liveBytes, bytes, json);
        assertTrue(doc.get("role_ranges").get(KS).isArray(), json);

        for (Map.Entry<String, Long> e : perRoleLevel.entrySet())
        {
            String name = ElectTables.METRIC_GROUP + '.' + ElectTables.METRIC_TYPE + ".LevelSSTables."
                          + KS + ".elect." + e.getKey();
            Gauge<?> g = CassandraMetricsRegistry.Metrics.getGauges().get(name);
            assertNotNull(g, "gauge " + name + " among " + CassandraMetricsRegistry.Metrics.getGauges().keySet().stream()
                                                                                         .filter(n -> n.contains("ElectTrees")).limit(5).toList());
            assertEquals(e.getValue(), ((Number) g.getValue()).longValue(), name);
        }
    }
}
