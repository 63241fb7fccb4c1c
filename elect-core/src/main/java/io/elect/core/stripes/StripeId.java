package io.elect.core.stripes;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Objects;

/**
 * A 128-bit stripe id, written as 32 lower-case hex digits. Ids of planned stripes are derived from their members
 * ({@link #ofMembers}), so that re-planning the same stripe after a crash yields the same id (idempotent planning).
 */
public record StripeId(long hi, long lo) implements Comparable<StripeId>
{
    /** SHA-256 of "elect-stripe-v1" and the member descriptors (in order, each length-prefixed), first 16 bytes. */
    public static StripeId ofMembers(List<String> memberDescriptors)
    {
        Objects.requireNonNull(memberDescriptors, "memberDescriptors");
        try
        {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update("elect-stripe-v1".getBytes(StandardCharsets.UTF_8));
            for (String m : memberDescriptors)
            {
                byte[] b = m.getBytes(StandardCharsets.UTF_8);
                d.update(new byte[]{ (byte) (b.length >>> 24), (byte) (b.length >>> 16), (byte) (b.length >>> 8), (byte) b.length });
                d.update(b);
            }
            byte[] h = d.digest();
            return new StripeId(readLong(h, 0), readLong(h, 8));
        }
        catch (NoSuchAlgorithmException e)
        {
            throw new AssertionError("SHA-256 is required by every JRE", e);
        }
    }

    public static StripeId parse(String hex)
    {
        Objects.requireNonNull(hex, "hex");
        if (hex.length() != 32 || !hex.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            throw new IllegalArgumentException("stripe id must be 32 lower-case hex digits, was '" + hex + "'");
        return new StripeId(Long.parseUnsignedLong(hex.substring(0, 16), 16), Long.parseUnsignedLong(hex.substring(16), 16));
    }

    /** The 16 big-endian bytes of the id. */
    public byte[] toBytes()
    {
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++)
        {
            b[i] = (byte) (hi >>> (56 - 8 * i));
            b[8 + i] = (byte) (lo >>> (56 - 8 * i));
        }
        return b;
    }

    public static StripeId fromBytes(byte[] b)
    {
        if (b == null || b.length != 16)
            throw new IllegalArgumentException("stripe id bytes must be 16 bytes long");
        return new StripeId(readLong(b, 0), readLong(b, 8));
    }

    private static long readLong(byte[] b, int off)
    {
        long v = 0;
        for (int i = 0; i < 8; i++)
            v = (v << 8) | (b[off + i] & 0xff);
        return v;
    }

    @Override
    public int compareTo(StripeId o)
    {
        int c = Long.compareUnsigned(hi, o.hi);
        return c != 0 ? c : Long.compareUnsigned(lo, o.lo);
    }

    @Override
    public String toString()
    {
        return String.format("%016x%016x", hi, lo);
    }
}
