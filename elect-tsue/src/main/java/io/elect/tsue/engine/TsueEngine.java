package io.elect.tsue.engine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.tsue.log.ParityLog;
import io.elect.tsue.log.Payload;
import io.elect.tsue.log.RecordLog;
import io.elect.tsue.log.TxRecord;
import io.elect.tsue.log.TxRecord.Extent;

/**
 * TSUE. Front end: an update is appended (synced) to the active data-log unit on the chunk's node and on its replica
 * node, indexed in memory, and acknowledged. Back end: a full unit is sealed and recycled by W workers (stripe
 * hashed onto a worker, so a stripe's parts are recycled in unit order): per stripe, the merged updates of each
 * chunk (temporal merging in the index; spatial: extents closer than a page are read as one span) are diffed
 * against the old data read in place, the data deltas go to the stripe's delta log (on the node of parity 0),
 * which combines the deltas of all chunks at the same offsets into the m parity deltas and sends them to the
 * parity logs as one transaction; the new data is then written in place and the transaction committed. Parity
 * logs merge overlapping deltas and apply them in large pieces when they exceed {@code parityApplyBytes}.
 *
 * <p>Log pool: FIFO of units, one active; a new unit is created when the active one fills, up to
 * {@code logMemoryQuota / logUnitBytes} units (at least 2): the number of units follows the load, and writers wait
 * when the quota is reached. A unit's files are deleted once all its stripes are recycled; parts finish in unit
 * order on every worker, so units complete in FIFO order.
 *
 * <p>Reads snapshot the unit list, read the chunk, then overlay the units oldest first: a unit leaves the list
 * only after its data writes, so the snapshot always covers bytes the chunk read may have missed.
 */
final class TsueEngine extends AbstractEngine
{
    static final int TYPE_DATA = 1;
    private static final Logger logger = LoggerFactory.getLogger(TsueEngine.class);

    private final Object pool = new Object();
    private final ArrayDeque<LogUnit> units = new ArrayDeque<>();   // FIFO, the active unit last
    private final AtomicLong unitIds = new AtomicLong(System.currentTimeMillis() << 12);
    private final AtomicLong seqs = new AtomicLong();
    private final int maxUnits;
    private final ExecutorService[] workers;
    private LogUnit active;
    private final java.util.concurrent.ConcurrentHashMap<Long, StripeOrder> orders =
        new java.util.concurrent.ConcurrentHashMap<>();
    /** The first recycling failure: the engine then refuses to drain and needs a restart with recovery. */
    private volatile Exception failure;

    TsueEngine(Cluster cluster)
    {
        super(cluster);
        maxUnits = (int) Math.max(2, cfg.logMemoryQuota / cfg.logUnitBytes);
        workers = new ExecutorService[cfg.recycleThreads];
        for (int w = 0; w < workers.length; w++)
        {
            int id = w;
            workers[w] = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "tsue-recycle-" + id);
                t.setDaemon(true);
                return t;
            });
        }
        active = new LogUnit(unitIds.incrementAndGet());
        units.add(active);
    }

    @Override
    public void update(long stripe, int chunk, List<Extent> extents) throws IOException
    {
        List<Extent> sorted = checkExtents(stripe, chunk, extents);
        int node = cluster.nodeOf(stripe, chunk), replica = cluster.replicaOf(stripe, chunk);
        long size = 0;
        for (Extent e : sorted)
            size += e.bytes().length;
        List<LogUnit> sealed = new ArrayList<>();
        StripeOrder order = orders.computeIfAbsent(stripe, x -> new StripeOrder());
        LogUnit u = acquire(size, sealed);
        long ticket;
        byte[] payload;
        try
        {
            synchronized (order)
            {
                // seq and ticket are taken together, so per stripe the index sees updates in log (seq) order
                ticket = order.issued++;
                long seq = seqs.incrementAndGet();
                Payload p = new Payload((int) size + 32 + 8 * sorted.size());
                p.i64(seq).i64(stripe).u16(chunk).i32(sorted.size());
                for (Extent e : sorted)
                    p.i32(e.offset()).i32(e.bytes().length).bytes(e.bytes(), 0, e.bytes().length);
                payload = p.toBytes();
            }
            try
            {
                u.nodes.add(node);
                u.nodes.add(replica);
                List<Callable<Void>> tasks = new ArrayList<>();
                for (int to : new int[]{ node, replica })
                    tasks.add(() -> {
                        cluster.node(node, to).appendRecord(u.file(), TYPE_DATA, payload, true);
                        return null;
                    });
                parallel(tasks);   // concurrent appends of one stripe share syncs (group commit)
                order.await(ticket);
                u.insert(stripe, chunk, sorted);
            }
            finally
            {
                order.done(ticket);
            }
        }
        finally
        {
            u.appenders.readLock().unlock();
        }
        samplePeak();
        for (LogUnit s : sealed)
            recycle(s);
    }

    /** The active unit with its append lock held; seals it first if full (sealed units are added to out). */
    private LogUnit acquire(long size, List<LogUnit> out) throws IOException
    {
        synchronized (pool)
        {
            while (active.appended.get() >= cfg.logUnitBytes)
            {
                if (units.size() >= maxUnits && workers.length > 0)
                {
                    if (failure != null)
                        throw new IOException("recycling failed; restart and recover", failure);
                    try
                    {
                        pool.wait();
                    }
                    catch (InterruptedException e)
                    {
                        Thread.currentThread().interrupt();
                        throw new IOException("interrupted waiting for log-pool quota", e);
                    }
                    continue;
                }
                LogUnit full = active;
                full.sealedNanos = System.nanoTime();
                active = new LogUnit(unitIds.incrementAndGet());
                units.add(active);
                if (workers.length > 0)
                    schedule(full);   // under the pool lock: every worker receives units in seal order
                else
                    out.add(full);
            }
            active.appended.addAndGet(size);
            active.appenders.readLock().lock();
            return active;
        }
    }

    /** Recycles a sealed unit inline (no workers) or hands it to the workers. */
    private void recycle(LogUnit u) throws IOException
    {
        if (workers.length == 0)
        {
            recyclePart(u, 0, 1);
            unitDone(u);
            return;
        }
        synchronized (pool)
        {
            schedule(u);
        }
    }

    /** REQUIRES: holding the pool monitor, so that every worker's queue holds units in seal (FIFO) order. */
    private void schedule(LogUnit u)
    {
        u.pendingParts = workers.length;
        for (int w = 0; w < workers.length; w++)
        {
            int part = w;
            workers[w].execute(() -> {
                try
                {
                    recyclePart(u, part, workers.length);
                    boolean last;
                    synchronized (pool)
                    {
                        last = --u.pendingParts == 0;
                    }
                    if (last)
                        unitDone(u);
                }
                catch (IOException | RuntimeException e)
                {
                    failure = e;
                    logger.error("recycling of data-log unit {} failed; it stays for recovery", u.id, e);
                    synchronized (pool)
                    {
                        pool.notifyAll();
                    }
                }
            });
        }
    }

    /** One stripe's share of a unit being recycled: its transaction records and the spans to write in place. */
    private record StripeWork(long stripe, long tx, List<TxRecord> records, Map<Integer, List<Extent>> spans)
    {
    }

    /**
     * Recycles the stripes of a unit hashed to this part, batched: all old data is read and all deltas combined
     * first, then each parity node receives all its transactions in one synced append, then every chunk is written
     * and synced once, then the transactions are committed. The crash protocol per transaction is unchanged
     * (records durable before data, commit after data), with far fewer syncs than stripe by stripe.
     */
    private void recyclePart(LogUnit u, int part, int parts) throws IOException
    {
        u.appenders.writeLock().lock();   // waits for the last in-flight append
        u.appenders.writeLock().unlock();
        List<StripeWork> work = new ArrayList<>();
        for (long stripe : u.stripes())
            if (Math.floorMod(Long.hashCode(stripe * 0x9E3779B97F4A7C15L), parts) == part)
            {
                StripeWork w = prepare(u, stripe);
                if (w != null)
                    work.add(w);
            }
        if (work.isEmpty())
            return;
        // each parity node receives the records of all its stripes in one message per sending delta log
        Map<Integer, List<TxRecord>> byNode = new TreeMap<>();
        for (StripeWork w : work)
            for (TxRecord r : w.records)
            {
                int to = cluster.nodeOf(w.stripe, k + r.parityIndex());
                byNode.computeIfAbsent(to, x -> new ArrayList<>()).add(r);
                cluster.transport().deliver(cluster.nodeOf(w.stripe, k), to, r.bytes());
            }
        List<Callable<Void>> appends = new ArrayList<>();
        for (Map.Entry<Integer, List<TxRecord>> e : byNode.entrySet())
            appends.add(() -> {
                cluster.local(e.getKey()).plogAppend("plog", e.getValue(), true);
                return null;
            });
        parallel(appends);
        Map<Integer, List<Object[]>> writes = new TreeMap<>();   // node -> {file, span}
        for (StripeWork w : work)
            for (Map.Entry<Integer, List<Extent>> c : w.spans.entrySet())
                for (Extent span : c.getValue())
                    writes.computeIfAbsent(cluster.nodeOf(w.stripe, c.getKey()), x -> new ArrayList<>())
                          .add(new Object[]{ chunk(w.stripe, c.getKey()), span });
        List<Callable<Void>> writers = new ArrayList<>();
        for (Map.Entry<Integer, List<Object[]>> e : writes.entrySet())
            writers.add(() -> {
                java.util.Set<String> files = new java.util.TreeSet<>();
                for (Object[] x : e.getValue())
                {
                    Extent span = (Extent) x[1];
                    cluster.local(e.getKey()).write((String) x[0], span.offset(), span.bytes(), false);
                    files.add((String) x[0]);
                }
                for (String f : files)
                    cluster.local(e.getKey()).files().sync(f);
                return null;
            });
        parallel(writers);
        for (Map.Entry<Integer, List<TxRecord>> e : byNode.entrySet())
        {
            long[] txs = e.getValue().stream().mapToLong(TxRecord::tx).distinct().toArray();
            cluster.transport().deliver(cluster.nodeOf(e.getValue().get(0).stripe(), k), e.getKey(), 8L * txs.length);
            cluster.local(e.getKey()).plogCommit("plog", txs, false);
        }
    }

    /** Data log and delta log of one stripe: read old data, data deltas, combined parity deltas. */
    private StripeWork prepare(LogUnit u, long stripe) throws IOException
    {
        int deltaNode = cluster.nodeOf(stripe, k);
        List<Extent> deltas = new ArrayList<>();
        List<Integer> chunks = new ArrayList<>();
        List<int[]> manifest = new ArrayList<>();
        Map<Integer, List<Extent>> spansByChunk = new TreeMap<>();
        for (Map.Entry<Integer, List<Extent>> c : u.extents(stripe).entrySet())
        {
            int chunk = c.getKey(), node = cluster.nodeOf(stripe, chunk);
            List<Extent> spans = new ArrayList<>();
            long sent = 0;
            for (List<Extent> group : spatialGroups(c.getValue()))
            {
                int start = group.get(0).offset(), end = group.get(group.size() - 1).end();
                byte[] span = cluster.node(node, node).read(chunk(stripe, chunk), start, end - start);
                for (Extent e : group)
                {
                    byte[] d = new byte[e.bytes().length];
                    System.arraycopy(span, e.offset() - start, d, 0, d.length);
                    ParityLog.xor(e.bytes(), 0, d, 0, d.length);
                    System.arraycopy(e.bytes(), 0, span, e.offset() - start, d.length);
                    deltas.add(new Extent(e.offset(), d));
                    chunks.add(chunk);
                    manifest.add(manifestEntry(chunk, e.offset(), e.bytes()));
                    sent += 8 + d.length;
                }
                spans.add(new Extent(start, span));
            }
            cluster.transport().deliver(node, deltaNode, sent);   // data deltas to the delta log
            spansByChunk.put(chunk, spans);
        }
        if (deltas.isEmpty())
            return null;
        List<List<Extent>> pd = parityDeltas(chunks, deltas);    // delta log: m parity deltas per offset
        long tx = nextTx();
        List<TxRecord> recs = new ArrayList<>();
        for (int j = 0; j < m; j++)
            recs.add(new TxRecord(tx, u.id, stripe, TxRecord.PARITY_DELTA, j, 0, manifest, pd.get(j)));
        return new StripeWork(stripe, tx, recs, spansByChunk);
    }

    /** Groups sorted extents whose gaps are below a page: each group is read and written as one span. */
    private List<List<Extent>> spatialGroups(List<Extent> sorted)
    {
        List<List<Extent>> groups = new ArrayList<>();
        List<Extent> cur = null;
        for (Extent e : sorted)
        {
            if (cur == null || e.offset() - cur.get(cur.size() - 1).end() >= cfg.pageSize)
                groups.add(cur = new ArrayList<>());
            cur.add(e);
        }
        return groups;
    }

    private void unitDone(LogUnit u) throws IOException
    {
        for (int n : u.nodes)
            cluster.local(n).delete(u.file());
        synchronized (pool)
        {
            units.remove(u);
            pool.notifyAll();
        }
        for (int n = 0; n < cluster.size(); n++)
            if (cluster.local(n).plogMemory() > cfg.parityApplyBytes)
                cluster.local(n).plogApply("plog");
        logger.info("data-log unit {} recycled: {} bytes appended, {} ms after sealing", u.id, u.appended.get(),
                    (System.nanoTime() - u.sealedNanos) / 1_000_000);
    }

    @Override
    public byte[] read(long stripe, int chunk, int offset, int len) throws IOException
    {
        checkRange(stripe, chunk, offset, len);
        List<LogUnit> snapshot;
        synchronized (pool)
        {
            snapshot = new ArrayList<>(units);
        }
        byte[] b = readStored(stripe, chunk, offset, len);
        for (LogUnit u : snapshot)
            u.overlay(stripe, chunk, offset, b);
        return b;
    }

    @Override
    protected void overlay(long stripe, int chunk, int offset, byte[] buf)
    {
        List<LogUnit> snapshot;
        synchronized (pool)
        {
            snapshot = new ArrayList<>(units);
        }
        for (LogUnit u : snapshot)
            u.overlay(stripe, chunk, offset, buf);
    }

    @Override
    public void drain() throws IOException
    {
        List<LogUnit> toRecycle = new ArrayList<>();
        synchronized (pool)
        {
            if (!active.isEmpty() || active.appended.get() > 0)
            {
                toRecycle.add(active);
                active = new LogUnit(unitIds.incrementAndGet());
                units.add(active);
            }
        }
        if (workers.length == 0)
        {
            List<LogUnit> all;
            synchronized (pool)
            {
                all = new ArrayList<>(units);
            }
            for (LogUnit u : all)
                if (u != active)
                    recycle(u);
        }
        else
        {
            synchronized (pool)
            {
                for (LogUnit u : toRecycle)
                    schedule(u);
                while (units.size() > 1 || units.peekFirst() != active)
                {
                    if (failure != null)
                        throw new IOException("recycling failed; restart and recover", failure);
                    try
                    {
                        pool.wait(100);
                    }
                    catch (InterruptedException e)
                    {
                        Thread.currentThread().interrupt();
                        throw new IOException("interrupted while draining", e);
                    }
                }
            }
        }
        applyAllParity();
    }

    @Override
    public long logMemoryBytes()
    {
        long n = parityLogMemory();
        synchronized (pool)
        {
            for (LogUnit u : units)
                n += u.memory();
        }
        return n;
    }

    @Override
    public void recover() throws IOException
    {
        long start = System.currentTimeMillis();
        TreeMap<Long, TreeMap<Long, Object[]>> byUnit = new TreeMap<>();   // unit -> seq -> {stripe, chunk, extents}
        Map<Long, LogUnit> rebuilt = new HashMap<>();
        for (int n = 0; n < cluster.size(); n++)
            for (String f : cluster.local(n).list("dlog-"))
            {
                long id = Long.parseLong(f.substring(5));
                rebuilt.computeIfAbsent(id, LogUnit::new).nodes.add(n);
                for (RecordLog.Entry e : cluster.local(n).scanLog(f))
                {
                    ByteBuffer b = e.payload();
                    long seq = b.getLong(), stripe = b.getLong();
                    int chunk = b.getShort() & 0xffff, count = b.getInt();
                    List<Extent> ext = new ArrayList<>();
                    for (int i = 0; i < count; i++)
                    {
                        int off = b.getInt();
                        byte[] bytes = new byte[b.getInt()];
                        b.get(bytes);
                        ext.add(new Extent(off, bytes));
                    }
                    byUnit.computeIfAbsent(id, x -> new TreeMap<>()).put(seq, new Object[]{ stripe, chunk, ext });
                }
            }
        List<LogUnit> recovered = new ArrayList<>();
        long records = 0;
        for (Map.Entry<Long, LogUnit> e : new TreeMap<>(rebuilt).entrySet())
        {
            LogUnit u = e.getValue();
            TreeMap<Long, Object[]> recs = byUnit.getOrDefault(e.getKey(), new TreeMap<>());
            for (Map.Entry<Long, Object[]> r : recs.entrySet())
            {
                @SuppressWarnings("unchecked")
                List<Extent> ext = (List<Extent>) r.getValue()[2];
                u.insert((Long) r.getValue()[0], (Integer) r.getValue()[1], ext);
                seqs.accumulateAndGet(r.getKey(), Math::max);
                records++;
            }
            unitIds.accumulateAndGet(u.id, Math::max);
            recovered.add(u);
        }
        Map<Long, LogUnit> byId = new HashMap<>();
        for (LogUnit u : recovered)
            byId.put(u.id, u);
        Recovery.resolve(cluster, this::readStored, r -> redo(byId.get(r.group()), r));
        applyAllParity();
        synchronized (pool)
        {
            units.clear();
            units.addAll(recovered);
            active = new LogUnit(unitIds.incrementAndGet());
            units.add(active);
        }
        logger.info("TSUE recovery: {} data-log units, {} records, {} ms", recovered.size(), records,
                    System.currentTimeMillis() - start);
        if (workers.length > 0)
            synchronized (pool)
            {
                for (LogUnit u : recovered)
                    schedule(u);
            }
    }

    /** Rewrites the data ranges of an interrupted recycling transaction from its data-log unit. */
    private void redo(LogUnit u, TxRecord r) throws IOException
    {
        if (u == null)
            throw new IOException("transaction " + r.tx() + " of stripe " + r.stripe() + " was cut during its data"
                                  + " write but its data-log unit " + r.group() + " is gone");
        for (int[] e : r.manifest())
        {
            byte[] b = new byte[e[2]];
            u.overlay(r.stripe(), e[0], e[1], b);
            int node = cluster.nodeOf(r.stripe(), e[0]);
            cluster.node(node, node).write(chunk(r.stripe(), e[0]), e[1], b, true);
        }
    }

    @Override
    public void close() throws IOException
    {
        for (ExecutorService w : workers)
            w.shutdownNow();
        super.close();
    }
}
