package io.elect.tsue.net;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

import io.elect.tsue.log.RecordLog;
import io.elect.tsue.log.TxRecord;

/**
 * In-process {@link Transport}: calls go straight to the target node's service; a call between distinct nodes
 * adds its payload bytes (arguments and results) plus a fixed per-message header to the traffic counters.
 */
public final class InMemoryTransport implements Transport
{
    /** Bytes charged per message for framing (type, ids, length, checksum), as a real transport would send. */
    public static final int HEADER_BYTES = 32;

    private final NodeService[] nodes;
    private final LongAdder bytes = new LongAdder();
    private final LongAdder msgs = new LongAdder();

    public InMemoryTransport(NodeService[] nodes)
    {
        this.nodes = nodes.clone();
    }

    @Override
    public NodeService node(int from, int to)
    {
        if (to < 0 || to >= nodes.length)
            throw new IllegalArgumentException("to: no node " + to + " (have " + nodes.length + ")");
        return from == to ? nodes[to] : new Counting(nodes[to]);
    }

    @Override
    public int nodes()
    {
        return nodes.length;
    }

    @Override
    public void deliver(int from, int to, long payloadBytes)
    {
        if (from != to)
            count(payloadBytes);
    }

    @Override
    public long networkBytes()
    {
        return bytes.sum();
    }

    @Override
    public long messages()
    {
        return msgs.sum();
    }

    @Override
    public void resetCounters()
    {
        bytes.reset();
        msgs.reset();
    }

    private void count(long n)
    {
        msgs.increment();
        bytes.add(HEADER_BYTES + n);
    }

    private static long size(List<TxRecord> rs)
    {
        long n = 0;
        for (TxRecord r : rs)
            n += r.bytes();
        return n;
    }

    private final class Counting implements NodeService
    {
        private final NodeService d;

        Counting(NodeService d)
        {
            this.d = d;
        }

        public int id()
        {
            return d.id();
        }

        public byte[] read(String file, long pos, int len) throws IOException
        {
            byte[] b = d.read(file, pos, len);
            count(b.length);
            return b;
        }

        public void write(String file, long pos, byte[] data, boolean sync) throws IOException
        {
            count(data.length);
            d.write(file, pos, data, sync);
        }

        public void xorInPlace(String file, long pos, byte[] delta) throws IOException
        {
            count(delta.length);
            d.xorInPlace(file, pos, delta);
        }

        public void appendRecord(String log, int type, byte[] payload, boolean sync) throws IOException
        {
            count(payload.length);
            d.appendRecord(log, type, payload, sync);
        }

        public void appendRecords(String log, int type, List<byte[]> payloads) throws IOException
        {
            long n = 0;
            for (byte[] p : payloads)
                n += p.length;
            count(n);
            d.appendRecords(log, type, payloads);
        }

        public List<RecordLog.Entry> scanLog(String log) throws IOException
        {
            List<RecordLog.Entry> es = d.scanLog(log);
            long n = 0;
            for (RecordLog.Entry e : es)
                n += e.payload().remaining();
            count(n);
            return es;
        }

        public void delete(String file) throws IOException
        {
            count(0);
            d.delete(file);
        }

        public void retire(String log) throws IOException
        {
            count(0);
            d.retire(log);
        }

        public List<String> list(String prefix) throws IOException
        {
            count(0);
            return d.list(prefix);
        }

        public void plogAppend(String base, List<TxRecord> records, boolean sync) throws IOException
        {
            count(size(records));
            d.plogAppend(base, records, sync);
        }

        public void plogCommit(String base, long[] txs, boolean sync) throws IOException
        {
            count(8L * txs.length);
            d.plogCommit(base, txs, sync);
        }

        public void plogAbort(String base, long[] txs) throws IOException
        {
            count(8L * txs.length);
            d.plogAbort(base, txs);
        }

        public long plogApply(String base) throws IOException
        {
            count(0);
            return d.plogApply(base);
        }

        public List<TxRecord> plogUncommitted(String base) throws IOException
        {
            List<TxRecord> rs = d.plogUncommitted(base);
            count(size(rs));
            return rs;
        }

        public boolean plogCommitted(String base, long tx) throws IOException
        {
            count(8);
            return d.plogCommitted(base, tx);
        }

        public Map<Long, Long> plogLastTx(String base) throws IOException
        {
            Map<Long, Long> m = d.plogLastTx(base);
            count(16L * m.size());
            return m;
        }

        public void plogAppendBatch(String base, long tx, int source, long watermark, List<TxRecord> records)
            throws IOException
        {
            count(20 + size(records));
            d.plogAppendBatch(base, tx, source, watermark, records);
        }

        public long plogWatermark(String base, int source) throws IOException
        {
            count(12);
            return d.plogWatermark(base, source);
        }

        public void plogForwarded(String base, long[] txs, boolean sync) throws IOException
        {
            count(8L * txs.length);
            d.plogForwarded(base, txs, sync);
        }

        public List<List<TxRecord>> plogAll(String base) throws IOException
        {
            List<List<TxRecord>> all = d.plogAll(base);
            long n = 0;
            for (List<TxRecord> rs : all)
                n += size(rs);
            count(n);
            return all;
        }

        public long plogMemory()
        {
            return d.plogMemory();
        }

        public List<String> plogBases(String prefix) throws IOException
        {
            count(0);
            return d.plogBases(prefix);
        }
    }
}
