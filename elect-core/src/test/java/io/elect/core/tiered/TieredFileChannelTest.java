package io.elect.core.tiered;

import io.elect.core.tiered.TieredReadException;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.NonWritableChannelException;
import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.tiered.ColdRangeSource;
import io.elect.offload.FramedColdStore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The FileChannel Cassandra reads tiered data through: positional reads, EOF, transferTo, refusals, errors. */
class TieredFileChannelTest
{
    @Test
    void behavesLikeAReadOnlyFileOfTheSource() throws IOException
    {
        byte[] data = new byte[100_000];
        new Random(3).nextBytes(data);
        try (FramedColdStore store = FramedColdStore.inMemory())
        {
            store.put("k", ByteBuffer.wrap(data));
            ColdRangeSource src = new ColdRangeSource(store, "mem", "k", ChunkChecksums.compute(ByteBuffer.wrap(data), 4096),
                                                      null, null);
            FileChannel ch = new TieredFileChannel(src);
            assertEquals(data.length, ch.size());
            ByteBuffer direct = ByteBuffer.allocateDirect(5000);
            direct.position(7);
            assertEquals(4993, ch.read(direct, 12_345));
            byte[] got = new byte[4993];
            direct.flip().position(7);
            direct.get(got);
            assertArrayEquals(Arrays.copyOfRange(data, 12_345, 12_345 + 4993), got);

            ByteBuffer tail = ByteBuffer.allocate(1000);
            assertEquals(500, ch.read(tail, data.length - 500), "short read at the end");
            assertEquals(-1, ch.read(ByteBuffer.allocate(10), data.length), "EOF");

            ch.position(99_000);
            ByteBuffer rel = ByteBuffer.allocate(2000);
            assertEquals(1000, ch.read(rel));
            assertEquals(data.length, ch.position());

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            assertEquals(70_000, ch.transferTo(10_000, 70_000, Channels.newChannel(out)));
            assertArrayEquals(Arrays.copyOfRange(data, 10_000, 80_000), out.toByteArray());

            assertThrows(NonWritableChannelException.class, () -> ch.write(ByteBuffer.allocate(1), 0));
            assertThrows(UnsupportedOperationException.class, () -> ch.map(FileChannel.MapMode.READ_ONLY, 0, 10));

            // an object that does not match the recorded checksums: an unchecked read error, never bytes
            byte[] other = data.clone();
            other[50_000] ^= 1;
            store.put("bad", ByteBuffer.wrap(other));
            FileChannel bad = new TieredFileChannel(new ColdRangeSource(store, "mem", "bad",
                                                                        ChunkChecksums.compute(ByteBuffer.wrap(data), 4096),
                                                                        null, null));
            ByteBuffer b = ByteBuffer.allocate(100);
            assertThrows(TieredReadException.class, () -> bad.read(b, 49_990));
            assertEquals(0, b.position(), "nothing was returned");
        }
    }
}
