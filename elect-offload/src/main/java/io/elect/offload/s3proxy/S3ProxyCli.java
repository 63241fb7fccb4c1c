package io.elect.offload.s3proxy;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Optional;

import io.elect.offload.s3.S3Credentials;

/**
 * Command line for shell scripts:
 * <pre>
 *   S3ProxyCli start  --run-dir DIR [--host 127.0.0.1] [--port 9000] [--bucket elect] [--timeout-seconds 120]
 *   S3ProxyCli stop   --run-dir DIR
 *   S3ProxyCli status --run-dir DIR
 * </pre>
 * start returns once S3Proxy answers and the bucket exists, leaving S3Proxy running in the background; it
 * generates DIR/credentials (mode 0600) once and reuses it afterwards, and is a no-op if S3Proxy already runs
 * for DIR. stop signals the PID in DIR/s3proxy.pid (after checking it is this S3Proxy) and waits for it to exit.
 * Each prints one line. Exit status: 0 success (status: running), 1 failure, 2 usage, 3 status: not running.
 */
public final class S3ProxyCli
{
    private S3ProxyCli()
    {
    }

    public static void main(String[] args)
    {
        // Scripts run us without an slf4j binding: keep slf4j's "no providers" notice off their output.
        System.setProperty("slf4j.internal.verbosity", "ERROR");
        System.exit(run(args, System.out, System.err));
    }

    /** Runs one command; returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err)
    {
        if (args.length < 1)
            return usage(err, "missing command");
        String command = args[0];
        Path runDir = null;
        int port = 9000;
        String host = S3ProxyLauncher.DEFAULT_HOST;
        String bucket = "elect";
        int timeoutSeconds = 120;
        try
        {
            for (int i = 1; i < args.length; i++)
            {
                String a = args[i];
                if (i + 1 >= args.length)
                    return usage(err, "option " + a + " needs a value");
                String v = args[++i];
                switch (a)
                {
                    case "--run-dir" -> runDir = Paths.get(v);
                    case "--port" -> port = Integer.parseInt(v);
                    case "--host" -> host = v;
                    case "--bucket" -> bucket = v;
                    case "--timeout-seconds" -> timeoutSeconds = Integer.parseInt(v);
                    default -> {
                        return usage(err, "unknown option " + a);
                    }
                }
            }
        }
        catch (NumberFormatException e)
        {
            return usage(err, "not a number: " + e.getMessage());
        }
        if (runDir == null)
            return usage(err, "--run-dir is required");
        try
        {
            switch (command)
            {
                case "start":
                    return start(runDir, host, port, bucket, Duration.ofSeconds(timeoutSeconds), out);
                case "stop":
                    return stop(runDir, out);
                case "status":
                    return status(runDir, out);
                default:
                    return usage(err, "unknown command " + command);
            }
        }
        catch (IOException | RuntimeException e)
        {
            err.println("s3proxy " + command + " failed: " + e.getMessage());
            return 1;
        }
    }

    private static int start(Path runDir, String host, int port, String bucket, Duration timeout, PrintStream out) throws IOException
    {
        Optional<S3ProxyHandle> running = S3ProxyLauncher.find(runDir);
        if (running.isPresent())
        {
            S3ProxyHandle h = running.get();
            out.println("s3proxy already running pid=" + h.pid() + " endpoint=" + h.endpoint() + " bucket=" + h.bucket()
                        + " credentials=" + h.credentialsFile());
            return 0;
        }
        Files.createDirectories(runDir);
        Path credFile = runDir.resolve(S3ProxyLauncher.CREDENTIALS_FILE);
        S3Credentials credentials;
        if (Files.exists(credFile))
            credentials = S3Credentials.readFile(credFile);
        else
        {
            credentials = S3Credentials.generate();
            credentials.writeFile(credFile);
        }
        S3ProxyHandle h = S3ProxyLauncher.start(runDir, host, port, credentials, bucket, timeout);
        out.println("s3proxy running pid=" + h.pid() + " endpoint=" + h.endpoint() + " bucket=" + h.bucket()
                    + " credentials=" + h.credentialsFile());
        return 0;
    }

    private static int stop(Path runDir, PrintStream out) throws IOException
    {
        Optional<S3ProxyHandle> running = S3ProxyLauncher.find(runDir);
        if (running.isEmpty())
        {
            Files.deleteIfExists(runDir.resolve(S3ProxyLauncher.PID_FILE));
            out.println("s3proxy not running (run dir " + runDir.toAbsolutePath() + ")");
            return 0;
        }
        S3ProxyHandle h = running.get();
        h.stop(Duration.ofSeconds(20));
        Files.deleteIfExists(runDir.resolve(S3ProxyLauncher.PID_FILE));
        out.println("s3proxy stopped pid=" + h.pid() + " endpoint=" + h.endpoint());
        return 0;
    }

    private static int status(Path runDir, PrintStream out) throws IOException
    {
        Optional<S3ProxyHandle> running = S3ProxyLauncher.find(runDir);
        if (running.isEmpty())
        {
            out.println("s3proxy not running (run dir " + runDir.toAbsolutePath() + ")");
            return 3;
        }
        S3ProxyHandle h = running.get();
        out.println("s3proxy running pid=" + h.pid() + " endpoint=" + h.endpoint() + " bucket=" + h.bucket()
                    + " credentials=" + h.credentialsFile());
        return 0;
    }

    private static int usage(PrintStream err, String problem)
    {
        err.println("s3proxy: " + problem);
        err.println("usage: S3ProxyCli start --run-dir DIR [--host 127.0.0.1] [--port 9000] [--bucket elect] [--timeout-seconds 120]");
        err.println("       S3ProxyCli stop --run-dir DIR");
        err.println("       S3ProxyCli status --run-dir DIR");
        return 2;
    }
}
