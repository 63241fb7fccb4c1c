package io.elect.core.bridge;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.util.Clock;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.compaction.OperationType;
import org.apache.cassandra.db.rows.UnfilteredRowIterator;
import org.apache.cassandra.io.sstable.ISSTableScanner;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.io.sstable.format.SSTableWriter;

/**
 * A stub made an ordinary SSTable again (issue 18, docs/design/topology.md "A member's node left the ring"): every
 * partition of the stub, read through it (so decoded from its stripe), is written to a new SSTable with the stub's
 * header and level, which replaces the stub in one lifecycle transaction (the stub is obsoleted as the copy becomes
 * live). The copy is not frozen: it is a secondary like any other, compacted and transitioned again later.
 *
 * <p>Crash safety: before the transaction finishes, a crash leaves the stub live and the partial copy to Cassandra's
 * start-up clean-up; after it, the copy is live and the stub gone. So a retry either rewrites the stub again or finds
 * nothing to do; data is never in neither.
 */
final class StubMaterialize
{
    private static final Logger logger = LoggerFactory.getLogger(StubMaterialize.class);

    private StubMaterialize()
    {
    }

    /** Replaces live stub {@code stub} by an ordinary copy of its rows; returns the copy's data bytes. */
    static long materialize(ColumnFamilyStore cfs, SSTableReader stub, Clock clock)
    {
        long start = clock.nanoTime();
        SSTableHold held = SSTableHold.tryAcquire(cfs, List.of(stub), OperationType.UNKNOWN);
        if (held == null)
            throw new IllegalStateException("stub " + stub.descriptor.id + " of " + cfs.metadata() + " is busy (compaction, purge or paused compactions); retry later");
        try (held)
        {
            SSTableWriter w = SecondaryStubs.newWriter(cfs, stub.descriptor.directory, stub, held.txn());
            boolean done = false;
            try
            {
                long partitions = 0;
                try (ISSTableScanner scanner = stub.getScanner())
                {
                    while (scanner.hasNext())
                    {
                        held.checkStop();
                        try (UnfilteredRowIterator p = scanner.next())
                        {
                            if (w.append(p) != null)
                                partitions++;
                        }
                    }
                }
                SSTableReader copy = w.finish(true);
                held.txn().update(copy, false);
                held.txn().obsoleteOriginals();
                held.txn().finish();
                done = true;
                logger.info("stub {} of {} materialized as {}: {} partitions, {} bytes ({} ms)", stub.descriptor.id, cfs.metadata(),
                            copy.descriptor.id, partitions, copy.onDiskLength(), clock.millisSince(start));
                return copy.onDiskLength();
            }
            finally
            {
                if (!done)
                    w.abort(null);
            }
        }
    }
}
