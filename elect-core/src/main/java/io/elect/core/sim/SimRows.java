package io.elect.core.sim;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The simulated storage engine's rows and file formats (simulation only; never on a real node's disk):
 * <ul>
 * <li>a row is a key, its token, a write timestamp and a value (null = tombstone); rows of a file are sorted by
 *     (token, key), as an SSTable's partitions are;</li>
 * <li>the data component: each row as {@code u16 keyLength, key (UTF-8), i64 timestamp, i32 valueLength (-1: a
 *     tombstone), value} (it is what a stripe encodes, so its bytes must be exactly reproducible);</li>
 * <li>the index component ({@code Index.db}): magic {@code SIMIDX01}, row count, then per row its key, token, offset
 *     and length in the data component, then a CRC32C of everything before;</li>
 * </ul>
 * A reader of a stub finds a key's byte range in its index and reads only that range of the (reconstructed) data.
 */
final class SimRows
{
    static final byte[] INDEX_MAGIC = "SIMIDX01".getBytes(StandardCharsets.US_ASCII);

    private SimRows()
    {
    }

    /** One version of a key. */
    record Row(String key, long token, long ts, byte[] value)
    {
        boolean tombstone()
        {
            return value == null;
        }

        /**
         * Whether this version wins over {@code o} (same key) under Cassandra's reconciliation: the newer timestamp;
         * on a tie a tombstone; then the greater value bytes. Equal versions: false.
         */
        boolean supersedes(Row o)
        {
            if (ts != o.ts)
                return ts > o.ts;
            if (tombstone() != o.tombstone())
                return tombstone();
            return !tombstone() && Arrays.compareUnsigned(value, o.value) > 0;
        }

        @Override
        public boolean equals(Object o)
        {
            return o instanceof Row r && key.equals(r.key) && token == r.token && ts == r.ts && Arrays.equals(value, r.value);
        }

        @Override
        public int hashCode()
        {
            return key.hashCode() * 31 + Long.hashCode(ts);
        }

        @Override
        public String toString()
        {
            return key + "@" + ts + (tombstone() ? "(deleted)" : "(" + value.length + " bytes)");
        }
    }

    static final Comparator<Row> ORDER = Comparator.comparingLong(Row::token).thenComparing(Row::key);

    /**
     * The token of a key: 64-bit FNV-1a of its UTF-8 bytes, then Murmur3's 64-bit finalizer (FNV alone leaves the
     * high bits of similar short keys clustered, and ranges are cut by the high bits).
     */
    static long token(String key)
    {
        long h = 0xcbf29ce484222325L;
        for (byte b : key.getBytes(StandardCharsets.UTF_8))
        {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }

    /** Where each row of a data component is. Sorted like the rows. */
    record Index(String[] keys, long[] tokens, long[] offsets, int[] lengths)
    {
        int size()
        {
            return keys.length;
        }

        /** The position of key in the index, or -1. */
        int find(String key, long token)
        {
            int lo = 0, hi = keys.length - 1;
            while (lo <= hi)
            {
                int mid = (lo + hi) >>> 1;
                int c = tokens[mid] != token ? Long.compare(tokens[mid], token) : keys[mid].compareTo(key);
                if (c == 0)
                    return mid;
                if (c < 0)
                    lo = mid + 1;
                else
                    hi = mid - 1;
            }
            return -1;
        }

        long firstToken()
        {
            return tokens[0];
        }

        long lastToken()
        {
            return tokens[tokens.length - 1];
        }
    }

    /** The data component of sorted rows, and its index. */
    record Encoded(byte[] data, Index index)
    {
    }

    static Encoded encode(List<Row> sorted)
    {
        int size = 0;
        for (Row r : sorted)
            size += 2 + r.key().getBytes(StandardCharsets.UTF_8).length + 8 + 4 + (r.value() == null ? 0 : r.value().length);
        ByteBuffer b = ByteBuffer.allocate(size);
        String[] keys = new String[sorted.size()];
        long[] tokens = new long[sorted.size()], offsets = new long[sorted.size()];
        int[] lengths = new int[sorted.size()];
        for (int i = 0; i < sorted.size(); i++)
        {
            Row r = sorted.get(i);
            int start = b.position();
            byte[] k = r.key().getBytes(StandardCharsets.UTF_8);
            b.putShort((short) k.length).put(k).putLong(r.ts()).putInt(r.value() == null ? -1 : r.value().length);
            if (r.value() != null)
                b.put(r.value());
            keys[i] = r.key();
            tokens[i] = r.token();
            offsets[i] = start;
            lengths[i] = b.position() - start;
        }
        return new Encoded(b.array(), new Index(keys, tokens, offsets, lengths));
    }

    /** One row from its bytes in the data component. */
    static Row decodeRow(ByteBuffer b, long token) throws IOException
    {
        try
        {
            byte[] k = new byte[b.getShort() & 0xffff];
            b.get(k);
            long ts = b.getLong();
            int len = b.getInt();
            byte[] v = null;
            if (len >= 0)
            {
                v = new byte[len];
                b.get(v);
            }
            return new Row(new String(k, StandardCharsets.UTF_8), token, ts, v);
        }
        catch (RuntimeException e)
        {
            throw new IOException("malformed row in a simulated data component: " + e, e);
        }
    }

    static byte[] encodeIndex(Index idx)
    {
        int size = INDEX_MAGIC.length + 4 + 4;
        for (String k : idx.keys())
            size += 2 + k.getBytes(StandardCharsets.UTF_8).length + 8 + 8 + 4;
        ByteBuffer b = ByteBuffer.allocate(size);
        b.put(INDEX_MAGIC).putInt(idx.size());
        for (int i = 0; i < idx.size(); i++)
        {
            byte[] k = idx.keys()[i].getBytes(StandardCharsets.UTF_8);
            b.putShort((short) k.length).put(k).putLong(idx.tokens()[i]).putLong(idx.offsets()[i]).putInt(idx.lengths()[i]);
        }
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putInt((int) crc.getValue());
        return b.array();
    }

    static Index decodeIndex(byte[] bytes) throws IOException
    {
        if (bytes.length < INDEX_MAGIC.length + 8 || !Arrays.equals(Arrays.copyOf(bytes, INDEX_MAGIC.length), INDEX_MAGIC))
            throw new IOException("not a simulated index component (bad magic or too short)");
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        if ((int) crc.getValue() != ByteBuffer.wrap(bytes, bytes.length - 4, 4).getInt())
            throw new IOException("simulated index component fails its CRC32C");
        ByteBuffer b = ByteBuffer.wrap(bytes, INDEX_MAGIC.length, bytes.length - INDEX_MAGIC.length - 4);
        int n = b.getInt();
        String[] keys = new String[n];
        long[] tokens = new long[n], offsets = new long[n];
        int[] lengths = new int[n];
        for (int i = 0; i < n; i++)
        {
            byte[] k = new byte[b.getShort() & 0xffff];
            b.get(k);
            keys[i] = new String(k, StandardCharsets.UTF_8);
            tokens[i] = b.getLong();
            offsets[i] = b.getLong();
            lengths[i] = b.getInt();
        }
        return new Index(keys, tokens, offsets, lengths);
    }

    /** Keeps the newest version of each key (reconciliation), sorted. */
    static List<Row> merge(List<Row> versions)
    {
        List<Row> sorted = new ArrayList<>(versions);
        sorted.sort(ORDER);
        List<Row> out = new ArrayList<>();
        for (Row r : sorted)
        {
            int last = out.size() - 1;
            if (last >= 0 && out.get(last).key().equals(r.key()))
            {
                if (r.supersedes(out.get(last)))
                    out.set(last, r);
            }
            else
                out.add(r);
        }
        return out;
    }
}
