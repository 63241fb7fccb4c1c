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
 * per class loader; the outcome, success or the reason of failure, is kept for logs and for the factory.
 */
final class NativeLibrary
{
    private static final Logger logger = LoggerFactory.getLogger(NativeLibrary.class);
    static final String RESOURCE_DIR = "/io/elect/coding/native/linux-x86_64/";

    /** Null when loaded, otherwise why not (library missing from the jar, wrong platform, link error...). */
    private final String problem;
    private final String name;

    private NativeLibrary(String name, String problem)
    {
        this.name = name;
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

    /**
     * Loads lib{name}.so and runs {@code probe}, which must call into the real library; the library is usable
     * only if the probe returns {@code expectedProbe}.
     */
    static NativeLibrary load(String name, java.util.function.IntSupplier probe, int expectedProbe)
    {
        String os = System.getProperty("os.name", "").toLowerCase();
        String arch = System.getProperty("os.arch", "");
        if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64")))
            return new NativeLibrary(name, "no native build for " + os + "/" + arch);
        String resource = RESOURCE_DIR + "lib" + name + ".so";
        try (InputStream in = NativeLibrary.class.getResourceAsStream(resource))
        {
            if (in == null)
                return new NativeLibrary(name, resource + " is not in the jar (its Debian -dev packages or gcc "
                                               + "were missing at build time)");
            Path file = Files.createTempFile("lib" + name + "-", ".so");
            file.toFile().deleteOnExit();
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            System.load(file.toAbsolutePath().toString());
            int got = probe.getAsInt();
            if (got != expectedProbe)
                return new NativeLibrary(name, "probe returned " + got + ", expected " + expectedProbe);
            return new NativeLibrary(name, null);
        }
        catch (IOException | LinkageError | SecurityException e)
        {
            logger.debug("Loading native library {} failed", name, e);
            return new NativeLibrary(name, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }
}
