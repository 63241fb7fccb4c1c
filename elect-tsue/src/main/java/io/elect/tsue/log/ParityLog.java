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
import java.util.TreeMap;

import io.elect.coding.ErasureCoder;
import io.elect.tsue.fs.FileLayer;

/**
 * The parity log of one parity node (or, for PLR, of one parity chunk): transactions of parity deltas (or PARIX
 * new/original data) that are appended, then committed, then applied to the parity chunks of this node.
 *
 * <p>Protocol (enforced by the engines, relied on by recovery): a transaction's records are durable in the parity
 * logs of all m parity chunks before the coordinator writes the new data in place; its COMMIT is appended after
 * that data write and before any later transaction of the same stripe starts. Hence an uncommitted transaction
 * followed in this log by a later transaction of the same stripe is committed; any other uncommitted one is
 * resolved by recovery from the data chunks' checksums (see {@code io.elect.tsue.engine.Recovery}).
 *
 * <p>Apply merges the committed deltas per parity chunk (XOR of overlapping deltas; ranges closer than a page
 * coalesced so that old parity is read and new parity written in large sequential pieces), logs the new parity
 * images (IMAGES, synced), writes them in place, syncs, and logs DONE. Replaying IMAGES without DONE is idempotent,
 * so a crash during the in-place writes never applies a delta twice.
 *
 * <p>Files: {@code <base>.<generation>}; on open and whenever the live file grows beyond the rotation size, the
 * unapplied transactions are copied to a new generation, synced, and older generations deleted.
 *
 * <p>Thread-safe: all methods synchronize on the log (appends and applies of one log are serialized).
 */
public final class ParityLog
{
    public static final int TYPE_COMMIT = 11;
    public static final int TYPE_ABORT = 12;
    public static final int TYPE_IMAGES = 13;
    public static final int TYPE_DONE = 14;

    /** Names chunk files; shared with the engines. */
    public interface ChunkNamer
    {
        String chunk(long stripe, int index);
    }

    private final FileLayer fs;
    private final String base;
    private final ErasureCoder coder;
    private final ChunkNamer names;
    private final int pageSize;
    private final long rotateBytes;
    private final long preallocate;
    private final LinkedHashMap<Long, List<TxRecord>> txs = new LinkedHashMap<>();
    private final Set<Long> committed = new HashSet<>();
    private long generation;
    private RecordLog log;
    private long memBytes;
    private long batch;

    /**
     * @param preallocate bytes of zeroes written into each new generation file (PLR's reserved space), or 0
     */
    public ParityLog(FileLayer fs, String base, ErasureCoder coder, ChunkNamer names, int pageSize, long rotateBytes,
                     long preallocate) throws IOException
    {
        this.fs = fs;
        this.base = base;
        this.coder = coder;
        this.names = names;
        this.pageSize = pageSize;
        this.rotateBytes = rotateBytes;
        this.preallocate = preallocate;
        load();
    }

    private void load() throws IOException
    {
        List<Long> gens = new ArrayList<>();
        for (String f : fs.list())
            if (f.startsWith(base + ".") && f.substring(base.length() + 1).matches("\\d+"))
                gens.add(Long.parseLong(f.substring(base.length() + 1)));
        gens.sort(Comparator.naturalOrder());
        for (long g : gens)
            for (RecordLog.Entry e : RecordLog.scan(fs, base + "." + g))
                replay(e);
        generation = gens.isEmpty() ? 0 : gens.get(gens.size() - 1);
        rotate(gens);
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
            case TYPE_ABORT -> {
                for (long tx : readIds(b))
                    forget(tx);
            }
            case TYPE_IMAGES -> {
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
                    fs.write(chunk, off, img, 0, img.length);   // redo: idempotent
                    touched.add(chunk);
                }
                for (String c : touched)
                    fs.sync(c);
            }
            case TYPE_DONE -> { }
            default -> throw new IOException("unknown parity-log record type " + e.type() + " in " + base);
        }
    }

    private void remember(TxRecord r)
    {
        txs.computeIfAbsent(r.tx(), t -> new ArrayList<>()).add(r);
        memBytes += r.bytes();
    }

    private void forget(long tx)
    {
        List<TxRecord> rs = txs.remove(tx);
        committed.remove(tx);
        if (rs != null)
            for (TxRecord r : rs)
                memBytes -= r.bytes();
    }

    private static long[] readIds(ByteBuffer b)
    {
        long[] ids = new long[b.getInt()];
        for (int i = 0; i < ids.length; i++)
            ids[i] = b.getLong();
        return ids;
    }

    private static byte[] ids(int type, long[] ids)
    {
        Payload p = new Payload(4 + 8 * ids.length);
        p.i32(ids.length);
        for (long id : ids)
            p.i64(id);
        return p.toBytes();
    }

    /** Starts a new generation holding the unapplied transactions, then deletes the given older generations. */
    private void rotate(List<Long> old) throws IOException
    {
        generation++;
        String name = base + "." + generation;
        if (preallocate > 0)
        {
            fs.write(name, 0, new byte[(int) preallocate], 0, (int) preallocate);
            fs.sync(name);
        }
        RecordLog next = RecordLog.open(fs, name);
        next.takeRecovered();
        for (List<TxRecord> rs : txs.values())
            for (TxRecord r : rs)
                next.append(TxRecord.TYPE, r.encode(), false);
        if (!committed.isEmpty())
            next.append(TYPE_COMMIT, ids(TYPE_COMMIT, committed.stream().mapToLong(Long::longValue).toArray()), false);
        next.sync();
        log = next;
        for (long g : old)
            if (g != generation)
                fs.delete(base + "." + g);
    }

    /** Appends the records of one or more transactions; durable on return if sync. */
    public synchronized void append(List<TxRecord> records, boolean sync) throws IOException
    {
        for (TxRecord r : records)
        {
            log.append(TxRecord.TYPE, r.encode(), false);
            remember(r);
        }
        if (sync)
            log.sync();
    }

    /** Marks transactions committed (unknown ids are ignored: already applied here). */
    public synchronized void commit(long[] txIds, boolean sync) throws IOException
    {
        log.append(TYPE_COMMIT, ids(TYPE_COMMIT, txIds), sync);
        for (long tx : txIds)
            if (txs.containsKey(tx))
                committed.add(tx);
    }

    /** Drops uncommitted transactions (recovery decided that their data write never happened). Durable. */
    public synchronized void abort(long[] txIds) throws IOException
    {
        log.append(TYPE_ABORT, ids(TYPE_ABORT, txIds), true);
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
        for (List<TxRecord> rs : txs.values())
            last.merge(rs.get(0).stripe(), rs.get(0).tx(), Math::max);
        return last;
    }

    /** Bytes of unapplied transaction records held in memory. */
    public synchronized long memoryBytes()
    {
        return memBytes;
    }

    public synchronized boolean isEmpty()
    {
        return txs.isEmpty();
    }

    /**
     * Applies every committed transaction to the parity chunks; returns the number of parity bytes rewritten.
     * Uncommitted transactions stay.
     */
    public synchronized long apply() throws IOException
    {
        List<Long> ready = new ArrayList<>();
        for (Long tx : txs.keySet())
            if (committed.contains(tx))
                ready.add(tx);
        if (ready.isEmpty())
            return 0;
        // per (stripe, parity index): the parity-delta extents, in log order
        Map<Long, Map<Integer, List<TxRecord.Extent>>> deltas = new LinkedHashMap<>();
        Map<String, TreeMap<Integer, byte[][]>> parix = new LinkedHashMap<>(); // stripe:j:i -> page -> {orig, latest}
        for (long tx : ready)
            for (TxRecord r : txs.get(tx))
                collect(r, deltas, parix);
        parixDeltas(parix, deltas);
        Payload images = new Payload(1 << 16);
        int nimg = 0;
        List<Object[]> writes = new ArrayList<>();
        for (Map.Entry<Long, Map<Integer, List<TxRecord.Extent>>> s : deltas.entrySet())
            for (Map.Entry<Integer, List<TxRecord.Extent>> pj : s.getValue().entrySet())
                for (TxRecord.Extent seg : coalesce(pj.getValue()))
                {
                    String chunk = names.chunk(s.getKey(), coder.dataChunks() + pj.getKey());
                    byte[] img = fs.readFully(chunk, seg.offset(), seg.bytes().length);
                    xor(seg.bytes(), 0, img, 0, img.length);
                    images.i64(s.getKey()).u16(pj.getKey()).i32(seg.offset()).i32(img.length).bytes(img, 0, img.length);
                    nimg++;
                    writes.add(new Object[]{ chunk, seg.offset(), img });
                }
        long id = ++batch;
        Payload rec = new Payload(images.length() + 16 + 8 * ready.size());
        rec.i64(id).i32(ready.size());
        for (long tx : ready)
            rec.i64(tx);
        rec.i32(nimg);
        byte[] body = images.toBytes();
        rec.bytes(body, 0, body.length);
        log.append(TYPE_IMAGES, rec.toBytes(), true);
        long written = 0;
        Set<String> touched = new HashSet<>();
        for (Object[] w : writes)
        {
            byte[] img = (byte[]) w[2];
            fs.write((String) w[0], (Integer) w[1], img, 0, img.length);
            touched.add((String) w[0]);
            written += img.length;
        }
        for (String c : touched)
            fs.sync(c);
        log.append(TYPE_DONE, new Payload(8).i64(id).toBytes(), false);
        for (long tx : ready)
            forget(tx);
        if (log.used() > rotateBytes)
            rotate(List.of(generation));
        return written;
    }

    private void collect(TxRecord r, Map<Long, Map<Integer, List<TxRecord.Extent>>> deltas,
                         Map<String, TreeMap<Integer, byte[][]>> parix)
    {
        if (r.kind() == TxRecord.PARITY_DELTA)
        {
            deltas.computeIfAbsent(r.stripe(), s -> new LinkedHashMap<>())
                  .computeIfAbsent(r.parityIndex(), j -> new ArrayList<>()).addAll(r.ranges());
            return;
        }
        // PARIX: original pages first seen win; new data overlays the latest image in log order
        TreeMap<Integer, byte[][]> pages = parix.computeIfAbsent(r.stripe() + ":" + r.parityIndex() + ":" + r.dataIndex(),
                                                                 k -> new TreeMap<>());
        for (TxRecord.Extent e : r.ranges())
        {
            if (r.kind() == TxRecord.PARIX_ORIG)
            {
                int page = e.offset() / pageSize;
                pages.putIfAbsent(page, new byte[][]{ e.bytes().clone(), e.bytes().clone() });
                continue;
            }
            for (int pos = e.offset(); pos < e.end(); )
            {
                int page = pos / pageSize, inPage = pos - page * pageSize;
                int n = Math.min(pageSize - inPage, e.end() - pos);
                byte[][] pg = pages.get(page);
                if (pg == null)
                    throw new IllegalStateException("PARIX new data without original page " + page + " in " + base);
                System.arraycopy(e.bytes(), pos - e.offset(), pg[1], inPage, n);
                pos += n;
            }
        }
    }

    private void parixDeltas(Map<String, TreeMap<Integer, byte[][]>> parix,
                             Map<Long, Map<Integer, List<TxRecord.Extent>>> deltas)
    {
        ByteBuffer[] par = new ByteBuffer[coder.parityChunks()];
        for (Map.Entry<String, TreeMap<Integer, byte[][]>> e : parix.entrySet())
        {
            String[] key = e.getKey().split(":");
            long stripe = Long.parseLong(key[0]);
            int j = Integer.parseInt(key[1]), i = Integer.parseInt(key[2]);
            for (Map.Entry<Integer, byte[][]> pg : e.getValue().entrySet())
            {
                byte[] delta = pg.getValue()[0];
                xor(pg.getValue()[1], 0, delta, 0, delta.length);
                byte[] pd = new byte[delta.length];
                ByteBuffer scratch = ByteBuffer.allocate(delta.length);
                for (int x = 0; x < par.length; x++)
                    par[x] = x == j ? ByteBuffer.wrap(pd) : scratch;
                coder.update(i, ByteBuffer.wrap(delta), 0, par, 0, delta.length);
                deltas.computeIfAbsent(stripe, s -> new LinkedHashMap<>()).computeIfAbsent(j, x -> new ArrayList<>())
                      .add(new TxRecord.Extent(pg.getKey() * pageSize, pd));
            }
        }
    }

    /** XOR-merges extents into disjoint segments; extents closer than a page share one segment. */
    private List<TxRecord.Extent> coalesce(List<TxRecord.Extent> extents)
    {
        List<TxRecord.Extent> sorted = new ArrayList<>(extents);
        sorted.sort(Comparator.comparingInt(TxRecord.Extent::offset));
        List<TxRecord.Extent> out = new ArrayList<>();
        int i = 0;
        while (i < sorted.size())
        {
            int start = sorted.get(i).offset(), end = sorted.get(i).end(), j = i + 1;
            while (j < sorted.size() && sorted.get(j).offset() <= end + pageSize)
                end = Math.max(end, sorted.get(j++).end());
            byte[] seg = new byte[end - start];
            for (int x = i; x < j; x++)
            {
                TxRecord.Extent e = sorted.get(x);
                xor(e.bytes(), 0, seg, e.offset() - start, e.bytes().length);
            }
            out.add(new TxRecord.Extent(start, seg));
            i = j;
        }
        return out;
    }

    /** dst[doff..] ^= src[soff..] over n bytes. */
    public static void xor(byte[] src, int soff, byte[] dst, int doff, int n)
    {
        for (int x = 0; x < n; x++)
            dst[doff + x] ^= src[soff + x];
    }

    public String base()
    {
        return base;
    }
}
