package io.elect.core.bridge;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.node.LocalTables.Merged;
import io.elect.core.util.Clock;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.compaction.OperationType;
import org.apache.cassandra.db.lifecycle.LifecycleTransaction;
import org.apache.cassandra.io.sstable.ISSTableScanner;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.io.sstable.format.SSTableWriter;

/**
 * A member's next version (issue 16, docs/design/updates.md "merge"; LocalTables#mergeMember): member F without what
 * a frozen SSTable of another replicated stripe with strictly newer data holds a winning version of, by the
 * secondaries' purge rule ({@link StubShadowing}: Cassandra's reconciliation, cell by cell; deletions of a wider
 * scope do not count), written with F's own header and level (unchanged partitions keep their bytes), and added to
 * the table's live set frozen under F's tag, beside F (same data where both have it: reads are unchanged).
 *
 * <p>Crash safety: the new SSTable is written under an online lifecycle transaction with no originals (a crash
 * before it finishes leaves files that Cassandra's start-up removes) and is registered frozen under the tag before
 * it is live (it is never compacted); a declined merge aborts the transaction.
 */
final class MemberMerge
{
    private static final Logger logger = LoggerFactory.getLogger(MemberMerge.class);

    private MemberMerge()
    {
    }

    /** The shadows of F: live SSTables of another stripe whose {@code replicated} accepts, all of whose data is newer. */
    static List<SSTableReader> shadows(SSTableReader f, String tag, List<SSTableReader> live, Map<String, String> tags,
                                       Predicate<String> replicated)
    {
        List<SSTableReader> out = new ArrayList<>();
        for (SSTableReader g : live)
        {
            if (g == f || g.getFirst().compareTo(f.getLast()) > 0 || g.getLast().compareTo(f.getFirst()) < 0)
                continue;
            String gTag = tags.get(g.descriptor.id.toString());
            if (gTag != null && !gTag.equals(tag) && replicated.test(gTag) && g.getMinTimestamp() > f.getMaxTimestamp())
                out.add(g);
        }
        return out;
    }

    /**
     * Writes F's next version and makes it live, frozen under {@code tag}; null (nothing written) when nothing of F
     * is shadowed, everything is (a removal's case), or the next version keeps more than {@code 1 - minShare} of F's
     * data bytes.
     *
     * @param register registers an SSTable id as frozen under the tag before it is live
     */
    static Merged merge(ColumnFamilyStore cfs, SSTableReader f, List<SSTableReader> shadows, double minShare,
                        FrozenRegistration register, Clock clock) throws IOException
    {
        if (shadows.isEmpty())
            return null;
        long start = clock.nanoTime();
        LifecycleTransaction txn = cfs.getTracker().tryModify(Collections.emptyList(), OperationType.GARBAGE_COLLECT);
        SSTableWriter w = null;
        boolean finished = false;
        try
        {
            w = SecondaryStubs.newWriter(cfs, f.descriptor.directory, f, txn);
            long dropped = 0, partitions = 0;
            try (ISSTableScanner scanner = f.getScanner())
            {
                while (scanner.hasNext())
                {
                    try (SecondaryStubs.Shadowed p = new SecondaryStubs.Shadowed(cfs, scanner.next(), shadows))
                    {
                        if (w.append(p.filtered) != null) // an empty partition is not written
                            partitions++;
                        while (p.filtered.hasNext()) // what append did not consume, so the counts are complete
                            p.filtered.next();
                        dropped += p.dropped();
                    }
                }
            }
            long written = w.getOnDiskFilePointer();
            if (dropped == 0 || partitions == 0 || written > (1 - minShare) * f.onDiskLength())
            {
                logger.debug("merge of {} declined: {} items dropped, {} partitions kept, {} of {} bytes", f.descriptor, dropped,
                             partitions, written, f.onDiskLength());
                return null;
            }
            register.accept(w.descriptor.id.toString());
            SSTableReader next = w.finish(true);
            txn.update(next, false);
            txn.finish();
            finished = true;
            logger.info("next version {} of member {} written: {} -> {} data bytes, {} rows and cells dropped against {} newer SSTables ({} ms)",
                        next.descriptor.id, f.descriptor.id, f.onDiskLength(), next.onDiskLength(), dropped, shadows.size(),
                        clock.millisSince(start));
            return new Merged(next.descriptor.id.toString(), next.onDiskLength(), f.onDiskLength());
        }
        finally
        {
            if (!finished)
            {
                if (w != null)
                    w.abort(null);
                txn.abort(); // deletes what was written
            }
            txn.close();
        }
    }

    /** {@link FrozenSSTables#registerBeforeLoad} for one table and tag. */
    @FunctionalInterface
    interface FrozenRegistration
    {
        void accept(String id) throws IOException;
    }
}
