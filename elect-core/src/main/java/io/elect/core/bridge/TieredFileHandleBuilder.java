package io.elect.core.bridge;

import io.elect.core.tiered.TieredFileChannel;

import org.apache.cassandra.config.Config;
import org.apache.cassandra.io.compress.CompressionMetadata;
import org.apache.cassandra.io.util.ChannelProxy;
import org.apache.cassandra.io.util.File;
import org.apache.cassandra.io.util.FileHandle;

import io.elect.core.tiered.ByteRangeSource;

/**
 * The FileHandle builder of a tiered data component: the handle reads through a {@link TieredFileChannel} over the
 * component's {@link ByteRangeSource}, never mmap, and its compression metadata is re-opened with the REMOTE
 * compressed length (Cassandra derives it from the local Data.db, which is a 0-byte placeholder once tiered).
 * Everything else (chunk readers, CRC checks of compressed chunks, Cassandra's chunk cache) stays stock.
 */
public final class TieredFileHandleBuilder extends FileHandle.Builder
{
    private final ByteRangeSource source;
    private final boolean hasMaxCompressedLength;
    private CompressionMetadata reopened;

    public TieredFileHandleBuilder(File file, ByteRangeSource source, boolean hasMaxCompressedLength)
    {
        super(file);
        this.source = source;
        this.hasMaxCompressedLength = hasMaxCompressedLength;
        super.mmapped(false);
    }

    @Override
    public FileHandle.Builder mmapped(boolean mmapped)
    {
        return super.mmapped(false);
    }

    @Override
    public FileHandle.Builder mmapped(Config.DiskAccessMode diskAccessMode)
    {
        return super.mmapped(false);
    }

    @Override
    public FileHandle.Builder withCompressionMetadata(CompressionMetadata metadata)
    {
        if (reopened != null)
        {
            reopened.close();
            reopened = null;
        }
        if (metadata != null && metadata.compressedFileLength != source.length())
        {
            reopened = CompressionMetadata.open(metadata.chunksIndexFile, source.length(), hasMaxCompressedLength);
            return super.withCompressionMetadata(reopened);
        }
        return super.withCompressionMetadata(metadata);
    }

    @Override
    public FileHandle complete()
    {
        try
        {
            return super.complete(f -> new ChannelProxy(f, new TieredFileChannel(source)));
        }
        finally
        {
            // complete() took a shared copy; ours is no longer needed
            if (reopened != null)
            {
                reopened.close();
                reopened = null;
            }
        }
    }
}
