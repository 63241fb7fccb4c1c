package io.elect.tsue.engine;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import io.elect.tsue.log.ParityLog;
import io.elect.tsue.log.TxRecord;
import io.elect.tsue.log.TxRecord.Extent;

/**
 * PL and PLR. Under the stripe lock: read old data, compute the m parity deltas, append them durably to the parity
 * logs (PL: one log per parity node; PLR: a log in space reserved beside each parity chunk), write the new data in
 * place (synced), commit lazily, acknowledge. Recycling applies a log's committed deltas in place: PL when a node's
 * log exceeds {@code parityApplyBytes}; PLR when a chunk's reserved space is 3/4 full. Appending and recycling of
 * one log exclude each other (the log's monitor), as in both papers.
 */
final class ParityLoggingEngine extends AbstractEngine
{
    private final boolean reserved;
    private final ConcurrentHashMap<String, AtomicLong> sinceApply = new ConcurrentHashMap<>();

    ParityLoggingEngine(Cluster cluster, boolean reserved)
    {
        super(cluster);
        this.reserved = reserved;
    }

    @Override
    protected String parityLog(long stripe, int j)
    {
        return reserved ? "plr-" + stripe + "-" + j : "plog";
    }

    @Override
    public void update(long stripe, int chunk, List<Extent> extents) throws IOException
    {
        List<Extent> sorted = checkExtents(stripe, chunk, extents);
        int node = cluster.nodeOf(stripe, chunk);
        ReentrantLock l = lock(stripe);
        l.lock();
        try
        {
            List<Extent> deltas = new ArrayList<>();
            List<Integer> chunks = new ArrayList<>();
            List<int[]> manifest = new ArrayList<>();
            for (Extent e : sorted)
            {
                byte[] d = readStored(stripe, chunk, e.offset(), e.bytes().length);
                ParityLog.xor(e.bytes(), 0, d, 0, d.length);
                deltas.add(new Extent(e.offset(), d));
                chunks.add(chunk);
                manifest.add(manifestEntry(chunk, e.offset(), e.bytes()));
            }
            List<List<Extent>> pd = parityDeltas(chunks, deltas);
            long tx = nextTx();
            List<TxRecord> recs = new ArrayList<>();
            for (int j = 0; j < m; j++)
                recs.add(new TxRecord(tx, 0, stripe, TxRecord.PARITY_DELTA, j, chunk, manifest, pd.get(j)));
            logTx(node, stripe, recs);
            for (Extent e : sorted)
                cluster.node(node, node).write(chunk(stripe, chunk), e.offset(), e.bytes(), false);
            cluster.local(node).files().sync(chunk(stripe, chunk));
            commitTx(node, stripe, tx);
            samplePeak();
            maybeRecycle(stripe, recs);
        }
        finally
        {
            l.unlock();
        }
    }

    private void maybeRecycle(long stripe, List<TxRecord> recs) throws IOException
    {
        for (TxRecord r : recs)
        {
            int to = cluster.nodeOf(stripe, k + r.parityIndex());
            String base = parityLog(stripe, r.parityIndex());
            long limit = reserved ? cfg.plrReserveBytes * 3L / 4 : cfg.parityApplyBytes;
            AtomicLong n = sinceApply.computeIfAbsent(to + "/" + base, x -> new AtomicLong());
            if (n.addAndGet(r.bytes()) > limit)
            {
                n.set(0);
                cluster.local(to).plogApply(base);
            }
        }
    }

    @Override
    public void drain() throws IOException
    {
        applyAllParity();
        sinceApply.clear();
    }
}
