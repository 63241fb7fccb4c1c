package io.elect.tsue.engine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;

import io.elect.coding.ErasureCoder;
import io.elect.tsue.log.ParityLog;
import io.elect.tsue.log.TxRecord;
import io.elect.tsue.log.TxRecord.Extent;
import io.elect.tsue.net.NodeService;

/**
 * What every policy shares: argument checks, stripe locks, stripe creation, reconstruction, parity-log
 * transactions (append to the m parity logs in parallel, commit after the data write) and their recovery.
 */
abstract class AbstractEngine implements UpdateEngine
{
    protected final Cluster cluster;
    protected final TsueConfig cfg;
    protected final ErasureCoder coder;
    protected final int k, m;
    private final ReentrantLock[] locks = new ReentrantLock[1024];
    /** Transaction ids grow with time so that ids stay increasing across restarts; +1 per transaction. */
    private final AtomicLong txIds = new AtomicLong(System.currentTimeMillis() << 16);
    private final AtomicLong peakMemory = new AtomicLong();
    protected final ExecutorService io;

    AbstractEngine(Cluster cluster)
    {
        this.cluster = cluster;
        this.cfg = cluster.config();
        this.coder = cluster.coder();
        this.k = cfg.k;
        this.m = cfg.m;
        for (int i = 0; i < locks.length; i++)
            locks[i] = new ReentrantLock();
        io = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "tsue-io");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public TsueConfig config()
    {
        return cfg;
    }

    protected ReentrantLock lock(long stripe)
    {
        return locks[lockIndex(stripe)];
    }

    private int lockIndex(long stripe)
    {
        return (int) Math.floorMod(stripe * 0x9E3779B97F4A7C15L >>> 20, (long) locks.length);
    }

    /** The position of a stripe lock in the lock table: the order in which several stripe locks are taken. */
    protected int lockIndex(ReentrantLock l)
    {
        for (int i = 0; i < locks.length; i++)
            if (locks[i] == l)
                return i;
        throw new IllegalArgumentException("not a stripe lock");
    }

    protected long nextTx()
    {
        return txIds.incrementAndGet();
    }

    protected void checkRange(long stripe, int chunk, int offset, int len)
    {
        if (chunk < 0 || chunk >= k)
            throw new IllegalArgumentException("chunk must be a data chunk 0.." + (k - 1) + ": " + chunk);
        if (offset < 0 || len <= 0 || (long) offset + len > cfg.chunkSize)
            throw new IllegalArgumentException("range [" + offset + ", +" + len + ") outside chunk of "
                                               + cfg.chunkSize + " bytes (stripe " + stripe + ")");
    }

    protected List<Extent> checkExtents(long stripe, int chunk, List<Extent> extents)
    {
        if (extents == null || extents.isEmpty())
            throw new IllegalArgumentException("extents must not be empty");
        List<Extent> sorted = new ArrayList<>(extents);
        sorted.sort((a, b) -> Integer.compare(a.offset(), b.offset()));
        for (int i = 0; i < sorted.size(); i++)
        {
            checkRange(stripe, chunk, sorted.get(i).offset(), sorted.get(i).bytes().length);
            if (i > 0 && sorted.get(i).offset() < sorted.get(i - 1).end())
                throw new IllegalArgumentException("extents overlap at offset " + sorted.get(i).offset());
        }
        return sorted;
    }

    /** Runs the tasks in parallel (all but the last on the engine's I/O pool) and waits for all; rethrows the first failure. */
    protected void parallel(List<Callable<Void>> tasks) throws IOException
    {
        Parallel.run(io, tasks);
    }

    protected String chunk(long stripe, int index)
    {
        return Cluster.chunkName(stripe, index);
    }

    /** The parity-log base that receives the deltas of parity j of the stripe. */
    protected String parityLog(long stripe, int j)
    {
        return "plog";
    }

    @Override
    public void createStripe(long stripe, byte[][] data) throws IOException
    {
        if (data == null || data.length != k)
            throw new IllegalArgumentException("data must hold k=" + k + " chunks");
        ByteBuffer[] d = new ByteBuffer[k];
        for (int i = 0; i < k; i++)
        {
            if (data[i] == null || data[i].length != cfg.chunkSize)
                throw new IllegalArgumentException("data[" + i + "] must be chunkSize=" + cfg.chunkSize + " bytes");
            d[i] = ByteBuffer.wrap(data[i]);
        }
        byte[][] parity = new byte[m][cfg.chunkSize];
        ByteBuffer[] p = new ByteBuffer[m];
        for (int j = 0; j < m; j++)
            p[j] = ByteBuffer.wrap(parity[j]);
        coder.encode(d, p, 0, cfg.chunkSize);
        int from = cluster.nodeOf(stripe, 0);
        List<Callable<Void>> writes = new ArrayList<>();
        for (int i = 0; i < k + m; i++)
        {
            int idx = i;
            byte[] bytes = i < k ? data[i] : parity[i - k];
            writes.add(() -> {
                cluster.node(from, cluster.nodeOf(stripe, idx)).write(chunk(stripe, idx), 0, bytes, true);
                return null;
            });
        }
        parallel(writes);
    }

    /** Reads the stored chunk bytes (no overlay). */
    protected byte[] readStored(long stripe, int chunk, int offset, int len) throws IOException
    {
        int n = cluster.nodeOf(stripe, chunk);
        return cluster.node(n, n).read(chunk(stripe, chunk), offset, len);
    }

    /** Overlays what the policy keeps outside the chunks onto buf, which holds [offset, offset+buf.length). */
    protected void overlay(long stripe, int chunk, int offset, byte[] buf)
    {
    }

    @Override
    public byte[] read(long stripe, int chunk, int offset, int len) throws IOException
    {
        checkRange(stripe, chunk, offset, len);
        ReentrantLock l = lock(stripe);
        l.lock();
        try
        {
            byte[] b = readStored(stripe, chunk, offset, len);
            overlay(stripe, chunk, offset, b);
            return b;
        }
        finally
        {
            l.unlock();
        }
    }

    @Override
    public byte[] degradedRead(long stripe, int chunk, int offset, int len, Set<Integer> lost) throws IOException
    {
        checkRange(stripe, chunk, offset, len);
        if (lost.size() > m)
            throw new IllegalArgumentException("lost: at most m=" + m + " chunks: " + lost);
        applyAllParity();
        ReentrantLock l = lock(stripe);
        l.lock();
        try
        {
            ByteBuffer[] chunks = new ByteBuffer[k + m];
            for (int i = 0; i < k + m; i++)
                chunks[i] = ByteBuffer.wrap(lost.contains(i) ? new byte[len] : readStored(stripe, i, offset, len));
            int[] erased = lost.stream().mapToInt(Integer::intValue).sorted().toArray();
            if (erased.length > 0)
                coder.reconstruct(chunks, erased, 0, len);
            byte[] b = chunks[chunk].array();
            overlay(stripe, chunk, offset, b);
            return b;
        }
        finally
        {
            l.unlock();
        }
    }

    @Override
    public boolean parityConsistent(long stripe) throws IOException
    {
        ByteBuffer[] d = new ByteBuffer[k];
        for (int i = 0; i < k; i++)
            d[i] = ByteBuffer.wrap(readStored(stripe, i, 0, cfg.chunkSize));
        for (int j = 0; j < m; j++)
        {
            byte[] expect = new byte[cfg.chunkSize];
            ByteBuffer[] p = new ByteBuffer[m];
            for (int x = 0; x < m; x++)
                p[x] = x == j ? ByteBuffer.wrap(expect) : ByteBuffer.allocate(cfg.chunkSize);
            coder.encode(d, p, 0, cfg.chunkSize);
            if (!Arrays.equals(expect, readStored(stripe, k + j, 0, cfg.chunkSize)))
                return false;
        }
        return true;
    }

    /** The stripes that have chunk files, from the nodes' file lists. */
    protected Set<Long> stripes() throws IOException
    {
        Set<Long> out = new TreeSet<>();
        for (int n = 0; n < cluster.size(); n++)
            for (String f : cluster.local(n).list("c-"))
                out.add(Long.parseLong(f.substring(2, f.lastIndexOf('-'))));
        return out;
    }

    /** The m parity deltas of data deltas given per chunk; see {@link Deltas#parity}. */
    protected List<List<Extent>> parityDeltas(List<Integer> chunkOf, List<Extent> deltas)
    {
        return Deltas.parity(coder, m, chunkOf, deltas);
    }

    protected static int[] manifestEntry(int chunk, int offset, byte[] bytes)
    {
        CRC32C c = new CRC32C();
        c.update(bytes);
        return new int[]{ chunk, offset, bytes.length, (int) c.getValue() };
    }

    /** Appends one transaction's records to the m parity logs in parallel, durably. from = sending node. */
    protected void logTx(int from, long stripe, List<TxRecord> perParity) throws IOException
    {
        List<Callable<Void>> tasks = new ArrayList<>();
        for (TxRecord r : perParity)
        {
            int to = cluster.nodeOf(stripe, k + r.parityIndex());
            String base = parityLog(stripe, r.parityIndex());
            tasks.add(() -> {
                cluster.node(from, to).plogAppend(base, List.of(r), true);
                return null;
            });
        }
        parallel(tasks);
    }

    /** Lazily (unsynced) commits a transaction at the m parity logs; see {@link ParityLog} for why that is safe. */
    protected void commitTx(int from, long stripe, long tx) throws IOException
    {
        for (int j = 0; j < m; j++)
            cluster.node(from, cluster.nodeOf(stripe, k + j)).plogCommit(parityLog(stripe, j), new long[]{ tx }, false);
    }

    /** Applies every committed parity delta at every node. */
    protected void applyAllParity() throws IOException
    {
        List<Callable<Void>> tasks = new ArrayList<>();
        for (int n = 0; n < cluster.size(); n++)
        {
            int node = n;
            tasks.add(() -> {
                for (String base : cluster.local(node).plogBases(""))
                    cluster.local(node).plogApply(base);
                return null;
            });
        }
        parallel(tasks);
    }

    protected long parityLogMemory()
    {
        long n = 0;
        for (int i = 0; i < cluster.size(); i++)
            n += cluster.local(i).plogMemory();
        return n;
    }

    /** Samples {@link #logMemoryBytes()} into the peak. */
    protected void samplePeak()
    {
        long now = logMemoryBytes();
        peakMemory.accumulateAndGet(now, Math::max);
    }

    @Override
    public long peakLogMemoryBytes()
    {
        return peakMemory.get();
    }

    @Override
    public long logMemoryBytes()
    {
        return parityLogMemory();
    }

    @Override
    public void recover() throws IOException
    {
        Recovery.resolve(cluster, this::readStored, null);
        applyAllParity();
    }

    @Override
    public void close() throws IOException
    {
        io.shutdownNow();
    }

    static UncheckedIOException unchecked(IOException e)
    {
        return new UncheckedIOException(e);
    }
}
