package io.elect.tsue.engine;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.tsue.log.TxRecord;
import io.elect.tsue.net.NodeService;

/**
 * Resolves the parity-log transactions left uncommitted by a crash. A transaction T of stripe s is committed if
 * (a) some parity log holds a COMMIT of T, or (b) some log holds a later transaction of s (a later transaction of a
 * stripe starts only after T's data write and commits were issued), or (c) the data ranges named in T's manifest
 * already hold T's new bytes (CRC32C match): the data write happened, and it happens only after T's records were
 * durable in all m logs, so logs that lack T have applied it. Otherwise T's data write never happened, nobody
 * applied T (apply needs a commit), and T is aborted everywhere. Both outcomes keep parity equal to the encoding of
 * the data once the logs are applied.
 *
 * <p>A transaction whose data write covers several files (TSUE writes several chunks of a stripe) can be cut between
 * two of them: some ranges new, some old. If the policy can {@link Redo} (TSUE: the new bytes are in the data log),
 * recovery finishes the data write and commits; otherwise it aborts, which is only right if the data write of a
 * transaction is atomic, as it is for the single-file, single-sync writes of PL, PLR, PARIX and DPU under the
 * whole-write crash model of {@code MemFileLayer} (a torn write inside one sync is not covered).
 */
final class Recovery
{
    private static final Logger logger = LoggerFactory.getLogger(Recovery.class);

    interface Reader
    {
        byte[] read(long stripe, int chunk, int offset, int len) throws IOException;
    }

    /** Rewrites the new data of a transaction whose data write was interrupted, from the policy's own log. */
    interface Redo
    {
        void redo(TxRecord r) throws IOException;
    }

    private Recovery()
    {
    }

    static void resolve(Cluster cluster, Reader data, Redo redo) throws IOException
    {
        long start = System.currentTimeMillis();
        Map<Long, TxRecord> first = new LinkedHashMap<>();
        Map<Long, List<Object[]>> holders = new HashMap<>();
        List<Object[]> logs = new ArrayList<>();
        Map<String, Map<Long, Long>> lastTx = new HashMap<>();
        for (int n = 0; n < cluster.size(); n++)
        {
            NodeService node = cluster.local(n);
            for (String base : node.plogBases(""))
            {
                Object[] log = { node, base };
                logs.add(log);
                lastTx.put(n + "/" + base, node.plogLastTx(base));
                for (TxRecord r : node.plogUncommitted(base))
                {
                    first.putIfAbsent(r.tx(), r);
                    holders.computeIfAbsent(r.tx(), t -> new ArrayList<>()).add(log);
                }
            }
        }
        int committed = 0, aborted = 0, redone = 0;
        for (TxRecord r : first.values())
        {
            boolean commit = false;
            for (Object[] log : holders.get(r.tx()))
            {
                NodeService node = (NodeService) log[0];
                Long last = lastTx.get(node.id() + "/" + log[1]).get(r.stripe());
                commit |= last != null && last > r.tx();
            }
            for (int i = 0; i < logs.size() && !commit; i++)
                commit = ((NodeService) logs.get(i)[0]).plogCommitted((String) logs.get(i)[1], r.tx());
            if (!commit)
            {
                int written = dataWritten(r, data);
                commit = written == r.manifest().size();
                if (!commit && written > 0 && redo != null)
                {
                    // the data write was interrupted between chunks: finish it from the log, keep the deltas
                    redo.redo(r);
                    commit = true;
                    redone++;
                }
            }
            for (Object[] log : holders.get(r.tx()))
            {
                NodeService node = (NodeService) log[0];
                if (commit)
                    node.plogCommit((String) log[1], new long[]{ r.tx() }, true);
                else
                    node.plogAbort((String) log[1], new long[]{ r.tx() });
            }
            if (commit)
                committed++;
            else
                aborted++;
        }
        logger.info("parity-log recovery: {} logs, {} in-doubt transactions committed ({} redone), {} aborted, {} ms",
                    logs.size(), committed, redone, aborted, System.currentTimeMillis() - start);
    }

    /** How many of the manifest's ranges hold their new bytes. */
    private static int dataWritten(TxRecord r, Reader data) throws IOException
    {
        int n = 0;
        for (int[] e : r.manifest())
        {
            CRC32C c = new CRC32C();
            c.update(data.read(r.stripe(), e[0], e[1], e[2]));
            if ((int) c.getValue() == e[3])
                n++;
        }
        return n;
    }
}
