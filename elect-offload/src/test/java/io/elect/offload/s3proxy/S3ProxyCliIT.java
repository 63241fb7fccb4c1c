package io.elect.offload.s3proxy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The script-facing CLI: start / status / stop of a real S3Proxy process, leaving nothing running. */
public class S3ProxyCliIT
{
    @TempDir
    Path runDir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int cli(String... args)
    {
        out.reset();
        err.reset();
        return S3ProxyCli.run(args, new PrintStream(out, true), new PrintStream(err, true));
    }

    private String stdout()
    {
        return out.toString(StandardCharsets.UTF_8);
    }

    @AfterEach
    void neverLeaveItRunning() throws Exception
    {
        Optional<S3ProxyHandle> h = S3ProxyLauncher.find(runDir);
        h.ifPresent(S3ProxyHandle::close);
    }

    @Test
    void startStatusStop() throws Exception
    {
        int port = S3ProxyLauncher.freePort();
        assertEquals(0, cli("start", "--run-dir", runDir.toString(), "--port", Integer.toString(port)), err.toString());
        assertTrue(stdout().startsWith("s3proxy running pid=") && stdout().contains("endpoint=http://127.0.0.1:" + port),
                   stdout());
        assertEquals(1, stdout().lines().count());
        long pid = Long.parseLong(Files.readString(runDir.resolve("s3proxy.pid")).trim());
        assertTrue(ProcessHandle.of(pid).isPresent());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(runDir.resolve("credentials"))));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(runDir.resolve("s3proxy.properties"))));
        String credentials = Files.readString(runDir.resolve("credentials"));
        assertTrue(Files.size(runDir.resolve("s3proxy.log")) > 0);

        assertEquals(0, cli("status", "--run-dir", runDir.toString()));
        assertTrue(stdout().contains("pid=" + pid), stdout());
        assertEquals(0, cli("start", "--run-dir", runDir.toString(), "--port", Integer.toString(port)));
        assertTrue(stdout().contains("already running pid=" + pid), stdout());

        assertEquals(0, cli("stop", "--run-dir", runDir.toString()));
        assertTrue(stdout().startsWith("s3proxy stopped pid=" + pid), stdout());
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "process exited");
        assertEquals(3, cli("status", "--run-dir", runDir.toString()));
        assertEquals(0, cli("stop", "--run-dir", runDir.toString()), "stopping twice is fine");

        // a restart reuses the generated credentials
        assertEquals(0, cli("start", "--run-dir", runDir.toString(), "--port", "0"), err.toString());
        assertEquals(credentials, Files.readString(runDir.resolve("credentials")));
        assertEquals(0, cli("stop", "--run-dir", runDir.toString()));
    }

    @Test
    void usageErrorsNameTheProblem()
    {
        assertEquals(2, cli());
        assertEquals(2, cli("start"));
        assertTrue(err.toString().contains("--run-dir is required"), err.toString());
        assertEquals(2, cli("start", "--run-dir", runDir.toString(), "--port", "x"));
        assertEquals(2, cli("frobnicate", "--run-dir", runDir.toString()));
        assertEquals(1, cli("start", "--run-dir", runDir.toString(), "--port", "70000"));
        assertTrue(err.toString().contains("port"), err.toString());
    }

    /**
     * --host binds S3Proxy to that address only (as a bridge address that nodes in other network namespaces reach):
     * it answers there and not on 127.0.0.1; a host that is not an IP literal is refused, naming the option.
     */
    @Test
    void listensOnTheGivenHostOnly() throws Exception
    {
        int port = S3ProxyLauncher.freePort();
        assertEquals(0, cli("start", "--run-dir", runDir.toString(), "--host", "127.0.0.2", "--port", Integer.toString(port)), err.toString());
        assertTrue(stdout().contains("endpoint=http://127.0.0.2:" + port), stdout());
        assertTrue(answers("127.0.0.2", port));
        assertFalse(answers("127.0.0.1", port), "S3Proxy also listens on 127.0.0.1:" + port);
        assertEquals(0, cli("stop", "--run-dir", runDir.toString()));
        assertEquals(1, cli("start", "--run-dir", runDir.toString(), "--host", "s3.example", "--port", Integer.toString(port)));
        assertTrue(err.toString().contains("host must be an IPv4 literal"), err.toString());
    }

    private static boolean answers(String host, int port)
    {
        try (java.net.Socket s = new java.net.Socket())
        {
            s.connect(new java.net.InetSocketAddress(host, port), 1000);
            return true;
        }
        catch (java.io.IOException e)
        {
            return false;
        }
    }

    @Test
    void aStalePidFileIsNotKilled() throws Exception
    {
        // our own (test JVM) PID in the PID file: not S3Proxy for this run dir, so stop must not signal it
        Files.writeString(runDir.resolve("s3proxy.pid"), ProcessHandle.current().pid() + "\n");
        new io.elect.offload.s3.S3Credentials("A", "B").writeFile(runDir.resolve("credentials"));
        assertEquals(3, cli("status", "--run-dir", runDir.toString()));
        assertEquals(0, cli("stop", "--run-dir", runDir.toString()));
        assertTrue(stdout().contains("not running"), stdout());
    }
}
