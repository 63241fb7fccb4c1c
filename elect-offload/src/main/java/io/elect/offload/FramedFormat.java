package io.elect.offload;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The stored layout of a cold object, version 1 (byte-level description: docs/formats/cold-objects.md).
 * DO NOT CHANGE: on-disk / in-bucket format. A new layout gets a new version number.
 *
 * <pre>
 *   frame 0 | frame 1 | ... | frame n-1 | footer (32 bytes)
 *   frame i = data block i (BLOCK_SIZE bytes, the last one 1..BLOCK_SIZE) | crc_i (4 bytes, big-endian)
 *   crc_i   = CRC32C(keyTag (4 BE) | i (8 BE) | data block i)
 *   footer  = magic "ELCF" | version u8 | 3 zero bytes | blockSize u32 | dataLength u64 | dataCrc u32
 *             | keyTag u32 | footerCrc u32 (CRC32C of the 28 bytes before it); all big-endian
 *   keyTag  = CRC32C(UTF-8 bytes of the object key)
 * </pre>
 * Frames have a fixed stride, so a ranged read of data bytes [a, b) is one ranged GET of the frames that
 * cover it, each verified on its own; binding the CRC to the key and the block index also catches a block
 * served from the wrong place or the wrong object. The stored length alone determines the data length.
 * Stateless; thread-safe.
 */
public final class FramedFormat
{
    public static final int VERSION = 1;
    public static final int BLOCK_SIZE = 16 * 1024;
    public static final int CRC_SIZE = 4;
    public static final int FRAME_SIZE = BLOCK_SIZE + CRC_SIZE;
    public static final int FOOTER_SIZE = 32;
    public static final int MAGIC = 0x454C4346; // "ELCF"

    private FramedFormat()
    {
    }

    public static int keyTag(String key)
    {
        CRC32C crc = new CRC32C();
        crc.update(key.getBytes(StandardCharsets.UTF_8));
        return (int) crc.getValue();
    }

    public static long blockCount(long dataLength)
    {
        return (dataLength + BLOCK_SIZE - 1) / BLOCK_SIZE;
    }

    public static long storedLength(long dataLength)
    {
        return dataLength + CRC_SIZE * blockCount(dataLength) + FOOTER_SIZE;
    }

    /** Stored bytes for a part of dataLength bytes (whole blocks, plus the footer if it is the last part). */
    public static long framedLength(long dataLength, boolean withFooter)
    {
        return dataLength + CRC_SIZE * blockCount(dataLength) + (withFooter ? FOOTER_SIZE : 0);
    }

    /** Inverse of storedLength; -1 if no data length yields this stored length. */
    public static long dataLength(long storedLength)
    {
        long framed = storedLength - FOOTER_SIZE;
        if (framed < 0)
            return -1;
        if (framed == 0)
            return 0;
        long blocks = (framed + FRAME_SIZE - 1) / FRAME_SIZE;
        long data = framed - CRC_SIZE * blocks;
        return data > (blocks - 1) * BLOCK_SIZE ? data : -1;
    }

    /** Data length that must be derivable from storedLength, or a CorruptObjectException. */
    public static long checkedDataLength(String key, long storedLength) throws CorruptObjectException
    {
        long data = dataLength(storedLength);
        if (data < 0)
            throw new CorruptObjectException(key, "stored length " + storedLength + " is not a valid v1 framed length");
        return data;
    }

    public static int blockCrc(int keyTag, long blockIndex, ByteBuffer block)
    {
        CRC32C crc = new CRC32C();
        ByteBuffer prefix = ByteBuffer.allocate(12).putInt(keyTag).putLong(blockIndex).flip();
        crc.update(prefix);
        crc.update(block.duplicate());
        return (int) crc.getValue();
    }

    public static void writeFooter(ByteBuffer out, long dataLength, int dataCrc, int keyTag)
    {
        ByteBuffer f = ByteBuffer.allocate(FOOTER_SIZE).order(ByteOrder.BIG_ENDIAN);
        f.putInt(MAGIC).put((byte) VERSION).put((byte) 0).put((byte) 0).put((byte) 0);
        f.putInt(BLOCK_SIZE).putLong(dataLength).putInt(dataCrc).putInt(keyTag);
        CRC32C crc = new CRC32C();
        crc.update(f.array(), 0, FOOTER_SIZE - 4);
        f.putInt((int) crc.getValue());
        out.put(f.flip());
    }

    /** The parsed footer. */
    public record Footer(long dataLength, int dataCrc, int keyTag)
    {
    }

    /** Parses and checks the footer in the FOOTER_SIZE bytes at footer's position. */
    public static Footer readFooter(String key, ByteBuffer footer, long storedLength) throws CorruptObjectException
    {
        ByteBuffer f = footer.duplicate().order(ByteOrder.BIG_ENDIAN);
        int start = f.position();
        CRC32C crc = new CRC32C();
        crc.update(f.duplicate().limit(start + FOOTER_SIZE - 4));
        if ((int) crc.getValue() != f.getInt(start + FOOTER_SIZE - 4))
            throw new CorruptObjectException(key, "footer checksum mismatch");
        if (f.getInt(start) != MAGIC)
            throw new CorruptObjectException(key, "bad footer magic");
        int version = f.get(start + 4) & 0xff;
        if (version != VERSION)
            throw new CorruptObjectException(key, "unsupported format version " + version);
        int blockSize = f.getInt(start + 8);
        long dataLength = f.getLong(start + 12);
        int dataCrc = f.getInt(start + 20);
        int tag = f.getInt(start + 24);
        if (blockSize != BLOCK_SIZE)
            throw new CorruptObjectException(key, "unsupported block size " + blockSize);
        if (storedLength(dataLength) != storedLength)
            throw new CorruptObjectException(key, "footer data length " + dataLength + " does not match stored length "
                                                  + storedLength);
        if (tag != keyTag(key))
            throw new CorruptObjectException(key, "footer belongs to another key");
        return new Footer(dataLength, dataCrc, tag);
    }

    /**
     * Verifies the frames in stored (which starts at frame firstBlock) and copies data bytes
     * [dataOffset, dataOffset + out.remaining()) into out. dataLength is the object's data length.
     * Throws CorruptObjectException on any checksum mismatch; stored must hold every frame the range needs.
     */
    public static void verifyAndCopy(String key, int keyTag, ByteBuffer stored, long firstBlock, long dataLength,
                                     long dataOffset, ByteBuffer out) throws CorruptObjectException
    {
        long end = dataOffset + out.remaining();
        long block = firstBlock;
        int pos = stored.position();
        while (out.hasRemaining())
        {
            long blockStart = block * BLOCK_SIZE;
            int blockLen = (int) Math.min(BLOCK_SIZE, dataLength - blockStart);
            if (pos + blockLen + CRC_SIZE > stored.limit())
                throw new CorruptObjectException(key, "short read at block " + block);
            ByteBuffer data = stored.duplicate().position(pos).limit(pos + blockLen);
            int expected = stored.getInt(pos + blockLen);
            if (blockCrc(keyTag, block, data) != expected)
                throw new CorruptObjectException(key, "checksum mismatch in block " + block);
            long from = Math.max(dataOffset, blockStart);
            long to = Math.min(end, blockStart + blockLen);
            out.put(data.position(pos + (int) (from - blockStart)).limit(pos + (int) (to - blockStart)));
            pos += blockLen + CRC_SIZE;
            block++;
        }
    }
}
