package io.elect.core.node;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.node.LocalTables.TableFile;
import io.elect.core.transition.wire.TransitionMessages.TableRef;

/**
 * The end of a rebuild ({@link NodeRebuild}): the one purge of the streamed copies against every stub and restored
 * primary of each table.
 */
final class RebuildPurge
{
    private static final Logger logger = LoggerFactory.getLogger(RebuildPurge.class);
    /** How long the purge retries files held by a compaction or a maintenance purge. */
    static final long PURGE_BUSY_WAIT_MILLIS = 30_000;

    private RebuildPurge()
    {
    }

    /**
     * Purges, table by table, the streamed copies that the stubs and the restored primaries shadow, in one pass over
     * each file against all of them, in {@code parallelism} disjoint shares at once. Files a compaction or a
     * maintenance purge holds are retried for up to {@link #PURGE_BUSY_WAIT_MILLIS}; what is still busy then is left
     * to the periodic re-purge.
     *
     * @param me this node's address, for the log
     * @return the purge passes made, over all tables
     */
    static int purge(LocalTransitionOps ops, String me, List<TableRef> tables, List<String> restoredPrimaries, int parallelism)
    throws Exception
    {
        int passes = 0;
        for (TableRef t : tables)
            passes += purge(ops, me, t, restoredPrimaries, parallelism);
        return passes;
    }

    private static int purge(LocalTransitionOps ops, String me, TableRef t, List<String> restoredPrimaries, int parallelism)
    throws Exception
    {
        NodeContext node = ops.node();
        long start = node.clock().nanoTime(), until = start + TimeUnit.MILLISECONDS.toNanos(PURGE_BUSY_WAIT_MILLIS);
        long before = 0, after = 0;
        int rewritten = 0, passes = 0;
        List<String> busy;
        do
        {
            if (passes > 0)
                node.clock().sleep(200);
            List<String> shadows = new ArrayList<>();
            Set<String> frozen = new HashSet<>();
            java.util.Map<String, io.elect.core.stripes.StripeState> states = new java.util.HashMap<>();
            for (TableFile f : node.tables().files(t))
            {
                if ((f.isStub() && ops.purgeAllowed(f, states)) || restoredPrimaries.contains(f.id()))
                    shadows.add(f.id());
                if (f.frozen())
                    frozen.add(f.id());
            }
            List<LocalTables.PurgeResult> results = new ArrayList<>();
            List<Runnable> shares = new ArrayList<>();
            for (int i = 0; i < parallelism; i++)
            {
                int share = i;
                shares.add(() -> {
                    try
                    {
                        LocalTables.PurgeResult r = node.tables().purge(t, shadows, id -> !frozen.contains(id)
                                                                                           && Math.floorMod(id.hashCode(), parallelism) == share);
                        synchronized (results)
                        {
                            results.add(r);
                        }
                    }
                    catch (IOException e)
                    {
                        throw new java.io.UncheckedIOException("purge of " + t + " failed: " + e.getMessage(), e);
                    }
                });
            }
            node.executors().runAll("rebuild-purge", shares, parallelism);
            passes++;
            busy = new ArrayList<>();
            for (LocalTables.PurgeResult r : results)
            {
                before += r.bytesBefore();
                after += r.bytesAfter();
                rewritten += r.rewritten();
                busy.addAll(r.busy());
            }
        }
        while (!busy.isEmpty() && node.clock().nanoTime() - until < 0);
        logger.info("rebuild of {}: purge of {} against its stubs and restored primaries: {} SSTables rewritten, {} -> {} bytes, "
                    + "{} still busy (left to the periodic re-purge), {} passes ({} ms)", me, t, rewritten, before,
                    after, busy.size(), passes, node.clock().millisSince(start));
        return passes;
    }
}
