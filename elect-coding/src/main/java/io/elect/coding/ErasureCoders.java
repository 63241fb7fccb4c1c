package io.elect.coding;

import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The factory of {@link ErasureCoder}s. Backends: {@code isal} (ISA-L via JNI), {@code jerasure} (Jerasure 2.0
 * + GF-Complete via JNI), {@code java} (fast pure Java), {@code java-reference} (slow, for tests), and
 * {@code auto}: the best available, that is isal, else java (Jerasure is never chosen automatically: it is
 * slower than ISA-L and not faster than the Java coder). All of them produce identical bytes for a codec id.
 *
 * <p>{@code auto} honours the system property {@value #PROPERTY} (same values), so that an operator or CI can
 * force native code off with {@code -Delect.coder=java}. The outcome of the automatic choice, and why a native
 * library is missing, is logged once at INFO.
 */
public final class ErasureCoders
{
    private static final Logger logger = LoggerFactory.getLogger(ErasureCoders.class);

    /** System property read by {@code auto}. */
    public static final String PROPERTY = "elect.coder";

    public static final String AUTO = "auto";
    public static final String ISAL = "isal";
    public static final String JERASURE = "jerasure";
    public static final String JAVA = "java";
    public static final String JAVA_REFERENCE = "java-reference";

    private static final AtomicBoolean logged = new AtomicBoolean();

    private ErasureCoders()
    {
    }

    /** A coder of the best available backend (see {@link #autoBackend()}). */
    public static ErasureCoder create(int k, int m)
    {
        return create(k, m, AUTO);
    }

    /**
     * @param backend {@code auto|isal|jerasure|java|java-reference} (case-insensitive; null means auto)
     * @throws IllegalArgumentException for an unknown backend or a bad k, m
     * @throws IllegalStateException    if a native backend is asked for explicitly but cannot be loaded
     */
    public static ErasureCoder create(int k, int m, String backend)
    {
        CauchyMatrix.checkShape(k, m);
        String b = backend == null ? AUTO : backend.trim().toLowerCase(Locale.ROOT);
        switch (b)
        {
            case AUTO:
                return create(k, m, autoBackend());
            case ISAL:
                requireAvailable(IsalCoder.library());
                return new IsalCoder(k, m);
            case JERASURE:
                requireAvailable(JerasureCoder.library());
                return new JerasureCoder(k, m);
            case JAVA:
                return new FastJavaCoder(k, m);
            case JAVA_REFERENCE:
                return new ReferenceCoder(k, m);
            default:
                throw new IllegalArgumentException("backend must be one of auto|isal|jerasure|java|java-reference, got '"
                                                   + backend + "'");
        }
    }

    /** Alignment of {@link #allocateAligned}: a cache line, and the width of an AVX-512 vector. */
    public static final int ALIGNMENT = 64;

    /**
     * A zeroed direct buffer of {@code size} bytes whose first byte is 64-byte aligned: the fastest input for
     * the native coders (ISA-L's AVX-512 loads then never straddle cache lines; measured ~15% faster than 16-byte
     * aligned chunks at 64 KiB). Any buffer works; this one is merely the quickest.
     */
    public static ByteBuffer allocateAligned(int size)
    {
        if (size < 0)
            throw new IllegalArgumentException("size must be >= 0, got " + size);
        // Not alignedSlice(): it rounds the capacity down to the alignment, which can leave less than size.
        ByteBuffer b = ByteBuffer.allocateDirect(size + ALIGNMENT - 1);
        int misalignment = b.alignmentOffset(0, ALIGNMENT);
        int start = misalignment == 0 ? 0 : ALIGNMENT - misalignment;
        return b.position(start).limit(start + size).slice();
    }

    /** Whether a backend can be created on this machine (pure-Java backends always can). */
    public static boolean isAvailable(String backend)
    {
        switch (backend.trim().toLowerCase(Locale.ROOT))
        {
            case ISAL:
                return IsalCoder.library().available();
            case JERASURE:
                return JerasureCoder.library().available();
            case AUTO:
            case JAVA:
            case JAVA_REFERENCE:
                return true;
            default:
                throw new IllegalArgumentException("unknown backend '" + backend + "'");
        }
    }

    /** Why a native backend is unavailable, or null if it is available (or not native). */
    public static String unavailableReason(String backend)
    {
        switch (backend.trim().toLowerCase(Locale.ROOT))
        {
            case ISAL:
                return IsalCoder.library().problem();
            case JERASURE:
                return JerasureCoder.library().problem();
            default:
                return null;
        }
    }

    /**
     * The backend {@code auto} resolves to: the system property {@value #PROPERTY} if set to a concrete backend
     * (falling back to java, with a warning, if that backend is unavailable), else isal if it loads, else java.
     */
    public static String autoBackend()
    {
        String forced = System.getProperty(PROPERTY, AUTO).trim().toLowerCase(Locale.ROOT);
        String chosen;
        String why;
        if (!forced.equals(AUTO) && !forced.isEmpty())
        {
            if (!isAvailable(forced))
            {
                chosen = JAVA;
                why = "-D" + PROPERTY + "=" + forced + " asked for, but it is unavailable: " + unavailableReason(forced);
            }
            else
            {
                chosen = forced;
                why = "forced by -D" + PROPERTY + "=" + forced;
            }
        }
        else if (IsalCoder.library().available())
        {
            chosen = ISAL;
            why = "ISA-L native library loaded";
        }
        else
        {
            chosen = JAVA;
            why = "ISA-L unavailable (" + IsalCoder.library().problem() + ")";
        }
        if (logged.compareAndSet(false, true))
            logger.info("Erasure coder backend: {} ({}); jerasure {}", chosen, why,
                        JerasureCoder.library().available() ? "available" : "unavailable: " + JerasureCoder.library().problem());
        return chosen;
    }

    private static void requireAvailable(NativeLibrary library)
    {
        if (!library.available())
            throw new IllegalStateException("native codec " + library.name() + " unavailable: " + library.problem());
    }
}
