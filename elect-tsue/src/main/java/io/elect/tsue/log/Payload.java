package io.elect.tsue.log;

import java.util.Arrays;

/** A growable big-endian byte writer for record payloads (never Java serialization). Not thread-safe. */
public final class Payload
{
    private byte[] buf;
    private int len;

    public Payload(int capacity)
    {
        buf = new byte[Math.max(16, capacity)];
    }

    private void ensure(int n)
    {
        if (len + n > buf.length)
            buf = Arrays.copyOf(buf, Math.max(len + n, buf.length * 2));
    }

    public Payload u8(int v)
    {
        ensure(1);
        buf[len++] = (byte) v;
        return this;
    }

    public Payload u16(int v)
    {
        ensure(2);
        buf[len++] = (byte) (v >>> 8);
        buf[len++] = (byte) v;
        return this;
    }

    public Payload i32(int v)
    {
        ensure(4);
        for (int s = 24; s >= 0; s -= 8)
            buf[len++] = (byte) (v >>> s);
        return this;
    }

    public Payload i64(long v)
    {
        ensure(8);
        for (int s = 56; s >= 0; s -= 8)
            buf[len++] = (byte) (v >>> s);
        return this;
    }

    public Payload bytes(byte[] b, int off, int n)
    {
        ensure(n);
        System.arraycopy(b, off, buf, len, n);
        len += n;
        return this;
    }

    public int length()
    {
        return len;
    }

    public byte[] toBytes()
    {
        return Arrays.copyOf(buf, len);
    }
}
