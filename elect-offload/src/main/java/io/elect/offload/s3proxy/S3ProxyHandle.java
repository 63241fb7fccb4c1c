package io.elect.offload.s3proxy;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.offload.s3.S3Credentials;

/**
 * A running S3Proxy process started by S3ProxyLauncher (possibly by another JVM: see S3ProxyLauncher.find).
 * stop() signals exactly this PID, after checking that the PID still runs S3Proxy with this run directory
 * (a PID can be reused after a crash), and waits for the process to exit.
 */
public final class S3ProxyHandle implements AutoCloseable
{
    private static final Logger logger = LoggerFactory.getLogger(S3ProxyHandle.class);
    private final long pid;
    private final URI endpoint;
    private final String bucket;
    private final S3Credentials credentials;
    private final Path runDir;

    S3ProxyHandle(long pid, URI endpoint, String bucket, S3Credentials credentials, Path runDir)
    {
        this.pid = pid;
        this.endpoint = endpoint;
        this.bucket = bucket;
        this.credentials = credentials;
        this.runDir = runDir;
    }

    public long pid()
    {
        return pid;
    }

    public URI endpoint()
    {
        return endpoint;
    }

    public String bucket()
    {
        return bucket;
    }

    public S3Credentials credentials()
    {
        return credentials;
    }

    public Path runDir()
    {
        return runDir;
    }

    public Path credentialsFile()
    {
        return runDir.resolve(S3ProxyLauncher.CREDENTIALS_FILE);
    }

    /** The live process, if this PID still runs S3Proxy for this run directory. */
    public Optional<ProcessHandle> process()
    {
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).filter(p -> S3ProxyLauncher.isOurs(p, runDir));
    }

    public boolean isAlive()
    {
        return process().isPresent();
    }

    /** SIGTERM, wait up to timeout, then SIGKILL and wait again. Returns once the process has exited. */
    public void stop(Duration timeout)
    {
        Optional<ProcessHandle> p = process();
        if (p.isEmpty())
            return;
        long start = System.nanoTime();
        ProcessHandle h = p.get();
        h.destroy();
        if (!waitFor(h, timeout))
        {
            logger.warn("S3Proxy pid {} did not exit within {} ms of SIGTERM; killing it", pid, timeout.toMillis());
            h.destroyForcibly();
            if (!waitFor(h, Duration.ofSeconds(30)))
                throw new IllegalStateException("S3Proxy pid " + pid + " survived SIGKILL");
        }
        logger.info("Stopped S3Proxy pid {} at {} in {} ms", pid, endpoint,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    private static boolean waitFor(ProcessHandle h, Duration timeout)
    {
        try
        {
            h.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        }
        catch (TimeoutException e)
        {
            return !h.isAlive();
        }
        catch (InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return !h.isAlive();
        }
        catch (ExecutionException e)
        {
            return !h.isAlive();
        }
    }

    @Override
    public void close()
    {
        stop(Duration.ofSeconds(20));
    }

    @Override
    public String toString()
    {
        return "S3Proxy{pid=" + pid + ", endpoint=" + endpoint + ", bucket=" + bucket + ", runDir=" + runDir + "}";
    }
}
