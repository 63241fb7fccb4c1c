package io.elect.tsue.log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

import io.elect.coding.ErasureCoder;
import io.elect.tsue.fs.FileLayer;

/**
 * The computation of a parity-log apply: from committed records (parity deltas, PARIX new/original data) to the new
 * parity images to log and write. With merging, overlapping deltas of a parity chunk are XOR-merged and ranges closer
 * than a page coalesced, so old parity is read and new parity written in few large pieces; without (the TSUE
 * ablation baseline), every delta extent is read, combined and written on its own, in log order, each image
 * including the earlier images of the same batch so that writing them in order leaves the right bytes. Old parity is
 * read in parallel on {@code io} when given (the reads of one apply are independent). Stateless.
 */
public final class ParityApply
{
    /**
     * New bytes of parity chunk {@code parityIndex} of {@code stripe} at {@code offset}, page-aligned, with the
     * CRC32C of each page of the old bytes they replace (for the APPLY record; null while the image is a delta).
     */
    record Image(long stripe, int parityIndex, int offset, byte[] bytes, int[] oldCrcs)
    {
    }

    private ParityApply()
    {
    }

    /**
     * The page-aligned parity deltas of the records, in apply order (per stripe and parity chunk; merged: XOR-merged
     * and coalesced segments; unmerged: every extent in log order). {@link Image#bytes()} holds the delta; the same
     * records always give the same list, which is what lets recovery redo an apply from its APPLY record.
     * {@code mergePages}: 0 = unmerged; n >= 1 = merged, ranges less than n pages apart coalesced into one (the gap
     * between them, zero delta, is read and written back unchanged: one read and one write instead of two each).
     */
    static List<Image> deltas(List<TxRecord> records, int mergePages, ErasureCoder coder, int pageSize)
    {
        boolean merge = mergePages > 0;
        // per (stripe, parity index): the parity-delta extents, in log order
        Map<Long, Map<Integer, List<TxRecord.Extent>>> deltas = new LinkedHashMap<>();
        Map<String, TreeMap<Integer, byte[][]>> parix = new LinkedHashMap<>();   // stripe:j:i -> page -> {orig, latest}
        for (TxRecord r : records)
            collect(r, deltas, parix, pageSize);
        parixDeltas(parix, deltas, coder, pageSize);
        List<Image> out = new ArrayList<>();
        for (Map.Entry<Long, Map<Integer, List<TxRecord.Extent>>> s : deltas.entrySet())
            for (Map.Entry<Integer, List<TxRecord.Extent>> pj : s.getValue().entrySet())
                for (TxRecord.Extent seg : merge ? coalesce(pj.getValue(), mergePages * pageSize) : pj.getValue())
                {
                    // whole pages: what direct I/O moves anyway, and the unit of the APPLY record's checksums
                    TxRecord.Extent cover = pageCover(seg, pageSize);
                    out.add(new Image(s.getKey(), pj.getKey(), cover.offset(), cover.bytes(), null));
                }
        return out;
    }

    /** The new parity images of the records: old parity (read in parallel on io) XOR the deltas. */
    static List<Image> images(List<TxRecord> records, int mergePages, FileLayer fs, ParityLog.ChunkNamer names,
                              ErasureCoder coder, int pageSize, Executor io) throws IOException
    {
        boolean merge = mergePages > 0;
        List<Image> out = deltas(records, mergePages, coder, pageSize);
        List<CompletableFuture<byte[]>> reads = new ArrayList<>();
        for (Image d : out)
            reads.add(read(fs, names.chunk(d.stripe(), coder.dataChunks() + d.parityIndex()), d.offset(),
                           d.bytes().length, io));
        // image = old parity XOR delta; unmerged: the old parity of an extent includes earlier images of the batch
        Map<String, List<TxRecord.Extent>> written = new LinkedHashMap<>();   // earlier images, oldest first
        for (int i = 0; i < out.size(); i++)
        {
            Image d = out.get(i);
            byte[] img = join(reads.get(i));
            if (!merge)
                overlayEarlier(written.computeIfAbsent(d.stripe() + ":" + d.parityIndex(), x -> new ArrayList<>()),
                               d.offset(), img);
            // the APPLY record needs only the old bytes' page checksums: no copy of them is kept
            int[] oldCrcs = new int[img.length / pageSize];
            for (int p = 0; p < oldCrcs.length; p++)
                oldCrcs[p] = ApplyRecords.crc(img, p * pageSize, pageSize);
            xor(d.bytes(), 0, img, 0, img.length);
            out.set(i, new Image(d.stripe(), d.parityIndex(), d.offset(), img, oldCrcs));
            if (!merge)
                written.get(d.stripe() + ":" + d.parityIndex()).add(new TxRecord.Extent(d.offset(), img));
        }
        return out;
    }

    /** The extent widened to whole pages, its bytes zero outside the original range. */
    static TxRecord.Extent pageCover(TxRecord.Extent e, int pageSize)
    {
        int start = e.offset() / pageSize * pageSize, end = (e.end() + pageSize - 1) / pageSize * pageSize;
        if (start == e.offset() && end == e.end())
            return e;
        byte[] b = new byte[end - start];
        System.arraycopy(e.bytes(), 0, b, e.offset() - start, e.bytes().length);
        return new TxRecord.Extent(start, b);
    }

    private static CompletableFuture<byte[]> read(FileLayer fs, String chunk, int offset, int len, Executor io)
    {
        if (io == null)
        {
            try
            {
                return CompletableFuture.completedFuture(fs.readFully(chunk, offset, len));
            }
            catch (IOException e)
            {
                return CompletableFuture.failedFuture(e);
            }
        }
        return CompletableFuture.supplyAsync(() -> {
            try
            {
                return fs.readFully(chunk, offset, len);
            }
            catch (IOException e)
            {
                throw new UncheckedIOException(e);
            }
        }, io);
    }

    static <T> T join(CompletableFuture<T> f) throws IOException
    {
        try
        {
            return f.join();
        }
        catch (CompletionException e)
        {
            Throwable c = e.getCause() instanceof UncheckedIOException u ? u.getCause() : e.getCause();
            if (c instanceof IOException io)
                throw io;
            throw new IOException(c);
        }
    }

    /** Copies earlier images (oldest first, so newer ones win) that overlap [offset, +buf.length) into buf. */
    private static void overlayEarlier(List<TxRecord.Extent> earlier, int offset, byte[] buf)
    {
        for (TxRecord.Extent e : earlier)
        {
            int a = Math.max(offset, e.offset()), b = Math.min(offset + buf.length, e.end());
            if (a < b)
                System.arraycopy(e.bytes(), a - e.offset(), buf, a - offset, b - a);
        }
    }

    private static void collect(TxRecord r, Map<Long, Map<Integer, List<TxRecord.Extent>>> deltas,
                                Map<String, TreeMap<Integer, byte[][]>> parix, int pageSize)
    {
        if (r.kind() == TxRecord.PARITY_DELTA)
        {
            deltas.computeIfAbsent(r.stripe(), s -> new LinkedHashMap<>())
                  .computeIfAbsent(r.parityIndex(), j -> new ArrayList<>()).addAll(r.ranges());
            return;
        }
        if (r.kind() != TxRecord.PARIX_NEW && r.kind() != TxRecord.PARIX_ORIG)
            throw new IllegalStateException("record kind " + r.kind() + " cannot be applied to parity");
        // PARIX: original pages first seen win; new data overlays the latest image in log order
        TreeMap<Integer, byte[][]> pages = parix.computeIfAbsent(r.stripe() + ":" + r.parityIndex() + ":" + r.dataIndex(),
                                                                 k -> new TreeMap<>());
        for (TxRecord.Extent e : r.ranges())
        {
            if (r.kind() == TxRecord.PARIX_ORIG)
            {
                int page = e.offset() / pageSize;
                pages.putIfAbsent(page, new byte[][]{ e.bytes().clone(), e.bytes().clone() });
                continue;
            }
            for (int pos = e.offset(); pos < e.end(); )
            {
                int page = pos / pageSize, inPage = pos - page * pageSize;
                int n = Math.min(pageSize - inPage, e.end() - pos);
                byte[][] pg = pages.get(page);
                if (pg == null)
                    throw new IllegalStateException("PARIX new data without original page " + page);
                System.arraycopy(e.bytes(), pos - e.offset(), pg[1], inPage, n);
                pos += n;
            }
        }
    }

    private static void parixDeltas(Map<String, TreeMap<Integer, byte[][]>> parix,
                                    Map<Long, Map<Integer, List<TxRecord.Extent>>> deltas, ErasureCoder coder,
                                    int pageSize)
    {
        ByteBuffer[] par = new ByteBuffer[coder.parityChunks()];
        for (Map.Entry<String, TreeMap<Integer, byte[][]>> e : parix.entrySet())
        {
            String[] key = e.getKey().split(":");
            long stripe = Long.parseLong(key[0]);
            int j = Integer.parseInt(key[1]), i = Integer.parseInt(key[2]);
            for (Map.Entry<Integer, byte[][]> pg : e.getValue().entrySet())
            {
                byte[] delta = pg.getValue()[0];
                xor(pg.getValue()[1], 0, delta, 0, delta.length);
                byte[] pd = new byte[delta.length];
                ByteBuffer scratch = ByteBuffer.allocate(delta.length);
                for (int x = 0; x < par.length; x++)
                    par[x] = x == j ? ByteBuffer.wrap(pd) : scratch;
                coder.update(i, ByteBuffer.wrap(delta), 0, par, 0, delta.length);
                deltas.computeIfAbsent(stripe, s -> new LinkedHashMap<>()).computeIfAbsent(j, x -> new ArrayList<>())
                      .add(new TxRecord.Extent(pg.getKey() * pageSize, pd));
            }
        }
    }

    /**
     * XOR-merges extents into disjoint segments, sorted by offset; extents less than {@code gap} bytes apart share
     * one segment (the gap is zero in it). Public for TSUE's delta log, which merges data deltas with gap 0.
     */
    public static List<TxRecord.Extent> coalesce(List<TxRecord.Extent> extents, int gap)
    {
        List<TxRecord.Extent> sorted = new ArrayList<>(extents);
        sorted.sort(Comparator.comparingInt(TxRecord.Extent::offset));
        List<TxRecord.Extent> out = new ArrayList<>();
        int i = 0;
        while (i < sorted.size())
        {
            int start = sorted.get(i).offset(), end = sorted.get(i).end(), j = i + 1;
            while (j < sorted.size() && sorted.get(j).offset() <= end + gap)
                end = Math.max(end, sorted.get(j++).end());
            byte[] seg = new byte[end - start];
            for (int x = i; x < j; x++)
            {
                TxRecord.Extent e = sorted.get(x);
                xor(e.bytes(), 0, seg, e.offset() - start, e.bytes().length);
            }
            out.add(new TxRecord.Extent(start, seg));
            i = j;
        }
        return out;
    }

    /** Writes the images in order (each chunk file's writes in order; files in parallel on io if given), then syncs. */
    static long write(List<Image> images, FileLayer fs, ParityLog.ChunkNamer names, ErasureCoder coder, Executor io)
        throws IOException
    {
        Map<String, List<Image>> byChunk = new LinkedHashMap<>();
        long written = 0;
        for (Image img : images)
        {
            byChunk.computeIfAbsent(names.chunk(img.stripe(), coder.dataChunks() + img.parityIndex()),
                                    c -> new ArrayList<>()).add(img);
            written += img.bytes().length;
        }
        List<java.util.concurrent.CompletableFuture<Void>> done = new ArrayList<>();
        for (Map.Entry<String, List<Image>> e : byChunk.entrySet())
        {
            Runnable w = () -> {
                try
                {
                    for (Image img : e.getValue())
                        fs.write(e.getKey(), img.offset(), img.bytes(), 0, img.bytes().length);
                    fs.sync(e.getKey());
                }
                catch (IOException x)
                {
                    throw new java.io.UncheckedIOException(x);
                }
            };
            done.add(CompletableFuture.runAsync(w, io != null ? io : Runnable::run));
        }
        for (java.util.concurrent.CompletableFuture<Void> f : done)
            join(f);
        return written;
    }

    /** dst[doff..] ^= src[soff..] over n bytes, eight bytes at a time. */
    static void xor(byte[] src, int soff, byte[] dst, int doff, int n)
    {
        int x = 0;
        for (; x + 8 <= n; x += 8)
        {
            long v = (long) LONGS.get(dst, doff + x) ^ (long) LONGS.get(src, soff + x);
            LONGS.set(dst, doff + x, v);
        }
        for (; x < n; x++)
            dst[doff + x] ^= src[soff + x];
    }

    private static final java.lang.invoke.VarHandle LONGS =
        java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
}
