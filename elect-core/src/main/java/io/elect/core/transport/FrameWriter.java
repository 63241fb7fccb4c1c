package io.elect.core.transport;

import java.util.zip.CRC32C;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelPromise;

/**
 * How {@link NettyTransport} puts frames on a connection: encoded straight into one pooled direct buffer (the same
 * bytes as {@link FrameCodec#encode}, docs/formats/transport.md) and written in slices of at most {@link #SLICE}
 * bytes, each flushed on its own.
 *
 * <p>Why (issue 19, docs/PERFORMANCE.md "tls"): a heap frame cost two copies more per byte (into the heap frame, then
 * into a direct buffer, by the TLS engine's wrapper or by the JDK's socket write); and a 1 MiB frame flushed at once
 * is encrypted whole before its first byte leaves, so the peer's decryption could only start when the sender's
 * encryption had ended. With slices, the receiver decrypts slice n while the sender encrypts slice n+1. The slice size
 * is also the TLS handler's wrap size ({@link NettyTransport}), so each slice becomes one output buffer of records.
 * Slicing never changes the bytes on the wire, only how they are grouped into writes.
 */
final class FrameWriter
{
    /** Bytes per flushed write: a few TLS records (16 KiB each), few enough syscalls per MiB. */
    static final int SLICE = 128 * 1024;

    private FrameWriter()
    {
    }

    /**
     * {@code f} as one frame in a direct buffer from {@code alloc} (the caller owns it).
     *
     * @throws IllegalArgumentException if the frame would exceed {@code maxFrameBytes}, as {@link FrameCodec#encode}
     */
    static ByteBuf encode(ByteBufAllocator alloc, Frame f, int maxFrameBytes)
    {
        int n = f.payload().length;
        long total = (long) FrameCodec.LENGTH_FIELD + FrameCodec.OVERHEAD + n;
        if (total > maxFrameBytes)
            throw new IllegalArgumentException("payload of " + n + " bytes makes a frame of " + total
                                               + " bytes > transport_max_frame_bytes " + maxFrameBytes);
        ByteBuf b = alloc.directBuffer((int) total, (int) total);
        try
        {
            b.writeInt(FrameCodec.OVERHEAD + n).writeShort(FrameCodec.MAGIC).writeByte(FrameCodec.VERSION).writeByte(f.kind().code)
             .writeLong(f.requestId()).writeShort(f.verb()).writeBytes(f.payload());
            CRC32C crc = new CRC32C();
            crc.update(b.nioBuffer(FrameCodec.LENGTH_FIELD, b.writerIndex() - FrameCodec.LENGTH_FIELD));
            b.writeInt((int) crc.getValue());
            return b;
        }
        catch (RuntimeException e)
        {
            b.release();
            throw e;
        }
    }

    /**
     * Writes {@code frame} (released here, whatever happens) to {@code ch} in flushed slices, in order and without
     * interleaving with other writes (one task on the channel's event loop). {@code done} is told the outcome of the
     * last slice: a failure of any slice fails every later one, since a failed write closes the connection.
     */
    static void write(Channel ch, ByteBuf frame, ChannelFutureListener done)
    {
        if (ch.eventLoop().inEventLoop())
            writeSlices(ch, frame, done);
        else
        {
            try
            {
                ch.eventLoop().execute(() -> writeSlices(ch, frame, done));
            }
            catch (RuntimeException e) // event loop shut down: the transport is closing
            {
                frame.release();
                ChannelPromise failed = ch.newPromise();
                if (done != null)
                    failed.addListener(done);
                failed.setFailure(e);
            }
        }
    }

    private static void writeSlices(Channel ch, ByteBuf frame, ChannelFutureListener done)
    {
        while (frame.readableBytes() > SLICE)
        {
            ch.write(frame.readRetainedSlice(SLICE));
            ch.flush();
        }
        ChannelPromise last = ch.newPromise();
        if (done != null)
            last.addListener(done);
        ch.writeAndFlush(frame, last);
    }
}
