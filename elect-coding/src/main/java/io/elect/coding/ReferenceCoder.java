package io.elect.coding;

import java.nio.ByteBuffer;

/**
 * Backend {@code java-reference}: one byte at a time through the product table. Slow and obviously correct;
 * every other backend is tested byte for byte against it.
 */
final class ReferenceCoder extends AbstractCoder<byte[][]>
{
    ReferenceCoder(int k, int m)
    {
        super(k, m);
    }

    @Override
    public String backend()
    {
        return "java-reference";
    }

    @Override
    protected byte[][] prepare(byte[][] rows)
    {
        byte[][] copy = new byte[rows.length][];
        for (int r = 0; r < rows.length; r++)
            copy[r] = rows[r].clone();
        return copy;
    }

    @Override
    protected void multiply(byte[][] rows, ByteBuffer[] in, int inOffset, ByteBuffer[] out, int outOffset, int len,
                            boolean accumulate)
    {
        for (int r = 0; r < rows.length; r++)
        {
            for (int x = 0; x < len; x++)
            {
                int v = accumulate ? out[r].get(outOffset + x) & 0xff : 0;
                for (int c = 0; c < in.length; c++)
                    v ^= Gf256.mul(rows[r][c] & 0xff, in[c].get(inOffset + x) & 0xff);
                out[r].put(outOffset + x, (byte) v);
            }
        }
    }
}
