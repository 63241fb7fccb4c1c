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
 * Parity logs whose base starts with {@code plr-} are PLR reserved areas and are preallocated.
 */
public final class StorageNode implements NodeService
{
    private final int id;
    private final FileLayer fs;
    private final ErasureCoder coder;
    private final ParityLog.ChunkNamer names;
    private final int pageSize;
    private final long rotateBytes;
    private final long plrReserve;
    private final ConcurrentHashMap<String, RecordLog> logs = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, ParityLog> plogs = new ConcurrentHashMap<>();

    public StorageNode(int id, FileLayer fs, ErasureCoder coder, ParityLog.ChunkNamer names, int pageSize,
                       long rotateBytes, long plrReserve)
    {
        this.id = id;
        this.fs = fs;
        this.coder = coder;
        this.names = names;
        this.pageSize = pageSize;
        this.rotateBytes = rotateBytes;
        this.plrReserve = plrReserve;
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
                l = RecordLog.open(fs, name);
                l.takeRecovered();
                logs.put(name, l);
            }
            return l;
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
                long pre = base.startsWith("plr-") ? plrReserve : 0;
                p = new ParityLog(fs, base, coder, names, pageSize, pre > 0 ? pre : rotateBytes, pre);
                plogs.put(base, p);
            }
            return p;
        }
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
