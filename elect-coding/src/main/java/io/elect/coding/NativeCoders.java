package io.elect.coding;

import java.nio.ByteBuffer;

/** Helpers of the JNI-backed coders. */
final class NativeCoders
{
    private NativeCoders()
    {
    }

    static boolean allDirect(ByteBuffer[] buffers)
    {
        for (ByteBuffer b : buffers)
            if (!b.isDirect())
                return false;
        return true;
    }
}
