package io.elect.coding;

import java.nio.ByteBuffer;

/** JNI entry points of libelect_isal.so (src/main/native/elect_isal.c). Load through {@link #LIBRARY} first. */
final class IsalNative
{
    /** 2 * 0x80 in GF(2^8)/0x11d. */
    private static final int PROBE = 0x1d;

    static final NativeLibrary LIBRARY =
        NativeLibrary.load("elect_isal", "libisal-dev", "libisal2", IsalNative::probe, PROBE);

    private IsalNative()
    {
    }

    static native int probe();

    /** ec_init_tables of the rows x cols matrix (row-major) into tables (direct, 32*cols*rows bytes). */
    static native void initTables(int cols, int rows, byte[] matrix, ByteBuffer tables);

    /** out[r] (^)= sum_c matrix[r][c] * in[c] over [offset, offset+len); all buffers direct. */
    static native void multiply(ByteBuffer tables, int cols, int rows, ByteBuffer[] in, int inOffset,
                                ByteBuffer[] out, int outOffset, int len, boolean accumulate);
}
