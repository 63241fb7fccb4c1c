package io.elect.tsue.log;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A BATCH record of a parity log: parity deltas forwarded from TSUE delta log {@code source}, covering its
 * transactions up to {@code watermark}, kept in memory as committed PARITY_DELTA records of transaction {@code tx}.
 * Layout: {@code u64 tx, u32 source, u64 watermark, u32 n, n x (u64 stripe, u16 parityIndex, u32 nr,
 * nr x (u32 offset, u32 length, bytes))}.
 */
record BatchRecord(long tx, int source, long watermark, List<TxRecord> records)
{
    static byte[] encode(long tx, int source, long watermark, List<TxRecord> records)
    {
        long size = 24;
        for (TxRecord r : records)
            size += r.bytes();
        Payload p = new Payload((int) Math.min(size, RecordLog.MAX_PAYLOAD));
        p.i64(tx).i32(source).i64(watermark).i32(records.size());
        for (TxRecord r : records)
        {
            p.i64(r.stripe()).u16(r.parityIndex()).i32(r.ranges().size());
            for (TxRecord.Extent e : r.ranges())
                p.i32(e.offset()).i32(e.bytes().length).bytes(e.bytes(), 0, e.bytes().length);
        }
        return p.toBytes();
    }

    static BatchRecord decode(ByteBuffer b)
    {
        long tx = b.getLong();
        int source = b.getInt();
        long watermark = b.getLong();
        int n = b.getInt();
        List<TxRecord> records = new ArrayList<>(n);
        for (int i = 0; i < n; i++)
        {
            long stripe = b.getLong();
            int j = b.getShort() & 0xffff, nr = b.getInt();
            List<TxRecord.Extent> ranges = new ArrayList<>(nr);
            for (int x = 0; x < nr; x++)
            {
                int off = b.getInt();
                byte[] bytes = new byte[b.getInt()];
                b.get(bytes);
                ranges.add(new TxRecord.Extent(off, bytes));
            }
            records.add(new TxRecord(tx, watermark, stripe, TxRecord.PARITY_DELTA, j, 0, List.of(), ranges));
        }
        return new BatchRecord(tx, source, watermark, records);
    }
}
