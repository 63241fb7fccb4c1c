package io.elect.offload.s3proxy;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.offload.s3.S3Credentials;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketAlreadyExistsException;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;

/**
 * Starts S3Proxy 4.1.0 (filesystem backend) in its own JVM, bound to one address (127.0.0.1 unless told
 * otherwise, e.g. the address of a bridge that nodes in other network namespaces reach): its libraries clash
 * with Cassandra's, so it never shares our classpath. The jar is the self-contained
 * s3proxy-jar-with-dependencies, found by locateJar().
 *
 * A run directory holds everything of one instance:
 * <pre>
 *   s3proxy.properties  S3Proxy's configuration (mode 0600: it holds the secret)
 *   s3proxy.pid         PID of the S3Proxy JVM
 *   s3proxy.endpoint    endpoint=http://HOST:PORT and bucket=NAME lines
 *   s3proxy.log         its stdout and stderr
 *   credentials         access_key= / secret_key= lines (mode 0600), see S3Credentials
 *   data/               the objects (jclouds filesystem-nio2 layout: data/BUCKET/KEY)
 * </pre>
 */
public final class S3ProxyLauncher
{
    private static final Logger logger = LoggerFactory.getLogger(S3ProxyLauncher.class);
    public static final String PROPERTIES_FILE = "s3proxy.properties";
    public static final String PID_FILE = "s3proxy.pid";
    public static final String ENDPOINT_FILE = "s3proxy.endpoint";
    public static final String LOG_FILE = "s3proxy.log";
    public static final String CREDENTIALS_FILE = "credentials";
    public static final String DATA_DIR = "data";
    /** The address S3Proxy listens on unless start() is given another. */
    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final String JAR_PROPERTY = "elect.s3proxy.jar";
    public static final String JAR_ENV = "ELECT_S3PROXY_JAR";
    /** Extra JVM options for the S3Proxy JVM, whitespace-separated (after our -Xmx512m, so they win). */
    public static final String JAVA_OPTS_ENV = "ELECT_S3PROXY_JAVA_OPTS";
    /** jclouds backend of S3Proxy: filesystem-nio2 (default) or filesystem (both keep data/BUCKET/KEY files). */
    public static final String PROVIDER_PROPERTY = "elect.s3proxy.provider";

    private S3ProxyLauncher()
    {
    }

    /**
     * The S3Proxy jar: system property elect.s3proxy.jar, else environment ELECT_S3PROXY_JAR, else
     * s3proxy/s3proxy.jar beside our classes or jar (elect-offload/target/s3proxy/s3proxy.jar, put there by
     * the build), else the copy in the local Maven repository.
     */
    public static Path locateJar() throws IOException
    {
        List<Path> tried = new ArrayList<>();
        for (String explicit : new String[]{ System.getProperty(JAR_PROPERTY), System.getenv(JAR_ENV) })
        {
            if (explicit != null && !explicit.isBlank())
            {
                Path p = Paths.get(explicit);
                if (Files.isRegularFile(p))
                    return p;
                throw new IOException("S3Proxy jar " + p + " (from " + JAR_PROPERTY + "/" + JAR_ENV + ") does not exist");
            }
        }
        try
        {
            Path code = Paths.get(S3ProxyLauncher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path p = code.toAbsolutePath().getParent().resolve("s3proxy").resolve("s3proxy.jar");
            if (Files.isRegularFile(p))
                return p;
            tried.add(p);
        }
        catch (Exception e)
        {
            // no code source (unusual class loader): fall through to the Maven repository
        }
        String version = version();
        Path m2 = Paths.get(System.getProperty("user.home"), ".m2", "repository", "org", "gaul", "s3proxy", version,
                            "s3proxy-" + version + "-jar-with-dependencies.jar");
        if (Files.isRegularFile(m2))
            return m2;
        tried.add(m2);
        throw new IOException("S3Proxy jar not found (tried " + tried + "); build elect-offload (mvn -pl elect-offload "
                              + "package) or set -D" + JAR_PROPERTY);
    }

    private static String version() throws IOException
    {
        Properties p = new Properties();
        try (InputStream in = S3ProxyLauncher.class.getResourceAsStream("s3proxy-version.properties"))
        {
            if (in == null)
                throw new IOException("s3proxy-version.properties missing from the classpath");
            p.load(in);
        }
        return p.getProperty("s3proxy.version");
    }

    /** A free TCP port on 127.0.0.1 (free when this returns; another process could still take it). */
    public static int freePort() throws IOException
    {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return s.getLocalPort();
        }
    }

    /** start(runDir, port, credentials, "elect", 120 s). */
    public static S3ProxyHandle start(Path runDir, int port, S3Credentials credentials) throws IOException
    {
        return start(runDir, port, credentials, "elect", Duration.ofSeconds(120));
    }

    /** start(runDir, 127.0.0.1, port, credentials, bucket, timeout). */
    public static S3ProxyHandle start(Path runDir, int port, S3Credentials credentials, String bucket,
                                      Duration timeout) throws IOException
    {
        return start(runDir, DEFAULT_HOST, port, credentials, bucket, timeout);
    }

    /**
     * Starts S3Proxy for runDir on host:port (an IP literal of this machine; port 0: any free port on 127.0.0.1,
     * so only with the default host) with these credentials, waits until it answers and bucket exists, and returns
     * its handle. The process keeps running after this JVM exits; stop it with the handle (or
     * find(runDir).stop()). On failure nothing is left running.
     */
    public static S3ProxyHandle start(Path runDir, String host, int port, S3Credentials credentials, String bucket,
                                      Duration timeout) throws IOException
    {
        if (host == null || !host.matches("[0-9.]+|\\[[0-9a-fA-F:]+\\]"))
            throw new IllegalArgumentException("host must be an IPv4 literal or a bracketed IPv6 literal, got '" + host + "'");
        if (port == 0 && !host.equals(DEFAULT_HOST))
            throw new IllegalArgumentException("port 0 (any free port) is only chosen on " + DEFAULT_HOST + "; give a port for " + host);
        if (runDir == null)
            throw new IllegalArgumentException("runDir must not be null");
        if (port < 0 || port > 65535)
            throw new IllegalArgumentException("port must be in [0, 65535], got " + port);
        if (credentials == null)
            throw new IllegalArgumentException("credentials must not be null");
        if (bucket == null || !bucket.matches("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]"))
            throw new IllegalArgumentException("bucket must be a valid S3 bucket name, got '" + bucket + "'");
        Path dir = runDir.toAbsolutePath().normalize();
        Optional<S3ProxyHandle> running = find(dir);
        if (running.isPresent())
            throw new IllegalStateException("S3Proxy already running for " + dir + ": " + running.get());
        Files.createDirectories(dir.resolve(DATA_DIR));
        int p = port == 0 ? freePort() : port;
        URI endpoint = URI.create("http://" + host + ":" + p);
        Path props = dir.resolve(PROPERTIES_FILE);
        writePrivate(props, "s3proxy.endpoint=" + endpoint + "\n"
                            + "s3proxy.authorization=aws-v2-or-v4\n"
                            + "s3proxy.identity=" + credentials.accessKey() + "\n"
                            + "s3proxy.credential=" + credentials.secretKey() + "\n"
                            + "s3proxy.v4-max-non-chunked-request-size=" + (256L << 20) + "\n"
                            + "jclouds.provider=" + System.getProperty(PROVIDER_PROPERTY, "filesystem-nio2") + "\n"
                            + "jclouds.filesystem.basedir=" + dir.resolve(DATA_DIR) + "\n");
        Path log = dir.resolve(LOG_FILE);
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx512m", "-XX:+ExitOnOutOfMemoryError"));
        String extra = System.getenv(JAVA_OPTS_ENV); // e.g. a larger heap, or a profiler
        if (extra != null && !extra.isBlank())
            command.addAll(List.of(extra.trim().split("\\s+")));
        command.addAll(List.of("-Delect.s3proxy.rundir=" + dir, "-jar", locateJar().toString(), "--properties",
                               props.toString()));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        long start = System.nanoTime();
        Process process = pb.start();
        S3ProxyHandle handle = new S3ProxyHandle(process.pid(), endpoint, bucket, credentials, dir);
        boolean ok = false;
        try
        {
            Files.writeString(dir.resolve(PID_FILE), process.pid() + "\n");
            Files.writeString(dir.resolve(ENDPOINT_FILE), "endpoint=" + endpoint + "\nbucket=" + bucket + "\n");
            waitUntilAnswering(process, endpoint, log, timeout);
            createBucket(endpoint, credentials, bucket);
            ok = true;
        }
        finally
        {
            if (!ok)
            {
                process.destroyForcibly();
                try
                {
                    process.waitFor(30, TimeUnit.SECONDS);
                }
                catch (InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
                Files.deleteIfExists(dir.resolve(PID_FILE));
            }
        }
        logger.info("Started S3Proxy pid {} at {} (bucket {}, data {}) in {} ms", process.pid(), endpoint, bucket,
                    dir.resolve(DATA_DIR), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        return handle;
    }

    /** The S3Proxy running for runDir (by its PID file), if any. */
    public static Optional<S3ProxyHandle> find(Path runDir) throws IOException
    {
        Path dir = runDir.toAbsolutePath().normalize();
        Path pidFile = dir.resolve(PID_FILE);
        if (!Files.isRegularFile(pidFile))
            return Optional.empty();
        long pid;
        try
        {
            pid = Long.parseLong(Files.readString(pidFile).trim());
        }
        catch (NumberFormatException e)
        {
            throw new IOException("bad PID file " + pidFile + ": " + e.getMessage());
        }
        Properties state = new Properties();
        Path endpointFile = dir.resolve(ENDPOINT_FILE);
        if (Files.isRegularFile(endpointFile))
            state.load(Files.newBufferedReader(endpointFile, StandardCharsets.UTF_8));
        Path credFile = dir.resolve(CREDENTIALS_FILE);
        Path propsFile = dir.resolve(PROPERTIES_FILE);
        S3Credentials credentials;
        if (Files.isRegularFile(credFile))
            credentials = S3Credentials.readFile(credFile);
        else
        {
            Properties props = new Properties();
            props.load(Files.newBufferedReader(propsFile, StandardCharsets.UTF_8));
            credentials = new S3Credentials(props.getProperty("s3proxy.identity"), props.getProperty("s3proxy.credential"));
        }
        S3ProxyHandle h = new S3ProxyHandle(pid, URI.create(state.getProperty("endpoint", "http://127.0.0.1:0")),
                                            state.getProperty("bucket", "elect"), credentials, dir);
        return h.isAlive() ? Optional.of(h) : Optional.empty();
    }

    /** True if p runs S3Proxy with the configuration of runDir (guards against a reused PID). */
    static boolean isOurs(ProcessHandle p, Path runDir)
    {
        String marker = "-Delect.s3proxy.rundir=" + runDir;
        Optional<String[]> args = p.info().arguments();
        if (args.isPresent())
        {
            for (String a : args.get())
                if (a.equals(marker))
                    return true;
            return false;
        }
        return p.info().commandLine().map(c -> c.contains(marker)).orElse(false);
    }

    private static void writePrivate(Path file, String content) throws IOException
    {
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, content, StandardCharsets.UTF_8);
    }

    /** Polls until S3Proxy answers HTTP (any status: 403 without credentials is fine). */
    private static void waitUntilAnswering(Process process, URI endpoint, Path log, Duration timeout) throws IOException
    {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true)
        {
            if (!process.isAlive())
                throw new IOException("S3Proxy exited with status " + process.exitValue() + " during start-up; "
                                      + "log tail:\n" + tail(log));
            try
            {
                HttpURLConnection c = (HttpURLConnection) endpoint.toURL().openConnection();
                c.setConnectTimeout(500);
                c.setReadTimeout(2000);
                int status = c.getResponseCode();
                c.disconnect();
                if (status > 0)
                    return;
            }
            catch (IOException e)
            {
                // not listening yet
            }
            if (System.nanoTime() > deadline)
                throw new IOException("S3Proxy did not answer at " + endpoint + " within " + timeout.toMillis()
                                      + " ms; log tail:\n" + tail(log));
            try
            {
                Thread.sleep(100);
            }
            catch (InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted waiting for S3Proxy");
            }
        }
    }

    static String tail(Path log)
    {
        try
        {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        }
        catch (IOException e)
        {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    /** Creates the bucket if missing (idempotent) and checks that it answers. */
    static void createBucket(URI endpoint, S3Credentials credentials, String bucket) throws IOException
    {
        try (S3Client s3 = S3Client.builder().endpointOverride(endpoint).region(Region.US_EAST_1).forcePathStyle(true)
                                   .credentialsProvider(StaticCredentialsProvider.create(
                                       AwsBasicCredentials.create(credentials.accessKey(), credentials.secretKey())))
                                   .httpClient(software.amazon.awssdk.http.apache5.Apache5HttpClient.create())
                                   .build())
        {
            try
            {
                s3.createBucket(b -> b.bucket(bucket));
            }
            catch (BucketAlreadyOwnedByYouException | BucketAlreadyExistsException e)
            {
                // idempotent
            }
            s3.headBucket(b -> b.bucket(bucket));
        }
        catch (software.amazon.awssdk.core.exception.SdkException e)
        {
            throw new IOException("cannot create bucket " + bucket + " at " + endpoint + ": " + e.getMessage(), e);
        }
    }
}
