package io.elect.tsue.engine;

import java.util.List;

import io.elect.coding.ErasureCoder;
import io.elect.tsue.fs.CountingFileLayer;
import io.elect.tsue.fs.FileLayer;
import io.elect.tsue.fs.IoStats;
import io.elect.tsue.net.InMemoryTransport;
import io.elect.tsue.net.NodeService;
import io.elect.tsue.net.StorageNode;
import io.elect.tsue.net.Transport;

/**
 * The nodes of one engine, their transport, and the placement of stripes: chunk i of stripe s lives on node
 * {@code (s + i) mod nodes}, so the k+m chunks of a stripe are on distinct nodes and stripes rotate over nodes.
 * The replica of chunk i's logs (TSUE data log, DPU differential pages) lives on the node of chunk i+1 (mod k+m).
 */
public final class Cluster
{
    private final TsueConfig cfg;
    private final ErasureCoder coder;
    private final StorageNode[] nodes;
    private final IoStats[] stats;
    private final Transport transport;
    private final java.util.concurrent.ThreadPoolExecutor io;
    private final io.elect.tsue.log.LogTimes times = new io.elect.tsue.log.LogTimes();
    private final java.util.function.LongSupplier clock = System::nanoTime;

    public Cluster(TsueConfig cfg, ErasureCoder coder, List<? extends FileLayer> files)
    {
        if (files.size() != cfg.nodes)
            throw new IllegalArgumentException("files: need one FileLayer per node (" + cfg.nodes + "), got "
                                               + files.size());
        if (coder.dataChunks() != cfg.k || coder.parityChunks() != cfg.m)
            throw new IllegalArgumentException("coder: " + coder.codecId() + " does not match k=" + cfg.k
                                               + " m=" + cfg.m);
        this.cfg = cfg;
        this.coder = coder;
        nodes = new StorageNode[cfg.nodes];
        stats = new IoStats[cfg.nodes];
        // bulk I/O of recycling (old data, old parity, in-place writes): enough threads to keep the device's queue
        // busy; idle threads end after a few seconds
        io = new java.util.concurrent.ThreadPoolExecutor(IO_DEPTH, IO_DEPTH, 5, java.util.concurrent.TimeUnit.SECONDS,
                                                         new java.util.concurrent.LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "tsue-bulk-io");
            t.setDaemon(true);
            return t;
        });
        io.allowCoreThreadTimeOut(true);
        StorageNode.Settings settings = new StorageNode.Settings(cfg.pageSize, cfg.rotateBytes, cfg.plrReserveBytes,
                                                                 cfg.parityLogMerge, io, times, clock,
                                                                 Math.min(255, Math.max(1, cfg.parityCoalesceGap
                                                                                           / cfg.pageSize)));
        for (int i = 0; i < cfg.nodes; i++)
        {
            stats[i] = new IoStats();
            nodes[i] = new StorageNode(i, new CountingFileLayer(files.get(i), stats[i]), coder, Cluster::chunkName,
                                       settings);
        }
        transport = new InMemoryTransport(nodes);
    }

    /** Threads of the bulk I/O executor: the device queue depth recycling may use. */
    public static final int IO_DEPTH = 16;

    /** Executor for recycling's independent reads and writes (never for tasks that wait on other tasks). */
    public java.util.concurrent.Executor bulkIo()
    {
        return io;
    }

    /** The monotonic clock (nanoseconds) that log timing and pacing read; one seam for tests and simulation. */
    public java.util.function.LongSupplier clock()
    {
        return clock;
    }

    /** Time data bytes spend in each log (TSUE Table II). */
    public io.elect.tsue.log.LogTimes logTimes()
    {
        return times;
    }

    public static String chunkName(long stripe, int index)
    {
        return "c-" + stripe + "-" + index;
    }

    public TsueConfig config()
    {
        return cfg;
    }

    public ErasureCoder coder()
    {
        return coder;
    }

    public Transport transport()
    {
        return transport;
    }

    public int nodeOf(long stripe, int index)
    {
        return (int) Math.floorMod(stripe + index, (long) cfg.nodes);
    }

    public int replicaOf(long stripe, int index)
    {
        return nodeOf(stripe, (index + 1) % (cfg.k + cfg.m));
    }

    public NodeService node(int from, int to)
    {
        return transport.node(from, to);
    }

    public StorageNode local(int node)
    {
        return nodes[node];
    }

    public int size()
    {
        return nodes.length;
    }

    /** Sum of every node's storage counters. */
    public IoStats ioTotals()
    {
        IoStats t = new IoStats();
        for (IoStats s : stats)
            s.addTo(t);
        return t;
    }

    public void resetCounters()
    {
        for (IoStats s : stats)
            s.reset();
        transport.resetCounters();
        times.reset();
    }
}
