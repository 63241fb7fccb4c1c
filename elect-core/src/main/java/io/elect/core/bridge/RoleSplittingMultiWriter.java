package io.elect.core.bridge;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.trees.RoleRanges;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.SerializationHeader;
import org.apache.cassandra.db.commitlog.CommitLogPosition;
import org.apache.cassandra.db.commitlog.IntervalSet;
import org.apache.cassandra.db.lifecycle.LifecycleNewTracker;
import org.apache.cassandra.db.rows.UnfilteredRowIterator;
import org.apache.cassandra.dht.Token;
import org.apache.cassandra.index.Index;
import org.apache.cassandra.io.sstable.Descriptor;
import org.apache.cassandra.io.sstable.SSTableMultiWriter;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.io.sstable.format.SSTableWriter;
import org.apache.cassandra.io.sstable.metadata.MetadataCollector;
import org.apache.cassandra.schema.TableId;
import org.apache.cassandra.utils.TimeUUID;

/**
 * The flush/streaming writer of ELECT tables: writes one SSTable per role segment touched, so that no SSTable it
 * produces spans two roles of the role map given at construction.
 *
 * <p>Contract (same as Cassandra's other multi-writers): partitions are appended in token order (flush, commit-log
 * replay, partial streaming via {@code RangeAwareSSTableWriter} and {@code SSTableTxnWriter} all do so). A new
 * SSTable is started when a partition falls into a different segment than the previous one. The first SSTable uses
 * the descriptor Cassandra passed in; later ones get fresh descriptors in the same directory and format.
 * Not thread-safe (one flush or stream session owns it).
 */
public final class RoleSplittingMultiWriter implements SSTableMultiWriter
{
    private static final Logger logger = LoggerFactory.getLogger(RoleSplittingMultiWriter.class);

    private final ColumnFamilyStore cfs;
    private final Descriptor firstDescriptor;
    private final long keyCount;
    private final long repairedAt;
    private final TimeUUID pendingRepair;
    private final boolean isTransient;
    private final IntervalSet<CommitLogPosition> commitLogPositions;
    private final int sstableLevel;
    private final SerializationHeader header;
    private final Collection<Index.Group> indexGroups;
    private final LifecycleNewTracker lifecycleNewTracker;
    private final RoleRanges<Token> roles;

    private final List<SSTableWriter> writers = new ArrayList<>();
    private int currentSegment = -1;

    public RoleSplittingMultiWriter(ColumnFamilyStore cfs,
                                    Descriptor descriptor,
                                    long keyCount,
                                    long repairedAt,
                                    TimeUUID pendingRepair,
                                    boolean isTransient,
                                    IntervalSet<CommitLogPosition> commitLogPositions,
                                    int sstableLevel,
                                    SerializationHeader header,
                                    Collection<Index.Group> indexGroups,
                                    LifecycleNewTracker lifecycleNewTracker,
                                    RoleRanges<Token> roles)
    {
        this.cfs = cfs;
        this.firstDescriptor = descriptor;
        this.keyCount = keyCount;
        this.repairedAt = repairedAt;
        this.pendingRepair = pendingRepair;
        this.isTransient = isTransient;
        this.commitLogPositions = commitLogPositions;
        this.sstableLevel = sstableLevel;
        this.header = header;
        this.indexGroups = indexGroups;
        this.lifecycleNewTracker = lifecycleNewTracker;
        this.roles = roles;
        // Created eagerly so that getFilename() and an empty flush behave like SimpleSSTableMultiWriter.
        writers.add(createWriter(descriptor));
    }

    private SSTableWriter createWriter(Descriptor descriptor)
    {
        MetadataCollector collector = new MetadataCollector(cfs.metadata().comparator)
                                      .commitLogIntervals(commitLogPositions != null ? commitLogPositions : IntervalSet.empty())
                                      .sstableLevel(sstableLevel);
        return descriptor.getFormat().getWriterFactory().builder(descriptor)
                         .setKeyCount(keyCount)
                         .setRepairedAt(repairedAt)
                         .setPendingRepair(pendingRepair)
                         .setTransientSSTable(isTransient)
                         .setTableMetadataRef(cfs.metadata)
                         .setMetadataCollector(collector)
                         .setSerializationHeader(header)
                         .addDefaultComponents(indexGroups)
                         .setSecondaryIndexGroups(indexGroups)
                         .build(lifecycleNewTracker, cfs);
    }

    private SSTableWriter current()
    {
        return writers.get(writers.size() - 1);
    }

    @Override
    public void append(UnfilteredRowIterator partition)
    {
        int segment = roles.segmentOf(partition.partitionKey().getToken());
        if (segment != currentSegment)
        {
            if (currentSegment >= 0 && current().getFilePointer() > 0)
            {
                logger.debug("Role boundary before {} (segment {} -> {}, role {}) for {}.{}",
                             partition.partitionKey().getToken(), currentSegment, segment,
                             roles.roleOfSegment(segment), cfs.getKeyspaceName(), cfs.getTableName());
                writers.add(createWriter(cfs.newSSTableDescriptor(firstDescriptor.directory, firstDescriptor.getFormat())));
            }
            currentSegment = segment;
        }
        current().append(partition);
    }

    @Override
    public Collection<SSTableReader> finish(boolean openResult)
    {
        List<SSTableReader> out = new ArrayList<>(writers.size());
        for (SSTableWriter w : writers)
            out.add(w.finish(openResult));
        return out;
    }

    @Override
    public Collection<SSTableReader> finished()
    {
        List<SSTableReader> out = new ArrayList<>(writers.size());
        for (SSTableWriter w : writers)
            out.add(w.finished());
        return out;
    }

    @Override
    public SSTableMultiWriter setOpenResult(boolean openResult)
    {
        for (SSTableWriter w : writers)
            w.setOpenResult(openResult);
        return this;
    }

    @Override
    public String getFilename()
    {
        return writers.get(0).getFilename();
    }

    @Override
    public long getBytesWritten()
    {
        long n = 0;
        for (SSTableWriter w : writers)
            n += w.getFilePointer();
        return n;
    }

    @Override
    public long getOnDiskBytesWritten()
    {
        long n = 0;
        for (SSTableWriter w : writers)
            n += w.getEstimatedOnDiskBytesWritten();
        return n;
    }

    @Override
    public TableId getTableId()
    {
        return cfs.metadata().id;
    }

    @Override
    public Throwable commit(Throwable accumulate)
    {
        Throwable t = accumulate;
        for (SSTableWriter w : writers)
            t = w.commit(t);
        return t;
    }

    @Override
    public Throwable abort(Throwable accumulate)
    {
        Throwable t = accumulate;
        for (SSTableWriter w : writers)
        {
            lifecycleNewTracker.untrackNew(w);
            t = w.abort(t);
        }
        return t;
    }

    @Override
    public void prepareToCommit()
    {
        for (SSTableWriter w : writers)
            w.prepareToCommit();
    }

    @Override
    public void close()
    {
        for (SSTableWriter w : writers)
            w.close();
    }
}
