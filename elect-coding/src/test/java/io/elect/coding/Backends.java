package io.elect.coding;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Test helpers: which backends this run exercises, and buffers with random placement. */
final class Backends
{
    private Backends()
    {
    }

    /** True when CI runs the suite with native code forced off ({@code -Delect.coder=java}). */
    static boolean nativeForcedOff()
    {
        return ErasureCoders.JAVA.equals(System.getProperty(ErasureCoders.PROPERTY));
    }

    /** System property under which a native library that did not load fails the build instead of being skipped. */
    static final String NATIVE_REQUIRED = "elect.native.required";

    /** True when the run demands both JNI libraries (CI's normal runs: {@code -Delect.native.required=true}). */
    static boolean nativeRequired()
    {
        return Boolean.getBoolean(NATIVE_REQUIRED);
    }

    static boolean nativeUsable(String backend)
    {
        return !nativeForcedOff() && ErasureCoders.isAvailable(backend);
    }

    /**
     * Every backend to compare: both Java coders always, the native ones when loaded and not forced off. A native
     * library that did not load is left out here; {@code NativeLibrariesTest} is what fails the run for it when
     * {@link #nativeRequired()}, with one message naming the library and its Debian package.
     */
    static List<String> all()
    {
        List<String> list = new ArrayList<>(List.of(ErasureCoders.JAVA_REFERENCE, ErasureCoders.JAVA));
        for (String b : List.of(ErasureCoders.ISAL, ErasureCoders.JERASURE))
            if (nativeUsable(b))
                list.add(b);
        return list;
    }

    /** The fast backends (all but the reference). */
    static List<String> fast()
    {
        List<String> list = all();
        list.remove(ErasureCoders.JAVA_REFERENCE);
        return list;
    }

    static long seed(String testName)
    {
        long seed = Long.getLong("elect.test.seed", System.nanoTime());
        System.out.println(testName + ": seed " + seed + " (replay with -Delect.test.seed=" + seed + ")");
        return seed;
    }

    /**
     * A buffer of {@code size} bytes, direct or heap at random, sliced out of a larger one at a random start so
     * that native code sees every pointer alignment.
     */
    static ByteBuffer buffer(Random random, int size, boolean direct)
    {
        int skew = random.nextInt(17);
        ByteBuffer b = direct ? ByteBuffer.allocateDirect(size + skew) : ByteBuffer.allocate(size + skew);
        b.position(skew);
        return b.slice();
    }

    static ByteBuffer randomBuffer(Random random, int size, boolean direct)
    {
        ByteBuffer b = buffer(random, size, direct);
        byte[] bytes = new byte[size];
        random.nextBytes(bytes);
        b.put(0, bytes);
        return b;
    }

    static ByteBuffer copy(ByteBuffer b, boolean direct)
    {
        ByteBuffer c = direct ? ByteBuffer.allocateDirect(b.capacity()) : ByteBuffer.allocate(b.capacity());
        c.put(0, b, 0, b.capacity());
        return c;
    }

    static byte[] bytes(ByteBuffer b, int offset, int len)
    {
        byte[] out = new byte[len];
        b.get(offset, out);
        return out;
    }
}
