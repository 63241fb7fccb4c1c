package io.elect.core.tiered;

import io.elect.core.stripes.ChunkCorruptionException;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The bytes of one SSTable data component, wherever they live: a local file, an object of the cold tier, or the
 * erasure-coded stripe the file belongs to. Reads are positional and never see a partial state: a source is
 * immutable once built (an SSTable changes source by being replaced by another reader, never in place).
 *
 * <p>Implementations are thread-safe. Bytes returned are verified against the checksums recorded when the source
 * was created (local files excepted: Cassandra verifies those itself); bytes that fail verification are never
 * returned: the read fails with {@link ChunkCorruptionException} instead.
 */
public interface ByteRangeSource extends Closeable
{
    /** Length of the data component in bytes. */
    long length();

    /**
     * Reads exactly {@code dst.remaining()} bytes starting at {@code position} into dst, advancing dst's position.
     * REQUIRES: 0 <= position and position + dst.remaining() <= length() (else IllegalArgumentException).
     */
    void read(long position, ByteBuffer dst) throws IOException;

    /** A short description for logs and errors, e.g. {@code cold:s3/tiered/ks/t/abc-Data.db}. */
    String describe();

    @Override
    default void close() throws IOException
    {
    }

    static void checkRange(ByteRangeSource source, long position, int length)
    {
        if (position < 0)
            throw new IllegalArgumentException("position must be >= 0, got " + position);
        if (position + length > source.length())
            throw new IllegalArgumentException("range [position=" + position + ", length=" + length + ") is past the end of "
                                               + source.describe() + " (" + source.length() + " bytes)");
    }
}
