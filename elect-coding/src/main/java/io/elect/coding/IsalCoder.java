package io.elect.coding;

import java.nio.ByteBuffer;

/**
 * Backend {@code isal}: Intel ISA-L through JNI with ELECT's Cauchy matrix. ISA-L's expanded tables are built
 * once per matrix (encode, each update column, each cached erasure pattern) into a direct buffer, so a call
 * allocates nothing on the native side. Heap buffers cannot be handed to native code without copies; calls
 * with any heap buffer run the fast Java kernel, which produces the same bytes (tested).
 */
final class IsalCoder extends AbstractCoder<IsalCoder.Tables>
{
    /** Serves calls with heap buffers. */
    private final FastJavaCoder java;

    IsalCoder(int k, int m)
    {
        super(k, m);
        this.java = new FastJavaCoder(k, m);
    }

    static NativeLibrary library()
    {
        return IsalNative.LIBRARY;
    }

    @Override
    public String backend()
    {
        return "isal";
    }

    static final class Tables
    {
        final ByteBuffer tables;
        final int cols;
        final int rows;
        final FastJavaCoder.Plan javaPlan;

        Tables(byte[][] matrix)
        {
            this.rows = matrix.length;
            this.cols = matrix[0].length;
            byte[] flat = new byte[rows * cols];
            for (int r = 0; r < rows; r++)
                System.arraycopy(matrix[r], 0, flat, r * cols, cols);
            this.tables = ByteBuffer.allocateDirect(32 * rows * cols);
            IsalNative.initTables(cols, rows, flat, tables);
            this.javaPlan = new FastJavaCoder.Plan(matrix);
        }
    }

    @Override
    protected Tables prepare(byte[][] rows)
    {
        if (!IsalNative.LIBRARY.available())
            throw new IllegalStateException("ISA-L backend unavailable: " + IsalNative.LIBRARY.problem());
        return new Tables(rows);
    }

    @Override
    protected void multiply(Tables t, ByteBuffer[] in, int inOffset, ByteBuffer[] out, int outOffset, int len,
                            boolean accumulate)
    {
        if (NativeCoders.allDirect(in) && NativeCoders.allDirect(out))
            IsalNative.multiply(t.tables, t.cols, t.rows, in, inOffset, out, outOffset, len, accumulate);
        else
            java.multiply(t.javaPlan, in, inOffset, out, outOffset, len, accumulate);
    }
}
