package io.elect.tsue.log;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * One parity-log record of a parity-update transaction: the part of transaction {@code tx} destined for parity
 * chunk {@code parityIndex} of {@code stripe}. Layout in {@code docs/formats/tsue-log.md} (record type
 * {@link #TYPE}).
 *
 * <p>The manifest lists the data ranges the transaction writes in place and the CRC32C of their new contents;
 * recovery compares it with the chunks to learn whether the data write of an uncommitted transaction happened.
 *
 * @param kind      {@link #PARITY_DELTA} (XOR into the parity), {@link #PARIX_NEW} or {@link #PARIX_ORIG} (new or
 *                  original bytes of data chunk {@code dataIndex}, PARIX), {@link #DATA_DELTA} (TSUE delta log: data
 *                  delta of data chunk {@code dataIndex})
 * @param group     policy-specific grouping, e.g. the TSUE log unit; 0 if unused
 * @param manifest  (chunk, offset, length, crc) quadruples as int[4] each
 * @param ranges    (offset, bytes) pairs in the chunk named by kind
 */
public record TxRecord(long tx, long group, long stripe, int kind, int parityIndex, int dataIndex,
                       List<int[]> manifest, List<Extent> ranges)
{
    public static final int TYPE = 10;
    public static final int PARITY_DELTA = 1;
    public static final int PARIX_NEW = 2;
    public static final int PARIX_ORIG = 3;
    public static final int DATA_DELTA = 4;

    /** A byte range of a chunk with its bytes. */
    public record Extent(int offset, byte[] bytes)
    {
        public int end()
        {
            return offset + bytes.length;
        }
    }

    public long bytes()
    {
        long n = 40 + 14L * manifest.size();
        for (Extent e : ranges)
            n += 8 + e.bytes.length;
        return n;
    }

    public byte[] encode()
    {
        Payload p = new Payload((int) bytes());
        p.i64(tx).i64(group).i64(stripe).u8(kind).u16(parityIndex).u16(dataIndex).u16(manifest.size());
        for (int[] m : manifest)
            p.u16(m[0]).i32(m[1]).i32(m[2]).i32(m[3]);
        p.i32(ranges.size());
        for (Extent e : ranges)
            p.i32(e.offset).i32(e.bytes.length).bytes(e.bytes, 0, e.bytes.length);
        return p.toBytes();
    }

    public static TxRecord decode(ByteBuffer b)
    {
        long tx = b.getLong(), group = b.getLong(), stripe = b.getLong();
        int kind = b.get() & 0xff, parity = b.getShort() & 0xffff, data = b.getShort() & 0xffff;
        int nm = b.getShort() & 0xffff;
        List<int[]> manifest = new ArrayList<>(nm);
        for (int i = 0; i < nm; i++)
            manifest.add(new int[]{ b.getShort() & 0xffff, b.getInt(), b.getInt(), b.getInt() });
        int nr = b.getInt();
        List<Extent> ranges = new ArrayList<>(nr);
        for (int i = 0; i < nr; i++)
        {
            int off = b.getInt();
            byte[] bytes = new byte[b.getInt()];
            b.get(bytes);
            ranges.add(new Extent(off, bytes));
        }
        return new TxRecord(tx, group, stripe, kind, parity, data, manifest, ranges);
    }
}
