package io.elect.core.bridge;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.AsyncResultSet;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;

import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.service.EmbeddedCassandraService;
import org.apache.cassandra.utils.ByteBufferUtil;

/**
 * Shared by TieredNodeRunner (the node test) and TieredBench: starting the embedded node of tiered-node.yaml, the
 * data set, and reads that capture what a table returns (point reads of every key, a paged full scan, token-range
 * scans) so that two captures can be compared exactly.
 */
final class TieredNodeSupport
{
    static final String KS = "tiered";
    static final int NATIVE_PORT = 39042;

    private TieredNodeSupport()
    {
    }

    /** Starts the node with its directories under base; the caller registers cold stores first. */
    static EmbeddedCassandraService start(Path base) throws Exception
    {
        return EmbeddedNode.start("tiered-node.yaml", "tiered-logback.xml", base, base);
    }

    static CqlSession session()
    {
        return EmbeddedNode.session(NATIVE_PORT);
    }

    static ColumnFamilyStore cfs(String table)
    {
        return Keyspace.open(KS).getColumnFamilyStore(table);
    }

    static String key(int i)
    {
        return String.format("user%08d", i);
    }

    /** Deterministic value of key i written in round r. */
    static ByteBuffer value(int i, int round)
    {
        java.util.Random r = new java.util.Random(i * 31L + round);
        byte[] b = new byte[200 + r.nextInt(400)];
        r.nextBytes(b);
        return ByteBuffer.wrap(b);
    }

    static void createTables(CqlSession s, String... tablesAndCompression)
    {
        s.execute("CREATE KEYSPACE IF NOT EXISTS " + KS + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
        for (int i = 0; i < tablesAndCompression.length; i += 2)
            s.execute("CREATE TABLE IF NOT EXISTS " + KS + "." + tablesAndCompression[i]
                      + " (key text PRIMARY KEY, field0 blob) WITH compression = " + tablesAndCompression[i + 1]
                      + " AND read_repair = 'NONE'"
                      // no background compaction, persistently (also during the next start-up): the tests decide
                      // which SSTable is where; compaction would merge tiered SSTables into a new local one
                      + " AND compaction = {'class': 'SizeTieredCompactionStrategy', 'enabled': 'false'}");
    }

    /**
     * Writes one round and flushes it into one new SSTable, which is returned. Round r writes keys
     * [r*n, (r+1)*n); with overwriteFirst, also overwrites keys i of round 0 with i % 10 == 0 and deletes those with
     * i % 20 == 5 (so older SSTables hold shadowed versions that must stay hidden).
     */
    static SSTableReader writeRound(CqlSession s, String table, int round, int n, boolean overwriteFirst) throws Exception
    {
        PreparedStatement ins = s.prepare("INSERT INTO " + KS + "." + table + " (key, field0) VALUES (?, ?)");
        PreparedStatement del = s.prepare("DELETE FROM " + KS + "." + table + " WHERE key = ?");
        List<CompletionStage<AsyncResultSet>> inflight = new ArrayList<>();
        for (int i = round * n; i < (round + 1) * n; i++)
        {
            inflight.add(s.executeAsync(ins.bind(key(i), value(i, round))));
            if (inflight.size() >= 128)
                drain(inflight);
        }
        if (overwriteFirst)
            for (int i = 0; i < n; i++)
            {
                if (i % 10 == 0)
                    inflight.add(s.executeAsync(ins.bind(key(i), value(i, round))));
                else if (i % 20 == 5)
                    inflight.add(s.executeAsync(del.bind(key(i))));
                if (inflight.size() >= 128)
                    drain(inflight);
            }
        drain(inflight);
        ColumnFamilyStore cfs = cfs(table);
        Set<SSTableReader> before = new HashSet<>(cfs.getLiveSSTables());
        cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
        List<SSTableReader> added = new ArrayList<>(cfs.getLiveSSTables());
        added.removeAll(before);
        if (added.size() != 1)
            throw new AssertionError("a flush of " + table + " made " + added.size() + " SSTables: " + added);
        return added.get(0);
    }

    /** Keys of round 0 that later rounds neither overwrote nor deleted: they live only in the round-0 SSTable. */
    static boolean onlyInRound0(int i)
    {
        return i % 10 != 0 && i % 20 != 5;
    }

    static void drain(List<CompletionStage<AsyncResultSet>> inflight) throws Exception
    {
        for (CompletionStage<AsyncResultSet> f : inflight)
            f.toCompletableFuture().get();
        inflight.clear();
    }

    /** Everything the table returns, in a comparable form. */
    record Capture(Map<String, String> points, List<String> scan, List<String> ranges)
    {
    }

    static Capture capture(CqlSession s, String table, int keys) throws Exception
    {
        PreparedStatement get = s.prepare("SELECT field0 FROM " + KS + "." + table + " WHERE key = ?");
        Map<String, CompletionStage<AsyncResultSet>> inflight = new TreeMap<>();
        Map<String, String> points = new TreeMap<>();
        for (int i = 0; i < keys; i++)
        {
            inflight.put(key(i), s.executeAsync(get.bind(key(i))));
            if (inflight.size() >= 128 || i == keys - 1)
            {
                for (Map.Entry<String, CompletionStage<AsyncResultSet>> e : inflight.entrySet())
                {
                    Row row = e.getValue().toCompletableFuture().get().one();
                    points.put(e.getKey(), row == null ? "<none>" : ByteBufferUtil.bytesToHex(row.getByteBuffer(0)));
                }
                inflight.clear();
            }
        }
        List<String> scan = new ArrayList<>();
        for (Row row : s.execute(SimpleStatement.newInstance("SELECT key, field0 FROM " + KS + "." + table).setPageSize(97)))
            scan.add(row.getString(0) + "=" + ByteBufferUtil.bytesToHex(row.getByteBuffer(1)));
        List<String> ranges = new ArrayList<>();
        long[] bounds = { Long.MIN_VALUE, -4_000_000_000_000_000_000L, -1L, 3_000_000_000_000_000_000L, Long.MAX_VALUE };
        for (int b = 0; b + 1 < bounds.length; b++)
        {
            SimpleStatement st = SimpleStatement.newInstance("SELECT key, field0 FROM " + KS + "." + table
                                                             + " WHERE token(key) > ? AND token(key) <= ?",
                                                             bounds[b], bounds[b + 1]).setPageSize(211);
            ranges.add("range " + b);
            for (Row row : s.execute(st))
                ranges.add(row.getString(0) + "=" + ByteBufferUtil.bytesToHex(row.getByteBuffer(1)));
        }
        return new Capture(points, scan, ranges);
    }

    static String render(Capture c)
    {
        StringBuilder sb = new StringBuilder();
        c.points().forEach((k, v) -> sb.append("point ").append(k).append('=').append(v).append('\n'));
        c.scan().forEach(l -> sb.append("scan ").append(l).append('\n'));
        c.ranges().forEach(l -> sb.append("ranges ").append(l).append('\n'));
        return sb.toString();
    }

    static void assertSame(Capture expected, Capture actual, String what)
    {
        if (!expected.points().equals(actual.points()))
            throw new AssertionError(what + ": point reads differ (" + diff(expected.points(), actual.points()) + ")");
        if (!expected.scan().equals(actual.scan()))
            throw new AssertionError(what + ": paged full scan differs (" + expected.scan().size() + " vs "
                                     + actual.scan().size() + " rows)");
        if (!expected.ranges().equals(actual.ranges()))
            throw new AssertionError(what + ": token-range scans differ (" + expected.ranges().size() + " vs "
                                     + actual.ranges().size() + " lines)");
    }

    private static String diff(Map<String, String> a, Map<String, String> b)
    {
        for (Map.Entry<String, String> e : a.entrySet())
            if (!e.getValue().equals(b.get(e.getKey())))
                return "first difference at " + e.getKey();
        return "sizes " + a.size() + " vs " + b.size();
    }
}
