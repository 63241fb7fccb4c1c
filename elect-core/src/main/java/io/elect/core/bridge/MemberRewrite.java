package io.elect.core.bridge;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.util.Clock;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.DecoratedKey;
import org.apache.cassandra.db.PartitionPosition;
import org.apache.cassandra.db.SerializationHeader;
import org.apache.cassandra.db.compaction.CompactionController;
import org.apache.cassandra.db.compaction.CompactionIterator;
import org.apache.cassandra.db.compaction.OperationType;
import org.apache.cassandra.db.lifecycle.LifecycleTransaction;
import org.apache.cassandra.db.lifecycle.SSTableSet;
import org.apache.cassandra.db.lifecycle.View;
import org.apache.cassandra.db.rows.UnfilteredRowIterator;
import org.apache.cassandra.dht.AbstractBounds;
import org.apache.cassandra.dht.Bounds;
import org.apache.cassandra.io.sstable.Descriptor;
import org.apache.cassandra.io.sstable.ISSTableScanner;
import org.apache.cassandra.io.sstable.KeyReader;
import org.apache.cassandra.io.sstable.format.SSTableFormat.Components;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.io.sstable.format.SSTableWriter;
import org.apache.cassandra.io.sstable.metadata.MetadataCollector;
import org.apache.cassandra.io.util.ChannelProxy;
import org.apache.cassandra.schema.CompactionParams.TombstoneOption;
import org.apache.cassandra.utils.ByteBufferUtil;
import org.apache.cassandra.utils.TimeUUID;

/**
 * Trial rewrites of encoded members (issue 16, item 2's measurement): what the next version of a frozen LOCAL primary
 * F would be if the newer versions of F's key range held by the table's live unfrozen SSTables were merged into it
 * now, and how much of the member's bytes (the bytes its stripe encodes) would change. Nothing is installed: the new
 * version is written in F's data directory under a transaction of its own and deleted (the transaction is aborted)
 * before the trial returns; a crash meanwhile leaves an incomplete transaction that Cassandra's startup removes.
 *
 * <p>The merge is the one a real member merge would do: F plus every live unfrozen SSTable G with
 * {@code G.maxTimestamp > F.maxTimestamp} overlapping F, G read only over {@code [F.first, F.last]}, through
 * Cassandra's compaction iterator (reconciliation, tombstones purged per {@code gc_grace_seconds} unless an SSTable
 * outside the merge may hold older data of the key), written with F's format and level.
 *
 * <p>Two figures per member, in pages of {@value #PAGE} bytes: {@code changedPages}, the pages of the on-disk data
 * component (compressed if the table is) that differ between F and its new version, i.e. the pages a parity delta of
 * this rewrite would carry; and {@code inPlacePages}, the pages of F's UNCOMPRESSED layout that hold a partition with
 * a newer version, i.e. the lower bound a layout-preserving rewrite (same partition order and offsets, rows patched
 * in place) of an uncompressed member could reach; and {@code sameSizePartitions}, how many of the partitions with a
 * newer version serialize to the same size in the new version (only those could be patched in place).
 *
 * <p>A second rewrite garbage-collects F alone ({@code gcBytesAfter}, {@code gcChangedPages}) as
 * {@code nodetool garbagecollect -g CELL} would: F minus what other live SSTables shadow. Cassandra takes its shadow
 * sources only from SSTables NOT marked suspect, and ELECT marks its frozen files suspect (so that maintenance skips
 * them): newer versions held by later encoded members, offloaded members or stubs are not seen, and this figure
 * counts only what unfrozen SSTables shadow. {@code shadowedPartitions} has no such limit: partitions of F of which
 * nothing at all survives the newer versions held by ANY other live SSTable, frozen ones included (read through their
 * tiered data if need be), by the secondaries' purge rule; a member whose every partition is shadowed could be
 * retired, with its stubs, without any merge. Callers serialize trials of a table.
 */
final class MemberRewrite
{
    private static final Logger logger = LoggerFactory.getLogger(MemberRewrite.class);
    static final int PAGE = 4096;

    /** One member's trial. Byte counts are of the data component; {@code pages} covers the longer of the two. */
    record Trial(String member, String stripe, int newerSSTables, long partitions, long changedPartitions,
                 long sameSizePartitions, long bytesBefore, long bytesAfter, long pages, long changedPages, long uncompressedPages,
                 long inPlacePages, long gcBytesAfter, long gcChangedPages, long shadowedPartitions, long millis)
    {
        double changedPageShare()
        {
            return pages == 0 ? 0 : (double) changedPages / pages;
        }

        double inPlacePageShare()
        {
            return uncompressedPages == 0 ? 0 : (double) inPlacePages / uncompressedPages;
        }
    }

    private MemberRewrite()
    {
    }

    /**
     * Trials of every frozen LOCAL (encoded, not tiered) SSTable of cfs, in SSTable id order; {@code tags} is the
     * frozen registry (id -> owner tag, the stripe id).
     */
    static List<Trial> trials(ColumnFamilyStore cfs, Map<String, String> tags, Clock clock) throws IOException
    {
        List<Trial> out = new ArrayList<>();
        // referenced: a compaction finishing meanwhile must not delete a file while it is read
        try (ColumnFamilyStore.RefViewFragment view = cfs.selectAndReference(View.selectFunction(SSTableSet.LIVE)))
        {
            List<SSTableReader> live = new ArrayList<>(view.sstables);
            live.sort((a, b) -> a.descriptor.id.toString().compareTo(b.descriptor.id.toString()));
            for (SSTableReader f : live)
            {
                String tag = tags.get(f.descriptor.id.toString());
                if (tag != null && !TieredSSTables.isTiered(f))
                    out.add(trial(cfs, f, tag, newer(f, live, tags), shadows(f, live), clock));
            }
        }
        return out;
    }

    /** Live unfrozen SSTables overlapping f with data newer than f's newest. */
    private static List<SSTableReader> newer(SSTableReader f, List<SSTableReader> live, Map<String, String> tags)
    {
        List<SSTableReader> out = new ArrayList<>();
        for (SSTableReader g : live)
            if (g != f && !TieredSSTables.isTiered(g) && !tags.containsKey(g.descriptor.id.toString())
                && g.getMaxTimestamp() > f.getMaxTimestamp()
                && g.getFirst().compareTo(f.getLast()) <= 0 && g.getLast().compareTo(f.getFirst()) >= 0)
                out.add(g);
        return out;
    }

    /** Every other live SSTable overlapping f that holds data newer than f's oldest (frozen and tiered included). */
    private static List<SSTableReader> shadows(SSTableReader f, List<SSTableReader> live)
    {
        List<SSTableReader> out = new ArrayList<>();
        for (SSTableReader g : live)
            if (g != f && g.getMaxTimestamp() > f.getMinTimestamp()
                && g.getFirst().compareTo(f.getLast()) <= 0 && g.getLast().compareTo(f.getFirst()) >= 0)
                out.add(g);
        return out;
    }

    /**
     * Partitions of f of which nothing survives the purge rule of secondaries ({@link StubShadowing}: exact
     * reconciliation against each shadow; a wider-scope deletion does not count, so a deleted partition is not
     * counted: an under-count, never an over-count). A member all of whose partitions are shadowed holds nothing a
     * read can return.
     */
    private static long shadowedPartitions(ColumnFamilyStore cfs, SSTableReader f, List<SSTableReader> shadows)
    {
        if (shadows.isEmpty())
            return 0;
        long shadowed = 0;
        try (ISSTableScanner scanner = f.getScanner())
        {
            while (scanner.hasNext())
            {
                try (SecondaryStubs.Shadowed p = new SecondaryStubs.Shadowed(cfs, scanner.next(), shadows))
                {
                    if (ShadowScan.nothingLeft(p.filtered))
                        shadowed++;
                }
            }
        }
        return shadowed;
    }

    private static Trial trial(ColumnFamilyStore cfs, SSTableReader f, String stripe, List<SSTableReader> newer,
                               List<SSTableReader> shadows, Clock clock) throws IOException
    {
        long start = clock.nanoTime();
        long shadowed = shadowedPartitions(cfs, f, shadows);
        Map<DecoratedKey, Long> changedSizes = new java.util.HashMap<>();
        long[] inPlace = inPlacePages(cfs, f, newer, changedSizes);
        long nowInSec = clock.millis() / 1000;
        Written merge = write(cfs, f, newer, TombstoneOption.NONE, changedSizes, nowInSec);
        Written gc = write(cfs, f, List.of(), TombstoneOption.CELL, Map.of(), nowInSec);
        Trial t = new Trial(f.descriptor.id.toString(), stripe, newer.size(), inPlace[0], inPlace[1], merge.sameSize(),
                            f.onDiskLength(), merge.bytes(), merge.pages(), merge.changedPages(), inPlace[2], inPlace[3],
                            gc.bytes(), gc.changedPages(), shadowed, clock.millisSince(start));
        logger.info("Member trial rewrite {}.{} {} (stripe {}): merged with {} newer SSTables {} -> {} bytes, {} of {} pages changed "
                    + "({}%), {} of {} changed partitions keep their size, layout-preserving bound {} of {} pages; "
                    + "garbage-collected {} bytes, {} pages changed; {} of {} partitions fully shadowed; {} ms",
                    cfs.getKeyspaceName(), cfs.getTableName(), t.member(), stripe, t.newerSSTables(), t.bytesBefore(),
                    t.bytesAfter(), t.changedPages(), t.pages(), Math.round(t.changedPageShare() * 1000) / 10.0,
                    t.sameSizePartitions(), t.changedPartitions(), t.inPlacePages(), t.uncompressedPages(),
                    t.gcBytesAfter(), t.gcChangedPages(), t.shadowedPartitions(), t.partitions(), t.millis());
        return t;
    }

    /** What one rewrite of f produced: data bytes, pages covering the longer of f and it, pages that differ. */
    private record Written(long bytes, long pages, long changedPages, long sameSize)
    {
    }

    /**
     * Writes f merged with {@code newer} (read over f's range only) through Cassandra's compaction iterator, with
     * {@code option} deciding whether data shadowed by other live SSTables is dropped ({@code CELL}: what
     * {@code nodetool garbagecollect -g CELL} does), compares the data component with f's page by page, and deletes
     * what it wrote. sameSize counts the partitions of changedSizes (key -> uncompressed size in f) whose new
     * version has the same size.
     */
    private static Written write(ColumnFamilyStore cfs, SSTableReader f, List<SSTableReader> newer, TombstoneOption option,
                                 Map<DecoratedKey, Long> changedSizes, long nowInSec) throws IOException
    {
        Set<SSTableReader> merged = new HashSet<>(newer);
        merged.add(f);
        long sameSize = 0;
        try (LifecycleTransaction txn = LifecycleTransaction.offline(OperationType.GARBAGE_COLLECT))
        {
            Descriptor d = cfs.newSSTableDescriptor(f.descriptor.directory, f.descriptor.getFormat());
            List<ISSTableScanner> scanners = new ArrayList<>();
            scanners.add(f.getScanner());
            AbstractBounds<PartitionPosition> range = new Bounds<>(f.getFirst(), f.getLast());
            for (SSTableReader g : newer)
                scanners.add(g.getScanner(Collections.singletonList(range).iterator()));
            try (SSTableWriter w = writer(cfs, d, f, merged, txn);
                 CompactionController controller = new CompactionController(cfs, merged, cfs.gcBefore(nowInSec), null, option);
                 CompactionIterator ci = new CompactionIterator(OperationType.GARBAGE_COLLECT, scanners, controller,
                                                                nowInSec, TimeUUID.Generator.nextTimeUUID()))
            {
                while (ci.hasNext())
                {
                    try (UnfilteredRowIterator partition = ci.next())
                    {
                        long at = w.getFilePointer(); // uncompressed position, as the index's
                        Long old = changedSizes.get(partition.partitionKey());
                        w.append(partition);
                        if (old != null && old == w.getFilePointer() - at)
                            sameSize++;
                    }
                }
                w.setOpenResult(false);
                w.prepareToCommit();
                try (FileChannel a = FileChannel.open(d.fileFor(Components.DATA).toPath(), StandardOpenOption.READ))
                {
                    long[] diff = diffPages(f.getDataChannel(), f.onDiskLength(), a);
                    return new Written(a.size(), diff[0], diff[1], sameSize);
                }
                // not committed: closing aborts the writer, then the transaction deletes what it wrote
            }
        }
    }

    private static SSTableWriter writer(ColumnFamilyStore cfs, Descriptor d, SSTableReader f, Set<SSTableReader> merged,
                                        LifecycleTransaction txn)
    {
        long keys = 0;
        for (SSTableReader r : merged)
            keys += r.estimatedKeys();
        MetadataCollector collector = new MetadataCollector(cfs.metadata().comparator).sstableLevel(f.getSSTableLevel());
        return d.getFormat().getWriterFactory().builder(d)
                .setKeyCount(Math.max(1, keys))
                .setRepairedAt(f.getRepairedAt())
                .setPendingRepair(f.getPendingRepair())
                .setTransientSSTable(f.isTransient())
                .setTableMetadataRef(cfs.metadata)
                .setMetadataCollector(collector)
                .setSerializationHeader(header(cfs, f, merged))
                .addDefaultComponents(cfs.indexManager.listIndexGroups())
                .setSecondaryIndexGroups(cfs.indexManager.listIndexGroups())
                .build(txn, cfs);
    }

    /**
     * The new version's header: f's OWN encoding stats (the deltas its rows were serialized against), widened by the
     * newer SSTables' exact stats, and the union of the columns. Cassandra's compaction would take f's exact stats
     * instead ({@code SerializationHeader.make}); when f was itself written by a compaction those can differ from its
     * header's, and every timestamp delta, so every row's size, would change: reusing f's header is what keeps the
     * unchanged partitions byte-identical (a merge without newer versions reproduces f exactly).
     */
    private static SerializationHeader header(ColumnFamilyStore cfs, SSTableReader f, Set<SSTableReader> merged)
    {
        org.apache.cassandra.db.rows.EncodingStats stats = f.header.stats();
        org.apache.cassandra.db.RegularAndStaticColumns.Builder columns = org.apache.cassandra.db.RegularAndStaticColumns.builder();
        columns.addAll(f.header.columns());
        for (SSTableReader r : merged)
        {
            if (r == f)
                continue;
            stats = stats.mergeWith(r.stats());
            columns.addAll(r.header.columns());
        }
        return new SerializationHeader(true, cfs.metadata(), columns.build(), stats);
    }

    /**
     * {partitions of f, partitions of f with a newer version, pages of f's uncompressed layout, those pages holding a
     * partition with a newer version}; puts the uncompressed size in f of each partition with a newer version into
     * changedSizes.
     */
    private static long[] inPlacePages(ColumnFamilyStore cfs, SSTableReader f, List<SSTableReader> newer,
                                       Map<DecoratedKey, Long> changedSizes) throws IOException
    {
        long total = f.uncompressedLength();
        long partitions = 0, changedPartitions = 0, changedPages = 0, lastPage = -1;
        try (KeyReader keys = f.keyReader())
        {
            if (!keys.isExhausted())
            {
                DecoratedKey key = cfs.decorateKey(ByteBufferUtil.clone(keys.key()));
                long pos = keys.dataPosition();
                while (true)
                {
                    boolean more = keys.advance();
                    long next = more ? keys.dataPosition() : total;
                    partitions++;
                    if (next > pos && ObsoleteScan.newerVersion(cfs, key, f.getMaxTimestamp(), newer))
                    {
                        changedPartitions++;
                        changedSizes.put(key, next - pos);
                        long first = Math.max(pos / PAGE, lastPage + 1), last = (next - 1) / PAGE;
                        if (last >= first)
                        {
                            changedPages += last - first + 1;
                            lastPage = last;
                        }
                    }
                    if (!more)
                        break;
                    key = cfs.decorateKey(ByteBufferUtil.clone(keys.key()));
                    pos = next;
                }
            }
        }
        return new long[]{ partitions, changedPartitions, (total + PAGE - 1) / PAGE, changedPages };
    }

    /** {pages covering the longer input, pages that differ}; a page past the end of one input differs. */
    static long[] diffPages(ChannelProxy before, long beforeLength, FileChannel after) throws IOException
    {
        long afterLength = after.size();
        long pages = (Math.max(beforeLength, afterLength) + PAGE - 1) / PAGE;
        ByteBuffer a = ByteBuffer.allocate(PAGE), b = ByteBuffer.allocate(PAGE);
        long changed = 0;
        for (long p = 0; p < pages; p++)
        {
            long off = p * PAGE;
            int la = fill(a, off, beforeLength, pos -> before.read(a, pos));
            int lb = fill(b, off, afterLength, pos -> after.read(b, pos));
            if (la != lb || !a.equals(b))
                changed++;
        }
        return new long[]{ pages, changed };
    }

    private interface PositionalRead
    {
        int read(long position) throws IOException;
    }

    /** Reads up to one page at off (less at the end of the input) into buf, flipped for comparison; returns its length. */
    private static int fill(ByteBuffer buf, long off, long length, PositionalRead read) throws IOException
    {
        buf.clear();
        int want = (int) Math.max(0, Math.min(PAGE, length - off));
        buf.limit(want);
        while (buf.hasRemaining())
        {
            int n = read.read(off + buf.position());
            if (n < 0)
                throw new IOException("unexpected end of data at " + (off + buf.position()) + " of " + length);
        }
        buf.flip();
        return want;
    }
}
