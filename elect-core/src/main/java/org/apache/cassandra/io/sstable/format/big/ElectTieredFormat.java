package org.apache.cassandra.io.sstable.format.big;

import java.io.IOException;
import java.lang.reflect.Field;
import java.util.Map;
import java.util.Set;

import org.apache.cassandra.io.sstable.Component;
import org.apache.cassandra.io.sstable.Descriptor;
import org.apache.cassandra.io.sstable.SSTable;
import org.apache.cassandra.io.sstable.format.AbstractSSTableFormat;
import org.apache.cassandra.io.sstable.format.SSTableFormat;
import org.apache.cassandra.io.sstable.format.SSTableReaderLoadingBuilder;
import org.apache.cassandra.cache.KeyCacheKey;
import org.apache.cassandra.db.DecoratedKey;
import org.apache.cassandra.io.sstable.AbstractRowIndexEntry;
import org.apache.cassandra.io.sstable.keycache.KeyCache;
import org.apache.cassandra.io.sstable.metadata.StatsMetadata;
import org.apache.cassandra.io.util.FileHandle;
import org.apache.cassandra.schema.TableMetadataRef;

import io.elect.core.bridge.NodeHandoff;
import io.elect.core.bridge.TieredSSTables;

/**
 * ELECT's SSTable format for tiered data components: a BIG SSTable (same versions, same components, same readers)
 * whose Data.db is a 0-byte placeholder and whose bytes come from the source named by its sidecar (cold tier or
 * stripe reconstruction). It lives in Cassandra's package only because the BIG reader factory and loading builder
 * it extends are package-private; all logic is in {@link TieredSSTables}. Registered through
 * META-INF/services/org.apache.cassandra.io.sstable.format.SSTableFormat$Factory.
 *
 * <p>A format of its own is required, not just a different channel: on restart Cassandra deletes every component of
 * a BIG SSTable whose Data.db is empty, and the format name in the file names routes loading back here.
 */
public class ElectTieredFormat extends BigFormat
{
    /** DO NOT CHANGE: persisted in every file name of a tiered SSTable. Lower-case letters only (Cassandra's rule). */
    public static final String NAME = TieredSSTables.FORMAT_NAME;

    private final TieredReaderFactory readerFactory = new TieredReaderFactory();

    public ElectTieredFormat(Map<String, String> options)
    {
        super(options);
        // BigFormat hard-codes its name and AbstractSSTableFormat.name is final: set ours.
        try
        {
            Field f = AbstractSSTableFormat.class.getDeclaredField("name");
            f.setAccessible(true);
            f.set(this, NAME);
        }
        catch (ReflectiveOperationException e)
        {
            throw new IllegalStateException("cannot name the " + NAME + " SSTable format", e);
        }
    }

    @Override
    public BigTableReaderFactory getReaderFactory()
    {
        return readerFactory;
    }

    @Override
    public void deleteOrphanedComponents(Descriptor descriptor, Set<Component> components)
    {
        // the placeholder Data.db is empty by design: only a tiered SSTable without its sidecar is orphaned
        if (!TieredSSTables.hasSidecar(descriptor))
            super.deleteOrphanedComponents(descriptor, components);
    }

    @Override
    public void delete(Descriptor desc)
    {
        NodeHandoff.bridge().tiered().beforeDelete(desc);
        super.delete(desc);
        TieredSSTables.afterDelete(desc);
    }

    static final class TieredReaderFactory extends BigTableReaderFactory
    {
        @Override
        public BigTableReader.Builder builder(Descriptor descriptor)
        {
            return new TieredReaderBuilder(descriptor);
        }

        @Override
        public SSTableReaderLoadingBuilder<BigTableReader, BigTableReader.Builder> loadingBuilder(Descriptor descriptor,
                                                                                                  TableMetadataRef tableMetadataRef,
                                                                                                  Set<Component> components)
        {
            return new TieredLoadingBuilder(new SSTable.Builder<>(descriptor).setTableMetadataRef(tableMetadataRef)
                                                                             .setComponents(components));
        }
    }

    static final class TieredLoadingBuilder extends BigSSTableReaderLoadingBuilder
    {
        private FileHandle.Builder dataFileBuilder;

        TieredLoadingBuilder(SSTable.Builder<?, ?> builder)
        {
            super(builder);
        }

        @Override
        protected FileHandle.Builder dataFileBuilder(StatsMetadata statsMetadata)
        {
            if (dataFileBuilder == null)
            {
                long recordSize = statsMetadata.estimatedPartitionSize.percentile(ioOptions.diskOptimizationEstimatePercentile);
                int bufferSize = ioOptions.diskOptimizationStrategy.bufferSize(recordSize);
                dataFileBuilder = NodeHandoff.bridge().tiered().dataFileBuilder(descriptor, bufferSize, chunkCache);
            }
            return dataFileBuilder;
        }

        @Override
        protected void openComponents(BigTableReader.Builder builder, SSTable.Owner owner, boolean validate, boolean online)
        throws IOException
        {
            super.openComponents(builder, owner, validate, online);
            // Cached index entries are tagged with the BIG format instance and asserted against the reader's format:
            // tiered readers skip the key cache (the index stays local, so the cost is one index lookup per read).
            builder.setKeyCache(KeyCache.NO_CACHE);
        }
    }

    /** Builds {@link TieredTableReader}s. */
    static final class TieredReaderBuilder extends BigTableReader.Builder
    {
        TieredReaderBuilder(Descriptor descriptor)
        {
            super(descriptor);
        }

        @Override
        protected BigTableReader buildInternal(SSTable.Owner owner)
        {
            return new TieredTableReader(this, owner);
        }
    }

    /**
     * A BIG reader that never touches the key cache. Cassandra tags cached index entries with the BIG format instance
     * and asserts ({@code KeyCacheSupport.cacheKey}, with -ea) that it is the reader's format, which for a tiered
     * SSTable it is not; the key cache is NO_CACHE anyway, so caching is skipped rather than asserted.
     */
    static final class TieredTableReader extends BigTableReader
    {
        TieredTableReader(Builder builder, SSTable.Owner owner)
        {
            super(builder, owner);
        }

        @Override
        public void cacheKey(DecoratedKey key, AbstractRowIndexEntry info)
        {
        }

        @Override
        public AbstractRowIndexEntry getCachedPosition(KeyCacheKey key, boolean updateStats)
        {
            return null;
        }

        /**
         * Nothing, when asked by Cassandra's outgoing streams: they read the data component through
         * {@code ChannelProxy.newChannel()} (final; it reopens the LOCAL path, a 0-byte placeholder), so a tiered
         * SSTable streamed by range would send truncated sections and stall the receiver. Its rows are erasure-coded
         * anyway: a node that needs them gets a stub or decodes the member (electtool rebuild). Every other caller
         * (scanners, repair validation, size estimates) gets the real positions.
         */
        @Override
        public java.util.List<PartitionPositionBounds> getPositionsForRanges(java.util.Collection<org.apache.cassandra.dht.Range<org.apache.cassandra.dht.Token>> ranges)
        {
            if (TieredSSTables.askedByOutgoingStream())
                return java.util.List.of();
            return super.getPositionsForRanges(ranges);
        }
    }

    public static class Factory implements SSTableFormat.Factory
    {
        @Override
        public String name()
        {
            return NAME;
        }

        @Override
        public SSTableFormat<?, ?> getInstance(Map<String, String> options)
        {
            return new ElectTieredFormat(options);
        }
    }
}
