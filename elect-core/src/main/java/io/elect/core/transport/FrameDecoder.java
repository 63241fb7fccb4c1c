package io.elect.core.transport;

import java.util.Arrays;
import java.util.zip.CRC32C;

import org.slf4j.Logger;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Turns a connection's bytes (plaintext, or what the TLS handler decrypted) into {@link Frame}s, validated as
 * docs/formats/transport.md says; the first malformed frame is counted in {@link TransportMetrics#malformedFrames},
 * logged, and closes the connection; whatever arrives after it is dropped unread. One per connection, on its event
 * loop (not thread-safe, not sharable).
 *
 * <p>Why not Netty's cumulating decoder (issue 19, docs/PERFORMANCE.md "tls"): it copied a 1 MiB frame four times
 * (into the cumulation, again each time the cumulation grew, into the frame body, and from the body into the payload).
 * Here each arriving byte is copied once, straight into the payload array the {@link Frame} keeps, and the CRC32C is
 * computed over what was just copied. The payload array grows by doubling as bytes arrive, capped at the length the
 * frame announced: a peer that announces a large frame and then stalls holds at most twice what it actually sent (and
 * at least 64 KiB), never the announced length. The length field is checked against the limit as soon as its 4 bytes
 * are in, before anything of the frame is buffered.
 */
final class FrameDecoder extends ChannelInboundHandlerAdapter
{
    /** First allocation of a payload array (or the whole payload, if smaller). */
    static final int INITIAL_PAYLOAD = 64 * 1024;

    private final int maxFrameBytes;
    private final TransportMetrics metrics;
    private final Logger logger;

    /** Length field then header: 4 + {@link FrameCodec#HEADER} bytes. */
    private final byte[] prefix = new byte[FrameCodec.LENGTH_FIELD + FrameCodec.HEADER];
    private int prefixFilled;
    private int payloadLength = -1; // -1: prefix not complete yet
    private byte[] payload;
    private int payloadFilled;
    private final byte[] crcField = new byte[4];
    private int crcFilled;
    private final CRC32C crc = new CRC32C();
    private boolean failed;

    FrameDecoder(int maxFrameBytes, TransportMetrics metrics, Logger logger)
    {
        this.maxFrameBytes = maxFrameBytes;
        this.metrics = metrics;
        this.logger = logger;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg)
    {
        if (!(msg instanceof ByteBuf in))
        {
            ctx.fireChannelRead(msg);
            return;
        }
        try
        {
            while (!failed && in.isReadable())
            {
                Frame f = consume(in);
                if (f != null)
                    ctx.fireChannelRead(f);
            }
        }
        catch (MalformedFrameException e)
        {
            reject(ctx, e.getMessage());
        }
        finally
        {
            in.release();
        }
    }

    /** Takes bytes of the current frame from {@code in}; the frame once it is complete, else null. */
    private Frame consume(ByteBuf in)
    {
        if (payloadLength < 0)
        {
            int n = Math.min(in.readableBytes(), prefix.length - prefixFilled);
            in.readBytes(prefix, prefixFilled, n);
            int before = prefixFilled;
            prefixFilled += n;
            if (before < FrameCodec.LENGTH_FIELD && prefixFilled >= FrameCodec.LENGTH_FIELD)
                FrameCodec.checkLength(lengthField(), maxFrameBytes);
            if (prefixFilled < prefix.length)
                return null;
            payloadLength = (int) (lengthField() - FrameCodec.OVERHEAD);
            payload = new byte[Math.min(payloadLength, INITIAL_PAYLOAD)];
            crc.reset();
            crc.update(prefix, FrameCodec.LENGTH_FIELD, FrameCodec.HEADER);
        }
        if (payloadFilled < payloadLength)
        {
            int n = Math.min(in.readableBytes(), payloadLength - payloadFilled);
            if (payloadFilled + n > payload.length)
                payload = Arrays.copyOf(payload, (int) Math.min(payloadLength, Math.max(payloadFilled + n, 2L * payload.length)));
            in.readBytes(payload, payloadFilled, n);
            crc.update(payload, payloadFilled, n);
            payloadFilled += n;
            if (payloadFilled < payloadLength)
                return null;
        }
        int n = Math.min(in.readableBytes(), 4 - crcFilled);
        in.readBytes(crcField, crcFilled, n);
        crcFilled += n;
        if (crcFilled < 4)
            return null;
        int onWire = ((crcField[0] & 0xff) << 24) | ((crcField[1] & 0xff) << 16) | ((crcField[2] & 0xff) << 8) | (crcField[3] & 0xff);
        Frame f = FrameCodec.decodeParts(Arrays.copyOfRange(prefix, FrameCodec.LENGTH_FIELD, prefix.length), payload, onWire, (int) crc.getValue());
        prefixFilled = 0;
        payloadLength = -1;
        payload = null;
        payloadFilled = 0;
        crcFilled = 0;
        return f;
    }

    private long lengthField()
    {
        return ((prefix[0] & 0xffL) << 24) | ((prefix[1] & 0xff) << 16) | ((prefix[2] & 0xff) << 8) | (prefix[3] & 0xff);
    }

    /** The peer closed the connection in the middle of a frame: that frame is malformed (truncated). */
    @Override
    public void channelInactive(ChannelHandlerContext ctx)
    {
        int buffered = prefixFilled + payloadFilled + crcFilled;
        if (!failed && buffered > 0)
            reject(ctx, "truncated frame: " + buffered + " bytes before end of stream");
        payload = null;
        ctx.fireChannelInactive();
    }

    private void reject(ChannelHandlerContext ctx, String why)
    {
        failed = true;
        payload = null;
        metrics.malformedFrames.incrementAndGet();
        logger.warn("ELECT transport: malformed frame from {} ({}); closing the connection", ctx.channel().remoteAddress(), why);
        ctx.close();
    }
}
