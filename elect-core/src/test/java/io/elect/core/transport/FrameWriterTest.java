package io.elect.core.transport;

import java.util.Random;

import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The direct-buffer encoding is byte for byte the frame format of FrameCodec (docs/formats/transport.md). */
class FrameWriterTest
{
    @Test
    void sameBytesAsFrameCodec()
    {
        Random rnd = new Random(19);
        for (int n : new int[]{ 0, 5, 16 * 1024, FrameWriter.SLICE + 7, 3 * FrameWriter.SLICE })
        {
            byte[] payload = new byte[n];
            rnd.nextBytes(payload);
            for (Frame.Kind kind : Frame.Kind.values())
            {
                Frame f = new Frame(kind, rnd.nextLong(), rnd.nextInt(65536), payload);
                ByteBuf b = FrameWriter.encode(PooledByteBufAllocator.DEFAULT, f, 16 << 20);
                try
                {
                    assertTrue(b.isDirect());
                    assertArrayEquals(FrameCodec.encode(f, 16 << 20), ByteBufUtil.getBytes(b));
                }
                finally
                {
                    b.release();
                }
            }
        }
    }

    @Test
    void tooLargeIsRefusedLikeFrameCodec()
    {
        Frame f = new Frame(Frame.Kind.RESPONSE, 1, 1, new byte[100]);
        assertThrows(IllegalArgumentException.class, () -> FrameWriter.encode(PooledByteBufAllocator.DEFAULT, f, 100));
        assertThrows(IllegalArgumentException.class, () -> FrameCodec.encode(f, 100));
    }
}
