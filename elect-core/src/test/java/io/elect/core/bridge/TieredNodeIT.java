package io.elect.core.bridge;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.elect.offload.s3.S3Credentials;
import io.elect.offload.s3proxy.S3ProxyHandle;
import io.elect.offload.s3proxy.S3ProxyLauncher;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Tiered data files on a real node with a real S3Proxy as the cold tier: the node runs in child JVMs
 * (TieredNodeRunner), one per phase, so that the second phase is a genuine restart of the same data directory.
 * See TieredNodeRunner for what each phase checks.
 */
class TieredNodeIT
{
    private static Path work;
    private static S3ProxyHandle s3;

    @BeforeAll
    static void startS3Proxy() throws IOException
    {
        work = Paths.get("target", "tiered-it-" + ProcessHandle.current().pid()).toAbsolutePath();
        Files.createDirectories(work);
        S3Credentials creds = S3Credentials.generate();
        s3 = S3ProxyLauncher.start(work.resolve("s3proxy"), 0, creds, "elect-tiered", Duration.ofSeconds(120));
        creds.writeFile(s3.credentialsFile());
    }

    @AfterAll
    static void stopS3Proxy()
    {
        if (s3 != null)
            s3.stop(Duration.ofSeconds(30));
    }

    @Test
    void tierRestartRehydrate() throws Exception
    {
        assertEquals(0, runPhase("tier"), "phase tier (see " + work.resolve("tier.log") + ")");
        assertEquals(0, runPhase("restart"), "phase restart (see " + work.resolve("restart.log") + ")");
    }

    static int runPhase(String phase) throws Exception
    {
        Path log = work.resolve(phase + ".log");
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("@" + Paths.get("..", "conf", "jvm17.args").toAbsolutePath().normalize());
        cmd.add("-Xmx512m");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(TieredNodeRunner.class.getName());
        cmd.add(phase);
        cmd.add(work.toString());
        cmd.add(work.resolve("s3proxy").toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(8, TimeUnit.MINUTES))
        {
            p.destroyForcibly();
            throw new AssertionError("phase " + phase + " timed out; log " + log);
        }
        List<String> lines = Files.readAllLines(log);
        lines.stream().filter(l -> l.startsWith("ok: ") || l.contains("PASSED") || l.contains("Error") || l.contains("bytes/read")
                                   || l.contains("detected"))
             .limit(200).forEach(l -> System.out.println("[" + phase + "] " + l));
        if (p.exitValue() != 0)
            lines.subList(Math.max(0, lines.size() - 80), lines.size()).forEach(l -> System.out.println("[" + phase + "] " + l));
        return p.exitValue();
    }
}
