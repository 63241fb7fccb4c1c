package io.elect.coding;

import java.util.Locale;

/**
 * Which native coder backends this process can use, and why not: the one input of the backend choice
 * ({@link ErasureCoders#choose(String, NativeBackends, String)}) that depends on the machine. {@link #loaded()}
 * is the truth of this process (loading each JNI library at most once); tests build their own with
 * {@link #of(String, String)} to check the choice for every combination without faking a coder. Immutable.
 *
 * @param isalProblem     null if libelect_isal.so loaded, else why not (not built / not loadable, and the Debian
 *                        package that provides it)
 * @param jerasureProblem the same for libelect_jerasure.so
 */
public record NativeBackends(String isalProblem, String jerasureProblem)
{
    /** What this process loaded (loads the JNI libraries on first call; never throws). */
    public static NativeBackends loaded()
    {
        return new NativeBackends(IsalCoder.library().problem(), JerasureCoder.library().problem());
    }

    /** An injected state, for tests: null means loaded, anything else is the reason it is not. */
    public static NativeBackends of(String isalProblem, String jerasureProblem)
    {
        return new NativeBackends(isalProblem, jerasureProblem);
    }

    /** Whether backend can be created: the pure-Java ones always, a native one if its library loaded. */
    public boolean available(String backend)
    {
        return problem(backend) == null;
    }

    /**
     * Why backend cannot be created, or null if it can.
     *
     * @throws IllegalArgumentException for a name that is not a backend ({@code auto} is not one)
     */
    public String problem(String backend)
    {
        switch (backend.trim().toLowerCase(Locale.ROOT))
        {
            case ErasureCoders.ISAL:
                return isalProblem;
            case ErasureCoders.JERASURE:
                return jerasureProblem;
            case ErasureCoders.JAVA:
            case ErasureCoders.JAVA_REFERENCE:
                return null;
            default:
                throw new IllegalArgumentException("unknown backend '" + backend + "'");
        }
    }

    /** One line for logs and status, e.g. {@code isal loaded; jerasure unavailable: ...}. */
    public String describe()
    {
        return "isal " + (isalProblem == null ? "loaded" : "unavailable: " + isalProblem)
               + "; jerasure " + (jerasureProblem == null ? "loaded" : "unavailable: " + jerasureProblem);
    }
}
