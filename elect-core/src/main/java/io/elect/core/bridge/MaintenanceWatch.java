package io.elect.core.bridge;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.compaction.OperationType;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.notifications.INotification;
import org.apache.cassandra.notifications.INotificationConsumer;
import org.apache.cassandra.notifications.SSTableListChangedNotification;

import io.elect.core.util.Clock;

/**
 * Says, in one INFO line per operation and table (at most one a minute), that Cassandra's whole-table maintenance
 * operations left the table's frozen SSTables alone. Those operations (cleanup, scrub, garbagecollect,
 * upgradesstables, relocatesstables; verify too, which changes nothing and so is not seen here) skip SSTables marked
 * suspect, and {@link ElectCompactionStrategy} marks every frozen SSTable so: an erasure-coded member rewritten by
 * them would orphan its stripe's parity, a tiered one would be downloaded and written locally. The line names the
 * reason and how many SSTables (and bytes) were skipped, since nodetool itself reports success either way.
 */
final class MaintenanceWatch implements INotificationConsumer
{
    private static final Logger logger = LoggerFactory.getLogger(MaintenanceWatch.class);
    private static final Set<OperationType> WATCHED = EnumSet.of(OperationType.CLEANUP, OperationType.SCRUB,
                                                                   OperationType.UPGRADE_SSTABLES,
                                                                   OperationType.GARBAGE_COLLECT, OperationType.RELOCATE);

    private final ColumnFamilyStore cfs;
    private final FrozenSSTables frozen;
    private final Clock clock;
    /** operation -> monotonic nanos of its last line. */
    private final Map<OperationType, Long> lastLine = new ConcurrentHashMap<>();

    private MaintenanceWatch(ColumnFamilyStore cfs, FrozenSSTables frozen, Clock clock)
    {
        this.cfs = cfs;
        this.frozen = frozen;
        this.clock = clock;
    }

    /** Subscribes a watch to cfs's tracker unless watched already holds the table. */
    static void watch(ColumnFamilyStore cfs, FrozenSSTables frozen, Clock clock, Set<String> watched)
    {
        if (watched.add(cfs.metadata().id.toString()))
            cfs.getTracker().subscribe(new MaintenanceWatch(cfs, frozen, clock));
    }

    @Override
    public void handleNotification(INotification notification, Object sender)
    {
        if (!(notification instanceof SSTableListChangedNotification))
            return;
        OperationType op = ((SSTableListChangedNotification) notification).compactionType;
        if (op == null || !WATCHED.contains(op))
            return;
        long now = clock.nanoTime();
        Long last = lastLine.get(op);
        if (last != null && now - last < TimeUnit.MINUTES.toNanos(1))
            return;
        lastLine.put(op, now);
        int count = 0;
        long bytes = 0;
        for (SSTableReader r : cfs.getLiveSSTables())
        {
            if (frozen.isFrozen(r))
            {
                count++;
                bytes += r.onDiskLength();
            }
        }
        if (count > 0)
            logger.info("{} of {}.{} skipped its {} frozen SSTables ({} bytes): erasure-coded and tiered SSTables are "
                        + "stripe members and change only through ELECT", op.type, cfs.getKeyspaceName(),
                        cfs.getTableName(), count, bytes);
    }
}
