package io.elect.core.stripes;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import io.elect.core.transport.FrameCodec;
import io.elect.core.transport.TransportOptions;

/**
 * Payloads of verb {@link io.elect.core.transport.Verbs#READ_MEMBER} (docs/formats/verbs.md), version 1.
 * Request: {@code version u8 = 1, path_length u16, path UTF-8, offset i64, length i32}.
 * Response: {@code version u8 = 1} followed by exactly {@code length} bytes. Big-endian; the frame carries the CRC32C.
 */
final class ReadMember
{
    static final int VERSION = 1;
    static final int MAX_PATH_BYTES = 4096;
    /** Bytes of a response payload before the data. */
    static final int RESPONSE_HEADER = 1;

    record Request(String path, long offset, int length)
    {
    }

    private ReadMember()
    {
    }

    /** The largest length one READ_MEMBER response can carry within options' frame limit. */
    static int maxReadBytes(TransportOptions options)
    {
        return options.maxFrameBytes() - FrameCodec.LENGTH_FIELD - FrameCodec.OVERHEAD - RESPONSE_HEADER;
    }

    static byte[] encodeRequest(String path, long offset, int length)
    {
        byte[] p = path.getBytes(StandardCharsets.UTF_8);
        if (p.length > MAX_PATH_BYTES)
            throw new IllegalArgumentException("path longer than " + MAX_PATH_BYTES + " bytes: " + path);
        return ByteBuffer.allocate(1 + 2 + p.length + 8 + 4).put((byte) VERSION).putShort((short) p.length).put(p)
                         .putLong(offset).putInt(length).array();
    }

    /** @throws IllegalArgumentException for an unknown version or a malformed payload (the message says which) */
    static Request decodeRequest(byte[] payload)
    {
        ByteBuffer b = ByteBuffer.wrap(payload);
        try
        {
            int version = b.get() & 0xff;
            if (version != VERSION)
                throw new IllegalArgumentException("READ_MEMBER request version " + version + " is unknown (this node speaks " + VERSION + ")");
            int n = b.getShort() & 0xffff;
            if (n > MAX_PATH_BYTES)
                throw new IllegalArgumentException("READ_MEMBER path of " + n + " bytes is longer than " + MAX_PATH_BYTES);
            byte[] p = new byte[n];
            b.get(p);
            long offset = b.getLong();
            int length = b.getInt();
            if (b.hasRemaining())
                throw new IllegalArgumentException("READ_MEMBER request has " + b.remaining() + " trailing bytes");
            return new Request(new String(p, StandardCharsets.UTF_8), offset, length);
        }
        catch (BufferUnderflowException e)
        {
            throw new IllegalArgumentException("READ_MEMBER request truncated (" + payload.length + " bytes)");
        }
    }
}
