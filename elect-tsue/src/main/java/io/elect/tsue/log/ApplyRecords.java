package io.elect.tsue.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32C;

import io.elect.coding.ErasureCoder;
import io.elect.tsue.fs.FileLayer;

/**
 * The records that make a parity-log apply crash-safe (layouts in {@code docs/formats/tsue-log.md}): APPLY (page
 * checksums, written and synced before the in-place writes) and the redo of an APPLY whose DONE is missing; and the
 * IMAGES records of earlier versions. Stateless.
 */
final class ApplyRecords
{
    private ApplyRecords()
    {
    }

    /** APPLY: {@code u64 batch, u8 merged, u32 ntx, ntx x u64 tx, u32 ni, ni x (u64 stripe, u16 parityIndex,
     * u32 offset, u32 pages, pages x (u32 old crc32c, u32 new crc32c))}. {@code merged} is the apply's
     * {@code mergePages}: 0 = one image per extent; n >= 1 = XOR-merged, ranges less than n pages apart coalesced
     * (earlier versions wrote 1, which is what they did). */
    static Payload encode(long id, int mergePages, List<Long> ready, List<ParityApply.Image> images, int pageSize)
    {
        int pages = 0;
        for (ParityApply.Image img : images)
            pages += img.bytes().length / pageSize;
        Payload rec = new Payload(32 + 8 * ready.size() + 18 * images.size() + 8 * pages);
        rec.i64(id).u8(mergePages).i32(ready.size());
        for (long tx : ready)
            rec.i64(tx);
        rec.i32(images.size());
        for (ParityApply.Image img : images)
        {
            int n = img.bytes().length / pageSize;
            rec.i64(img.stripe()).u16(img.parityIndex()).i32(img.offset()).i32(n);
            for (int p = 0; p < n; p++)
            {
                rec.i32(img.oldCrcs()[p]).i32(crc(img.bytes(), p * pageSize, pageSize));
            }
        }
        return rec;
    }

    /** The transaction ids of an APPLY payload. */
    static long[] txs(ByteBuffer apply)
    {
        ByteBuffer b = apply.duplicate();
        b.position(9);
        return ParityLog.readIds(b);
    }

    /**
     * Finishes an apply that a crash cut: per page of every image, in order, the page is left alone if it already
     * holds the new bytes (its checksum is the new one), updated with the delta if it holds the old ones, and the
     * log refuses to open otherwise (a page torn inside: writes of a 4 KiB page are assumed atomic). The caller then
     * drops the transactions, as a DONE would.
     */
    static void redo(ByteBuffer apply, Map<Long, List<TxRecord>> txs, FileLayer fs, ParityLog.ChunkNamer names,
                     ErasureCoder coder, int pageSize, String base) throws IOException
    {
        ByteBuffer b = apply.duplicate();
        b.getLong();
        int mergePages = b.get() & 0xff;
        long[] ids = ParityLog.readIds(b);
        List<TxRecord> records = new ArrayList<>();
        for (long tx : ids)
        {
            List<TxRecord> rs = txs.get(tx);
            if (rs == null)
                throw new IOException(base + ": apply names transaction " + tx + " that the log does not hold");
            records.addAll(rs);
        }
        List<ParityApply.Image> deltas = ParityApply.deltas(records, mergePages, coder, pageSize);
        int n = b.getInt();
        if (n != deltas.size())
            throw new IOException(base + ": apply record has " + n + " images, its transactions give " + deltas.size());
        // per page, its states in write order: old bytes of the first image, then the new bytes of each image
        // that writes it (unmerged applies write a page once per extent); the page holds one of them
        Map<String, List<long[]>> chain = new LinkedHashMap<>();   // chunk@page -> {oldCrc, newCrc, image, page}
        for (int i = 0; i < deltas.size(); i++)
        {
            ParityApply.Image d = deltas.get(i);
            long stripe = b.getLong();
            int j = b.getShort() & 0xffff, off = b.getInt(), pages = b.getInt();
            if (stripe != d.stripe() || j != d.parityIndex() || off != d.offset() || pages * pageSize != d.bytes().length)
                throw new IOException(base + ": apply record does not match its transactions at stripe " + stripe);
            String chunk = names.chunk(stripe, coder.dataChunks() + j);
            for (int p = 0; p < pages; p++)
                chain.computeIfAbsent(chunk + "@" + (off / pageSize + p), x -> new ArrayList<>())
                     .add(new long[]{ b.getInt(), b.getInt(), i, p });
        }
        Set<String> touched = new HashSet<>();
        int redone = 0;
        for (Map.Entry<String, List<long[]>> e : chain.entrySet())
        {
            String chunk = e.getKey().substring(0, e.getKey().indexOf('@'));
            long pos = Long.parseLong(e.getKey().substring(e.getKey().indexOf('@') + 1)) * pageSize;
            List<long[]> steps = e.getValue();
            byte[] cur = fs.readFully(chunk, pos, pageSize);
            int crc = crc(cur), from = -1;
            for (int t = steps.size() - 1; t >= 0 && from < 0; t--)
                if ((int) steps.get(t)[1] == crc)
                    from = t + 1;
            if (from < 0 && (int) steps.get(0)[0] == crc)
                from = 0;
            if (from < 0)
                throw new IOException(base + ": parity page at " + pos + " of " + chunk
                                      + " holds none of the states of the cut apply (torn write?)");
            if (from == steps.size())
                continue;
            for (int t = from; t < steps.size(); t++)
                ParityApply.xor(deltas.get((int) steps.get(t)[2]).bytes(), (int) steps.get(t)[3] * pageSize, cur, 0, pageSize);
            fs.write(chunk, pos, cur, 0, pageSize);
            touched.add(chunk);
            redone++;
        }
        for (String c : touched)
            fs.sync(c);
        if (redone > 0)
            org.slf4j.LoggerFactory.getLogger(ApplyRecords.class).info("{}: redid {} parity pages of a cut apply", base,
                                                                     redone);
    }

    static int crc(byte[] b, int off, int len)
    {
        CRC32C c = new CRC32C();
        c.update(b, off, len);
        return (int) c.getValue();
    }

    static int crc(byte[] page)
    {
        CRC32C c = new CRC32C();
        c.update(page);
        return (int) c.getValue();
    }

    /** Replays an IMAGES record (written by earlier versions): rewrites the new parity bytes; returns its tx ids. */
    static long[] replayImages(ByteBuffer b, FileLayer fs, ParityLog.ChunkNamer names, ErasureCoder coder)
        throws IOException
    {
        b.getLong();
        long[] ids = ParityLog.readIds(b);
        int n = b.getInt();
        Set<String> touched = new HashSet<>();
        for (int i = 0; i < n; i++)
        {
            long stripe = b.getLong();
            int j = b.getShort() & 0xffff;
            int off = b.getInt();
            byte[] img = new byte[b.getInt()];
            b.get(img);
            String chunk = names.chunk(stripe, coder.dataChunks() + j);
            fs.write(chunk, off, img, 0, img.length);   // redo, in log order: idempotent
            touched.add(chunk);
        }
        for (String c : touched)
            fs.sync(c);
        return ids;
    }

}
