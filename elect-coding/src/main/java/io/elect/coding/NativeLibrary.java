package io.elect.coding;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads one JNI codec library packed in the jar (built by the Maven build, see src/main/native/build.sh) by
 * copying it to a temporary file and calling {@link System#load}. Loading happens at most once per library
 * per class loader; the outcome, success or the reason of failure, is kept for logs and for the factory. A
 * reason always says which of the two things went wrong, and which Debian packages put it right: the library was
 * not built (its -dev packages or gcc were missing when the jar was built), or it was built but does not load
 * here (its run-time packages are missing, wrong platform, a broken build).
 */
final class NativeLibrary
{
    private static final Logger logger = LoggerFactory.getLogger(NativeLibrary.class);
    static final String RESOURCE_DIR = "/io/elect/coding/native/linux-x86_64/";

    /** Null when loaded, otherwise why not (library missing from the jar, wrong platform, link error...). */
    private final String problem;
    private final String name;
    private final String buildPackages;

    private NativeLibrary(String name, String buildPackages, String problem)
    {
        this.name = name;
        this.buildPackages = buildPackages;
        this.problem = problem;
    }

    boolean available()
    {
        return problem == null;
    }

    String problem()
    {
        return problem;
    }

    String name()
    {
        return name;
    }

    /** The file name of the library, e.g. {@code libelect_isal.so}. */
    String fileName()
    {
        return "lib" + name + ".so";
    }

    /** The Debian packages the build needs to compile this library, e.g. {@code libisal-dev}. */
    String buildPackages()
    {
        return buildPackages;
    }

    /**
     * Loads lib{name}.so and runs {@code probe}, which must call into the real library; the library is usable
     * only if the probe returns {@code expectedProbe}.
     *
     * @param buildPackages  the Debian packages without which build.sh skips this library (named in the reason)
     * @param runtimePackages the Debian packages it links against at run time (named in the reason)
     */
    static NativeLibrary load(String name, String buildPackages, String runtimePackages,
                              java.util.function.IntSupplier probe, int expectedProbe)
    {
        String file = "lib" + name + ".so";
        String os = System.getProperty("os.name", "").toLowerCase();
        String arch = System.getProperty("os.arch", "");
        if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64")))
            return new NativeLibrary(name, buildPackages, file + " not built: no native build for " + os + "/" + arch);
        String resource = RESOURCE_DIR + file;
        try (InputStream in = NativeLibrary.class.getResourceAsStream(resource))
        {
            if (in == null)
                return new NativeLibrary(name, buildPackages,
                                         file + " not built (not in the jar at " + resource + "): the Debian package(s) "
                                         + buildPackages + " or gcc were missing when elect-coding was built; "
                                         + "install them (scripts/setup does) and rebuild");
            Path copy = Files.createTempFile("lib" + name + "-", ".so");
            try
            {
                Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
                System.load(copy.toAbsolutePath().toString());
            }
            finally
            {
                // The mapping outlives the file on Linux: unlinking now leaves no copy behind in /tmp even when the
                // JVM is killed (deleteOnExit did not run for killed nodes: 104 stale copies piled up here).
                Files.deleteIfExists(copy);
            }
            int got = probe.getAsInt();
            if (got != expectedProbe)
                return new NativeLibrary(name, buildPackages,
                                         file + " loaded but is broken: probe returned " + got + ", expected " + expectedProbe);
            return new NativeLibrary(name, buildPackages, null);
        }
        catch (IOException | LinkageError | SecurityException e)
        {
            logger.debug("Loading native library {} failed", name, e);
            return new NativeLibrary(name, buildPackages,
                                     file + " built but not loadable: " + e.getClass().getSimpleName() + ": "
                                     + e.getMessage() + " (are the Debian package(s) " + runtimePackages + " installed?)");
        }
    }
}
