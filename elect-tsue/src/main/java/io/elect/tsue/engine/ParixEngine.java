package io.elect.tsue.engine;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import io.elect.tsue.log.TxRecord;
import io.elect.tsue.log.TxRecord.Extent;

/**
 * PARIX (speculative partial writes): under the stripe lock, send the new bytes to the parity logs of all m parity
 * nodes, together with the original page of every page written for the first time since the last recycle (the only
 * time the data node reads old data), then write the data in place and acknowledge. A recycle (when the logs hold
 * {@code parixApplyBytes}) computes at each parity node {@code parity ^= a(j,i) * (latest XOR original)} per page.
 * Recycles stop all updates briefly (a global write lock), after which every page counts as unwritten again.
 */
final class ParixEngine extends AbstractEngine
{
    private final ReentrantReadWriteLock recycle = new ReentrantReadWriteLock();
    private final Set<String> originalLogged = ConcurrentHashMap.newKeySet();
    private final AtomicLong logged = new AtomicLong();

    ParixEngine(Cluster cluster)
    {
        super(cluster);
    }

    @Override
    public void update(long stripe, int chunk, List<Extent> extents) throws IOException
    {
        List<Extent> sorted = checkExtents(stripe, chunk, extents);
        int node = cluster.nodeOf(stripe, chunk);
        recycle.readLock().lock();
        ReentrantLock l = lock(stripe);
        l.lock();
        long bytes;
        try
        {
            List<Extent> orig = new ArrayList<>();
            List<int[]> manifest = new ArrayList<>();
            for (Extent e : sorted)
            {
                manifest.add(manifestEntry(chunk, e.offset(), e.bytes()));
                for (int p = e.offset() / cfg.pageSize; p * cfg.pageSize < e.end(); p++)
                    if (!originalLogged.contains(stripe + ":" + chunk + ":" + p))
                        orig.add(new Extent(p * cfg.pageSize, readStored(stripe, chunk, p * cfg.pageSize, cfg.pageSize)));
            }
            long tx = nextTx();
            List<TxRecord> recs = new ArrayList<>();
            List<TxRecord> all = new ArrayList<>();
            for (int j = 0; j < m; j++)
            {
                TxRecord n = new TxRecord(tx, 0, stripe, TxRecord.PARIX_NEW, j, chunk, manifest, sorted);
                recs.add(n);
                all.add(n);
                if (!orig.isEmpty())
                    all.add(new TxRecord(tx, 0, stripe, TxRecord.PARIX_ORIG, j, chunk, manifest, orig));
            }
            logAll(node, stripe, all);
            for (Extent e : sorted)
                cluster.node(node, node).write(chunk(stripe, chunk), e.offset(), e.bytes(), false);
            cluster.local(node).files().sync(chunk(stripe, chunk));
            commitTx(node, stripe, tx);
            for (Extent o : orig)
                originalLogged.add(stripe + ":" + chunk + ":" + o.offset() / cfg.pageSize);
            long b = 0;
            for (TxRecord r : all)
                b += r.bytes();
            bytes = logged.addAndGet(b);
            samplePeak();
        }
        finally
        {
            l.unlock();
            recycle.readLock().unlock();
        }
        if (bytes > cfg.parixApplyBytes)
            drain();
    }

    /** ORIG records go first in each log so that a recycle always finds a page's original before its new data. */
    private void logAll(int node, long stripe, List<TxRecord> all) throws IOException
    {
        List<java.util.concurrent.Callable<Void>> tasks = new ArrayList<>();
        for (int j = 0; j < m; j++)
        {
            int pj = j;
            List<TxRecord> mine = new ArrayList<>();
            for (TxRecord r : all)
                if (r.parityIndex() == j)
                    mine.add(0, r);  // ORIG (added after NEW) ends up first
            int to = cluster.nodeOf(stripe, k + pj);
            tasks.add(() -> {
                cluster.node(node, to).plogAppend(parityLog(stripe, pj), mine, true);
                return null;
            });
        }
        parallel(tasks);
    }

    @Override
    public void drain() throws IOException
    {
        recycle.writeLock().lock();
        try
        {
            applyAllParity();
            originalLogged.clear();
            logged.set(0);
        }
        finally
        {
            recycle.writeLock().unlock();
        }
    }

    @Override
    public void recover() throws IOException
    {
        super.recover();
        originalLogged.clear();
        logged.set(0);
    }
}
