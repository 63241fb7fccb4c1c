package io.elect.tsue.engine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
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
 * DRC-DPU: writes are redirected to differential pages (whole pages; a sub-page write first reads the page from
 * its differential copy or the chunk), appended durably to a differential log on the data node and on a replica
 * node, and indexed in memory per page (the per-chunk page bitmap of the paper, as a page map). Reads overlay the
 * differential pages. An LRU list delays merges: when the differential pages exceed ratio B of the EC data, the
 * least recently written pages are merged (old page read, delta to the parity logs as a transaction, data page
 * written, parity applied at once) until they fall below B/2; above 2 B writers merge themselves (back-pressure).
 *
 * <p>Differential logs are segment files {@code dpu-<n>} on several nodes; a merged page is retired by a synced
 * RETIRE record; segments are deleted oldest first once no live page remains in them or any older segment, so a
 * superseded or retired page version can never resurface at recovery.
 */
final class DpuEngine extends AbstractEngine
{
    static final int TYPE_PAGE = 30;
    static final int TYPE_RETIRE = 31;
    private static final Logger logger = LoggerFactory.getLogger(DpuEngine.class);

    private static final class Page
    {
        final long stripe, seq, segment;
        final int chunk, page;
        final byte[] data;

        Page(long stripe, int chunk, int page, byte[] data, long seq, long segment)
        {
            this.stripe = stripe;
            this.chunk = chunk;
            this.page = page;
            this.data = data;
            this.seq = seq;
            this.segment = segment;
        }
    }

    private final LinkedHashMap<String, Page> pages = new LinkedHashMap<>(1024, 0.75f, true);
    private final TreeMap<Long, Integer> live = new TreeMap<>();
    private final Map<Long, Set<Integer>> segmentNodes = new HashMap<>();
    private final AtomicLong seqs = new AtomicLong();
    private final AtomicLong stripeCount = new AtomicLong();
    private long active, activeBytes;
    private final ReentrantLock mergeLock = new ReentrantLock();
    private final Thread merger;
    private volatile boolean closed;

    DpuEngine(Cluster cluster)
    {
        super(cluster);
        try
        {
            stripeCount.set(stripes().size());   // B is a ratio of the EC data already on the nodes
        }
        catch (IOException e)
        {
            throw unchecked(e);
        }
        if (cfg.recycleThreads > 0)
        {
            merger = new Thread(this::mergeLoop, "dpu-merger");
            merger.setDaemon(true);
            merger.start();
        }
        else
        {
            merger = null;
        }
    }

    private static String key(long stripe, int chunk, int page)
    {
        return stripe + ":" + chunk + ":" + page;
    }

    private long capacity()
    {
        return Math.max(cfg.pageSize, (long) (cfg.dpuRatio * stripeCount.get() * k * cfg.chunkSize));
    }

    private synchronized long diffBytes()
    {
        return (long) pages.size() * cfg.pageSize;
    }

    @Override
    public void createStripe(long stripe, byte[][] data) throws IOException
    {
        super.createStripe(stripe, data);
        stripeCount.incrementAndGet();
    }

    @Override
    public void update(long stripe, int chunk, List<Extent> extents) throws IOException
    {
        List<Extent> sorted = checkExtents(stripe, chunk, extents);
        int ps = cfg.pageSize;
        ReentrantLock l = lock(stripe);
        l.lock();
        try
        {
            TreeMap<Integer, byte[]> touched = new TreeMap<>();
            for (Extent e : sorted)
                for (int pos = e.offset(); pos < e.end(); )
                {
                    int p = pos / ps, in = pos - p * ps, n = Math.min(ps - in, e.end() - pos);
                    byte[] page = touched.get(p);
                    if (page == null)
                    {
                        page = n == ps ? new byte[ps] : current(stripe, chunk, p);   // read-modify-write
                        touched.put(p, page);
                    }
                    System.arraycopy(e.bytes(), pos - e.offset(), page, in, n);
                    pos += n;
                }
            long seq = seqs.incrementAndGet();
            Payload pl = new Payload(32 + touched.size() * (ps + 4));
            pl.i64(seq).i64(stripe).u16(chunk).i32(touched.size());
            for (Map.Entry<Integer, byte[]> t : touched.entrySet())
                pl.i32(t.getKey()).bytes(t.getValue(), 0, ps);
            byte[] payload = pl.toBytes();
            int node = cluster.nodeOf(stripe, chunk), replica = cluster.replicaOf(stripe, chunk);
            long segment = segmentFor(payload.length, node, replica);
            String file = "dpu-" + segment;
            List<Callable<Void>> tasks = new ArrayList<>();
            for (int to : new int[]{ node, replica })
                tasks.add(() -> {
                    cluster.node(node, to).appendRecord(file, TYPE_PAGE, payload, true);
                    return null;
                });
            parallel(tasks);
            synchronized (this)
            {
                for (Map.Entry<Integer, byte[]> t : touched.entrySet())
                    install(new Page(stripe, chunk, t.getKey(), t.getValue(), seq, segment));
            }
            samplePeak();
        }
        finally
        {
            l.unlock();
        }
        long diff = diffBytes(), cap = capacity();
        if (diff > cap && (merger == null || diff > 2 * cap))
            merge(cap / 2);
        else if (diff > cap)
            synchronized (merger)
            {
                merger.notify();
            }
    }

    private byte[] current(long stripe, int chunk, int p) throws IOException
    {
        synchronized (this)
        {
            Page d = pages.get(key(stripe, chunk, p));
            if (d != null)
                return d.data.clone();
        }
        return readStored(stripe, chunk, p * cfg.pageSize, cfg.pageSize);
    }

    private synchronized long segmentFor(int bytes, int... nodes)
    {
        if (activeBytes > cfg.logUnitBytes)
        {
            active++;
            activeBytes = 0;
        }
        activeBytes += bytes;
        Set<Integer> ns = segmentNodes.computeIfAbsent(active, s -> ConcurrentHashMap.newKeySet());
        for (int n : nodes)
            ns.add(n);
        live.putIfAbsent(active, 0);
        return active;
    }

    /** REQUIRES: holding this monitor. */
    private void install(Page p)
    {
        Page old = pages.put(key(p.stripe, p.chunk, p.page), p);
        if (old != null)
            live.merge(old.segment, -1, Integer::sum);
        live.merge(p.segment, 1, Integer::sum);
    }

    @Override
    protected void overlay(long stripe, int chunk, int offset, byte[] buf)
    {
        int ps = cfg.pageSize;
        synchronized (this)
        {
            for (int p = offset / ps; p * ps < offset + buf.length; p++)
            {
                Page d = pages.get(key(stripe, chunk, p));
                if (d == null)
                    continue;
                int from = Math.max(offset, p * ps), to = Math.min(offset + buf.length, (p + 1) * ps);
                System.arraycopy(d.data, from - p * ps, buf, from - offset, to - from);
            }
        }
    }

    private void mergeLoop()
    {
        while (!closed)
        {
            try
            {
                synchronized (merger)
                {
                    merger.wait(100);
                }
                if (diffBytes() > capacity())
                    merge(capacity() / 2);
            }
            catch (InterruptedException e)
            {
                return;
            }
            catch (IOException | RuntimeException e)
            {
                if (!closed)
                    logger.error("DPU merge failed", e);
            }
        }
    }

    /** Merges least recently written pages until at most target bytes remain. */
    private void merge(long target) throws IOException
    {
        mergeLock.lock();
        try
        {
            while (diffBytes() > target)
            {
                List<Page> batch = new ArrayList<>();
                synchronized (this)
                {
                    Iterator<Page> it = pages.values().iterator();
                    long excess = diffBytes() - target;
                    while (it.hasNext() && batch.size() * (long) cfg.pageSize < Math.max(excess, cfg.pageSize))
                        batch.add(it.next());
                }
                mergeBatch(batch);
                deleteDeadSegments();
            }
        }
        finally
        {
            mergeLock.unlock();
        }
    }

    /**
     * Merges a batch of pages: one parity transaction per stripe, but one synced append per parity node, one sync
     * per chunk file, one apply per parity node and one synced RETIRE per node for the whole batch. The stripes'
     * locks are held throughout (taken in index order), so no writer replaces a page being merged.
     */
    private void mergeBatch(List<Page> batch) throws IOException
    {
        int ps = cfg.pageSize;
        java.util.IdentityHashMap<ReentrantLock, Boolean> held = new java.util.IdentityHashMap<>();
        List<ReentrantLock> locks = new ArrayList<>();
        for (Page p : batch)
            if (held.put(lock(p.stripe), Boolean.TRUE) == null)
                locks.add(lock(p.stripe));
        locks.sort(java.util.Comparator.comparingInt(this::lockIndex));
        for (ReentrantLock l : locks)
            l.lock();
        try
        {
            Map<Long, List<Page>> byStripe = new LinkedHashMap<>();
            synchronized (this)
            {
                for (Page p : batch)
                {
                    Page now = pages.get(key(p.stripe, p.chunk, p.page));   // the current version
                    if (now != null && byStripe.computeIfAbsent(p.stripe, x -> new ArrayList<>()).stream()
                                                   .noneMatch(q -> q.chunk == now.chunk && q.page == now.page))
                        byStripe.get(p.stripe).add(now);
                }
            }
            Map<Integer, List<TxRecord>> toParity = new TreeMap<>();
            Map<Integer, List<Page>> toData = new TreeMap<>();
            java.util.Set<Integer> retireNodes = new java.util.TreeSet<>();
            for (Map.Entry<Long, List<Page>> e : byStripe.entrySet())
            {
                long stripe = e.getKey();
                List<Page> group = e.getValue();
                if (group.isEmpty())
                    continue;
                List<Extent> deltas = new ArrayList<>();
                List<Integer> chunks = new ArrayList<>();
                List<int[]> manifest = new ArrayList<>();
                int merger = cluster.nodeOf(stripe, group.get(0).chunk);
                for (Page p : group)
                {
                    int n = cluster.nodeOf(stripe, p.chunk);
                    byte[] d = readStored(stripe, p.chunk, p.page * ps, ps);
                    ParityLog.xor(p.data, 0, d, 0, ps);
                    deltas.add(new Extent(p.page * ps, d));
                    chunks.add(p.chunk);
                    manifest.add(manifestEntry(p.chunk, p.page * ps, p.data));
                    cluster.transport().deliver(n, merger, ps);   // page deltas to the merging node
                    toData.computeIfAbsent(n, x -> new ArrayList<>()).add(p);
                    retireNodes.add(n);
                    retireNodes.add(cluster.replicaOf(stripe, p.chunk));
                }
                List<List<Extent>> pd = parityDeltas(chunks, deltas);
                long tx = nextTx();
                for (int j = 0; j < m; j++)
                {
                    TxRecord r = new TxRecord(tx, 0, stripe, TxRecord.PARITY_DELTA, j, group.get(0).chunk, manifest,
                                              pd.get(j));
                    int to = cluster.nodeOf(stripe, k + j);
                    cluster.transport().deliver(merger, to, r.bytes());
                    toParity.computeIfAbsent(to, x -> new ArrayList<>()).add(r);
                }
            }
            if (toParity.isEmpty())
                return;
            List<Callable<Void>> tasks = new ArrayList<>();
            for (Map.Entry<Integer, List<TxRecord>> e : toParity.entrySet())
                tasks.add(() -> {
                    cluster.local(e.getKey()).plogAppend("plog", e.getValue(), true);
                    return null;
                });
            parallel(tasks);
            tasks.clear();
            for (Map.Entry<Integer, List<Page>> e : toData.entrySet())
                tasks.add(() -> {
                    java.util.Set<String> files = new java.util.TreeSet<>();
                    for (Page p : e.getValue())
                    {
                        String f = chunk(p.stripe, p.chunk);
                        cluster.local(e.getKey()).write(f, (long) p.page * ps, p.data, false);
                        files.add(f);
                    }
                    for (String f : files)
                        cluster.local(e.getKey()).files().sync(f);
                    return null;
                });
            parallel(tasks);
            tasks.clear();
            for (Map.Entry<Integer, List<TxRecord>> e : toParity.entrySet())
                tasks.add(() -> {
                    long[] txs = e.getValue().stream().mapToLong(TxRecord::tx).distinct().toArray();
                    cluster.local(e.getKey()).plogCommit("plog", txs, false);
                    cluster.local(e.getKey()).plogApply("plog");
                    return null;
                });
            parallel(tasks);
            List<Page> merged = new ArrayList<>();
            for (List<Page> g : byStripe.values())
                merged.addAll(g);
            retire(merged, retireNodes);
        }
        finally
        {
            for (ReentrantLock l : locks)
                l.unlock();
        }
    }

    /** Durably retires merged page versions (one RETIRE record on every node holding their logs). */
    private void retire(List<Page> merged, java.util.Set<Integer> nodes) throws IOException
    {
        Payload pl = new Payload(4 + merged.size() * 22);
        pl.i32(merged.size());
        for (Page p : merged)
            pl.i64(p.stripe).u16(p.chunk).i32(p.page).i64(p.seq);
        byte[] payload = pl.toBytes();
        int[] ns = nodes.stream().mapToInt(Integer::intValue).toArray();
        long segment = segmentFor(payload.length * ns.length, ns);
        List<Callable<Void>> tasks = new ArrayList<>();
        for (int n : ns)
            tasks.add(() -> {
                cluster.local(n).appendRecord("dpu-" + segment, TYPE_RETIRE, payload, true);
                return null;
            });
        parallel(tasks);
        synchronized (this)
        {
            for (Page p : merged)
            {
                String key = key(p.stripe, p.chunk, p.page);
                Page now = pages.get(key);
                if (now != null && now.seq == p.seq)
                {
                    pages.remove(key);
                    live.merge(p.segment, -1, Integer::sum);
                }
            }
        }
    }

    private void deleteDeadSegments() throws IOException
    {
        List<Long> dead = new ArrayList<>();
        synchronized (this)
        {
            for (Map.Entry<Long, Integer> e : live.entrySet())
            {
                if (e.getValue() > 0 || e.getKey() >= active)
                    break;
                dead.add(e.getKey());
            }
        }
        for (long s : dead)
        {
            Set<Integer> ns;
            synchronized (this)
            {
                ns = segmentNodes.remove(s);
                live.remove(s);
            }
            if (ns != null)
                for (int n : ns)
                    cluster.local(n).delete("dpu-" + s);
        }
    }

    @Override
    public void drain() throws IOException
    {
        merge(0);
        applyAllParity();
    }

    @Override
    public long logMemoryBytes()
    {
        return diffBytes() + parityLogMemory();
    }

    @Override
    public void recover() throws IOException
    {
        long start = System.currentTimeMillis();
        stripeCount.set(stripes().size());
        Map<String, Page> latest = new HashMap<>();
        Map<String, Long> retired = new HashMap<>();
        long maxSeg = -1;
        for (int n = 0; n < cluster.size(); n++)
            for (String f : cluster.local(n).list("dpu-"))
            {
                long seg = Long.parseLong(f.substring(4));
                maxSeg = Math.max(maxSeg, seg);
                synchronized (this)
                {
                    segmentNodes.computeIfAbsent(seg, s -> ConcurrentHashMap.newKeySet()).add(n);
                    live.putIfAbsent(seg, 0);
                }
                for (RecordLog.Entry e : cluster.local(n).scanLog(f))
                    replay(e, seg, latest, retired);
            }
        synchronized (this)
        {
            pages.clear();
            for (Page p : latest.values())
            {
                Long r = retired.get(key(p.stripe, p.chunk, p.page));
                if (r == null || r < p.seq)
                    install(p);
                seqs.accumulateAndGet(p.seq, Math::max);
            }
            active = maxSeg + 1;
            activeBytes = 0;
        }
        Recovery.resolve(cluster, this::readStored, this::redo);
        applyAllParity();
        logger.info("DPU recovery: {} differential pages live from {} segments, {} ms", pages.size(), maxSeg + 1,
                    System.currentTimeMillis() - start);
    }

    /**
     * Finishes the data write of a merge cut between chunks: the merged bytes are the pages' differential copies,
     * still live because retirement follows the data write and the merge held the stripe lock.
     */
    private void redo(TxRecord r) throws IOException
    {
        for (int[] e : r.manifest())
        {
            Page p;
            synchronized (this)
            {
                p = pages.get(key(r.stripe(), e[0], e[1] / cfg.pageSize));
            }
            if (p == null)
                throw new IOException("merge transaction " + r.tx() + " was cut during its data write but the "
                                      + "differential page " + key(r.stripe(), e[0], e[1] / cfg.pageSize) + " is gone");
            int node = cluster.nodeOf(r.stripe(), e[0]);
            cluster.node(node, node).write(chunk(r.stripe(), e[0]), e[1], p.data, true);
        }
    }

    private void replay(RecordLog.Entry e, long seg, Map<String, Page> latest, Map<String, Long> retired)
    {
        ByteBuffer b = e.payload();
        if (e.type() == TYPE_PAGE)
        {
            long seq = b.getLong(), stripe = b.getLong();
            int chunk = b.getShort() & 0xffff, n = b.getInt();
            for (int i = 0; i < n; i++)
            {
                int page = b.getInt();
                byte[] data = new byte[cfg.pageSize];
                b.get(data);
                Page p = new Page(stripe, chunk, page, data, seq, seg);
                latest.merge(key(stripe, chunk, page), p, (a, c) -> a.seq >= c.seq ? a : c);
            }
        }
        else if (e.type() == TYPE_RETIRE)
        {
            int n = b.getInt();
            for (int i = 0; i < n; i++)
            {
                long stripe = b.getLong();
                int chunk = b.getShort() & 0xffff, page = b.getInt();
                retired.merge(key(stripe, chunk, page), b.getLong(), Math::max);
            }
        }
    }

    @Override
    public void close() throws IOException
    {
        closed = true;
        if (merger != null)
        {
            merger.interrupt();
            try
            {
                merger.join(5000);
            }
            catch (InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }
        super.close();
    }
}
