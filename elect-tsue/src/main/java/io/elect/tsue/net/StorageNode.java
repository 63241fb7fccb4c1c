package io.elect.tsue.net;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import io.elect.coding.ErasureCoder;
import io.elect.tsue.fs.FileLayer;
import io.elect.tsue.log.ParityLog;
import io.elect.tsue.log.RecordLog;
import io.elect.tsue.log.TxRecord;

/**
 * One storage node: its files (through a {@link FileLayer}), its open record logs and its parity logs. Thread-safe.
 *
 * <p>Log kinds by base name: {@code plr-*} are PLR reserved areas (preallocated); {@code tplog} is TSUE's parity log
 * and {@code tdelta-*} / {@code tdrep-*} the primary and replica copies of TSUE delta logs (concurrent logs: syncs
 * and applies outside the log's monitor); every other base is a serial parity log (PL, PARIX, DPU).
 */
public final class StorageNode implements NodeService
{
    /** Node-wide settings of the logs. */
    public record Settings(int pageSize, long rotateBytes, long plrReserve, boolean tsueParityMerge,
                           java.util.concurrent.Executor io, io.elect.tsue.log.LogTimes times,
                           java.util.function.LongSupplier clock, int tsueCoalescePages)
    {
        /** TSUE's parity log coalescing ranges less than one page apart. */
        public Settings(int pageSize, long rotateBytes, long plrReserve, boolean tsueParityMerge,
                        java.util.concurrent.Executor io, io.elect.tsue.log.LogTimes times,
                        java.util.function.LongSupplier clock)
        {
            this(pageSize, rotateBytes, plrReserve, tsueParityMerge, io, times, clock, 1);
        }
    }

    private final int id;
    private final FileLayer fs;
    private final ErasureCoder coder;
    private final ParityLog.ChunkNamer names;
    private final Settings settings;
    private final ConcurrentHashMap<String, RecordLog> logs = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, ParityLog> plogs = new ConcurrentHashMap<>();
    /** Retired record-log files ready for reuse (guarded by the logs monitor; loaded from the directory lazily). */
    private java.util.ArrayDeque<String> free;
    private long freeIds;
    /** Epochs of the free files this node retired since it started (guarded by the logs monitor). */
    private final java.util.Map<String, Integer> freeEpochs = new java.util.HashMap<>();
    private static final String FREE = "free-";
    private static final int MAX_FREE = 16;

    public StorageNode(int id, FileLayer fs, ErasureCoder coder, ParityLog.ChunkNamer names, Settings settings)
    {
        this.id = id;
        this.fs = fs;
        this.coder = coder;
        this.names = names;
        this.settings = settings;
    }

    public FileLayer files()
    {
        return fs;
    }

    @Override
    public int id()
    {
        return id;
    }

    @Override
    public byte[] read(String file, long pos, int len) throws IOException
    {
        return fs.readFully(file, pos, len);
    }

    @Override
    public void write(String file, long pos, byte[] data, boolean sync) throws IOException
    {
        fs.write(file, pos, data, 0, data.length);
        if (sync)
            fs.sync(file);
    }

    @Override
    public void xorInPlace(String file, long pos, byte[] delta) throws IOException
    {
        synchronized (this)
        {
            byte[] old = fs.readFully(file, pos, delta.length);
            ParityLog.xor(delta, 0, old, 0, old.length);
            fs.write(file, pos, old, 0, old.length);
        }
        fs.sync(file);
    }

    private RecordLog log(String name) throws IOException
    {
        RecordLog l = logs.get(name);
        if (l != null)
            return l;
        synchronized (logs)
        {
            l = logs.get(name);
            if (l == null)
            {
                Integer epoch = null;
                if (fs.size(name) < 0)
                {
                    String free = freeFile();
                    if (free != null)
                    {
                        fs.rename(free, name);   // a retired log: valid header, no valid record
                        epoch = freeEpochs.remove(free);
                    }
                }
                // a file this node retired itself has a known epoch and no valid record: nothing to read
                l = epoch != null ? RecordLog.openReset(fs, name, epoch) : RecordLog.open(fs, name);
                l.takeRecovered();
                logs.put(name, l);
            }
            return l;
        }
    }

    /** REQUIRES: the logs monitor. A retired file to reuse, or null. */
    private String freeFile() throws IOException
    {
        if (free == null)
        {
            free = new java.util.ArrayDeque<>();
            for (String f : fs.list())
                if (f.startsWith(FREE))
                {
                    free.add(f);
                    freeIds = Math.max(freeIds, Long.parseLong(f.substring(FREE.length())) + 1);
                }
        }
        return free.poll();
    }

    @Override
    public void retire(String file) throws IOException
    {
        synchronized (logs)
        {
            RecordLog l = logs.remove(file);
            if (l == null)
            {
                if (fs.size(file) < 0)
                    return;
                l = RecordLog.open(fs, file);
            }
            freeFile();
            if (free.size() >= MAX_FREE)
            {
                fs.delete(file);
                return;
            }
            l.reset();   // synced: the old records are invalid before the file leaves its name
            String name = FREE + freeIds++;
            fs.rename(file, name);
            free.add(name);
            freeEpochs.put(name, l.epoch());
        }
    }

    @Override
    public void appendRecord(String log, int type, byte[] payload, boolean sync) throws IOException
    {
        log(log).append(type, payload, sync);
    }

    @Override
    public void appendRecords(String log, int type, List<byte[]> payloads) throws IOException
    {
        RecordLog l = log(log);
        for (byte[] p : payloads)
            l.append(type, p, false);
        l.sync();
    }

    @Override
    public List<RecordLog.Entry> scanLog(String log) throws IOException
    {
        return RecordLog.scan(fs, log);
    }

    @Override
    public void delete(String file) throws IOException
    {
        synchronized (logs)
        {
            logs.remove(file);
            fs.delete(file);
        }
    }

    @Override
    public List<String> list(String prefix) throws IOException
    {
        List<String> out = new ArrayList<>();
        for (String f : fs.list())
            if (f.startsWith(prefix))
                out.add(f);
        return out;
    }

    private ParityLog plog(String base) throws IOException
    {
        ParityLog p = plogs.get(base);
        if (p != null)
            return p;
        synchronized (plogs)
        {
            p = plogs.get(base);
            if (p == null)
            {
                p = new ParityLog(fs, base, coder, names, settings.pageSize(), rotateBytes(base), options(base));
                plogs.put(base, p);
            }
            return p;
        }
    }

    private long rotateBytes(String base)
    {
        return base.startsWith("plr-") ? settings.plrReserve() : settings.rotateBytes();
    }

    private ParityLog.Options options(String base)
    {
        if (base.startsWith("plr-"))
            return new ParityLog.Options(ParityLog.Role.PARITY, false, true, settings.plrReserve(), null,
                                         settings.times(), settings.clock());
        if (base.equals("tplog"))
            return new ParityLog.Options(ParityLog.Role.PARITY, true, settings.tsueParityMerge(), 0, settings.io(),
                                         settings.times(), settings.clock(), settings.tsueCoalescePages());
        if (base.startsWith("tdelta-") || base.startsWith("tdrep-"))
            return new ParityLog.Options(ParityLog.Role.DELTA, true, true, 0, settings.io(), settings.times(),
                                         settings.clock());
        return new ParityLog.Options(ParityLog.Role.PARITY, false, true, 0, null, settings.times(), settings.clock());
    }

    /** The parity log of this node with the given base (opened on first use). */
    public ParityLog parityLog(String base) throws IOException
    {
        return plog(base);
    }

    @Override
    public void plogAppend(String base, List<TxRecord> records, boolean sync) throws IOException
    {
        plog(base).append(records, sync);
    }

    @Override
    public void plogCommit(String base, long[] txs, boolean sync) throws IOException
    {
        plog(base).commit(txs, sync);
    }

    @Override
    public void plogAbort(String base, long[] txs) throws IOException
    {
        plog(base).abort(txs);
    }

    @Override
    public long plogApply(String base) throws IOException
    {
        return plog(base).apply();
    }

    @Override
    public List<TxRecord> plogUncommitted(String base) throws IOException
    {
        return plog(base).uncommitted();
    }

    @Override
    public boolean plogCommitted(String base, long tx) throws IOException
    {
        return plog(base).isCommitted(tx);
    }

    @Override
    public Map<Long, Long> plogLastTx(String base) throws IOException
    {
        return plog(base).lastTxByStripe();
    }

    @Override
    public void plogAppendBatch(String base, long tx, int source, long watermark, List<TxRecord> records)
        throws IOException
    {
        plog(base).appendBatch(tx, source, watermark, records);
    }

    @Override
    public long plogWatermark(String base, int source) throws IOException
    {
        return plog(base).watermark(source);
    }

    @Override
    public void plogForwarded(String base, long[] txs, boolean sync) throws IOException
    {
        plog(base).forwarded(txs, sync);
    }

    @Override
    public List<List<TxRecord>> plogAll(String base) throws IOException
    {
        return plog(base).all();
    }

    @Override
    public long plogMemory()
    {
        long n = 0;
        for (ParityLog p : plogs.values())
            n += p.memoryBytes();
        return n;
    }

    @Override
    public List<String> plogBases(String prefix) throws IOException
    {
        TreeSet<String> bases = new TreeSet<>();
        for (String f : fs.list())
        {
            int dot = f.lastIndexOf('.');
            if (f.startsWith(prefix) && dot > 0 && f.substring(dot + 1).matches("\\d+"))
                bases.add(f.substring(0, dot));
        }
        for (String b : plogs.keySet())
            if (b.startsWith(prefix))
                bases.add(b);
        return new ArrayList<>(bases);
    }
}
