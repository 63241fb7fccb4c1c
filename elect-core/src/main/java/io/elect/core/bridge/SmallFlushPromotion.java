package io.elect.core.bridge;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.trees.L0Promotion;
import io.elect.core.trees.RoleRanges;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.compaction.AbstractCompactionTask;
import org.apache.cassandra.db.compaction.OperationType;
import org.apache.cassandra.db.lifecycle.LifecycleTransaction;
import org.apache.cassandra.dht.Token;
import org.apache.cassandra.io.sstable.format.SSTableReader;

/**
 * The Cassandra side of {@link L0Promotion}: for {@link ElectCompactionStrategy}, when none of its role trees has a
 * task of its own, merges a role tree's L0 into L1 once L0 holds more than the role's share of one SSTable (see
 * L0Promotion for why). Output at level 1, cut at role boundaries like every task of the strategy.
 */
final class SmallFlushPromotion
{
    private static final Logger logger = LoggerFactory.getLogger(SmallFlushPromotion.class);

    private SmallFlushPromotion()
    {
    }

    /**
     * A promotion task for the first role tree (in role order) that needs one, or null.
     * @param byRole the SSTables of each role tree (placed, not frozen, not misfits)
     */
    static AbstractCompactionTask next(ColumnFamilyStore cfs, Map<Integer, List<SSTableReader>> byRole,
                                       RoleRanges<Token> roles, long gcBefore, long maxSSTableBytes)
    {
        int replicaRoles = (int) roles.distinctRoles().stream().filter(r -> r >= 0).count();
        if (replicaRoles < 2)
            return null; // one tree gets whole flushes: LCS's own threshold is right
        Set<SSTableReader> compacting = cfs.getTracker().getCompacting();
        for (Map.Entry<Integer, List<SSTableReader>> e : byRole.entrySet())
        {
            List<L0Promotion.File<Token, SSTableReader>> files = new ArrayList<>();
            List<SSTableReader> tree = new ArrayList<>(e.getValue());
            tree.sort(Comparator.comparingLong(SSTableReader::getMaxTimestamp)); // oldest first, as LCS takes L0
            for (SSTableReader s : tree)
                files.add(new L0Promotion.File<>(s, s.getSSTableLevel(), s.onDiskLength(), s.getFirst().getToken(),
                                                 s.getLast().getToken(), compacting.contains(s) || s.isMarkedSuspect()));
            List<L0Promotion.File<Token, SSTableReader>> chosen =
                L0Promotion.select(files, maxSSTableBytes, replicaRoles, cfs.getMaximumCompactionThreshold());
            if (chosen.isEmpty())
                continue;
            List<SSTableReader> inputs = chosen.stream().map(L0Promotion.File::id).toList();
            LifecycleTransaction txn = cfs.getTracker().tryModify(inputs, OperationType.COMPACTION);
            if (txn == null)
                continue;
            logger.debug("ELECT promoting L0 of role {} of {}.{} into L1: {} SSTables, {} bytes (over {} / {} roles)",
                         e.getKey(), cfs.getKeyspaceName(), cfs.getTableName(), inputs.size(),
                         inputs.stream().mapToLong(SSTableReader::onDiskLength).sum(), maxSSTableBytes, replicaRoles);
            return new RoleSplittingCompactionTask(cfs, txn, 1, gcBefore, maxSSTableBytes, roles);
        }
        return null;
    }
}
