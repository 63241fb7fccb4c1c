package io.elect.core.transport;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Encoding and validation of transport frames, version 1 (docs/formats/transport.md). Big-endian:
 * <pre>
 *   u32 length  = bytes after this field (18 + payload length)
 *   u16 magic   = 0xE1EC
 *   u8  version = 1
 *   u8  kind    (1 request, 2 response, 3 error)
 *   u64 request id
 *   u16 verb
 *   ... payload
 *   u32 CRC32C of the bytes from magic to the end of the payload
 * </pre>
 * A frame longer than the configured maximum (4 + length bytes in total) is rejected from its length field alone,
 * before any of it is buffered.
 */
public final class FrameCodec
{
    public static final int MAGIC = 0xE1EC;
    public static final int VERSION = 1;
    /** Bytes after the length field, without payload: magic 2, version 1, kind 1, id 8, verb 2, crc 4. */
    public static final int OVERHEAD = 18;
    public static final int LENGTH_FIELD = 4;

    private FrameCodec()
    {
    }

    /** The whole frame, length field included. */
    public static byte[] encode(Frame f, int maxFrameBytes)
    {
        long total = (long) LENGTH_FIELD + OVERHEAD + f.payload().length;
        if (total > maxFrameBytes)
            throw new IllegalArgumentException("payload of " + f.payload().length + " bytes makes a frame of " + total
                                               + " bytes > transport_max_frame_bytes " + maxFrameBytes);
        ByteBuffer b = ByteBuffer.allocate((int) total);
        b.putInt(OVERHEAD + f.payload().length).putShort((short) MAGIC).put((byte) VERSION).put((byte) f.kind().code)
         .putLong(f.requestId()).putShort((short) f.verb()).put(f.payload());
        CRC32C crc = new CRC32C();
        crc.update(b.array(), LENGTH_FIELD, b.position() - LENGTH_FIELD);
        b.putInt((int) crc.getValue());
        return b.array();
    }

    /**
     * Checks a length field read from the wire.
     *
     * @throws MalformedFrameException if the frame would be shorter than the header or longer than the maximum
     */
    public static void checkLength(long length, int maxFrameBytes)
    {
        if (length < OVERHEAD)
            throw new MalformedFrameException("frame length " + length + " < " + OVERHEAD);
        if (length + LENGTH_FIELD > maxFrameBytes)
            throw new MalformedFrameException("frame of " + (length + LENGTH_FIELD) + " bytes > limit " + maxFrameBytes);
    }

    /**
     * Decodes the bytes after the length field ({@code body.length} = the length field's value).
     *
     * @throws MalformedFrameException on a bad magic, version, kind or checksum
     */
    public static Frame decodeBody(byte[] body)
    {
        if (body.length < OVERHEAD)
            throw new MalformedFrameException("frame body of " + body.length + " bytes < " + OVERHEAD);
        CRC32C crc = new CRC32C();
        crc.update(body, 0, body.length - 4);
        return decodeParts(java.util.Arrays.copyOf(body, HEADER), java.util.Arrays.copyOfRange(body, HEADER, body.length - 4),
                           ByteBuffer.wrap(body).getInt(body.length - 4), (int) crc.getValue());
    }

    /** Bytes after the length field before the payload: magic 2, version 1, kind 1, id 8, verb 2. */
    public static final int HEADER = 14;

    /**
     * Validates a frame received in parts and builds it, with the checks (and their order) of {@link #decodeBody}:
     * {@code header} is the {@value #HEADER} bytes after the length field, {@code payload} the payload (kept, not
     * copied), {@code crcOnWire} the trailing field, {@code crcComputed} the CRC32C of header and payload.
     *
     * @throws MalformedFrameException on a bad magic, version, kind or checksum
     */
    public static Frame decodeParts(byte[] header, byte[] payload, int crcOnWire, int crcComputed)
    {
        ByteBuffer b = ByteBuffer.wrap(header);
        int magic = b.getShort() & 0xffff;
        if (magic != MAGIC)
            throw new MalformedFrameException(String.format("bad magic 0x%04x", magic));
        int version = b.get() & 0xff;
        if (version != VERSION)
            throw new MalformedFrameException("unsupported frame version " + version);
        if (crcOnWire != crcComputed)
            throw new MalformedFrameException("CRC32C mismatch");
        Frame.Kind kind = Frame.Kind.ofCode(b.get() & 0xff);
        if (kind == null)
            throw new MalformedFrameException("unknown frame kind " + (header[3] & 0xff));
        long id = b.getLong();
        int verb = b.getShort() & 0xffff;
        return new Frame(kind, id, verb, payload);
    }

    /** Decodes a whole frame (length field included), as the in-memory transport receives it. */
    public static Frame decode(byte[] whole, int maxFrameBytes)
    {
        if (whole.length < LENGTH_FIELD)
            throw new MalformedFrameException("frame of " + whole.length + " bytes has no length field");
        long length = ByteBuffer.wrap(whole).getInt() & 0xffffffffL;
        checkLength(length, maxFrameBytes);
        if (length != whole.length - LENGTH_FIELD)
            throw new MalformedFrameException("length field " + length + " but " + (whole.length - LENGTH_FIELD) + " bytes follow");
        byte[] body = new byte[(int) length];
        System.arraycopy(whole, LENGTH_FIELD, body, 0, body.length);
        return decodeBody(body);
    }
}
