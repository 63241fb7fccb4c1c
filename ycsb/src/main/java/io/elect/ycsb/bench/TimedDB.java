package io.elect.ycsb.bench;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.Vector;

import org.HdrHistogram.Histogram;

import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * A YCSB {@link DB} that forwards every call to the real binding and records, per operation kind, the latency of
 * each call (microseconds, in an HdrHistogram) and every status other than OK. One instance per client thread and
 * table: it is NOT thread-safe; {@link Interleaved} reads and resets it only between slices, when its thread is
 * parked at the slice barrier (the barrier orders the accesses).
 */
final class TimedDB extends DB
{
    /** Operation kinds, named as YCSB's summary sections. */
    static final String[] KINDS = { "READ", "UPDATE", "INSERT", "SCAN", "DELETE" };
    private static final long MAX_MICROS = 3_600_000_000L;

    private final DB db;
    private final Histogram[] latency = new Histogram[KINDS.length];
    /** "KIND=STATUS" -> count, for statuses other than OK. */
    private final Map<String, Long> failures = new TreeMap<>();

    TimedDB(DB db)
    {
        this.db = db;
        for (int i = 0; i < KINDS.length; i++)
            latency[i] = new Histogram(MAX_MICROS, 3);
    }

    @Override
    public void init() throws DBException
    {
        db.setProperties(getProperties());
        db.init();
    }

    @Override
    public void cleanup() throws DBException
    {
        db.cleanup();
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result)
    {
        long start = System.nanoTime();
        return done(0, start, db.read(table, key, fields, result));
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values)
    {
        long start = System.nanoTime();
        return done(1, start, db.update(table, key, values));
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values)
    {
        long start = System.nanoTime();
        return done(2, start, db.insert(table, key, values));
    }

    @Override
    public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                       Vector<HashMap<String, ByteIterator>> result)
    {
        long start = System.nanoTime();
        return done(3, start, db.scan(table, startkey, recordcount, fields, result));
    }

    @Override
    public Status delete(String table, String key)
    {
        long start = System.nanoTime();
        return done(4, start, db.delete(table, key));
    }

    private Status done(int kind, long startNanos, Status status)
    {
        long micros = Math.max(0, (System.nanoTime() - startNanos) / 1000);
        latency[kind].recordValue(Math.min(micros, MAX_MICROS));
        if (status == null || !status.isOk())
            failures.merge(KINDS[kind] + "=" + (status == null ? "null" : status.getName()), 1L, Long::sum);
        return status;
    }

    /** Adds this thread's latencies and failures of the slice to the totals, then clears its own. */
    void drainInto(Histogram[] totals, Map<String, Long> failureTotals)
    {
        for (int i = 0; i < KINDS.length; i++)
        {
            totals[i].add(latency[i]);
            latency[i].reset();
        }
        failures.forEach((k, v) -> failureTotals.merge(k, v, Long::sum));
        failures.clear();
    }

    static Histogram[] newTotals()
    {
        Histogram[] h = new Histogram[KINDS.length];
        for (int i = 0; i < KINDS.length; i++)
            h[i] = new Histogram(MAX_MICROS, 3);
        return h;
    }
}
