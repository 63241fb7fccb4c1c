package io.elect.core.bridge;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.io.sstable.format.SSTableReader;

/**
 * The end of a rebuild ({@link NodeRebuild}): which ELECT tables it covers, their autocompaction paused while it runs,
 * and the one purge of the streamed copies against every stub and restored primary.
 */
final class RebuildPurge
{
    private static final Logger logger = LoggerFactory.getLogger(RebuildPurge.class);
    /** How long the purge retries SSTables held by a compaction or a maintenance purge. */
    static final long PURGE_BUSY_WAIT_MILLIS = 30_000;

    private RebuildPurge()
    {
    }

    /** The live ELECT tables of keyspace (null: of every keyspace). */
    static List<ColumnFamilyStore> electTables(String keyspace)
    {
        List<ColumnFamilyStore> out = new ArrayList<>();
        for (List<String> t : ElectTables.registered())
        {
            ColumnFamilyStore cfs = ColumnFamilyStore.getIfExists(t.get(0), t.get(1));
            if (cfs != null && (keyspace == null || keyspace.equals(t.get(0))))
                out.add(cfs);
        }
        return out;
    }

    /** Disables autocompaction of the tables that have it on; returns those (to enable again). Not persisted. */
    static List<ColumnFamilyStore> pauseCompaction(List<ColumnFamilyStore> tables)
    {
        List<ColumnFamilyStore> paused = new ArrayList<>();
        for (ColumnFamilyStore cfs : tables)
        {
            if (cfs.isAutoCompactionDisabled())
                continue;
            cfs.disableAutoCompaction();
            paused.add(cfs);
        }
        return paused;
    }

    /**
     * Purges, table by table, the streamed copies that the stubs and the restored primaries shadow, in one pass over
     * each SSTable against all of them (SecondaryStubs.purge), {@code parallelism} SSTables at a time. SSTables a
     * compaction or a maintenance purge holds are retried for up to {@link #PURGE_BUSY_WAIT_MILLIS}; what is still
     * busy then is left to the periodic re-purge.
     *
     * @param me this node's address, for the log
     * @return the purge passes made, over all tables
     */
    static int purge(String me, List<ColumnFamilyStore> tables, List<SSTableReader> restoredPrimaries, int parallelism)
    throws IOException, InterruptedException
    {
        ExecutorService pool = Executors.newFixedThreadPool(parallelism, r -> {
            Thread t = new Thread(r, "elect-rebuild-purge");
            t.setDaemon(true);
            return t;
        });
        try
        {
            int passes = 0;
            for (ColumnFamilyStore cfs : tables)
                passes += purge(me, cfs, restoredPrimaries, pool, parallelism);
            return passes;
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    private static int purge(String me, ColumnFamilyStore cfs, List<SSTableReader> restoredPrimaries, ExecutorService pool, int parallelism)
    throws IOException, InterruptedException
    {
        long start = System.nanoTime(), until = start + TimeUnit.MILLISECONDS.toNanos(PURGE_BUSY_WAIT_MILLIS);
        long before = 0, after = 0;
        int rewritten = 0, passes = 0;
        List<SSTableReader> busy;
        do
        {
            if (passes > 0)
                Thread.sleep(200);
            List<SSTableReader> shadows = new ArrayList<>();
            Set<SSTableReader> live = cfs.getLiveSSTables();
            for (SSTableReader r : live)
                if (LocalTransitionOps.isStub(r))
                    shadows.add(r);
            for (SSTableReader p : restoredPrimaries)
                if (live.contains(p))
                    shadows.add(p);
            // parallelism disjoint shares of the SSTables, purged at once (each holds only its own SSTables)
            List<Future<SecondaryStubs.PurgeStats>> shares = new ArrayList<>();
            for (int i = 0; i < parallelism; i++)
            {
                int share = i;
                shares.add(pool.submit(() -> SecondaryStubs.purge(cfs, shadows, x -> !FrozenSSTables.isFrozen(x)
                                                                                     && Math.floorMod(x.descriptor.id.hashCode(), parallelism) == share)));
            }
            passes++;
            busy = new ArrayList<>();
            for (Future<SecondaryStubs.PurgeStats> f : shares)
            {
                SecondaryStubs.PurgeStats st;
                try
                {
                    st = f.get();
                }
                catch (java.util.concurrent.ExecutionException e)
                {
                    throw e.getCause() instanceof IOException ? (IOException) e.getCause()
                                                              : new IOException("purge of " + cfs.metadata() + " failed: " + e.getCause(), e.getCause());
                }
                before += st.bytesBefore();
                after += st.bytesAfter();
                rewritten += st.rewritten();
                busy.addAll(st.busy());
            }
        }
        while (!busy.isEmpty() && System.nanoTime() - until < 0);
        logger.info("rebuild of {}: purge of {} against its stubs and restored primaries: {} SSTables rewritten, {} -> {} bytes, "
                    + "{} still busy (left to the periodic re-purge), {} passes ({} ms)", me, cfs.metadata(), rewritten, before,
                    after, busy.size(), passes, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        return passes;
    }
}
