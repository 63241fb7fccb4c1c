package io.elect.coding;

import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The factory of {@link ErasureCoder}s. Backends: {@code isal} (ISA-L via JNI), {@code jerasure} (Jerasure 2.0
 * + GF-Complete via JNI), {@code java} (fast pure Java), {@code java-reference} (slow, for tests). All of them
 * produce identical bytes for a codec id, so the backend changes speed only, never what is stored.
 *
 * <p>The configured name (the node's {@value #CONFIG_KEY} key) is turned into a backend by {@link #choose}, the
 * one place that rule lives:
 * <ul>
 *   <li>{@code auto}: ISA-L if its library loaded, else Jerasure if its library loaded, else the fast Java coder
 *       (measured: ISA-L is the fastest everywhere and Jerasure beats the Java coder on most shapes, see
 *       docs/PERFORMANCE.md, coding). The system property {@value #PROPERTY} (same values), if set, replaces this
 *       automatic choice, so that an operator or CI can force native code off with {@code -Delect.coder=java}.</li>
 *   <li>{@code isal} or {@code jerasure}: that backend, or a {@link CoderUnavailableException} naming the key and
 *       why its library is unavailable (not built, or built but not loadable); never a silent fallback.</li>
 *   <li>{@code java} (and {@code java-reference}): always available.</li>
 * </ul>
 * The choice is a pure function of the configured name, the {@link NativeBackends} state and the override, so
 * every rule is tested with golden cases; {@link #choose(String)} applies it to this process.
 */
public final class ErasureCoders
{
    private static final Logger logger = LoggerFactory.getLogger(ErasureCoders.class);

    /** The node configuration key whose value {@link #create(int, int, String)} and {@link #choose} take. */
    public static final String CONFIG_KEY = "elect.coder";

    /** System property that, when set, replaces the automatic choice of {@code auto}. */
    public static final String PROPERTY = "elect.coder";

    public static final String AUTO = "auto";
    public static final String ISAL = "isal";
    public static final String JERASURE = "jerasure";
    public static final String JAVA = "java";
    public static final String JAVA_REFERENCE = "java-reference";

    /** Logs the first choice made in this process, once (the node makes one at start-up). */
    private static final AtomicBoolean logged = new AtomicBoolean();

    private ErasureCoders()
    {
    }

    /** A coder of the backend {@code auto} chooses on this machine. */
    public static ErasureCoder create(int k, int m)
    {
        return create(k, m, AUTO);
    }

    /**
     * A coder for stripes of k data and m parity chunks with the backend {@link #choose(String) chosen} for a
     * configured name.
     *
     * @param configured {@code auto|isal|jerasure|java|java-reference} (case-insensitive; null or blank means auto)
     * @throws IllegalArgumentException   for an unknown name or a bad k, m
     * @throws CoderUnavailableException if a native backend is asked for explicitly but is unavailable
     */
    public static ErasureCoder create(int k, int m, String configured)
    {
        CauchyMatrix.checkShape(k, m);
        return choose(configured).create(k, m);
    }

    /**
     * The backend this process uses for a configured name, and why (see the class comment for the rule): what a
     * node calls once at start-up with its {@value #CONFIG_KEY} value, to fail early on an unusable explicit
     * choice and to report what {@code auto} resolved to. Loads the JNI libraries on first use.
     *
     * @throws IllegalArgumentException   for an unknown name
     * @throws CoderUnavailableException if a native backend is asked for explicitly but is unavailable
     */
    public static CoderChoice choose(String configured)
    {
        CoderChoice choice = choose(configured, NativeBackends.loaded(), System.getProperty(PROPERTY));
        if (logged.compareAndSet(false, true))
            logger.info("Erasure coder backend: {} ({}); {}", choice.backend(), choice.reason(), choice.natives().describe());
        return choice;
    }

    /**
     * The rule itself, a pure function: the backend for a configured name given which native libraries are
     * available and the value of the {@value #PROPERTY} system property (null if unset).
     *
     * @throws IllegalArgumentException   for an unknown configured name or override
     * @throws CoderUnavailableException if a native backend is asked for explicitly but natives says it is not
     *                                    available
     */
    public static CoderChoice choose(String configured, NativeBackends natives, String override)
    {
        String name = normalise(configured);
        checkKnown(name, CONFIG_KEY);
        if (!name.equals(AUTO))
        {
            String problem = natives.problem(name);
            if (problem != null)
                throw new CoderUnavailableException(CONFIG_KEY, name, problem);
            return new CoderChoice(name, name, CONFIG_KEY + ": " + name, natives);
        }
        String forced = normalise(override);
        if (!forced.equals(AUTO))
        {
            String setting = "-D" + PROPERTY + " (system property)";
            checkKnown(forced, setting);
            String problem = natives.problem(forced);
            if (problem != null)
                throw new CoderUnavailableException(setting, forced, problem);
            return new CoderChoice(AUTO, forced, "auto, overridden by -D" + PROPERTY + "=" + forced, natives);
        }
        if (natives.available(ISAL))
            return new CoderChoice(AUTO, ISAL, "auto: ISA-L loaded", natives);
        String noIsal = "auto: ISA-L unavailable (" + natives.isalProblem() + ")";
        if (natives.available(JERASURE))
            return new CoderChoice(AUTO, JERASURE, noIsal + "; Jerasure loaded", natives);
        return new CoderChoice(AUTO, JAVA, noIsal + "; Jerasure unavailable (" + natives.jerasureProblem()
                                           + "); fast pure-Java coder", natives);
    }

    /** Makes the coder of a backend already chosen (never auto). */
    static ErasureCoder instantiate(int k, int m, String backend)
    {
        CauchyMatrix.checkShape(k, m);
        switch (backend)
        {
            case ISAL:
                requireLoaded(ISAL, IsalCoder.library());
                return new IsalCoder(k, m);
            case JERASURE:
                requireLoaded(JERASURE, JerasureCoder.library());
                return new JerasureCoder(k, m);
            case JAVA:
                return new FastJavaCoder(k, m);
            case JAVA_REFERENCE:
                return new ReferenceCoder(k, m);
            default:
                throw new IllegalArgumentException("not a concrete backend: '" + backend + "'");
        }
    }

    private static String normalise(String name)
    {
        return name == null || name.isBlank() ? AUTO : name.trim().toLowerCase(Locale.ROOT);
    }

    private static void checkKnown(String name, String setting)
    {
        switch (name)
        {
            case AUTO:
            case ISAL:
            case JERASURE:
            case JAVA:
            case JAVA_REFERENCE:
                return;
            default:
                throw new IllegalArgumentException(setting + " must be one of auto|isal|jerasure|java|java-reference, got '"
                                                   + name + "'");
        }
    }

    /** Guards coders made from an injected (test) NativeBackends that claims a library this process lacks. */
    private static void requireLoaded(String backend, NativeLibrary library)
    {
        if (!library.available())
            throw new CoderUnavailableException(CONFIG_KEY, backend, library.problem());
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

    /** Whether a backend can be created on this machine (pure-Java backends and auto always can). */
    public static boolean isAvailable(String backend)
    {
        String name = normalise(backend);
        return name.equals(AUTO) || NativeBackends.loaded().available(name);
    }

    /** Why a backend is unavailable on this machine, or null if it is available. */
    public static String unavailableReason(String backend)
    {
        String name = normalise(backend);
        return name.equals(AUTO) ? null : NativeBackends.loaded().problem(name);
    }

    /** The backend {@code auto} resolves to in this process: {@code choose("auto").backend()}. */
    public static String autoBackend()
    {
        return choose(AUTO).backend();
    }
}
