package io.elect.tsue.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * What a {@link ParityLog} holds in memory: its unapplied (or, for a DELTA log, unforwarded) transactions in log
 * order, which of them are committed, when each was appended, the forwarded batches with their source and
 * watermark, the highest watermark per source, the deferred COMMITs not yet written, and the bytes held; with the
 * queries the log answers from them and the records a rotation copies into a new generation.
 *
 * <p>Separate from {@code ParityLog}, which keeps the files, the appends and the applies, so that the bookkeeping of
 * transactions is in one place. Not thread-safe on its own: every method REQUIRES the owning log's monitor, except
 * {@link #memoryBytes} (lock-free).
 */
final class LogState
{
    /** A batch of forwarded parity deltas as kept in memory: its source and watermark. */
    private record BatchInfo(int source, long watermark)
    {
    }

    /** The committed transactions one apply takes (in log order), their records, and the records' bytes. */
    record Ready(List<Long> txs, List<TxRecord> records, long bytes)
    {
    }

    private final LongSupplier clock;
    private final LogTimes times;
    private final LogTimes.Log timesLog;
    private final LinkedHashMap<Long, List<TxRecord>> txs = new LinkedHashMap<>();
    private final Set<Long> committed = new HashSet<>();
    private final Map<Long, Long> appendedAt = new HashMap<>();
    private final Map<Long, BatchInfo> batches = new HashMap<>();
    private final Map<Integer, Long> watermarks = new HashMap<>();
    private final AtomicLong memBytes = new AtomicLong();
    /** Committed in memory, COMMIT not yet written (see {@link ParityLog#commitDeferred}). */
    private final List<Long> pendingCommits = new ArrayList<>();

    /**
     * @param clock    the log's clock (append times)
     * @param times    where the bytes' buffer times go, or null
     * @param timesLog which log the times are recorded for
     */
    LogState(LongSupplier clock, LogTimes times, LogTimes.Log timesLog)
    {
        this.clock = clock;
        this.times = times;
        this.timesLog = timesLog;
    }

    /** The transactions held, by id in log order (for the redo of a cut apply). */
    Map<Long, List<TxRecord>> txs()
    {
        return txs;
    }

    void remember(TxRecord r)
    {
        txs.computeIfAbsent(r.tx(), t -> new ArrayList<>()).add(r);
        appendedAt.putIfAbsent(r.tx(), clock.getAsLong());
        memBytes.addAndGet(r.bytes());
    }

    void forget(long tx)
    {
        List<TxRecord> rs = txs.remove(tx);
        committed.remove(tx);
        appendedAt.remove(tx);
        batches.remove(tx);
        if (rs != null)
            for (TxRecord r : rs)
                memBytes.addAndGet(-r.bytes());
    }

    void rememberBatch(ByteBuffer b)
    {
        BatchRecord batch = BatchRecord.decode(b);
        for (TxRecord r : batch.records())
            remember(r);
        txs.computeIfAbsent(batch.tx(), t -> new ArrayList<>());
        committed.add(batch.tx());
        batches.put(batch.tx(), new BatchInfo(batch.source(), batch.watermark()));
        watermarks.merge(batch.source(), batch.watermark(), Math::max);
    }

    /** Marks a transaction committed if it is held (an unknown id is ignored: already applied here). */
    void commit(long tx)
    {
        if (txs.containsKey(tx))
            committed.add(tx);
    }

    /** Commits held transactions in memory now; their COMMIT goes with the next {@link #writeWithPendingCommit}. */
    void commitDeferred(long[] txIds)
    {
        for (long tx : txIds)
            if (txs.containsKey(tx))
            {
                committed.add(tx);
                pendingCommits.add(tx);
            }
    }

    /** Raises the watermark of a source (a replayed WATERMARK record). */
    void watermark(int source, long watermark)
    {
        watermarks.merge(source, watermark, Math::max);
    }

    long watermark(int source)
    {
        return watermarks.getOrDefault(source, -1L);
    }

    /**
     * REQUIRES: the owning log's monitor. Writes the deferred COMMIT (if any) and the records of one type in a single
     * write, unsynced.
     */
    void writeWithPendingCommit(RecordLog l, int type, List<byte[]> payloads) throws IOException
    {
        int lead = pendingCommits.isEmpty() ? 0 : 1;
        int[] types = new int[lead + payloads.size()];
        List<byte[]> all = new ArrayList<>(types.length);
        if (lead == 1)
        {
            types[0] = ParityLog.TYPE_COMMIT;
            all.add(ParityLog.ids(pendingCommits.stream().mapToLong(Long::longValue).toArray()));
        }
        java.util.Arrays.fill(types, lead, types.length, type);
        all.addAll(payloads);
        l.appendAll(types, all);
        pendingCommits.clear();
    }

    /**
     * A rotation: writes the unapplied records (forwarded batches as BATCH records), one COMMIT of the committed
     * transactions that are not batches, and the watermarks, unsynced, into the new generation (which then holds
     * every committed transaction: the caller clears the deferred COMMITs once it is the log).
     */
    void writeUnapplied(RecordLog next) throws IOException
    {
        for (Map.Entry<Long, List<TxRecord>> e : txs.entrySet())
        {
            BatchInfo bi = batches.get(e.getKey());
            if (bi != null)
                next.append(ParityLog.TYPE_BATCH, BatchRecord.encode(e.getKey(), bi.source(), bi.watermark(), e.getValue()), false);
            else
                for (TxRecord r : e.getValue())
                    next.append(TxRecord.TYPE, r.encode(), false);
        }
        List<Long> plain = new ArrayList<>();
        for (long tx : committed)
            if (!batches.containsKey(tx))
                plain.add(tx);
        if (!plain.isEmpty())
            next.append(ParityLog.TYPE_COMMIT, ParityLog.ids(plain.stream().mapToLong(Long::longValue).toArray()), false);
        if (!watermarks.isEmpty())
        {
            Payload p = new Payload(4 + 12 * watermarks.size());
            p.i32(watermarks.size());
            for (Map.Entry<Integer, Long> w : watermarks.entrySet())
                p.i32(w.getKey()).i64(w.getValue());
            next.append(ParityLog.TYPE_WATERMARK, p.toBytes(), false);
        }
    }

    /** After a rotation: the new generation holds every committed transaction. */
    void clearPendingCommits()
    {
        pendingCommits.clear();
    }

    /** See {@link ParityLog#uncommitted}. */
    List<TxRecord> uncommitted()
    {
        List<TxRecord> out = new ArrayList<>();
        for (Map.Entry<Long, List<TxRecord>> e : txs.entrySet())
            if (!committed.contains(e.getKey()))
                out.add(e.getValue().get(0));
        return out;
    }

    boolean isCommitted(long tx)
    {
        return committed.contains(tx);
    }

    boolean hasCommitted()
    {
        return !committed.isEmpty();
    }

    /** See {@link ParityLog#lastTxByStripe}. */
    Map<Long, Long> lastTxByStripe()
    {
        Map<Long, Long> last = new HashMap<>();
        for (Map.Entry<Long, List<TxRecord>> e : txs.entrySet())
            if (!e.getValue().isEmpty() && !batches.containsKey(e.getKey()))   // batches span stripes, no order
                last.merge(e.getValue().get(0).stripe(), e.getKey(), Math::max);
        return last;
    }

    /** Bytes of unapplied (or unforwarded) records held in memory. Lock-free. */
    long memoryBytes()
    {
        return memBytes.get();
    }

    boolean isEmpty()
    {
        return txs.isEmpty();
    }

    /** See {@link ParityLog#committedPrefix}. */
    List<List<TxRecord>> committedPrefix(long maxBytes, long belowId)
    {
        List<List<TxRecord>> out = new ArrayList<>();
        long bytes = 0, now = clock.getAsLong();
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
            if (times != null)
                times.buffer(timesLog, n, now - appendedAt.getOrDefault(e.getKey(), now));
        }
        return out;
    }

    /** See {@link ParityLog#all}. */
    List<List<TxRecord>> all()
    {
        List<List<TxRecord>> out = new ArrayList<>();
        for (List<TxRecord> rs : txs.values())
            out.add(new ArrayList<>(rs));
        return out;
    }

    /**
     * The committed transactions in log order until their records reach maxBytes (at least one if any is committed),
     * for an apply that starts at {@code start}; records the buffer time of their bytes.
     */
    Ready ready(long maxBytes, long start)
    {
        long bytes = 0;
        List<Long> ready = new ArrayList<>();
        List<TxRecord> records = new ArrayList<>();
        for (Map.Entry<Long, List<TxRecord>> e : txs.entrySet())
            if (committed.contains(e.getKey()) && (bytes < maxBytes || ready.isEmpty()))
            {
                ready.add(e.getKey());
                records.addAll(e.getValue());
                long n = 0;
                for (TxRecord r : e.getValue())
                    n += r.bytes();
                bytes += n;
                if (times != null)
                    times.buffer(timesLog, n, start - appendedAt.getOrDefault(e.getKey(), start));
            }
        return new Ready(ready, records, bytes);
    }
}
