package io.elect.tsue.bench;

import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.elect.tsue.engine.Cluster;
import io.elect.tsue.log.Payload;

/**
 * The latency yardstick of the benchmark: an update appended, synced, to a log on the chunk's node and on its replica
 * node in parallel (2-way replication of a log record, no erasure coding), through the same nodes and transport.
 */
final class ReplicatedLog implements AutoCloseable
{
    private final Cluster cluster;
    private final ExecutorService io = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "replicated-log");
        t.setDaemon(true);
        return t;
    });

    ReplicatedLog(Cluster cluster)
    {
        this.cluster = cluster;
    }

    /** Segments roll at this size, like TSUE's data-log units (the benchmark deletes them after the row). */
    private static final long SEGMENT_BYTES = 64 << 20;
    private final java.util.concurrent.atomic.AtomicLong appended = new java.util.concurrent.atomic.AtomicLong();

    void append(long stripe, int chunk, int offset, byte[] bytes) throws IOException
    {
        byte[] payload = new Payload(bytes.length + 32).i64(0).i64(stripe).u16(chunk).i32(1).i32(offset)
                                                       .i32(bytes.length).bytes(bytes, 0, bytes.length).toBytes();
        int node = cluster.nodeOf(stripe, chunk), replica = cluster.replicaOf(stripe, chunk);
        long segment = appended.addAndGet(payload.length) / SEGMENT_BYTES;
        String file = "rlog-" + segment;
        Future<?> remote = io.submit(() -> {
            cluster.node(node, replica).appendRecord(file, 1, payload, true);
            return null;
        });
        cluster.node(node, node).appendRecord(file, 1, payload, true);
        try
        {
            remote.get();
        }
        catch (Exception e)
        {
            throw new IOException(e);
        }
    }

    @Override
    public void close()
    {
        io.shutdownNow();
    }
}
