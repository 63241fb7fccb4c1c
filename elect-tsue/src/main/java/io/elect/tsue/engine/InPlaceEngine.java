package io.elect.tsue.engine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.tsue.log.ParityLog;
import io.elect.tsue.log.TxRecord.Extent;

/**
 * FO (full overwrite, in place): under the stripe lock, read the old data, send the m parity deltas to the parity
 * nodes which read-modify-write their parity in place (synced), then write the new data in place (synced), then
 * acknowledge. No logs. A crash between the parity and the data write leaves that stripe's parity ahead of its
 * data, so {@link #recover()} re-encodes the parity of every stripe from its data (the price of having no log).
 */
final class InPlaceEngine extends AbstractEngine
{
    private static final Logger logger = LoggerFactory.getLogger(InPlaceEngine.class);

    InPlaceEngine(Cluster cluster)
    {
        super(cluster);
    }

    @Override
    public void update(long stripe, int chunk, List<Extent> extents) throws IOException
    {
        List<Extent> sorted = checkExtents(stripe, chunk, extents);
        int node = cluster.nodeOf(stripe, chunk);
        ReentrantLock l = lock(stripe);
        l.lock();
        try
        {
            List<Extent> deltas = new ArrayList<>();
            List<Integer> chunks = new ArrayList<>();
            for (Extent e : sorted)
            {
                byte[] d = readStored(stripe, chunk, e.offset(), e.bytes().length);
                ParityLog.xor(e.bytes(), 0, d, 0, d.length);
                deltas.add(new Extent(e.offset(), d));
                chunks.add(chunk);
            }
            List<List<Extent>> pd = parityDeltas(chunks, deltas);
            List<Callable<Void>> tasks = new ArrayList<>();
            for (int j = 0; j < m; j++)
            {
                int to = cluster.nodeOf(stripe, k + j);
                String file = chunk(stripe, k + j);
                List<Extent> mine = pd.get(j);
                tasks.add(() -> {
                    for (Extent e : mine)
                        cluster.node(node, to).xorInPlace(file, e.offset(), e.bytes());
                    return null;
                });
            }
            parallel(tasks);
            for (Extent e : sorted)
                cluster.node(node, node).write(chunk(stripe, chunk), e.offset(), e.bytes(), false);
            cluster.local(node).files().sync(chunk(stripe, chunk));
        }
        finally
        {
            l.unlock();
        }
    }

    @Override
    public void drain()
    {
        // parity is always current
    }

    @Override
    public void recover() throws IOException
    {
        long start = System.currentTimeMillis();
        int n = 0;
        for (long stripe : stripes())
        {
            ByteBuffer[] d = new ByteBuffer[k];
            for (int i = 0; i < k; i++)
                d[i] = ByteBuffer.wrap(readStored(stripe, i, 0, cfg.chunkSize));
            byte[][] p = new byte[m][cfg.chunkSize];
            ByteBuffer[] pb = new ByteBuffer[m];
            for (int j = 0; j < m; j++)
                pb[j] = ByteBuffer.wrap(p[j]);
            coder.encode(d, pb, 0, cfg.chunkSize);
            for (int j = 0; j < m; j++)
            {
                int to = cluster.nodeOf(stripe, k + j);
                cluster.node(to, to).write(chunk(stripe, k + j), 0, p[j], true);
            }
            n++;
        }
        logger.info("IN_PLACE recovery re-encoded {} stripes in {} ms", n, System.currentTimeMillis() - start);
    }
}
