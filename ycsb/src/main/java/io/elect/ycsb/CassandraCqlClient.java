package io.elect.ycsb;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.BoundStatementBuilder;
import com.datastax.oss.driver.api.core.cql.ColumnDefinition;
import com.datastax.oss.driver.api.core.cql.ColumnDefinitions;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.ResultSet;
import com.datastax.oss.driver.api.core.cql.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * YCSB binding for Cassandra (and ELECT tables) over the Java driver 4.x.
 *
 * <p>Threading: YCSB creates one instance per client thread. All instances of a JVM share one {@link CqlSession}
 * (reference-counted, opened by the first {@link #init()}, closed by the last {@link #cleanup()}) and one cache of
 * prepared statements, keyed by operation, table and field set, so each distinct statement is prepared once.
 *
 * <p>Semantics, as in the usual YCSB Cassandra CQL binding: point reads and writes by {@code y_id}; scans are
 * {@code WHERE token(y_id) >= token(start) LIMIT n}, i.e. the next n partitions in ring order; a read with no row
 * is {@link Status#NOT_FOUND}; any driver exception is {@link Status#ERROR} (logged at DEBUG, or printed with
 * {@code -p debug=true}). Scan result rows include the {@code y_id} column; read results hold the fields only.
 * Consistency levels come from {@code cassandra.readconsistencylevel}, {@code cassandra.writeconsistencylevel}
 * (insert, update, delete) and {@code cassandra.scanconsistencylevel}; see {@link CassandraCqlOptions}.
 */
public class CassandraCqlClient extends DB
{
    private static final Logger logger = LoggerFactory.getLogger(CassandraCqlClient.class);

    /** Guards {@link #session}, {@link #options} and {@link #refCount}. */
    private static final Object LOCK = new Object();
    private static CqlSession session;
    private static CassandraCqlOptions options;
    private static int refCount;
    private static final ConcurrentMap<String, PreparedStatement> PREPARED = new ConcurrentHashMap<>();

    private CqlSession mySession;
    private CassandraCqlOptions myOptions;

    @Override
    public void init() throws DBException
    {
        CassandraCqlOptions parsed;
        try
        {
            parsed = CassandraCqlOptions.parse(getProperties());
        }
        catch (IllegalArgumentException e)
        {
            throw new DBException(e.getMessage(), e);
        }
        synchronized (LOCK)
        {
            if (session == null)
            {
                long start = System.nanoTime();
                try
                {
                    session = Sessions.open(parsed);
                }
                catch (RuntimeException e)
                {
                    throw new DBException("cannot connect to " + parsed.contactPoints + ": " + e.getMessage(), e);
                }
                options = parsed;
                PREPARED.clear();
                logger.info("Connected to {} (dc {}, keyspace {}) in {} ms; CL read {} write {} scan {}",
                            parsed.contactPoints, parsed.localDatacenter, parsed.keyspace,
                            (System.nanoTime() - start) / 1_000_000, parsed.readConsistency,
                            parsed.writeConsistency, parsed.scanConsistency);
            }
            refCount++;
            mySession = session;
            myOptions = options;
        }
    }

    @Override
    public void cleanup() throws DBException
    {
        synchronized (LOCK)
        {
            if (mySession == null)
                return;
            mySession = null;
            if (--refCount == 0)
            {
                session.close();
                session = null;
                options = null;
                PREPARED.clear();
            }
        }
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result)
    {
        return run("read", key, () -> {
            List<String> cols = sortedOrNull(fields);
            PreparedStatement ps = prepare("r", table, cols,
                                           () -> CqlStatements.read(myOptions.keyspace, table, cols));
            Row row = mySession.execute(bind(ps, myOptions.readConsistency).setString(0, key).build()).one();
            if (row == null)
                return Status.NOT_FOUND;
            copyRow(row, result, false);
            return Status.OK;
        });
    }

    @Override
    public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                       Vector<HashMap<String, ByteIterator>> result)
    {
        return run("scan", startkey, () -> {
            List<String> cols = sortedOrNull(fields);
            PreparedStatement ps = prepare("s", table, cols,
                                           () -> CqlStatements.scan(myOptions.keyspace, table, cols));
            BoundStatement bs = bind(ps, myOptions.scanConsistency).setString(0, startkey)
                                                                   .setInt(1, recordcount)
                                                                   .build();
            ResultSet rs = mySession.execute(bs);
            for (Row row : rs)
            {
                HashMap<String, ByteIterator> values = new HashMap<>();
                copyRow(row, values, true);
                result.add(values);
            }
            return Status.OK;
        });
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values)
    {
        return run("update", key, () -> {
            List<String> cols = new ArrayList<>(new TreeSet<>(values.keySet()));
            PreparedStatement ps = prepare("u", table, cols,
                                           () -> CqlStatements.update(myOptions.keyspace, table, cols));
            BoundStatementBuilder b = bind(ps, myOptions.writeConsistency);
            int i = 0;
            for (String c : cols)
                b.setString(i++, values.get(c).toString());
            b.setString(i, key);
            mySession.execute(b.build());
            return Status.OK;
        });
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values)
    {
        return run("insert", key, () -> {
            List<String> cols = new ArrayList<>(new TreeSet<>(values.keySet()));
            PreparedStatement ps = prepare("i", table, cols,
                                           () -> CqlStatements.insert(myOptions.keyspace, table, cols));
            BoundStatementBuilder b = bind(ps, myOptions.writeConsistency).setString(0, key);
            int i = 1;
            for (String c : cols)
                b.setString(i++, values.get(c).toString());
            mySession.execute(b.build());
            return Status.OK;
        });
    }

    @Override
    public Status delete(String table, String key)
    {
        return run("delete", key, () -> {
            PreparedStatement ps = prepare("d", table, Collections.emptyList(),
                                           () -> CqlStatements.delete(myOptions.keyspace, table));
            mySession.execute(bind(ps, myOptions.writeConsistency).setString(0, key).build());
            return Status.OK;
        });
    }

    private Status run(String op, String key, Supplier<Status> body)
    {
        if (mySession == null)
            throw new IllegalStateException(op + " before init() or after cleanup()");
        try
        {
            return body.get();
        }
        catch (RuntimeException e)
        {
            if (myOptions.debug)
                System.err.println(op + " " + key + " failed: " + e);
            logger.debug("{} of key {} failed", op, key, e);
            return Status.ERROR;
        }
    }

    private static BoundStatementBuilder bind(PreparedStatement ps, ConsistencyLevel cl)
    {
        return ps.boundStatementBuilder().setConsistencyLevel(cl);
    }

    /**
     * The prepared statement for (kind, table, fields), prepared at most once per JVM session. Preparing is
     * idempotent on the server, so a race between two threads only costs one extra round trip.
     */
    private PreparedStatement prepare(String kind, String table, List<String> fields, Supplier<String> cql)
    {
        String cacheKey = kind + '|' + table + '|' + (fields == null ? "*" : String.join(",", fields));
        PreparedStatement ps = PREPARED.get(cacheKey);
        if (ps == null)
        {
            String text = cql.get();
            ps = mySession.prepare(text);
            PREPARED.putIfAbsent(cacheKey, ps);
            logger.debug("Prepared {}", text);
        }
        return ps;
    }

    /** Number of prepared statements cached in this JVM (visible for tests). */
    static int preparedCount()
    {
        return PREPARED.size();
    }

    private static List<String> sortedOrNull(Set<String> fields)
    {
        return fields == null ? null : new ArrayList<>(new TreeSet<>(fields));
    }

    private static void copyRow(Row row, Map<String, ByteIterator> out, boolean withKey)
    {
        ColumnDefinitions defs = row.getColumnDefinitions();
        for (int i = 0; i < defs.size(); i++)
        {
            ColumnDefinition def = defs.get(i);
            String name = def.getName().asInternal();
            if (!withKey && CqlStatements.KEY_COLUMN.equals(name))
                continue;
            ByteBuffer raw = row.getBytesUnsafe(i);
            if (raw == null)
                continue; // a column never written: absent, as in the usual binding's null handling
            byte[] bytes = new byte[raw.remaining()];
            raw.duplicate().get(bytes);
            out.put(name, new ByteArrayByteIterator(bytes));
        }
    }
}
