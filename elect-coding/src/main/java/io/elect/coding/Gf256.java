package io.elect.coding;

/**
 * Arithmetic in GF(2^8) with the field polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11d), the polynomial of ISA-L
 * and of Jerasure/GF-Complete for w = 8. Elements are ints in [0, 255]. Addition is XOR.
 *
 * <p>Stateless and thread-safe; the tables are built once when the class loads.
 */
public final class Gf256
{
    /** The field polynomial, including the x^8 term. DO NOT CHANGE: it is part of every stored codec id. */
    public static final int POLYNOMIAL = 0x11d;

    private static final int[] EXP = new int[512];
    private static final int[] LOG = new int[256];
    /** MUL[a * 256 + b] = a * b, for byte-at-a-time kernels (64 KiB, fits L2). */
    private static final byte[] MUL = new byte[256 * 256];

    static
    {
        int x = 1;
        for (int i = 0; i < 255; i++)
        {
            EXP[i] = x;
            LOG[x] = i;
            x <<= 1;
            if ((x & 0x100) != 0)
                x ^= POLYNOMIAL;
        }
        // 2 generates the multiplicative group of this field, so the cycle must close after exactly 255 steps.
        if (x != 1)
            throw new AssertionError("0x11d with generator 2 is not primitive");
        for (int i = 255; i < EXP.length; i++)
            EXP[i] = EXP[i - 255];
        for (int a = 0; a < 256; a++)
            for (int b = 0; b < 256; b++)
                MUL[(a << 8) | b] = (byte) slowMul(a, b);
    }

    private Gf256()
    {
    }

    public static int mul(int a, int b)
    {
        return MUL[(a << 8) | b] & 0xff;
    }

    /** The 256-byte row of products {@code a * b} for b = 0..255, as an offset into {@link #mulTable()}. */
    static int rowOffset(int a)
    {
        return a << 8;
    }

    /** The full product table; callers must not modify it. Kept package-private for that reason. */
    static byte[] mulTable()
    {
        return MUL;
    }

    public static int inv(int a)
    {
        if (a == 0)
            throw new ArithmeticException("0 has no inverse in GF(2^8)");
        return EXP[255 - LOG[a]];
    }

    public static int div(int a, int b)
    {
        return mul(a, inv(b));
    }

    /** Carry-less multiply and reduce, bit by bit: the definition the tables are checked against. */
    static int slowMul(int a, int b)
    {
        int r = 0;
        while (b != 0)
        {
            if ((b & 1) != 0)
                r ^= a;
            a <<= 1;
            if ((a & 0x100) != 0)
                a ^= POLYNOMIAL;
            b >>>= 1;
        }
        return r;
    }
}
