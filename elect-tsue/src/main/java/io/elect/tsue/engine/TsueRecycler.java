package io.elect.tsue.engine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.LongSupplier;

import io.elect.tsue.log.LogTimes;
import io.elect.tsue.log.ParityLog;
import io.elect.tsue.log.TxRecord;
import io.elect.tsue.log.TxRecord.Extent;

/**
 * Recycles TSUE data-log units (layer 1): for the stripes of one part of a sealed unit, reads the old data (all
 * reads in parallel on the bulk I/O executor: the device's queue, not one read at a time), computes the data
 * deltas, makes them durable as one transaction per stripe, writes the new data in place (files in parallel, each
 * synced once) and commits.
 *
 * <p>With the delta log (default) the transactions go to the stripes' delta logs ({@link DeltaLogs}); without it
 * (ablation), each data node turns its chunk's deltas into m parity deltas and appends them to the parity logs
 * ({@code tplog}) itself. Merged units give each chunk's merged extents, extents less than a page apart read and
 * written as one span; raw units (ablation baseline) give every update on its own, in order.
 */
final class TsueRecycler
{
    private final Cluster cluster;
    private final TsueConfig cfg;
    private final DeltaLogs deltas;
    private final LongSupplier nextTx;
    private final LogTimes times;

    TsueRecycler(Cluster cluster, DeltaLogs deltas, LongSupplier nextTx)
    {
        this.cluster = cluster;
        this.cfg = cluster.config();
        this.deltas = deltas;
        this.nextTx = nextTx;
        this.times = cluster.logTimes();
    }

    /**
     * One read of old data and one write of new data, [start, end) of a chunk, and the extents inside it whose
     * deltas it yields. Merged units: page-aligned, the bytes between its extents written back unchanged.
     */
    static final class Span
    {
        final int chunk, start;
        int end;
        final List<Extent> extents;
        byte[] bytes;

        Span(int chunk, int start, int end, List<Extent> extents)
        {
            this.chunk = chunk;
            this.start = start;
            this.end = end;
            this.extents = extents;
        }
    }

    /** One stripe's work: spans in recycle order and, once computed, its deltas per chunk and manifest. */
    private static final class StripeWork
    {
        final long stripe;
        final List<Span> spans = new ArrayList<>();
        final List<int[]> manifest = new ArrayList<>();
        /** Per record to log: (chunk, deltas). Merged: one per chunk; raw: one per update. */
        final List<Map.Entry<Integer, List<Extent>>> deltaGroups = new ArrayList<>();
        long tx;

        StripeWork(long stripe)
        {
            this.stripe = stripe;
        }
    }

    void recyclePart(LogUnit u, int part, int parts) throws IOException
    {
        u.appenders.writeLock().lock();   // waits for the last in-flight append
        u.appenders.writeLock().unlock();
        long start = cluster.clock().getAsLong();
        List<StripeWork> work = new ArrayList<>();
        for (long stripe : u.stripes())
            if (Math.floorMod(Long.hashCode(stripe * 0x9E3779B97F4A7C15L), parts) == part)
                work.add(plan(u, stripe));
        if (work.isEmpty())
            return;
        readOld(work);
        long bytes = 0;
        for (StripeWork w : work)
            bytes += computeDeltas(w, u.merge);
        if (cfg.deltaLog)
            logToDeltaLogs(u, work);
        else
            logToParityLogs(u, work);
        writeInPlace(work, u.merge);
        commit(work);
        times.recycle(LogTimes.Log.DATA, bytes, cluster.clock().getAsLong() - start);
    }

    private StripeWork plan(LogUnit u, long stripe)
    {
        StripeWork w = new StripeWork(stripe);
        if (u.merge)
        {
            for (Map.Entry<Integer, List<Extent>> c : u.extents(stripe).entrySet())
                w.spans.addAll(spans(c.getKey(), c.getValue(), cfg.recycleSpanGap, cfg.pageSize, cfg.chunkSize));
        }
        else
        {
            for (LogUnit.Update up : u.updates(stripe))
                for (Extent e : up.extents())
                    w.spans.add(new Span(up.chunk(), e.offset(), e.end(), List.of(e)));
        }
        return w;
    }

    /**
     * The spans of one chunk's merged extents (disjoint, sorted by offset): an extent starting less than
     * {@code spanGap} (at least a page) after the end of the previous one joins its span; spans are widened to whole
     * pages (what direct I/O moves anyway: no read-modify-write of edge blocks below) within the chunk. Fewer,
     * larger reads and writes of the chunk, at the cost of moving the unchanged bytes between extents. Spans are
     * disjoint: two spans are at least a gap (>= a page) apart before widening, so their pages never overlap.
     */
    static List<Span> spans(int chunk, List<Extent> extents, int spanGap, int page, int chunkSize)
    {
        int gap = Math.max(spanGap, page);
        List<Span> out = new ArrayList<>();
        Span cur = null;
        int lastEnd = 0;
        for (Extent e : extents)
        {
            if (cur == null || e.offset() - lastEnd >= gap)
                out.add(cur = new Span(chunk, e.offset() / page * page, 0, new ArrayList<>()));
            cur.extents.add(e);
            lastEnd = e.end();
            cur.end = Math.min(chunkSize, (lastEnd + page - 1) / page * page);
        }
        return out;
    }

    /** Reads every span's old bytes, all at once on the bulk I/O executor. */
    private void readOld(List<StripeWork> work) throws IOException
    {
        List<CompletableFuture<Void>> reads = new ArrayList<>();
        for (StripeWork w : work)
            for (Span s : w.spans)
            {
                int node = cluster.nodeOf(w.stripe, s.chunk);
                String file = Cluster.chunkName(w.stripe, s.chunk);
                reads.add(CompletableFuture.runAsync(() -> {
                    try
                    {
                        s.bytes = cluster.node(node, node).read(file, s.start, s.end - s.start);
                    }
                    catch (IOException e)
                    {
                        throw new UncheckedIOException(e);
                    }
                }, cluster.bulkIo()));
            }
        join(reads);
    }

    /**
     * Turns old span bytes into deltas and new span bytes. Raw spans of one chunk come in update order: an update's
     * old bytes include the earlier updates of this batch (they are not on disk yet). Returns the update bytes.
     */
    private static long computeDeltas(StripeWork w, boolean merged)
    {
        Map<Integer, List<Extent>> earlier = new HashMap<>();   // raw: earlier updates' new bytes, oldest first
        Map<Integer, List<Extent>> perChunk = new TreeMap<>();
        long bytes = 0;
        for (Span s : w.spans)
        {
            List<Extent> prior = earlier.computeIfAbsent(s.chunk, c -> new ArrayList<>());
            if (!merged)
                for (Extent p : prior)
                    copyInto(p, s.start, s.bytes);
            List<Extent> ds = new ArrayList<>();
            for (Extent e : s.extents)
            {
                byte[] d = new byte[e.bytes().length];
                System.arraycopy(s.bytes, e.offset() - s.start, d, 0, d.length);
                ParityLog.xor(e.bytes(), 0, d, 0, d.length);
                System.arraycopy(e.bytes(), 0, s.bytes, e.offset() - s.start, d.length);
                ds.add(new Extent(e.offset(), d));
                if (merged)
                    w.manifest.add(AbstractEngine.manifestEntry(s.chunk, e.offset(), e.bytes()));
                bytes += d.length;
            }
            if (merged)
                perChunk.computeIfAbsent(s.chunk, c -> new ArrayList<>()).addAll(ds);
            else
            {
                prior.addAll(s.extents);
                w.deltaGroups.add(Map.entry(s.chunk, ds));
            }
        }
        for (Map.Entry<Integer, List<Extent>> c : perChunk.entrySet())
            w.deltaGroups.add(Map.entry(c.getKey(), c.getValue()));
        if (!merged)
        {
            // the manifest names the final bytes of every range written (later updates overwrite earlier ones), so
            // that recovery finds "all written" after a complete data write
            LogUnit view = new LogUnit(0, 0, true);
            for (Span s : w.spans)
                view.insert(w.stripe, s.chunk, s.extents);
            for (Map.Entry<Integer, List<Extent>> c : view.extents(w.stripe).entrySet())
                for (Extent e : c.getValue())
                    w.manifest.add(AbstractEngine.manifestEntry(c.getKey(), e.offset(), e.bytes()));
        }
        return bytes;
    }

    private static void copyInto(Extent src, int start, byte[] dst)
    {
        int a = Math.max(start, src.offset()), b = Math.min(start + dst.length, src.end());
        if (a < b)
            System.arraycopy(src.bytes(), a - src.offset(), dst, a - start, b - a);
    }

    /** Delta-log transactions: one per stripe, appended to each delta log's two copies in one synced append. */
    private void logToDeltaLogs(LogUnit u, List<StripeWork> work) throws IOException
    {
        Map<Integer, List<StripeWork>> byLog = new TreeMap<>();
        for (StripeWork w : work)
            byLog.computeIfAbsent(deltas.deltaNode(w.stripe), x -> new ArrayList<>()).add(w);
        List<Callable<Void>> tasks = new ArrayList<>();
        for (Map.Entry<Integer, List<StripeWork>> e : byLog.entrySet())
            tasks.add(() -> {
                int p = e.getKey(), r = deltas.replicaNode(e.getValue().get(0).stripe);
                // back-pressure: a delta log the back-end thread has not kept up with is forwarded here first, so
                // delta logs stay bounded and a slow back end slows recycling and then the front end
                while (deltas.memory(p) > 2 * cfg.deltaLogBytes && deltas.forward(p))
                {
                }
                List<TxRecord> records = new ArrayList<>();
                Map<TxRecord, Integer> from = new HashMap<>();
                for (StripeWork w : e.getValue())
                {
                    w.tx = deltas.reserve(p);
                    for (Map.Entry<Integer, List<Extent>> g : w.deltaGroups)
                    {
                        TxRecord rec = new TxRecord(w.tx, u.id, w.stripe, TxRecord.DATA_DELTA, 0, g.getKey(),
                                                    w.manifest, g.getValue());
                        records.add(rec);
                        from.put(rec, cluster.nodeOf(w.stripe, g.getKey()));
                    }
                }
                try
                {
                    deltas.append(p, r, records, from);
                }
                finally
                {
                    for (StripeWork w : e.getValue())
                        deltas.appended(p, w.tx);
                }
                return null;
            });
        Parallel.run(tasks);
    }

    /** Without the delta log: each data node sends its chunk's m parity deltas to the parity logs. */
    private void logToParityLogs(LogUnit u, List<StripeWork> work) throws IOException
    {
        Map<Integer, List<TxRecord>> byNode = new TreeMap<>();
        for (StripeWork w : work)
        {
            w.tx = nextTx.getAsLong();
            for (Map.Entry<Integer, List<Extent>> g : w.deltaGroups)
            {
                int chunk = g.getKey(), dataNode = cluster.nodeOf(w.stripe, chunk);
                List<Integer> chunkOf = new ArrayList<>();
                for (int i = 0; i < g.getValue().size(); i++)
                    chunkOf.add(chunk);
                List<List<Extent>> pd = Deltas.parity(cluster.coder(), cfg.m, chunkOf, g.getValue());
                for (int j = 0; j < cfg.m; j++)
                {
                    TxRecord rec = new TxRecord(w.tx, u.id, w.stripe, TxRecord.PARITY_DELTA, j, chunk, w.manifest,
                                                pd.get(j));
                    int to = cluster.nodeOf(w.stripe, cfg.k + j);
                    cluster.transport().deliver(dataNode, to, rec.bytes());
                    byNode.computeIfAbsent(to, x -> new ArrayList<>()).add(rec);
                }
            }
        }
        List<Callable<Void>> tasks = new ArrayList<>();
        for (Map.Entry<Integer, List<TxRecord>> e : byNode.entrySet())
            tasks.add(() -> {
                cluster.local(e.getKey()).parityLog(DeltaLogs.TPLOG).append(e.getValue(), true);
                return null;
            });
        Parallel.run(tasks);
    }

    /** Writes the new span bytes in place: chunk files in parallel, each file's writes in order, then one sync. */
    private void writeInPlace(List<StripeWork> work, boolean merged) throws IOException
    {
        record ChunkFile(int node, String file)
        {
        }
        Map<ChunkFile, List<Span>> byFile = new LinkedHashMap<>();
        for (StripeWork w : work)
            for (Span s : w.spans)
                byFile.computeIfAbsent(new ChunkFile(cluster.nodeOf(w.stripe, s.chunk), Cluster.chunkName(w.stripe, s.chunk)),
                                       x -> new ArrayList<>()).add(s);
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (Map.Entry<ChunkFile, List<Span>> e : byFile.entrySet())
        {
            int node = e.getKey().node();
            String file = e.getKey().file();
            writes.add(CompletableFuture.runAsync(() -> {
                try
                {
                    for (Span s : e.getValue())
                    {
                        if (merged)
                            cluster.node(node, node).write(file, s.start, s.bytes, false);
                        else
                            for (Extent ex : s.extents)
                                cluster.node(node, node).write(file, ex.offset(), ex.bytes(), false);
                    }
                    cluster.local(node).files().sync(file);
                }
                catch (IOException ex)
                {
                    throw new UncheckedIOException(ex);
                }
            }, cluster.bulkIo()));
        }
        join(writes);
    }

    private void commit(List<StripeWork> work) throws IOException
    {
        if (cfg.deltaLog)
        {
            Map<Integer, List<Long>> byLog = new TreeMap<>();
            for (StripeWork w : work)
                byLog.computeIfAbsent(deltas.deltaNode(w.stripe), x -> new ArrayList<>()).add(w.tx);
            for (Map.Entry<Integer, List<Long>> e : byLog.entrySet())
            {
                int p = e.getKey();
                int r = deltas.replicaNode(work.stream().filter(w -> deltas.deltaNode(w.stripe) == p).findFirst()
                                               .orElseThrow().stripe);
                deltas.commit(p, r, e.getValue().stream().mapToLong(Long::longValue).toArray());
            }
            return;
        }
        Map<Integer, List<Long>> byNode = new TreeMap<>();
        for (StripeWork w : work)
            for (int j = 0; j < cfg.m; j++)
                byNode.computeIfAbsent(cluster.nodeOf(w.stripe, cfg.k + j), x -> new ArrayList<>()).add(w.tx);
        for (Map.Entry<Integer, List<Long>> e : byNode.entrySet())
            cluster.local(e.getKey()).parityLog(DeltaLogs.TPLOG)
                   .commit(e.getValue().stream().mapToLong(Long::longValue).distinct().toArray(), false);
    }

    private static void join(List<CompletableFuture<Void>> fs) throws IOException
    {
        try
        {
            CompletableFuture.allOf(fs.toArray(new CompletableFuture[0])).join();
        }
        catch (CompletionException e)
        {
            Throwable c = e.getCause() instanceof UncheckedIOException u ? u.getCause() : e.getCause();
            if (c instanceof IOException io)
                throw io;
            throw new IOException(c);
        }
    }
}
