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
        for (int i = 0; i < cfg.nodes; i++)
        {
            stats[i] = new IoStats();
            nodes[i] = new StorageNode(i, new CountingFileLayer(files.get(i), stats[i]), coder, Cluster::chunkName,
                                       cfg.pageSize, cfg.rotateBytes, cfg.plrReserveBytes);
        }
        transport = new InMemoryTransport(nodes);
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
    }
}
