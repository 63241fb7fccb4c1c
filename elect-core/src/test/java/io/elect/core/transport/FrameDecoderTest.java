package io.elect.core.transport;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The streaming decoder: any split of the byte stream gives the same frames; malformed input closes at once. */
class FrameDecoderTest
{
    private final TransportMetrics metrics = new TransportMetrics();

    private EmbeddedChannel channel(int max)
    {
        return new EmbeddedChannel(new FrameDecoder(max, metrics, LoggerFactory.getLogger(FrameDecoderTest.class)));
    }

    @Test
    void framesSurviveAnySplit()
    {
        Random rnd = new Random(19);
        List<Frame> sent = new ArrayList<>();
        java.io.ByteArrayOutputStream stream = new java.io.ByteArrayOutputStream();
        for (int n : new int[]{ 0, 1, 100, FrameDecoder.INITIAL_PAYLOAD, FrameDecoder.INITIAL_PAYLOAD + 1, 300_000 })
        {
            byte[] p = new byte[n];
            rnd.nextBytes(p);
            Frame f = new Frame(Frame.Kind.RESPONSE, rnd.nextLong(), rnd.nextInt(65536), p);
            sent.add(f);
            stream.writeBytes(FrameCodec.encode(f, 1 << 20));
        }
        byte[] all = stream.toByteArray();
        for (int maxPiece : new int[]{ 1, 3, 17, 4096, 70_000, all.length })
        {
            EmbeddedChannel ch = channel(1 << 20);
            for (int off = 0; off < all.length; )
            {
                int len = Math.min(all.length - off, 1 + rnd.nextInt(maxPiece));
                ch.writeInbound(Unpooled.wrappedBuffer(all, off, len));
                off += len;
            }
            for (Frame f : sent)
            {
                Frame got = ch.readInbound();
                assertEquals(f.kind(), got.kind());
                assertEquals(f.requestId(), got.requestId());
                assertEquals(f.verb(), got.verb());
                assertArrayEquals(f.payload(), got.payload());
            }
            assertNull(ch.readInbound());
            ch.finish();
        }
        assertEquals(0, metrics.malformedFrames.get());
    }

    @Test
    void oversizedLengthClosesAfterFourBytes()
    {
        EmbeddedChannel ch = channel(1024);
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[]{ 0, 0, 4, 0 }));
        assertFalse(ch.isOpen());
        assertEquals(1, metrics.malformedFrames.get());
    }

    @Test
    void badChecksumAndTruncationAreMalformed()
    {
        byte[] frame = FrameCodec.encode(new Frame(Frame.Kind.REQUEST, 9, 1, "hello".getBytes()), 1024);
        frame[frame.length - 1] ^= 1;
        EmbeddedChannel ch = channel(1024);
        ch.writeInbound(Unpooled.wrappedBuffer(frame));
        assertNull(ch.readInbound());
        assertFalse(ch.isOpen());
        assertEquals(1, metrics.malformedFrames.get());

        EmbeddedChannel cut = channel(1024);
        cut.writeInbound(Unpooled.wrappedBuffer(frame, 0, 10));
        cut.close();
        assertEquals(2, metrics.malformedFrames.get());
    }
}
