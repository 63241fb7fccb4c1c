package io.elect.coding;

import java.nio.ByteBuffer;

/** JNI entry points of libelect_jerasure.so (src/main/native/elect_jerasure.c). */
final class JerasureNative
{
    /** 2 * 0x80 in GF(2^8)/0x11d. */
    private static final int PROBE = 0x1d;

    static final NativeLibrary LIBRARY = NativeLibrary.load("elect_jerasure", "libjerasure-dev libgf-complete-dev",
                                                            "libjerasure2 libgf-complete1", JerasureNative::probe, PROBE);

    private JerasureNative()
    {
    }

    static native int probe();

    /** out[r] (^)= sum_c matrix[r*cols+c] * in[c] over [offset, offset+len), w = 8; all buffers direct. */
    static native void multiply(int[] matrix, int cols, int rows, ByteBuffer[] in, int inOffset, ByteBuffer[] out,
                                int outOffset, int len, boolean accumulate);
}
