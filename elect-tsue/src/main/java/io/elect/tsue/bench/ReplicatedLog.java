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

    /**
     * Segments roll at this size; a segment two behind the current one is retired for reuse, as TSUE retires its
     * recycled data-log units, so that both append into blocks the file system already allocated.
     */
    private static final long SEGMENT_BYTES = 32 << 20;
    private final java.util.concurrent.atomic.AtomicLong appended = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.ConcurrentHashMap<Long, java.util.concurrent.locks.ReentrantReadWriteLock> inUse =
        new java.util.concurrent.ConcurrentHashMap<>();

    void append(long stripe, int chunk, int offset, byte[] bytes) throws IOException
    {
        byte[] payload = new Payload(bytes.length + 32).i64(0).i64(stripe).u16(chunk).i32(1).i32(offset)
                                                       .i32(bytes.length).bytes(bytes, 0, bytes.length).toBytes();
        int node = cluster.nodeOf(stripe, chunk), replica = cluster.replicaOf(stripe, chunk);
        long after = appended.addAndGet(payload.length), segment = after / SEGMENT_BYTES;
        String file = "rlog-" + segment;
        java.util.concurrent.locks.ReentrantReadWriteLock lock =
            inUse.computeIfAbsent(segment, s -> new java.util.concurrent.locks.ReentrantReadWriteLock());
        lock.readLock().lock();
        try
        {
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
        finally
        {
            lock.readLock().unlock();
        }
        if (segment >= 2 && after - payload.length < segment * SEGMENT_BYTES)
        {
            // this append opened the segment: retire the one two behind once its last append is done
            java.util.concurrent.locks.ReentrantReadWriteLock old = inUse.remove(segment - 2);
            if (old != null)
            {
                old.writeLock().lock();
                for (int n = 0; n < cluster.size(); n++)
                    cluster.local(n).retire("rlog-" + (segment - 2));
            }
        }
    }

    @Override
    public void close()
    {
        io.shutdownNow();
    }
}
