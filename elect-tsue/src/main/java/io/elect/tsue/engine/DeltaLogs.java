package io.elect.tsue.engine;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.function.LongSupplier;

import io.elect.tsue.log.LogTimes;
import io.elect.tsue.log.ParityApply;
import io.elect.tsue.log.ParityLog;
import io.elect.tsue.log.TxRecord;
import io.elect.tsue.log.TxRecord.Extent;

/**
 * TSUE's delta logs (layer 2). The delta log of a stripe lives on the node P of its parity 0, with a replica on the
 * node R of its parity 1 ({@code tdelta-P} on P, {@code tdrep-P} on R): recycling a data-log unit appends each
 * stripe's data deltas there as a transaction (durable in both copies before the data is written in place,
 * committed after), so a data-log unit can go as soon as its data is in place while the deltas wait. A forward takes
 * the oldest committed transactions of one delta log, XOR-merges the deltas of each chunk (temporal merging over a
 * far longer window than a data-log unit), combines the chunks of each stripe into m parity deltas (spatial: the
 * same offsets of several chunks cost one parity delta) and appends one BATCH per parity node to its parity log
 * ({@code tplog}), then drops the forwarded transactions. P and R compute the parity deltas of parity 0 and 1
 * themselves from their copies, so only parity 2..m-1 cross the network.
 *
 * <p>Exactly once: a BATCH carries the highest delta transaction it covers (the watermark); transaction ids of a
 * delta log grow in log order (an id is handed out before its append and forwards stop below ids not yet
 * appended), so after a crash the forward of what a delta log still holds is redone per parity log with only the
 * transactions above that log's watermark ({@link #forwardAll}).
 *
 * <p>Thread-safe; forwards of one delta log are serialized.
 */
final class DeltaLogs
{
    static final String TPLOG = "tplog";

    private final Cluster cluster;
    private final TsueConfig cfg;
    private final LongSupplier nextTx;
    private final Object[] locks;
    private final List<TreeSet<Long>> inflight = new ArrayList<>();
    private final LogTimes times;

    DeltaLogs(Cluster cluster, LongSupplier nextTx)
    {
        this.cluster = cluster;
        this.cfg = cluster.config();
        this.nextTx = nextTx;
        this.times = cluster.logTimes();
        locks = new Object[cluster.size()];
        for (int n = 0; n < locks.length; n++)
        {
            locks[n] = new Object();
            inflight.add(new TreeSet<>());
        }
    }

    static String primary(int p)
    {
        return "tdelta-" + p;
    }

    static String replica(int p)
    {
        return "tdrep-" + p;
    }

    int deltaNode(long stripe)
    {
        return cluster.nodeOf(stripe, cfg.k);
    }

    int replicaNode(long stripe)
    {
        return cluster.replicaOf(stripe, cfg.k);
    }

    /** Hands out a transaction id of delta log p; forwards stop below it until {@link #appended} releases it. */
    long reserve(int p)
    {
        TreeSet<Long> s = inflight.get(p);
        synchronized (s)
        {
            long id = nextTx.getAsLong();
            s.add(id);
            return id;
        }
    }

    void appended(int p, long id)
    {
        TreeSet<Long> s = inflight.get(p);
        synchronized (s)
        {
            s.remove(id);
        }
    }

    private long belowId(int p)
    {
        TreeSet<Long> s = inflight.get(p);
        synchronized (s)
        {
            return s.isEmpty() ? Long.MAX_VALUE : s.first();
        }
    }

    /**
     * Appends delta transactions of stripes whose delta log is p (replica on r), durably in both copies. Each record
     * is sent by the data node of its chunk ({@code dataNode}) to both copies.
     */
    void append(int p, int r, List<TxRecord> records, Map<TxRecord, Integer> dataNode) throws IOException
    {
        for (TxRecord rec : records)
        {
            cluster.transport().deliver(dataNode.get(rec), p, rec.bytes());
            cluster.transport().deliver(dataNode.get(rec), r, rec.bytes());
        }
        List<Callable<Void>> tasks = List.of(() -> {
            cluster.local(p).parityLog(primary(p)).append(records, true);
            return null;
        }, () -> {
            cluster.local(r).parityLog(replica(p)).append(records, true);
            return null;
        });
        Parallel.run(tasks);
    }

    /**
     * Commits transactions after their data write: in memory at once (a forward may take them), their COMMIT
     * written with the next write to each copy ({@link ParityLog#commitDeferred}) rather than a write of its own.
     */
    void commit(int p, int r, long[] txs) throws IOException
    {
        cluster.local(p).parityLog(primary(p)).commitDeferred(txs);
        cluster.local(r).parityLog(replica(p)).commitDeferred(txs);
    }

    long memory(int p) throws IOException
    {
        return cluster.local(p).parityLog(primary(p)).memoryBytes();
    }

    /** Forwards the committed prefix of delta log p (up to deltaLogBytes of records per batch); false if empty. */
    boolean forward(int p) throws IOException
    {
        synchronized (locks[p])
        {
            long start = cluster.clock().getAsLong();
            List<List<TxRecord>> txs = cluster.local(p).parityLog(primary(p))
                                              .committedPrefix(cfg.deltaLogBytes, belowId(p));
            if (txs.isEmpty())
                return false;
            Map<Integer, Long> noFilter = new HashMap<>();
            send(p, txs, noFilter);
            dropForwarded(p, txs, false);
            recordTimes(txs, start);
            // back-pressure on the parity logs that received the batch: apply those far above the apply threshold
            for (int l = 0; l < cluster.size(); l++)
                if (cluster.local(l).parityLog(TPLOG).memoryBytes() > 2 * cfg.parityApplyBytes)
                    cluster.local(l).parityLog(TPLOG).apply();
            return true;
        }
    }

    /**
     * Recovery: forwards everything delta log p holds (both copies, committed after resolution) to every parity log,
     * leaving out per parity log the transactions at or below its watermark for p.
     */
    void forwardAll(int p) throws IOException
    {
        synchronized (locks[p])
        {
            int r = (p + replicaOffset()) % cluster.size();
            Map<Long, List<TxRecord>> union = new TreeMap<>();
            for (List<TxRecord> t : cluster.local(p).parityLog(primary(p)).all())
                union.putIfAbsent(t.get(0).tx(), t);
            for (List<TxRecord> t : cluster.local(r).parityLog(replica(p)).all())
                union.putIfAbsent(t.get(0).tx(), t);
            if (union.isEmpty())
                return;
            Map<Integer, Long> watermarks = new HashMap<>();
            for (int l = 0; l < cluster.size(); l++)
                watermarks.put(l, cluster.local(l).parityLog(TPLOG).watermark(p));
            List<List<TxRecord>> txs = new ArrayList<>(union.values());
            send(p, txs, watermarks);
            dropForwarded(p, txs, true);
        }
    }

    /** Node distance from a delta log's primary to its replica (the same for every stripe). */
    private int replicaOffset()
    {
        return Math.floorMod(cluster.replicaOf(0, cfg.k) - cluster.nodeOf(0, cfg.k), cluster.size());
    }

    /**
     * Merges the transactions' deltas and appends one BATCH per parity node. With watermarks (recovery), a parity
     * node gets only the transactions above its watermark for p.
     */
    private void send(int p, List<List<TxRecord>> txs, Map<Integer, Long> watermarks) throws IOException
    {
        long watermark = Long.MIN_VALUE;
        for (List<TxRecord> t : txs)
            watermark = Math.max(watermark, t.get(0).tx());
        Map<Integer, List<TxRecord>> byNode = new TreeMap<>();
        // without watermarks every node shares one computation; with them, each node its own filtered one
        List<Long> cuts = new ArrayList<>(new TreeSet<>(watermarks.values()));
        if (cuts.isEmpty())
            cuts.add(Long.MIN_VALUE);
        for (long cut : cuts)
        {
            List<List<TxRecord>> above = new ArrayList<>();
            for (List<TxRecord> t : txs)
                if (t.get(0).tx() > cut)
                    above.add(t);
            for (Map.Entry<Integer, List<TxRecord>> e : parityRecords(above).entrySet())
                if (watermarks.isEmpty() || watermarks.get(e.getKey()) == cut)
                    byNode.put(e.getKey(), e.getValue());
        }
        long tx = nextTx.getAsLong(), wm = watermark;
        int r = (p + replicaOffset()) % cluster.size();
        List<Callable<Void>> tasks = new ArrayList<>();
        for (Map.Entry<Integer, List<TxRecord>> e : byNode.entrySet())
        {
            int l = e.getKey();
            // P and R hold the deltas and compute their own parity deltas; the others receive them from P
            int from = l == r ? r : p;
            if (l == r)
                cluster.transport().deliver(p, r, 16);   // "forward up to wm" to the replica
            tasks.add(() -> {
                cluster.node(from, l).plogAppendBatch(TPLOG, tx, p, wm, e.getValue());
                return null;
            });
        }
        Parallel.run(tasks);
    }

    /** Per parity node: the stripes' parity-delta records (XOR-merged per chunk, combined per stripe). */
    private Map<Integer, List<TxRecord>> parityRecords(List<List<TxRecord>> txs)
    {
        Map<Long, Map<Integer, List<Extent>>> byStripe = new LinkedHashMap<>();
        for (List<TxRecord> t : txs)
            for (TxRecord rec : t)
                byStripe.computeIfAbsent(rec.stripe(), s -> new TreeMap<>())
                        .computeIfAbsent(rec.dataIndex(), c -> new ArrayList<>()).addAll(rec.ranges());
        Map<Integer, List<TxRecord>> out = new TreeMap<>();
        for (Map.Entry<Long, Map<Integer, List<Extent>>> s : byStripe.entrySet())
        {
            List<Integer> chunkOf = new ArrayList<>();
            List<Extent> deltas = new ArrayList<>();
            for (Map.Entry<Integer, List<Extent>> c : s.getValue().entrySet())
                for (Extent e : ParityApply.coalesce(c.getValue(), 0))
                {
                    chunkOf.add(c.getKey());
                    deltas.add(e);
                }
            List<List<Extent>> pd = Deltas.parity(cluster.coder(), cfg.m, chunkOf, deltas);
            for (int j = 0; j < cfg.m; j++)
                out.computeIfAbsent(cluster.nodeOf(s.getKey(), cfg.k + j), x -> new ArrayList<>())
                   .add(new TxRecord(0, 0, s.getKey(), TxRecord.PARITY_DELTA, j, 0, List.of(), pd.get(j)));
        }
        return out;
    }

    private void dropForwarded(int p, List<List<TxRecord>> txs, boolean sync) throws IOException
    {
        long[] ids = txs.stream().mapToLong(t -> t.get(0).tx()).toArray();
        int r = (p + replicaOffset()) % cluster.size();
        cluster.local(p).parityLog(primary(p)).forwarded(ids, sync);
        cluster.node(p, r).plogForwarded(replica(p), ids, sync);
    }

    private void recordTimes(List<List<TxRecord>> txs, long start)
    {
        long bytes = 0;
        for (List<TxRecord> t : txs)
            for (TxRecord rec : t)
                bytes += rec.bytes();
        times.recycle(LogTimes.Log.DELTA, bytes, cluster.clock().getAsLong() - start);
    }

    /** The delta logs present on any node (primaries and replicas), as primary node ids. */
    List<Integer> present() throws IOException
    {
        TreeSet<Integer> out = new TreeSet<>();
        for (int n = 0; n < cluster.size(); n++)
            for (String base : cluster.local(n).plogBases("td"))
                out.add(Integer.parseInt(base.substring(base.indexOf('-') + 1)));
        return new ArrayList<>(out);
    }

    /** Opens the log files of delta log p's copies (recovery reads them through the parity-log service). */
    void open(int p) throws IOException
    {
        int r = (p + replicaOffset()) % cluster.size();
        cluster.local(p).parityLog(primary(p));
        cluster.local(r).parityLog(replica(p));
    }

    ParityLog primaryLog(int p) throws IOException
    {
        return cluster.local(p).parityLog(primary(p));
    }
}
