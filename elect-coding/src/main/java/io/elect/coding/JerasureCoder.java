package io.elect.coding;

import java.nio.ByteBuffer;

/**
 * Backend {@code jerasure}: Jerasure 2.0 + GF-Complete through JNI, w = 8, with ELECT's Cauchy matrix. Calls
 * with any heap buffer run the fast Java kernel, which produces the same bytes (tested).
 */
final class JerasureCoder extends AbstractCoder<JerasureCoder.Matrix>
{
    /** Serves calls with heap buffers. */
    private final FastJavaCoder java;

    JerasureCoder(int k, int m)
    {
        super(k, m);
        this.java = new FastJavaCoder(k, m);
    }

    static NativeLibrary library()
    {
        return JerasureNative.LIBRARY;
    }

    @Override
    public String backend()
    {
        return "jerasure";
    }

    static final class Matrix
    {
        final int[] flat;
        final int cols;
        final int rows;
        final FastJavaCoder.Plan javaPlan;

        Matrix(byte[][] matrix)
        {
            this.rows = matrix.length;
            this.cols = matrix[0].length;
            this.flat = new int[rows * cols];
            for (int r = 0; r < rows; r++)
                for (int c = 0; c < cols; c++)
                    flat[r * cols + c] = matrix[r][c] & 0xff;
            this.javaPlan = new FastJavaCoder.Plan(matrix);
        }
    }

    @Override
    protected Matrix prepare(byte[][] rows)
    {
        if (!JerasureNative.LIBRARY.available())
            throw new IllegalStateException("Jerasure backend unavailable: " + JerasureNative.LIBRARY.problem());
        return new Matrix(rows);
    }

    @Override
    protected void multiply(Matrix p, ByteBuffer[] in, int inOffset, ByteBuffer[] out, int outOffset, int len,
                            boolean accumulate)
    {
        if (NativeCoders.allDirect(in) && NativeCoders.allDirect(out))
            JerasureNative.multiply(p.flat, p.cols, p.rows, in, inOffset, out, outOffset, len, accumulate);
        else
            java.multiply(p.javaPlan, in, inOffset, out, outOffset, len, accumulate);
    }
}
