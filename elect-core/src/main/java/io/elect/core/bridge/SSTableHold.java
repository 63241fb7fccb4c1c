package io.elect.core.bridge;

import java.util.Collection;
import java.util.List;

import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.compaction.CompactionInfo;
import org.apache.cassandra.db.compaction.CompactionInterruptedException;
import org.apache.cassandra.db.compaction.CompactionManager;
import org.apache.cassandra.db.compaction.OperationType;
import org.apache.cassandra.db.lifecycle.LifecycleTransaction;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.utils.TimeUUID;

/**
 * ELECT's hold on live SSTables of a table (the {@link LifecycleTransaction} of {@code Tracker.tryModify}: the
 * SSTables are marked compacting, so no compaction takes them) that Cassandra's compaction manager can see and stop.
 *
 * <p>Why: the operations that need every SSTable of a table (major compaction, cleanup, scrub, garbagecollect,
 * upgradesstables, verify, relocation, truncation) run under {@code ColumnFamilyStore.runWithCompactionsDisabled}:
 * it pauses the table's compaction strategies, asks the registered operations over the table to stop, and waits at
 * most one minute until no SSTable of the table is marked compacting. A hold it neither sees nor can stop (a stub
 * purge moving from one SSTable to the next, an upload under a hold) makes it give up: "Unable to cancel in-progress
 * compactions", and {@code nodetool compact} then fails with a NullPointerException in
 * {@code CompactionManager.submitMaximal}. So a hold
 * <ul>
 *   <li>is not taken while the table's strategies are paused ({@link #tryAcquire} answers null, as for an SSTable
 *       another compaction has: the caller retries later);</li>
 *   <li>is registered in {@code CompactionManager.active} while it is open, as an operation of task type
 *       {@link OperationType#COMPACTION} (the lowest priority that is still stoppable: a stop request of any
 *       maintenance operation reaches it), with no byte counts (it adds nothing to the compaction metrics);</li>
 *   <li>and long work under it polls {@link #checkStop()}, which throws {@link CompactionInterruptedException} once a
 *       stop was requested: the caller aborts its transaction (nothing changed) and retries later.</li>
 * </ul>
 * Race: tryAcquire checks the pause after registering; a pause that came before the registration is seen by that
 * check (the hold is released at once), one that came after it finds the registered holder and stops it.
 *
 * <p>Not thread-safe: one thread works under a hold; {@link #stopRequested()} may be read from any thread.
 */
public final class SSTableHold implements AutoCloseable
{
    private final LifecycleTransaction txn;
    private final Holder holder;
    private boolean closed;

    private SSTableHold(ColumnFamilyStore cfs, LifecycleTransaction txn, Collection<SSTableReader> sstables)
    {
        this.txn = txn;
        this.holder = new Holder(new CompactionInfo(cfs.metadata(), OperationType.COMPACTION, 0, 0, 0,
                                                    TimeUUID.Generator.nextTimeUUID(), List.copyOf(sstables)));
    }

    /**
     * Holds {@code sstables} of cfs for an operation of type {@code type} (the transaction's type), or answers null
     * when one of them is marked compacting or the table's compactions are paused.
     */
    public static SSTableHold tryAcquire(ColumnFamilyStore cfs, Collection<SSTableReader> sstables, OperationType type)
    {
        if (!cfs.getCompactionStrategyManager().isActive())
            return null;
        LifecycleTransaction txn = cfs.getTracker().tryModify(sstables, type);
        if (txn == null)
            return null;
        SSTableHold hold = new SSTableHold(cfs, txn, sstables);
        CompactionManager.instance.active.beginCompaction(hold.holder);
        if (!cfs.getCompactionStrategyManager().isActive())
        {
            hold.close();
            return null;
        }
        return hold;
    }

    /** {@link #tryAcquire(ColumnFamilyStore, Collection, OperationType)} for one SSTable. */
    public static SSTableHold tryAcquire(ColumnFamilyStore cfs, SSTableReader sstable, OperationType type)
    {
        return tryAcquire(cfs, List.of(sstable), type);
    }

    /** The transaction holding the SSTables: obsolete, replace, finish or abort through it as usual. */
    public LifecycleTransaction txn()
    {
        return txn;
    }

    /** Whether Cassandra asked the operation under this hold to stop. */
    public boolean stopRequested()
    {
        return holder.isStopRequested();
    }

    /** Throws once a stop was requested (the caller's transaction then aborts when closed). */
    public void checkStop()
    {
        if (holder.isStopRequested())
            throw new CompactionInterruptedException(holder.getCompactionInfo());
    }

    /** Deregisters, then closes the transaction (which aborts it unless it was finished). Idempotent. */
    @Override
    public void close()
    {
        if (closed)
            return;
        closed = true;
        try
        {
            CompactionManager.instance.active.finishCompaction(holder);
        }
        finally
        {
            txn.close();
        }
    }

    private static final class Holder extends CompactionInfo.Holder
    {
        private final CompactionInfo info;

        Holder(CompactionInfo info)
        {
            this.info = info;
        }

        @Override
        public CompactionInfo getCompactionInfo()
        {
            return info;
        }

        @Override
        public boolean isGlobal()
        {
            return false;
        }
    }
}
