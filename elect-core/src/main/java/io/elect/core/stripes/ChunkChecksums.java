package io.elect.core.stripes;

import io.elect.core.stripes.ChunkCorruptionException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * CRC32C of every fixed-size chunk of a data component, computed from the local file when an SSTable leaves
 * LOCAL (or when its stripe is encoded) and stored in the sidecar. Every byte later served from the cold tier or
 * from reconstruction is verified against these, whole chunks at a time, so sources always fetch whole chunks.
 *
 * <p>Chunk i covers bytes [i * chunkSize, min((i + 1) * chunkSize, length)). Immutable and thread-safe.
 */
public final class ChunkChecksums
{
    /** Default chunk size: one frame of the cold store's framed format, so a chunk read is one verified block. */
    public static final int DEFAULT_CHUNK_SIZE = 16 * 1024;

    private final int chunkSize;
    private final long length;
    private final int[] crcs;

    public ChunkChecksums(int chunkSize, long length, int[] crcs)
    {
        if (chunkSize < 512 || Integer.bitCount(chunkSize) != 1)
            throw new IllegalArgumentException("chunkSize must be a power of two >= 512, got " + chunkSize);
        if (length < 0)
            throw new IllegalArgumentException("length must be >= 0, got " + length);
        if (crcs == null || crcs.length != chunkCount(length, chunkSize))
            throw new IllegalArgumentException("crcs must hold " + chunkCount(length, chunkSize) + " entries for length "
                                               + length + ", got " + (crcs == null ? "null" : crcs.length));
        this.chunkSize = chunkSize;
        this.length = length;
        this.crcs = crcs.clone();
    }

    static long chunkCount(long length, int chunkSize)
    {
        return (length + chunkSize - 1) / chunkSize;
    }

    /** Checksums of the whole file read through channel (positional reads, the channel position is not moved). */
    public static ChunkChecksums compute(FileChannel channel, int chunkSize) throws IOException
    {
        long length = channel.size();
        long count = chunkCount(length, chunkSize);
        if (count > Integer.MAX_VALUE)
            throw new IllegalArgumentException("file too large for chunkSize " + chunkSize + ": " + length);
        int[] crcs = new int[(int) count];
        ByteBuffer buf = ByteBuffer.allocateDirect(chunkSize);
        for (int i = 0; i < count; i++)
        {
            long pos = (long) i * chunkSize;
            buf.clear().limit((int) Math.min(chunkSize, length - pos));
            while (buf.hasRemaining())
            {
                int n = channel.read(buf, pos + buf.position());
                if (n < 0)
                    throw new IOException("file shrank while computing checksums at " + (pos + buf.position()));
            }
            buf.flip();
            crcs[i] = crc(buf);
        }
        return new ChunkChecksums(chunkSize, length, crcs);
    }

    /** Checksums of the bytes of a source (used for data held in memory, e.g. in tests and for stripes). */
    public static ChunkChecksums compute(ByteBuffer data, int chunkSize)
    {
        ByteBuffer d = data.duplicate();
        long length = d.remaining();
        int[] crcs = new int[(int) chunkCount(length, chunkSize)];
        for (int i = 0; i < crcs.length; i++)
        {
            int start = d.position();
            ByteBuffer slice = d.duplicate();
            slice.limit((int) Math.min(slice.limit(), start + (long) chunkSize));
            crcs[i] = crc(slice);
            d.position(slice.limit());
        }
        return new ChunkChecksums(chunkSize, length, crcs);
    }

    public static int crc(ByteBuffer bytes)
    {
        CRC32C c = new CRC32C();
        c.update(bytes.duplicate());
        return (int) c.getValue();
    }

    public int chunkSize()
    {
        return chunkSize;
    }

    public long length()
    {
        return length;
    }

    public int chunkCount()
    {
        return crcs.length;
    }

    public int crcOf(int chunk)
    {
        return crcs[chunk];
    }

    /** A copy of every chunk's CRC32C, in chunk order. */
    public int[] crcs()
    {
        return crcs.clone();
    }

    /** Start offset of chunk i. */
    public long chunkStart(long chunk)
    {
        return chunk * chunkSize;
    }

    /** Length of chunk i (the last one may be short). */
    public int chunkLength(long chunk)
    {
        return (int) Math.min(chunkSize, length - chunk * chunkSize);
    }

    /**
     * Verifies chunk i whose bytes are the remaining bytes of data (positions untouched).
     *
     * @throws ChunkCorruptionException naming the source, the chunk and both checksums
     */
    public void verify(String source, int chunk, ByteBuffer data) throws ChunkCorruptionException
    {
        if (data.remaining() != chunkLength(chunk))
            throw new ChunkCorruptionException(source + ": chunk " + chunk + " has " + data.remaining()
                                                + " bytes, expected " + chunkLength(chunk));
        int actual = crc(data);
        if (actual != crcs[chunk])
            throw new ChunkCorruptionException(source + ": checksum mismatch in chunk " + chunk + " (bytes "
                                                + chunkStart(chunk) + ".." + (chunkStart(chunk) + chunkLength(chunk))
                                                + "): expected crc32c " + Integer.toHexString(crcs[chunk])
                                                + ", got " + Integer.toHexString(actual));
    }

    @Override
    public boolean equals(Object o)
    {
        return o instanceof ChunkChecksums c && c.chunkSize == chunkSize && c.length == length
               && Arrays.equals(c.crcs, crcs);
    }

    @Override
    public int hashCode()
    {
        return Arrays.hashCode(crcs) * 31 + Long.hashCode(length);
    }
}
