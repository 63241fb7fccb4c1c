package io.elect.core.transition.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The primitive encoding of ELECT verb payloads (docs/formats/verbs.md): big-endian fixed-width integers, strings as
 * a 4-byte length then UTF-8, nullable strings with length -1, byte arrays as a 4-byte length then bytes. Every
 * payload starts with a one-byte version. Frames carry the CRC32C and the length limit, so payloads do not repeat
 * them. Decoding never trusts a length: it is checked against the bytes left, and a bad payload is an
 * IllegalArgumentException naming the field.
 */
public final class Wire
{
    private Wire()
    {
    }

    /** Append-only writer. */
    public static final class Writer
    {
        private ByteBuffer buf = ByteBuffer.allocate(256);

        public Writer(int version)
        {
            u8(version);
        }

        private void ensure(int n)
        {
            if (buf.remaining() < n)
            {
                ByteBuffer bigger = ByteBuffer.allocate(Math.max(buf.capacity() * 2, buf.position() + n));
                buf.flip();
                bigger.put(buf);
                buf = bigger;
            }
        }

        public Writer u8(int v)
        {
            ensure(1);
            buf.put((byte) v);
            return this;
        }

        public Writer bool(boolean v)
        {
            return u8(v ? 1 : 0);
        }

        public Writer i32(int v)
        {
            ensure(4);
            buf.putInt(v);
            return this;
        }

        public Writer i64(long v)
        {
            ensure(8);
            buf.putLong(v);
            return this;
        }

        public Writer f64(double v)
        {
            ensure(8);
            buf.putDouble(v);
            return this;
        }

        public Writer str(String s)
        {
            if (s == null)
                return i32(-1);
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            i32(b.length);
            ensure(b.length);
            buf.put(b);
            return this;
        }

        public Writer bytes(byte[] b)
        {
            i32(b.length);
            ensure(b.length);
            buf.put(b);
            return this;
        }

        public Writer strings(List<String> list)
        {
            i32(list.size());
            for (String s : list)
                str(s);
            return this;
        }

        public byte[] toBytes()
        {
            byte[] out = new byte[buf.position()];
            buf.duplicate().flip().get(out);
            return out;
        }
    }

    /** Sequential reader; {@link #end()} checks nothing is left over. */
    public static final class Reader
    {
        private final ByteBuffer buf;
        private final String what;

        private final int version;

        /** @param expectedVersion the only version this reader understands */
        public Reader(byte[] payload, int expectedVersion, String what)
        {
            this(payload, expectedVersion, expectedVersion, what);
        }

        /** A payload of any version in [minVersion, maxVersion]; {@link #version()} says which. */
        public Reader(byte[] payload, int minVersion, int maxVersion, String what)
        {
            this.buf = ByteBuffer.wrap(payload);
            this.what = what;
            int v = u8("version");
            if (v < minVersion || v > maxVersion)
                throw new IllegalArgumentException(what + ": unsupported payload version " + v + " (this node reads "
                                                   + (minVersion == maxVersion ? String.valueOf(minVersion) : minVersion + ".." + maxVersion) + ")");
            this.version = v;
        }

        public int version()
        {
            return version;
        }

        private void need(int n, String field)
        {
            if (n < 0 || buf.remaining() < n)
                throw new IllegalArgumentException(what + ": truncated at field '" + field + "' (needs " + n + " bytes, " + buf.remaining() + " left)");
        }

        public int u8(String field)
        {
            need(1, field);
            return buf.get() & 0xff;
        }

        public boolean bool(String field)
        {
            int v = u8(field);
            if (v > 1)
                throw new IllegalArgumentException(what + ": field '" + field + "' must be 0 or 1, was " + v);
            return v == 1;
        }

        public int i32(String field)
        {
            need(4, field);
            return buf.getInt();
        }

        public long i64(String field)
        {
            need(8, field);
            return buf.getLong();
        }

        public double f64(String field)
        {
            need(8, field);
            return buf.getDouble();
        }

        public String str(String field)
        {
            int len = i32(field);
            if (len == -1)
                return null;
            need(len, field);
            byte[] b = new byte[len];
            buf.get(b);
            return new String(b, StandardCharsets.UTF_8);
        }

        public byte[] bytes(String field)
        {
            int len = i32(field);
            need(len, field);
            byte[] b = new byte[len];
            buf.get(b);
            return b;
        }

        public List<String> strings(String field)
        {
            int n = count(field, 4);
            List<String> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++)
            {
                String s = str(field);
                if (s == null) // str's null marker is for optional fields, never a list entry
                    throw new IllegalArgumentException(what + ": null entry " + i + " in list field '" + field + "'");
                out.add(s);
            }
            return out;
        }

        /** A list length, checked against the bytes left assuming at least {@code minEntryBytes} per entry. */
        public int count(String field, int minEntryBytes)
        {
            int n = i32(field);
            if (n < 0 || (long) n * minEntryBytes > buf.remaining())
                throw new IllegalArgumentException(what + ": bad count " + n + " for field '" + field + "'");
            return n;
        }

        public void end()
        {
            if (buf.hasRemaining())
                throw new IllegalArgumentException(what + ": " + buf.remaining() + " unexpected trailing bytes");
        }
    }
}
