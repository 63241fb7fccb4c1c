package io.elect.coding;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Whether the JNI libraries this run should test are really there. With {@code -Delect.native.required=true}
 * (what {@code scripts/elect test} passes, i.e. CI) a library that was not built or does not load FAILS the run,
 * naming the library and the Debian package that provides it; without the switch (a developer machine without
 * the -dev packages) it is a skip, and the other tests run the pure-Java backends only.
 */
class NativeLibrariesTest
{
    @Test
    void nativeLibrariesLoadWhenRequired()
    {
        List<String> missing = new ArrayList<>();
        for (String backend : List.of(ErasureCoders.ISAL, ErasureCoders.JERASURE))
        {
            String problem = ErasureCoders.unavailableReason(backend);
            if (problem != null)
                missing.add(backend + ": " + problem);
        }
        if (missing.isEmpty())
            return;
        String message = "native coder libraries unavailable:\n  " + String.join("\n  ", missing);
        if (Backends.nativeRequired())
            fail(message + "\n(-D" + Backends.NATIVE_REQUIRED + "=true: native backends must be tested; "
                 + "run scripts/setup, which installs the Debian packages, and rebuild)");
        assumeTrue(false, message + " (skipped: pass -D" + Backends.NATIVE_REQUIRED + "=true to make this fail)");
    }

    /** A library that the build packed into the jar must load: a packed but broken library is a bug, always. */
    @Test
    void packedNativeLibrariesLoad()
    {
        int packed = 0;
        for (String backend : List.of(ErasureCoders.ISAL, ErasureCoders.JERASURE))
        {
            String resource = NativeLibrary.RESOURCE_DIR + "libelect_" + backend + ".so";
            if (ErasureCoders.class.getResource(resource) == null)
                continue;
            packed++;
            assertTrue(ErasureCoders.isAvailable(backend), backend + ": " + ErasureCoders.unavailableReason(backend));
        }
        assumeTrue(packed > 0, "no JNI library was built");
    }

    /** With the switch on, the comparison tests include both native backends (they are not silently dropped). */
    @Test
    void requiredMeansTheDifferentialTestsIncludeNativeBackends()
    {
        assumeTrue(Backends.nativeRequired() && !Backends.nativeForcedOff(), "only with -D" + Backends.NATIVE_REQUIRED);
        assumeTrue(ErasureCoders.isAvailable(ErasureCoders.ISAL) && ErasureCoders.isAvailable(ErasureCoders.JERASURE),
                   "reported by nativeLibrariesLoadWhenRequired");
        assertTrue(Backends.all().containsAll(List.of(ErasureCoders.ISAL, ErasureCoders.JERASURE)), Backends.all().toString());
    }
}
