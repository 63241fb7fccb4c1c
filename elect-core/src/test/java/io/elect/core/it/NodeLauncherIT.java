package io.elect.core.it;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@code bin/elect} refuses bad configurations and wrong Javas with one clear line and exit code 1. */
class NodeLauncherIT
{
    private static final Path REPO = Path.of(System.getProperty("maven.multiModuleProjectDirectory",
                                                                 new File("..").getAbsolutePath())).toAbsolutePath().normalize();

    private record Result(int code, List<String> stderr)
    {
    }

    private static Result elect(Path dataDir, String javaHome, String... args) throws Exception
    {
        List<String> cmd = new java.util.ArrayList<>(List.of(REPO.resolve("bin/elect").toString(), "--data-dir", dataDir.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        if (javaHome != null)
            pb.environment().put("JAVA_HOME", javaHome);
        Path err = dataDir.resolve("stderr.txt");
        pb.redirectError(err.toFile()).redirectOutput(dataDir.resolve("stdout.txt").toFile());
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS))
        {
            p.destroyForcibly().waitFor();
            throw new AssertionError("bin/elect did not exit: it should refuse to start");
        }
        return new Result(p.exitValue(), Files.readAllLines(err));
    }

    @Test
    void invalidAlphaStopsTheNodeWithOneLine(@TempDir Path dir) throws Exception
    {
        String template = Files.readString(REPO.resolve("conf/cassandra.yaml"));
        assertTrue(template.contains("storage_saving_target: 0.6"));
        Path bad = dir.resolve("cassandra.yaml");
        Files.writeString(bad, template.replace("storage_saving_target: 0.6", "storage_saving_target: 1.5"));
        Result r = elect(dir, null, "--config", bad.toString());
        assertEquals(1, r.code, "stderr: " + r.stderr);
        assertEquals(1, r.stderr.size(), "exactly one line: " + r.stderr);
        assertTrue(r.stderr.get(0).contains("storage_saving_target"), r.stderr.get(0));
        assertTrue(r.stderr.get(0).contains("[0, 1)"), r.stderr.get(0));
    }

    @Test
    void unknownKeyStopsTheNode(@TempDir Path dir) throws Exception
    {
        String template = Files.readString(REPO.resolve("conf/cassandra.yaml"));
        Path bad = dir.resolve("cassandra.yaml");
        Files.writeString(bad, template.replace("  data_chunks: 4", "  data_chunks: 4\n  data_chunkz: 5"));
        Result r = elect(dir, null, "--config", bad.toString());
        assertEquals(1, r.code, "stderr: " + r.stderr);
        assertEquals(1, r.stderr.size(), r.stderr.toString());
        assertTrue(r.stderr.get(0).contains("elect.data_chunkz"), r.stderr.get(0));
    }

    @Test
    void missingConfigFileNamed(@TempDir Path dir) throws Exception
    {
        Result r = elect(dir, null, "--config", dir.resolve("nope.yaml").toString());
        assertEquals(1, r.code);
        assertTrue(r.stderr.get(0).contains("nope.yaml"), r.stderr.toString());
    }

    @Test
    void otherJavaRefused(@TempDir Path dir) throws Exception
    {
        Path other = null;
        try (var s = Files.list(Path.of("/usr/lib/jvm")))
        {
            for (Path p : (Iterable<Path>) s::iterator)
                if (!p.getFileName().toString().contains("17") && Files.isExecutable(p.resolve("bin/java")))
                    other = p;
        }
        catch (java.io.IOException e)
        {
            // no /usr/lib/jvm: nothing to test against
        }
        assumeTrue(other != null, "no non-17 JDK installed");
        Result r = elect(dir, other.toString());
        assertEquals(1, r.code, r.stderr.toString());
        assertEquals(1, r.stderr.size(), r.stderr.toString());
        assertTrue(r.stderr.get(0).contains("only on Java 17"), r.stderr.get(0));
    }
}
