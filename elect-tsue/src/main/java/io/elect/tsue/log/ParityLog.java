package io.elect.tsue.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

import io.elect.coding.ErasureCoder;
import io.elect.tsue.fs.FileLayer;

/**
 * A transaction log of one node (or, for PLR, of one parity chunk). Role PARITY: parity deltas (or PARIX new/original
 * data) appended, committed, then applied to the parity chunks of this node. Role DELTA: TSUE's delta log, data
 * deltas appended and committed, then forwarded (combined into parity deltas by the engine) and dropped; never
 * applied here.
 *
 * <p>Protocol (enforced by the engines, relied on by recovery): a transaction's records are durable in every log
 * that must see it before the coordinator writes the new data in place; its COMMIT is appended after that data
 * write and before any later transaction of the same stripe starts. Hence an uncommitted transaction followed in
 * this log by a later transaction of the same stripe is committed; any other uncommitted one is resolved by recovery
 * from the data chunks' checksums (see {@code io.elect.tsue.engine.Recovery}). A BATCH (parity deltas forwarded from
 * a TSUE delta log, for data already in place) is committed by being durable; it names its source delta log and
 * the highest delta transaction it covers, and the highest such watermark per source survives applies and
 * rotations (WATERMARK), so a forward redone after a crash can leave out what this log already has.
 *
 * <p>Apply merges the committed deltas per parity chunk (see {@link ParityApply}), logs an APPLY record (synced:
 * the transactions applied and, per 4 KiB page written, the checksums of its old and new bytes), writes the pages
 * in place, syncs, and logs DONE. On open, an APPLY without DONE is finished page by page (a page with its new
 * checksum is skipped, one with its old checksum gets the delta), so a crash during the in-place writes never
 * applies a delta twice or loses one. Page writes are assumed atomic (4 KiB, aligned, direct I/O). Older logs'
 * IMAGES records (the new bytes themselves) are still replayed.
 *
 * <p>Files: {@code <base>.<generation>}. Every generation starts with the unapplied records of the previous one and
 * a ROTATED marker, and is synced before older generations are deleted: on open, the newest generation with a
 * ROTATED marker is the log (a newer one without it is an interrupted rotation and is discarded).
 *
 * <p>Thread-safe. Serial logs (PL, PLR, PARIX, DPU) hold the log's monitor across each append with its sync and
 * across each apply, as in the papers that describe them (appends are serialized and excluded by recycling).
 * Concurrent logs (TSUE) sync outside the monitor (group commit) and apply outside it (one apply at a time), so
 * appends continue while a recycle runs.
 */
public final class ParityLog
{
    public static final int TYPE_COMMIT = 11;
    public static final int TYPE_ABORT = 12;
    public static final int TYPE_IMAGES = 13;
    public static final int TYPE_DONE = 14;
    public static final int TYPE_BATCH = 15;
    public static final int TYPE_FORWARDED = 16;
    public static final int TYPE_WATERMARK = 17;
    public static final int TYPE_ROTATED = 18;
    public static final int TYPE_APPLY = 19;

    /** Names chunk files; shared with the engines. */
    public interface ChunkNamer
    {
        String chunk(long stripe, int index);
    }

    public enum Role
    {
        PARITY, DELTA
    }

    /**
     * @param preallocate bytes of zeroes written into each new generation file (PLR's reserved space), or 0
     * @param merge       apply: XOR-merge and coalesce deltas (false: every extent on its own)
     * @param io          executor for the parallel reads of an apply, or null (sequential)
     * @param times       where the bytes' append, buffer and apply times go, or null
     */
    public record Options(Role role, boolean concurrent, boolean merge, long preallocate, Executor io,
                          LogTimes times, LongSupplier clock)
    {
        public static Options serial(long preallocate)
        {
            return new Options(Role.PARITY, false, true, preallocate, null, null, System::nanoTime);
        }
    }

    /** A batch of forwarded parity deltas as kept in memory: its source and watermark. */
    private record BatchInfo(int source, long watermark)
    {
    }

    private final FileLayer fs;
    private final String base;
    private final ErasureCoder coder;
    private final ChunkNamer names;
    private final int pageSize;
    private final long rotateBytes;
    private final Options opt;
    private final LogTimes.Log timesLog;
    private final LinkedHashMap<Long, List<TxRecord>> txs = new LinkedHashMap<>();
    private final Set<Long> committed = new HashSet<>();
    private final Map<Long, Long> appendedAt = new HashMap<>();
    private final Map<Long, BatchInfo> batches = new HashMap<>();
    private final Map<Integer, Long> watermarks = new HashMap<>();
    private final AtomicLong memBytes = new AtomicLong();
    private final ReentrantLock applyLock = new ReentrantLock();
    private long generation;
    private RecordLog log;
    private long batch;
    /** Load: the payload of an APPLY whose DONE was not found (the apply was cut), redone before rotating. */
    private ByteBuffer pendingApply;
    private int inflight;

    public ParityLog(FileLayer fs, String base, ErasureCoder coder, ChunkNamer names, int pageSize, long rotateBytes,
                     Options opt) throws IOException
    {
        this.fs = fs;
        this.base = base;
        this.coder = coder;
        this.names = names;
        this.pageSize = pageSize;
        this.rotateBytes = rotateBytes;
        this.opt = opt;
        this.timesLog = opt.role() == Role.DELTA ? LogTimes.Log.DELTA : LogTimes.Log.PARITY;
        load();
    }

    private synchronized void load() throws IOException
    {
        List<Long> gens = new ArrayList<>();
        for (String f : fs.list())
            if (f.startsWith(base + ".") && f.substring(base.length() + 1).matches("\\d+"))
                gens.add(Long.parseLong(f.substring(base.length() + 1)));
        gens.sort(Comparator.reverseOrder());
        boolean found = false;
        for (long g : gens)
        {
            List<RecordLog.Entry> entries = RecordLog.scan(fs, base + "." + g);
            if (entries.stream().anyMatch(e -> e.type() == TYPE_ROTATED))
            {
                for (RecordLog.Entry e : entries)
                    replay(e);
                found = true;
                break;
            }
        }
        if (!found)   // logs written before ROTATED markers existed: every generation, oldest first
            for (long g : gens.stream().sorted().toList())
                for (RecordLog.Entry e : RecordLog.scan(fs, base + "." + g))
                    replay(e);
        generation = gens.isEmpty() ? 0 : gens.get(0);
        if (pendingApply != null)
            redoApply(pendingApply);
        pendingApply = null;
        rotate(gens);
    }

    /** The transaction ids of an APPLY payload. */
    private static long[] applyTxs(ByteBuffer apply)
    {
        ByteBuffer b = apply.duplicate();
        b.position(9);
        return readIds(b);
    }

    /**
     * Finishes an apply that a crash cut: per page of every image, in order, the page is left alone if it already
     * holds the new bytes (its checksum is the new one), updated with the delta if it holds the old ones, and the
     * log refuses to open otherwise (a page torn inside: writes of a 4 KiB page are assumed atomic). Then the
     * transactions are dropped, as a DONE would.
     */
    private void redoApply(ByteBuffer apply) throws IOException
    {
        ByteBuffer b = apply.duplicate();
        b.getLong();
        boolean merged = b.get() != 0;
        long[] ids = readIds(b);
        List<TxRecord> records = new ArrayList<>();
        for (long tx : ids)
        {
            List<TxRecord> rs = txs.get(tx);
            if (rs == null)
                throw new IOException(base + ": apply names transaction " + tx + " that the log does not hold");
            records.addAll(rs);
        }
        List<ParityApply.Image> deltas = ParityApply.deltas(records, merged, coder, pageSize);
        int n = b.getInt();
        if (n != deltas.size())
            throw new IOException(base + ": apply record has " + n + " images, its transactions give " + deltas.size());
        // per page, its states in write order: old bytes of the first image, then the new bytes of each image
        // that writes it (unmerged applies write a page once per extent); the page holds one of them
        Map<String, List<long[]>> chain = new LinkedHashMap<>();   // chunk@page -> {oldCrc, newCrc, image, page}
        for (int i = 0; i < deltas.size(); i++)
        {
            ParityApply.Image d = deltas.get(i);
            long stripe = b.getLong();
            int j = b.getShort() & 0xffff, off = b.getInt(), pages = b.getInt();
            if (stripe != d.stripe() || j != d.parityIndex() || off != d.offset() || pages * pageSize != d.bytes().length)
                throw new IOException(base + ": apply record does not match its transactions at stripe " + stripe);
            String chunk = names.chunk(stripe, coder.dataChunks() + j);
            for (int p = 0; p < pages; p++)
                chain.computeIfAbsent(chunk + "@" + (off / pageSize + p), x -> new ArrayList<>())
                     .add(new long[]{ b.getInt(), b.getInt(), i, p });
        }
        Set<String> touched = new HashSet<>();
        int redone = 0;
        for (Map.Entry<String, List<long[]>> e : chain.entrySet())
        {
            String chunk = e.getKey().substring(0, e.getKey().indexOf('@'));
            long pos = Long.parseLong(e.getKey().substring(e.getKey().indexOf('@') + 1)) * pageSize;
            List<long[]> steps = e.getValue();
            byte[] cur = fs.readFully(chunk, pos, pageSize);
            int crc = crc(cur), from = -1;
            for (int t = steps.size() - 1; t >= 0 && from < 0; t--)
                if ((int) steps.get(t)[1] == crc)
                    from = t + 1;
            if (from < 0 && (int) steps.get(0)[0] == crc)
                from = 0;
            if (from < 0)
                throw new IOException(base + ": parity page at " + pos + " of " + chunk
                                      + " holds none of the states of the cut apply (torn write?)");
            if (from == steps.size())
                continue;
            for (int t = from; t < steps.size(); t++)
                xor(deltas.get((int) steps.get(t)[2]).bytes(), (int) steps.get(t)[3] * pageSize, cur, 0, pageSize);
            fs.write(chunk, pos, cur, 0, pageSize);
            touched.add(chunk);
            redone++;
        }
        for (String c : touched)
            fs.sync(c);
        for (long tx : ids)
            forget(tx);
        if (redone > 0)
            org.slf4j.LoggerFactory.getLogger(ParityLog.class).info("{}: redid {} parity pages of a cut apply", base,
                                                                     redone);
    }

    private static int crc(byte[] page)
    {
        java.util.zip.CRC32C c = new java.util.zip.CRC32C();
        c.update(page);
        return (int) c.getValue();
    }

    private void replay(RecordLog.Entry e) throws IOException
    {
        ByteBuffer b = e.payload();
        switch (e.type())
        {
            case TxRecord.TYPE -> remember(TxRecord.decode(b));
            case TYPE_COMMIT -> {
                for (long tx : readIds(b))
                    if (txs.containsKey(tx))
                        committed.add(tx);
            }
            case TYPE_ABORT, TYPE_FORWARDED -> {
                for (long tx : readIds(b))
                    forget(tx);
            }
            case TYPE_IMAGES -> replayImages(b);
            case TYPE_APPLY -> pendingApply = b.duplicate();
            case TYPE_DONE -> {
                long id = b.getLong();
                if (pendingApply != null && pendingApply.getLong(0) == id)
                {
                    for (long tx : applyTxs(pendingApply))
                        forget(tx);
                    pendingApply = null;
                }
            }
            case TYPE_BATCH -> rememberBatch(b);
            case TYPE_WATERMARK -> {
                int n = b.getInt();
                for (int i = 0; i < n; i++)
                    watermarks.merge(b.getInt(), b.getLong(), Math::max);
            }
            case TYPE_ROTATED -> { }
            default -> throw new IOException("unknown record type " + e.type() + " in log " + base);
        }
    }

    private void replayImages(ByteBuffer b) throws IOException
    {
        b.getLong();
        for (long tx : readIds(b))
            forget(tx);
        int n = b.getInt();
        Set<String> touched = new HashSet<>();
        for (int i = 0; i < n; i++)
        {
            long stripe = b.getLong();
            int j = b.getShort() & 0xffff;
            int off = b.getInt();
            byte[] img = new byte[b.getInt()];
            b.get(img);
            String chunk = names.chunk(stripe, coder.dataChunks() + j);
            fs.write(chunk, off, img, 0, img.length);   // redo, in log order: idempotent
            touched.add(chunk);
        }
        for (String c : touched)
            fs.sync(c);
    }

    private void remember(TxRecord r)
    {
        txs.computeIfAbsent(r.tx(), t -> new ArrayList<>()).add(r);
        appendedAt.putIfAbsent(r.tx(), opt.clock().getAsLong());
        memBytes.addAndGet(r.bytes());
    }

    private void forget(long tx)
    {
        List<TxRecord> rs = txs.remove(tx);
        committed.remove(tx);
        appendedAt.remove(tx);
        batches.remove(tx);
        if (rs != null)
            for (TxRecord r : rs)
                memBytes.addAndGet(-r.bytes());
    }

    private static long[] readIds(ByteBuffer b)
    {
        long[] ids = new long[b.getInt()];
        for (int i = 0; i < ids.length; i++)
            ids[i] = b.getLong();
        return ids;
    }

    private static byte[] ids(long[] ids)
    {
        Payload p = new Payload(4 + 8 * ids.length);
        p.i32(ids.length);
        for (long id : ids)
            p.i64(id);
        return p.toBytes();
    }

    /**
     * BATCH: {@code u64 tx, u32 source, u64 watermark, u32 n, n x (u64 stripe, u16 parityIndex, u32 nr,
     * nr x (u32 offset, u32 length, bytes))}. Kept in memory as committed PARITY_DELTA records of transaction tx.
     */
    private static byte[] encodeBatch(long tx, int source, long watermark, List<TxRecord> records)
    {
        long size = 24;
        for (TxRecord r : records)
            size += r.bytes();
        Payload p = new Payload((int) Math.min(size, RecordLog.MAX_PAYLOAD));
        p.i64(tx).i32(source).i64(watermark).i32(records.size());
        for (TxRecord r : records)
        {
            p.i64(r.stripe()).u16(r.parityIndex()).i32(r.ranges().size());
            for (TxRecord.Extent e : r.ranges())
                p.i32(e.offset()).i32(e.bytes().length).bytes(e.bytes(), 0, e.bytes().length);
        }
        return p.toBytes();
    }

    private void rememberBatch(ByteBuffer b)
    {
        long tx = b.getLong();
        int source = b.getInt();
        long watermark = b.getLong();
        int n = b.getInt();
        for (int i = 0; i < n; i++)
        {
            long stripe = b.getLong();
            int j = b.getShort() & 0xffff, nr = b.getInt();
            List<TxRecord.Extent> ranges = new ArrayList<>(nr);
            for (int x = 0; x < nr; x++)
            {
                int off = b.getInt();
                byte[] bytes = new byte[b.getInt()];
                b.get(bytes);
                ranges.add(new TxRecord.Extent(off, bytes));
            }
            remember(new TxRecord(tx, watermark, stripe, TxRecord.PARITY_DELTA, j, 0, List.of(), ranges));
        }
        txs.computeIfAbsent(tx, t -> new ArrayList<>());
        committed.add(tx);
        batches.put(tx, new BatchInfo(source, watermark));
        watermarks.merge(source, watermark, Math::max);
    }

    /** Starts a new generation holding the unapplied records, then deletes the given older generations. */
    private void rotate(List<Long> old) throws IOException
    {
        generation++;
        String name = base + "." + generation;
        if (opt.preallocate() > 0)
        {
            fs.write(name, 0, new byte[(int) opt.preallocate()], 0, (int) opt.preallocate());
            fs.sync(name);
        }
        RecordLog next = RecordLog.open(fs, name);
        next.takeRecovered();
        for (Map.Entry<Long, List<TxRecord>> e : txs.entrySet())
        {
            BatchInfo bi = batches.get(e.getKey());
            if (bi != null)
                next.append(TYPE_BATCH, encodeBatch(e.getKey(), bi.source(), bi.watermark(), e.getValue()), false);
            else
                for (TxRecord r : e.getValue())
                    next.append(TxRecord.TYPE, r.encode(), false);
        }
        List<Long> plain = new ArrayList<>();
        for (long tx : committed)
            if (!batches.containsKey(tx))
                plain.add(tx);
        if (!plain.isEmpty())
            next.append(TYPE_COMMIT, ids(plain.stream().mapToLong(Long::longValue).toArray()), false);
        if (!watermarks.isEmpty())
        {
            Payload p = new Payload(4 + 12 * watermarks.size());
            p.i32(watermarks.size());
            for (Map.Entry<Integer, Long> w : watermarks.entrySet())
                p.i32(w.getKey()).i64(w.getValue());
            next.append(TYPE_WATERMARK, p.toBytes(), false);
        }
        next.append(TYPE_ROTATED, new byte[0], false);
        next.sync();
        log = next;
        for (long g : old)
            if (g != generation)
                fs.delete(base + "." + g);
    }

    /** Appends the records of one or more transactions; durable on return if sync. */
    public void append(List<TxRecord> records, boolean sync) throws IOException
    {
        long t0 = opt.clock().getAsLong(), bytes = 0;
        for (TxRecord r : records)
            bytes += r.bytes();
        if (!opt.concurrent())
        {
            synchronized (this)
            {
                for (TxRecord r : records)
                {
                    log.append(TxRecord.TYPE, r.encode(), false);
                    remember(r);
                }
                if (sync)
                    log.sync();
            }
        }
        else
        {
            List<byte[]> encoded = new ArrayList<>(records.size());
            for (TxRecord r : records)
                encoded.add(r.encode());
            RecordLog l = begin();
            try
            {
                synchronized (this)
                {
                    for (int i = 0; i < records.size(); i++)
                    {
                        l.append(TxRecord.TYPE, encoded.get(i), false);
                        remember(records.get(i));
                    }
                }
                if (sync)
                    l.sync();
            }
            finally
            {
                end();
            }
        }
        if (opt.times() != null)
            opt.times().append(timesLog, bytes, opt.clock().getAsLong() - t0);
    }

    /** An append outside the monitor is in flight: rotation waits for it (it would delete the file). */
    private synchronized RecordLog begin()
    {
        inflight++;
        return log;
    }

    private synchronized void end()
    {
        inflight--;
    }

    /**
     * Appends a batch of parity deltas forwarded from delta log {@code source}, covering its transactions up to
     * {@code watermark}, as one record (atomic: a torn batch fails its checksum and is absent). Durable and committed
     * on return.
     */
    public void appendBatch(long tx, int source, long watermark, List<TxRecord> records) throws IOException
    {
        long t0 = opt.clock().getAsLong();
        byte[] payload = encodeBatch(tx, source, watermark, records);
        RecordLog l = begin();
        try
        {
            l.append(TYPE_BATCH, payload, true);
            synchronized (this)
            {
                rememberBatch(ByteBuffer.wrap(payload));
            }
        }
        finally
        {
            end();
        }
        if (opt.times() != null)
            opt.times().append(timesLog, payload.length, opt.clock().getAsLong() - t0);
    }

    /** The highest delta transaction of {@code source} this log holds or has applied (-1 if none). */
    public synchronized long watermark(int source)
    {
        return watermarks.getOrDefault(source, -1L);
    }

    /** Marks transactions committed (unknown ids are ignored: already applied here). */
    public void commit(long[] txIds, boolean sync) throws IOException
    {
        RecordLog l = begin();
        try
        {
            synchronized (this)
            {
                l.append(TYPE_COMMIT, ids(txIds), false);
                for (long tx : txIds)
                    if (txs.containsKey(tx))
                        committed.add(tx);
            }
            if (sync)
                l.sync();
        }
        finally
        {
            end();
        }
    }

    /** Drops uncommitted transactions (recovery decided that their data write never happened). Durable. */
    public synchronized void abort(long[] txIds) throws IOException
    {
        log.append(TYPE_ABORT, ids(txIds), true);
        for (long tx : txIds)
            forget(tx);
    }

    /** Uncommitted transactions: the first record of each, in log order. */
    public synchronized List<TxRecord> uncommitted()
    {
        List<TxRecord> out = new ArrayList<>();
        for (Map.Entry<Long, List<TxRecord>> e : txs.entrySet())
            if (!committed.contains(e.getKey()))
                out.add(e.getValue().get(0));
        return out;
    }

    public synchronized boolean isCommitted(long tx)
    {
        return committed.contains(tx);
    }

    /** The highest transaction id per stripe among the unapplied transactions. */
    public synchronized Map<Long, Long> lastTxByStripe()
    {
        Map<Long, Long> last = new HashMap<>();
        for (Map.Entry<Long, List<TxRecord>> e : txs.entrySet())
            if (!e.getValue().isEmpty() && !batches.containsKey(e.getKey()))   // batches span stripes, no order
                last.merge(e.getValue().get(0).stripe(), e.getKey(), Math::max);
        return last;
    }

    /** Bytes of unapplied (or unforwarded) records held in memory. Lock-free. */
    public long memoryBytes()
    {
        return memBytes.get();
    }

    public synchronized boolean isEmpty()
    {
        return txs.isEmpty();
    }

    /**
     * DELTA role: the committed transactions with the smallest ids, in id order, stopping at the first uncommitted
     * one, at the first id {@code >= belowId} (ids handed out but not yet appended) and once {@code maxBytes} are
     * reached (at least one transaction if any qualifies). Each element is one transaction's records. Records the
     * buffer time of the bytes returned.
     */
    public synchronized List<List<TxRecord>> committedPrefix(long maxBytes, long belowId)
    {
        List<List<TxRecord>> out = new ArrayList<>();
        long bytes = 0, now = opt.clock().getAsLong();
        List<Long> ids = new ArrayList<>(txs.keySet());
        ids.sort(null);
        for (long id : ids)
        {
            if (id >= belowId || !committed.contains(id) || (bytes >= maxBytes && !out.isEmpty()))
                break;
            Map.Entry<Long, List<TxRecord>> e = Map.entry(id, txs.get(id));
            out.add(new ArrayList<>(e.getValue()));
            long n = 0;
            for (TxRecord r : e.getValue())
                n += r.bytes();
            bytes += n;
            if (opt.times() != null)
                opt.times().buffer(timesLog, n, now - appendedAt.getOrDefault(e.getKey(), now));
        }
        return out;
    }

    /** DELTA role: every transaction held, committed or not (recovery takes the union of a log's copies). */
    public synchronized List<List<TxRecord>> all()
    {
        List<List<TxRecord>> out = new ArrayList<>();
        for (List<TxRecord> rs : txs.values())
            out.add(new ArrayList<>(rs));
        return out;
    }

    /** DELTA role: drops forwarded transactions (FORWARDED record; durable if sync). */
    public void forwarded(long[] txIds, boolean sync) throws IOException
    {
        RecordLog l = begin();
        try
        {
            synchronized (this)
            {
                l.append(TYPE_FORWARDED, ids(txIds), false);
                for (long tx : txIds)
                    forget(tx);
            }
            if (sync)
                l.sync();
        }
        finally
        {
            end();
        }
        maybeRotate();
    }

    private synchronized void maybeRotate() throws IOException
    {
        if (log.used() > rotateBytes && inflight == 0)
            rotate(List.of(generation));
    }

    /**
     * Applies every committed transaction to the parity chunks; returns the number of parity bytes rewritten.
     * Uncommitted transactions stay. A DELTA log is never applied (returns 0).
     */
    public long apply() throws IOException
    {
        if (opt.role() == Role.DELTA)
            return 0;
        if (!opt.concurrent())
            synchronized (this)
            {
                return applyOnce();
            }
        applyLock.lock();
        try
        {
            return applyOnce();
        }
        finally
        {
            applyLock.unlock();
        }
    }

    private long applyOnce() throws IOException
    {
        long start = opt.clock().getAsLong(), bytes = 0;
        List<Long> ready = new ArrayList<>();
        List<TxRecord> records = new ArrayList<>();
        synchronized (this)
        {
            for (Map.Entry<Long, List<TxRecord>> e : txs.entrySet())
                if (committed.contains(e.getKey()))
                {
                    ready.add(e.getKey());
                    records.addAll(e.getValue());
                    long n = 0;
                    for (TxRecord r : e.getValue())
                        n += r.bytes();
                    bytes += n;
                    if (opt.times() != null)
                        opt.times().buffer(timesLog, n, start - appendedAt.getOrDefault(e.getKey(), start));
                }
        }
        if (ready.isEmpty())
            return 0;
        List<ParityApply.Image> images = ParityApply.images(records, opt.merge(), fs, names, coder, pageSize, opt.io());
        long id;
        synchronized (this)
        {
            id = ++batch;
        }
        // APPLY: what this apply will write, as checksums of the old and new bytes of every page (not the bytes: the
        // transactions hold the deltas), synced before the first in-place write so that a cut apply can be finished
        int pages = 0;
        for (ParityApply.Image img : images)
            pages += img.bytes().length / pageSize;
        Payload rec = new Payload(32 + 8 * ready.size() + 18 * images.size() + 8 * pages);
        rec.i64(id).u8(opt.merge() ? 1 : 0).i32(ready.size());
        for (long tx : ready)
            rec.i64(tx);
        rec.i32(images.size());
        for (ParityApply.Image img : images)
        {
            int n = img.bytes().length / pageSize;
            rec.i64(img.stripe()).u16(img.parityIndex()).i32(img.offset()).i32(n);
            for (int p = 0; p < n; p++)
            {
                java.util.zip.CRC32C o = new java.util.zip.CRC32C(), w = new java.util.zip.CRC32C();
                o.update(img.old(), p * pageSize, pageSize);
                w.update(img.bytes(), p * pageSize, pageSize);
                rec.i32((int) o.getValue()).i32((int) w.getValue());
            }
        }
        RecordLog l = begin();
        long written = 0;
        try
        {
            l.append(TYPE_APPLY, rec.toBytes(), true);
            written = writeImages(images);
            l.append(TYPE_DONE, new Payload(8).i64(id).toBytes(), false);
            synchronized (this)
            {
                for (long tx : ready)
                    forget(tx);
            }
        }
        finally
        {
            end();
        }
        maybeRotate();
        if (opt.times() != null)
            opt.times().recycle(timesLog, bytes, opt.clock().getAsLong() - start);
        return written;
    }

    /** Writes the images in order (each chunk file's writes in order; files in parallel when merged), then syncs. */
    private long writeImages(List<ParityApply.Image> images) throws IOException
    {
        Map<String, List<ParityApply.Image>> byChunk = new LinkedHashMap<>();
        long written = 0;
        for (ParityApply.Image img : images)
        {
            byChunk.computeIfAbsent(names.chunk(img.stripe(), coder.dataChunks() + img.parityIndex()),
                                    c -> new ArrayList<>()).add(img);
            written += img.bytes().length;
        }
        List<java.util.concurrent.CompletableFuture<Void>> done = new ArrayList<>();
        for (Map.Entry<String, List<ParityApply.Image>> e : byChunk.entrySet())
        {
            Runnable w = () -> {
                try
                {
                    for (ParityApply.Image img : e.getValue())
                        fs.write(e.getKey(), img.offset(), img.bytes(), 0, img.bytes().length);
                    fs.sync(e.getKey());
                }
                catch (IOException x)
                {
                    throw new java.io.UncheckedIOException(x);
                }
            };
            done.add(opt.io() != null && opt.merge() ? java.util.concurrent.CompletableFuture.runAsync(w, opt.io())
                                                     : java.util.concurrent.CompletableFuture.runAsync(w, Runnable::run));
        }
        for (java.util.concurrent.CompletableFuture<Void> f : done)
            ParityApply.join(f);
        return written;
    }

    /** dst[doff..] ^= src[soff..] over n bytes. */
    public static void xor(byte[] src, int soff, byte[] dst, int doff, int n)
    {
        ParityApply.xor(src, soff, dst, doff, n);
    }

    public String base()
    {
        return base;
    }
}
