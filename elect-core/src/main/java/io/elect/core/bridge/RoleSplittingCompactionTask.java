package io.elect.core.bridge;

import java.util.Set;

import io.elect.core.trees.RoleRanges;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.DecoratedKey;
import org.apache.cassandra.db.Directories;
import org.apache.cassandra.db.compaction.LeveledCompactionTask;
import org.apache.cassandra.db.compaction.writers.CompactionAwareWriter;
import org.apache.cassandra.db.compaction.writers.MaxSSTableSizeWriter;
import org.apache.cassandra.db.lifecycle.LifecycleTransaction;
import org.apache.cassandra.dht.Token;
import org.apache.cassandra.io.sstable.format.SSTableReader;

/**
 * A leveled compaction task whose output never spans two roles: used wherever the inputs may come from several
 * roles or straddle a role boundary (re-splitting misfits after a topology change or an import, user-defined and
 * token-range compactions, anything handed to {@code getCompactionTask}).
 *
 * <p>Output SSTables are cut like LCS's ({@code sstable_size_in_mb}) and additionally at every boundary of the role
 * map given at construction; they are written at {@code level} (the manifest demotes to L0 any that overlap).
 */
public class RoleSplittingCompactionTask extends LeveledCompactionTask
{
    private final RoleRanges<Token> roles;
    private final long maxSSTableBytes;
    private final int outputLevel;

    public RoleSplittingCompactionTask(ColumnFamilyStore cfs, LifecycleTransaction txn, int level, long gcBefore,
                                       long maxSSTableBytes, RoleRanges<Token> roles)
    {
        super(cfs, txn, level, gcBefore, maxSSTableBytes, false);
        this.roles = roles;
        this.maxSSTableBytes = maxSSTableBytes;
        this.outputLevel = level;
    }

    @Override
    public CompactionAwareWriter getCompactionAwareWriter(ColumnFamilyStore cfs,
                                                          Directories directories,
                                                          LifecycleTransaction txn,
                                                          Set<SSTableReader> nonExpiredSSTables)
    {
        return new RoleSplittingWriter(cfs, directories, txn, nonExpiredSSTables, maxSSTableBytes, outputLevel, roles);
    }

    /** {@link MaxSSTableSizeWriter} that also switches SSTable when the next key is in another role segment. */
    static final class RoleSplittingWriter extends MaxSSTableSizeWriter
    {
        private final RoleRanges<Token> roles;
        private int segment = -1;

        RoleSplittingWriter(ColumnFamilyStore cfs, Directories directories, LifecycleTransaction txn,
                            Set<SSTableReader> nonExpiredSSTables, long maxSSTableSize, int level,
                            RoleRanges<Token> roles)
        {
            super(cfs, directories, txn, nonExpiredSSTables, maxSSTableSize, level, false);
            this.roles = roles;
        }

        @Override
        protected boolean shouldSwitchWriterInCurrentLocation(DecoratedKey key)
        {
            return roles.segmentOf(key.getToken()) != segment || super.shouldSwitchWriterInCurrentLocation(key);
        }

        @Override
        protected void switchCompactionWriter(Directories.DataDirectory directory, DecoratedKey nextKey)
        {
            if (nextKey != null)
                segment = roles.segmentOf(nextKey.getToken());
            super.switchCompactionWriter(directory, nextKey);
        }
    }
}
