package io.elect.offload;

import java.nio.ByteBuffer;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

public class FramedFormatTest
{
    private static final int B = FramedFormat.BLOCK_SIZE;

    @Test
    void storedLengthIsInvertible()
    {
        for (long n : new long[]{ 0, 1, B - 1, B, B + 1, 2L * B, 10L * B + 5, 64L << 20, (1L << 40) + 3 })
            assertEquals(n, FramedFormat.dataLength(FramedFormat.storedLength(n)), "n=" + n);
        // every stored length in a window either maps back exactly or is rejected, and the valid ones are
        // exactly the images of the data lengths (storedLength is a bijection onto them)
        long window = 3L * FramedFormat.FRAME_SIZE + 100;
        int valid = 0;
        for (long s = 0; s < window; s++)
        {
            long d = FramedFormat.dataLength(s);
            if (d >= 0)
            {
                assertEquals(s, FramedFormat.storedLength(d));
                valid++;
            }
        }
        int images = 0;
        for (long d = 0; FramedFormat.storedLength(d) < window; d++)
            images++;
        assertEquals(images, valid);
        assertTrue(FramedFormat.dataLength(FramedFormat.FOOTER_SIZE + 1) < 0, "a lone CRC byte is no object");
    }

    @Test
    void goldenFooter()
    {
        ByteBuffer f = ByteBuffer.allocate(FramedFormat.FOOTER_SIZE);
        FramedFormat.writeFooter(f, 0x0102030405L, 0xCAFEBABE, FramedFormat.keyTag("k"));
        byte[] b = f.array();
        assertArrayEquals(new byte[]{ 'E', 'L', 'C', 'F', 1, 0, 0, 0, 0, 0, 0x40, 0 }, java.util.Arrays.copyOf(b, 12));
        assertArrayEquals(new byte[]{ 0, 0, 0, 1, 2, 3, 4, 5, (byte) 0xCA, (byte) 0xFE, (byte) 0xBA, (byte) 0xBE },
                          java.util.Arrays.copyOfRange(b, 12, 24));
        // CRC32C("k") = 0x... computed independently of FramedFormat
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(new byte[]{ 'k' });
        assertEquals((int) crc.getValue(), ByteBuffer.wrap(b).getInt(24));
    }

    /** Every single-bit flip anywhere in a small framed object is detected by a whole read. */
    @Test
    void everySingleBitFlipIsDetected() throws Exception
    {
        InMemoryBlobStore blobs = new InMemoryBlobStore();
        try (FramedColdStore store = new FramedColdStore("m", blobs, ColdStoreOptions.defaults().withMaxAttempts(1)))
        {
            byte[] data = new byte[B + 37];
            new Random(7).nextBytes(data);
            store.put("k", ByteBuffer.wrap(data));
            byte[] raw = blobs.rawBytes("k");
            assertEquals(FramedFormat.storedLength(data.length), raw.length);
            for (int bit = 0; bit < raw.length * 8; bit += (bit < 1000 || raw.length * 8 - bit < 2000) ? 1 : 61)
            {
                raw[bit / 8] ^= (byte) (1 << (bit % 8));
                assertThrows(CorruptObjectException.class, () -> store.readAll("k"), "bit " + bit);
                raw[bit / 8] ^= (byte) (1 << (bit % 8));
            }
            assertArrayEquals(data, store.readAll("k").array());
        }
    }

    @Test
    void blocksAreBoundToKeyAndPosition() throws Exception
    {
        InMemoryBlobStore blobs = new InMemoryBlobStore();
        try (FramedColdStore store = new FramedColdStore("m", blobs, ColdStoreOptions.defaults().withMaxAttempts(1)))
        {
            byte[] data = new byte[2 * B];
            store.put("a", ByteBuffer.wrap(data)); // two identical (all-zero) blocks
            store.put("b", ByteBuffer.wrap(data));
            byte[] a = blobs.rawBytes("a");
            // the other key's object under this key: same bytes, wrong key tag
            blobs.put("a", ByteBuffer.wrap(blobs.rawBytes("b")));
            assertThrows(CorruptObjectException.class, () -> store.read("a", 0, 10));
            // swapping two identical data blocks with their CRCs is still caught (index in the CRC)
            byte[] swapped = a.clone();
            System.arraycopy(a, 0, swapped, FramedFormat.FRAME_SIZE, FramedFormat.FRAME_SIZE);
            System.arraycopy(a, FramedFormat.FRAME_SIZE, swapped, 0, FramedFormat.FRAME_SIZE);
            blobs.put("a", ByteBuffer.wrap(swapped));
            assertThrows(CorruptObjectException.class, () -> store.read("a", 0, 10));
            // a truncated object is caught too
            blobs.put("a", ByteBuffer.wrap(a, 0, a.length - 1));
            assertThrows(CorruptObjectException.class, () -> store.readAll("a"));
            assertTrue(store.metrics().corruptionDetected.sum() >= 3);
        }
    }
}
