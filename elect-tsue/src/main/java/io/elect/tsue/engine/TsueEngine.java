package io.elect.tsue.engine;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.tsue.log.LogTimes;
import io.elect.tsue.log.Payload;
import io.elect.tsue.log.RecordLog;
import io.elect.tsue.log.TxRecord;
import io.elect.tsue.log.TxRecord.Extent;

/**
 * TSUE. Front end: an update is appended (synced, group commit) to the active data-log unit of its stripe's log pool
 * on the chunk's node and on its replica node, indexed in memory, and acknowledged: one synced append to the data log
 * and its replica, nothing else. Back end, three layers: {@code recycleThreads} workers recycle sealed data-log units
 * ({@link TsueRecycler}: old data read, deltas to the delta logs, data written in place), a back-end thread forwards
 * delta logs that hold more than {@code deltaLogBytes} ({@link DeltaLogs}: merged and combined parity deltas to the
 * parity logs) and applies parity logs that hold more than {@code parityApplyBytes}.
 *
 * <p>Log pools ({@link LogPool}): stripes are hashed onto {@code logPools} pools; a sealed unit is split into one
 * part per worker by stripe hash and handed to every worker under its pool's monitor, so each stripe is recycled in
 * unit order and units complete in FIFO order per pool. A unit's files are deleted and its memory released when all
 * its parts are done.
 *
 * <p>Reads take no lock: they snapshot the stripe's pool, read the chunk, and overlay the units oldest first; a unit
 * leaves its pool only after its data writes, so the snapshot always covers bytes the chunk read may have missed.
 * Recycling workers and the back-end thread may be held to {@code recycleCpuShare} of a core each (duty cycle on
 * their measured CPU time), so that on a small machine the front end keeps its share.
 */
final class TsueEngine extends AbstractEngine
{
    static final int TYPE_DATA = 1;
    private static final Logger logger = LoggerFactory.getLogger(TsueEngine.class);
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final LogPool[] pools;
    private final AtomicLong unitIds = new AtomicLong(System.currentTimeMillis() << 12);
    private final AtomicLong seqs = new AtomicLong();
    private final ExecutorService[] workers;
    private final ExecutorService backEnd;
    private final AtomicBoolean flushQueued = new AtomicBoolean();
    private final ConcurrentHashMap<Long, StripeOrder> orders = new ConcurrentHashMap<>();
    private final DeltaLogs deltas;
    private final TsueRecycler recycler;
    private final LogTimes times;

    TsueEngine(Cluster cluster)
    {
        super(cluster);
        times = cluster.logTimes();
        LogPool.Budget budget = new LogPool.Budget((int) Math.max(2, cfg.logMemoryQuota / cfg.logUnitBytes));
        pools = new LogPool[cfg.logPools];
        for (int p = 0; p < pools.length; p++)
            pools[p] = new LogPool(p, cfg, budget, unitIds, cluster.clock());
        workers = new ExecutorService[cfg.recycleThreads];
        for (int w = 0; w < workers.length; w++)
            workers[w] = Executors.newSingleThreadExecutor(daemon("tsue-recycle-" + w));
        backEnd = cfg.recycleThreads > 0 ? Executors.newSingleThreadExecutor(daemon("tsue-backend")) : null;
        deltas = new DeltaLogs(cluster, this::nextTx);
        recycler = new TsueRecycler(cluster, deltas, this::nextTx);
    }

    private static java.util.concurrent.ThreadFactory daemon(String name)
    {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    private LogPool pool(long stripe)
    {
        return pools[(int) Math.floorMod(stripe * 0x9E3779B97F4A7C15L >>> 17, (long) pools.length)];
    }

    @Override
    public void update(long stripe, int chunk, List<Extent> extents) throws IOException
    {
        List<Extent> sorted = checkExtents(stripe, chunk, extents);
        int node = cluster.nodeOf(stripe, chunk), replica = cluster.replicaOf(stripe, chunk);
        long size = 0;
        for (Extent e : sorted)
            size += e.bytes().length;
        long t0 = cluster.clock().getAsLong();
        List<LogUnit> sealed = new ArrayList<>();
        StripeOrder order = orders.computeIfAbsent(stripe, x -> new StripeOrder());
        LogUnit u = pool(stripe).acquire(size, sealer(sealed));
        try
        {
            long ticket;
            byte[] payload;
            synchronized (order)
            {
                // seq and ticket are taken together, so per stripe the index sees updates in log (seq) order
                ticket = order.issued++;
                Payload p = new Payload((int) size + 32 + 8 * sorted.size());
                p.i64(seqs.incrementAndGet()).i64(stripe).u16(chunk).i32(sorted.size());
                for (Extent e : sorted)
                    p.i32(e.offset()).i32(e.bytes().length).bytes(e.bytes(), 0, e.bytes().length);
                payload = p.toBytes();
            }
            try
            {
                u.nodes.add(node);
                u.nodes.add(replica);
                Parallel.run(List.of(() -> {
                    cluster.node(node, replica).appendRecord(u.file(), TYPE_DATA, payload, true);
                    return null;
                }, () -> {
                    cluster.node(node, node).appendRecord(u.file(), TYPE_DATA, payload, true);
                    return null;
                }));   // concurrent appends to a unit file share syncs (group commit)
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
        long t1 = cluster.clock().getAsLong();
        times.append(LogTimes.Log.DATA, size, t1 - t0);
        u.durable(size, t1);
        samplePeak();
        for (LogUnit s : sealed)
        {
            recycleInline(s);
            flushLogs();
        }
    }

    /** What happens to a unit sealed by an append: handed to the workers now, or recycled after the append. */
    private Consumer<LogUnit> sealer(List<LogUnit> inline)
    {
        return workers.length == 0 ? inline::add : this::schedule;
    }

    private void recycleInline(LogUnit u) throws IOException
    {
        noteBuffer(u);
        recycler.recyclePart(u, 0, 1);
        unitDone(u);
    }

    private void noteBuffer(LogUnit u)
    {
        double[] b = u.bufferTime(cluster.clock().getAsLong());
        if (b[0] > 0)
            times.buffer(LogTimes.Log.DATA, (long) b[0], (long) (b[1] / b[0]));
    }

    /** REQUIRES: the unit's pool monitor, so that every worker's queue holds each pool's units in seal order. */
    private void schedule(LogUnit u)
    {
        LogPool pool = pools[u.pool];
        u.pendingParts = workers.length;
        for (int w = 0; w < workers.length; w++)
        {
            int part = w;
            workers[w].execute(() -> {
                long cpu = THREADS.getCurrentThreadCpuTime();
                try
                {
                    if (part == 0)
                        noteBuffer(u);
                    recycler.recyclePart(u, part, workers.length);
                    boolean last;
                    synchronized (u)
                    {
                        last = --u.pendingParts == 0;
                    }
                    if (last)
                    {
                        unitDone(u);
                        queueFlush();
                    }
                }
                catch (IOException | RuntimeException e)
                {
                    logger.error("recycling of data-log unit {} failed; it stays for recovery", u.id, e);
                    pool.fail(e);
                }
                pace(cpu);
            });
        }
    }

    /** Holds the calling background thread to recycleCpuShare of a core: sleeps in proportion to the CPU it used. */
    private void pace(long cpuStart)
    {
        if (cfg.recycleCpuShare >= 1)
            return;
        long used = THREADS.getCurrentThreadCpuTime() - cpuStart;
        long sleep = (long) (used * (1 / cfg.recycleCpuShare - 1));
        if (sleep > 0)
        {
            try
            {
                Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
            }
            catch (InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void queueFlush()
    {
        if (backEnd != null && flushQueued.compareAndSet(false, true))
            backEnd.execute(() -> {
                flushQueued.set(false);
                long cpu = THREADS.getCurrentThreadCpuTime();
                try
                {
                    flushLogs();
                }
                catch (IOException | RuntimeException e)
                {
                    logger.error("forwarding or applying TSUE logs failed", e);
                    for (LogPool p : pools)
                        p.fail(e);
                }
                pace(cpu);
            });
    }

    /** Forwards delta logs above deltaLogBytes and applies parity logs above parityApplyBytes. */
    private void flushLogs() throws IOException
    {
        if (cfg.deltaLog)
            for (int p = 0; p < cluster.size(); p++)
                while (deltas.memory(p) > cfg.deltaLogBytes && deltas.forward(p))
                {
                }
        for (int n = 0; n < cluster.size(); n++)
            if (cluster.local(n).parityLog(DeltaLogs.TPLOG).memoryBytes() > cfg.parityApplyBytes)
                cluster.local(n).parityLog(DeltaLogs.TPLOG).apply();
    }

    private void unitDone(LogUnit u) throws IOException
    {
        for (int n : u.nodes)
            cluster.local(n).retire(u.file());   // kept for reuse by a later unit: appends into allocated blocks
        pools[u.pool].done(u);
        logger.debug("data-log unit {} recycled: {} bytes appended, {} ms after sealing", u.id, u.appended.get(),
                     (cluster.clock().getAsLong() - u.sealedNanos) / 1_000_000);
    }

    @Override
    public byte[] read(long stripe, int chunk, int offset, int len) throws IOException
    {
        checkRange(stripe, chunk, offset, len);
        List<LogUnit> snapshot = pool(stripe).snapshot();
        byte[] b = readStored(stripe, chunk, offset, len);
        for (LogUnit u : snapshot)
            u.overlay(stripe, chunk, offset, b);
        return b;
    }

    @Override
    protected void overlay(long stripe, int chunk, int offset, byte[] buf)
    {
        for (LogUnit u : pool(stripe).snapshot())
            u.overlay(stripe, chunk, offset, buf);
    }

    /** Forwards every delta log completely, then applies every parity log. */
    @Override
    protected void applyAllParity() throws IOException
    {
        if (cfg.deltaLog)
            for (int p : deltas.present())
                while (deltas.forward(p))
                {
                }
        super.applyAllParity();
    }

    @Override
    public void drain() throws IOException
    {
        List<LogUnit> inline = new ArrayList<>();
        for (LogPool p : pools)
            p.sealNow(sealer(inline));
        for (LogUnit u : inline)
            recycleInline(u);
        for (LogPool p : pools)
            p.awaitIdle();
        applyAllParity();
    }

    @Override
    public long logMemoryBytes()
    {
        long n = parityLogMemory();
        for (LogPool p : pools)
            n += p.memory();
        return n;
    }

    @Override
    public Map<String, Object> metrics()
    {
        Map<String, Object> m = new LinkedHashMap<>(times.snapshot());
        m.put("log_pools", pools.length);
        m.put("recycle_threads", workers.length);
        return m;
    }

    @Override
    public void recover() throws IOException
    {
        long start = System.currentTimeMillis();
        List<LogUnit> recovered = rebuildUnits();
        Map<Long, LogUnit> byId = new HashMap<>();
        for (LogUnit u : recovered)
            byId.put(u.id, u);
        Recovery.resolve(cluster, this::readStored, r -> redo(byId.get(r.group()), r));
        for (int p : deltas.present())
            deltas.forwardAll(p);
        super.applyAllParity();
        // surviving units are recycled again, oldest first, before any new append: recycling against the data as it
        // is now yields zero deltas for bytes already in place, so recycling a unit twice is harmless
        for (LogUnit u : recovered)
        {
            recycler.recyclePart(u, 0, 1);
            for (int n : u.nodes)
                cluster.local(n).retire(u.file());
        }
        applyAllParity();
        logger.info("TSUE recovery: {} data-log units recycled again, {} ms", recovered.size(),
                    System.currentTimeMillis() - start);
    }

    /** The data-log units left on the nodes (the union of both copies of each record), oldest first. */
    private List<LogUnit> rebuildUnits() throws IOException
    {
        TreeMap<Long, TreeMap<Long, Object[]>> byUnit = new TreeMap<>();   // unit -> seq -> {stripe, chunk, extents}
        TreeMap<Long, LogUnit> units = new TreeMap<>();
        for (int n = 0; n < cluster.size(); n++)
            for (String f : cluster.local(n).list("dlog-"))
            {
                long id = Long.parseLong(f.substring(5));
                units.computeIfAbsent(id, x -> new LogUnit(x, 0, cfg.dataLogMerge)).nodes.add(n);
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
        for (Map.Entry<Long, LogUnit> e : units.entrySet())
            for (Map.Entry<Long, Object[]> r : byUnit.getOrDefault(e.getKey(), new TreeMap<>()).entrySet())
            {
                @SuppressWarnings("unchecked")
                List<Extent> ext = (List<Extent>) r.getValue()[2];
                e.getValue().insert((Long) r.getValue()[0], (Integer) r.getValue()[1], ext);
                seqs.accumulateAndGet(r.getKey(), Math::max);
            }
        for (long id : units.keySet())
            unitIds.accumulateAndGet(id, Math::max);
        return new ArrayList<>(units.values());
    }

    /** Rewrites the data ranges of an interrupted recycling transaction from its data-log unit. */
    private void redo(LogUnit u, TxRecord r) throws IOException
    {
        if (u == null)
            throw new IOException("transaction " + r.tx() + " of stripe " + r.stripe() + " was cut during its data"
                                  + " write but its data-log unit " + r.group() + " is gone");
        for (int[] e : r.manifest())
        {
            byte[] b = readStored(r.stripe(), e[0], e[1], e[2]);
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
        if (backEnd != null)
            backEnd.shutdownNow();
        super.close();
    }
}
