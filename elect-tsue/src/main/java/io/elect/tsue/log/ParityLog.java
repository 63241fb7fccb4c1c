package io.elect.tsue.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
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
 * ROTATED marker is the log (a newer one without it is an interrupted rotation and is discarded). One retired
 * generation is kept as {@code <base>.spare} (reset first: a synced header with a new epoch, so none of its records
 * is valid) and becomes the next generation, so a rotation reuses an allocated file instead of growing a new one (with
 * {@code elect.tsue.log_allocate_step} on, a new file's bytes are written twice). The loader ignores the spare.
 *
 * <p>Thread-safe. Serial logs (PL, PLR, PARIX, DPU) hold the log's monitor across each append with its sync and
 * across each apply, as in the papers that describe them (appends are serialized and excluded by recycling).
 * Concurrent logs (TSUE) sync outside the monitor (group commit) and apply outside it (one apply at a time), so
 * appends continue while a recycle runs.
 *
 * <p>The transactions held in memory are in a {@link LogState} (guarded by this log's monitor); the replay on open
 * is {@link LogLoader}.
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
    /** Concurrent logs: records applied per apply cycle, at most (see {@link #apply}). */
    static final long APPLY_CYCLE_BYTES = 16 << 20;

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
     * @param coalescePages merged applies: delta ranges of a parity chunk less than this many pages apart are read
     *                    and written as one range (1..255; recorded in each APPLY, so a redo uses the same value)
     */
    public record Options(Role role, boolean concurrent, boolean merge, long preallocate, Executor io,
                          LogTimes times, LongSupplier clock, int coalescePages)
    {
        public Options
        {
            if (coalescePages < 1 || coalescePages > 255)
                throw new IllegalArgumentException("coalescePages must be 1..255: " + coalescePages);
        }

        /** Ranges less than one page apart coalesced (the serial baselines' parity logs). */
        public Options(Role role, boolean concurrent, boolean merge, long preallocate, Executor io, LogTimes times,
                       LongSupplier clock)
        {
            this(role, concurrent, merge, preallocate, io, times, clock, 1);
        }

        /** What an APPLY record stores: 0 = unmerged, n = merged with ranges less than n pages apart coalesced. */
        int mergePages()
        {
            return merge ? coalescePages : 0;
        }

        public static Options serial(long preallocate)
        {
            return new Options(Role.PARITY, false, true, preallocate, null, null, System::nanoTime);
        }
    }

    private final FileLayer fs;
    private final String base;
    private final ErasureCoder coder;
    private final ChunkNamer names;
    private final int pageSize;
    private final long rotateBytes;
    private final Options opt;
    private final LogTimes.Log timesLog;
    /** The unapplied transactions. Guarded by this (its memoryBytes is lock-free). */
    private final LogState state;
    private final ReentrantLock applyLock = new ReentrantLock();
    private long generation;
    private RecordLog log;
    /** The epoch of {@code <base>.spare} if this log reset it (null: unknown, read from its header on reuse). */
    private Integer spareEpoch;
    static final String SPARE = ".spare";
    private long batch;
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
        this.state = new LogState(opt.clock(), opt.times(), timesLog);
        load();
    }

    private synchronized void load() throws IOException
    {
        List<Long> gens = new LogLoader(fs, base, coder, names, pageSize, state).load();
        generation = gens.isEmpty() ? 0 : gens.get(0);
        rotate(gens);
    }

    static long[] readIds(ByteBuffer b)
    {
        long[] ids = new long[b.getInt()];
        for (int i = 0; i < ids.length; i++)
            ids[i] = b.getLong();
        return ids;
    }

    static byte[] ids(long[] ids)
    {
        Payload p = new Payload(4 + 8 * ids.length);
        p.i32(ids.length);
        for (long id : ids)
            p.i64(id);
        return p.toBytes();
    }

    /** Starts a new generation holding the unapplied records, then deletes the given older generations. */
    private void rotate(List<Long> old) throws IOException
    {
        long previous = generation;
        RecordLog previousLog = log;
        generation++;
        String name = base + "." + generation;
        String spare = base + SPARE;
        RecordLog next;
        if (fs.size(spare) >= 0)
        {
            // a retired generation, reset: its records belong to an older epoch, so a crash before the ROTATED marker
            // below leaves a generation without one, which the loader discards
            fs.rename(spare, name);
            next = spareEpoch != null ? RecordLog.openReset(fs, name, spareEpoch) : RecordLog.open(fs, name);
            spareEpoch = null;
        }
        else
        {
            if (opt.preallocate() > 0)
            {
                fs.write(name, 0, new byte[(int) opt.preallocate()], 0, (int) opt.preallocate());
                fs.sync(name);
            }
            next = RecordLog.open(fs, name);
        }
        next.takeRecovered();
        state.writeUnapplied(next);
        next.append(TYPE_ROTATED, new byte[0], false);
        next.sync();
        log = next;
        state.clearPendingCommits();   // the new generation holds every committed transaction
        for (long g : old)
        {
            if (g == generation)
                continue;
            String file = base + "." + g;
            if (fs.size(spare) < 0 && fs.size(file) >= 0)
            {
                // kept for the next rotation: reset (synced) before it leaves its generation's name
                RecordLog retired = g == previous && previousLog != null ? previousLog : RecordLog.open(fs, file);
                retired.reset();
                fs.rename(file, spare);
                spareEpoch = retired.epoch();
            }
            else
                fs.delete(file);
        }
    }

    /**
     * Appends the records of one or more transactions; durable on return if sync. Concurrent logs write all the
     * records of one call in a single write; serial logs (the PL, PLR, PARIX and DPU baselines) one write per record.
     */
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
                    state.remember(r);
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
                    // one write for all records of the call (each still framed and checksummed on its own), after
                    // the deferred COMMIT if there is one
                    state.writeWithPendingCommit(l, TxRecord.TYPE, encoded);
                    for (TxRecord r : records)
                        state.remember(r);
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
        byte[] payload = BatchRecord.encode(tx, source, watermark, records);
        RecordLog l = begin();
        try
        {
            l.append(TYPE_BATCH, payload, true);
            synchronized (this)
            {
                state.rememberBatch(ByteBuffer.wrap(payload));
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
        return state.watermark(source);
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
                    state.commit(tx);
            }
            if (sync)
                l.sync();
        }
        finally
        {
            end();
        }
    }

    /**
     * Marks transactions committed in memory at once and writes their COMMIT with the next write to this log (an
     * append or FORWARDED record; a rotation writes the committed set anyway) instead of a write of its own.
     * For the TSUE delta logs, whose COMMITs are unsynced: an unsynced COMMIT becomes durable with the next synced
     * append, which is exactly when a deferred one is written and synced, so crash states are those a lost
     * unsynced COMMIT already gives (recovery resolves such a transaction by a later transaction of its stripe or
     * its data checksums). Unknown ids are ignored.
     */
    public synchronized void commitDeferred(long[] txIds)
    {
        state.commitDeferred(txIds);
    }

    /** Drops uncommitted transactions (recovery decided that their data write never happened). Durable. */
    public synchronized void abort(long[] txIds) throws IOException
    {
        log.append(TYPE_ABORT, ids(txIds), true);
        for (long tx : txIds)
            state.forget(tx);
    }

    /** Uncommitted transactions: the first record of each, in log order. */
    public synchronized List<TxRecord> uncommitted()
    {
        return state.uncommitted();
    }

    public synchronized boolean isCommitted(long tx)
    {
        return state.isCommitted(tx);
    }

    /** The highest transaction id per stripe among the unapplied transactions. */
    public synchronized Map<Long, Long> lastTxByStripe()
    {
        return state.lastTxByStripe();
    }

    /** Bytes of unapplied (or unforwarded) records held in memory. Lock-free. */
    public long memoryBytes()
    {
        return state.memoryBytes();
    }

    public synchronized boolean isEmpty()
    {
        return state.isEmpty();
    }

    /**
     * DELTA role: the committed transactions with the smallest ids, in id order, stopping at the first uncommitted
     * one, at the first id {@code >= belowId} (ids handed out but not yet appended) and once {@code maxBytes} are
     * reached (at least one transaction if any qualifies). Each element is one transaction's records. Records the
     * buffer time of the bytes returned.
     */
    public synchronized List<List<TxRecord>> committedPrefix(long maxBytes, long belowId)
    {
        return state.committedPrefix(maxBytes, belowId);
    }

    /** DELTA role: every transaction held, committed or not (recovery takes the union of a log's copies). */
    public synchronized List<List<TxRecord>> all()
    {
        return state.all();
    }

    /** DELTA role: drops forwarded transactions (FORWARDED record; durable if sync). */
    public void forwarded(long[] txIds, boolean sync) throws IOException
    {
        RecordLog l = begin();
        try
        {
            synchronized (this)
            {
                state.writeWithPendingCommit(l, TYPE_FORWARDED, List.of(ids(txIds)));
                for (long tx : txIds)
                    state.forget(tx);
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
                return applyOnce(Long.MAX_VALUE);
            }
        applyLock.lock();
        try
        {
            // concurrent logs apply in cycles of at most APPLY_CYCLE_BYTES of records, each a complete APPLY ... DONE
            // (deltas commute, so any subset of committed transactions may go first): the images of one cycle, which
            // coalescing widens, stay bounded in memory however much the log holds (a drain, back-pressure); only
            // what was committed when the apply began is taken, so appends arriving meanwhile cannot prolong it; the
            // log rotates once after the last cycle (a rotation copies every unapplied record)
            long cycles = memoryBytes() / APPLY_CYCLE_BYTES + 1, written = 0, c = 0;
            for (; c < cycles && hasCommitted(); c++)
                written += applyOnce(APPLY_CYCLE_BYTES);
            if (c > 0)
                maybeRotate();
            return written;
        }
        finally
        {
            applyLock.unlock();
        }
    }

    private synchronized boolean hasCommitted()
    {
        return state.hasCommitted();
    }

    /** Applies committed transactions in log order until their records reach maxBytes (at least one). */
    private long applyOnce(long maxBytes) throws IOException
    {
        long start = opt.clock().getAsLong();
        LogState.Ready taken;
        synchronized (this)
        {
            taken = state.ready(maxBytes, start);
        }
        List<Long> ready = taken.txs();
        if (ready.isEmpty())
            return 0;
        List<ParityApply.Image> images = ParityApply.images(taken.records(), opt.mergePages(), fs, names, coder, pageSize,
                                                            opt.io());
        long id;
        synchronized (this)
        {
            id = ++batch;
        }
        // APPLY: what this apply will write, as checksums of the old and new bytes of every page (not the bytes: the
        // transactions hold the deltas), synced before the first in-place write so that a cut apply can be finished
        Payload rec = ApplyRecords.encode(id, opt.mergePages(), ready, images, pageSize);
        RecordLog l = begin();
        long written = 0;
        try
        {
            l.append(TYPE_APPLY, rec.toBytes(), true);
            written = ParityApply.write(images, fs, names, coder, opt.merge() ? opt.io() : null);
            l.append(TYPE_DONE, new Payload(8).i64(id).toBytes(), false);
            synchronized (this)
            {
                for (long tx : ready)
                    state.forget(tx);
            }
        }
        finally
        {
            end();
        }
        if (!opt.concurrent())
            maybeRotate();   // concurrent logs: once per apply(), after its last cycle
        if (opt.times() != null)
            opt.times().recycle(timesLog, taken.bytes(), opt.clock().getAsLong() - start);
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
