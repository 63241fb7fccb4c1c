package io.elect.offload.s3;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.elect.offload.ColdStore;
import io.elect.offload.ColdStoreContract;
import io.elect.offload.ColdStoreException;
import io.elect.offload.s3proxy.S3ProxyHandle;
import io.elect.offload.s3proxy.S3ProxyLauncher;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ColdStore contract over S3 (AWS SDK v2) against a real S3Proxy process on 127.0.0.1. */
public class S3ProxyColdStoreIT extends ColdStoreContract
{
    private static Path runDir;
    private static S3ProxyHandle proxy;

    @BeforeAll
    static void startS3Proxy() throws IOException
    {
        runDir = Files.createTempDirectory("s3proxy-it");
        proxy = S3ProxyLauncher.start(runDir, 0, S3Credentials.generate(), "elect-it", Duration.ofSeconds(120));
    }

    @AfterAll
    static void stopS3Proxy() throws IOException
    {
        if (proxy == null)
            return;
        long pid = proxy.pid();
        proxy.stop(Duration.ofSeconds(20));
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "S3Proxy pid " + pid + " still alive");
        try (Stream<Path> files = Files.walk(runDir))
        {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static S3ColdStoreConfig config(String bucket)
    {
        Path credFile = runDir.resolve(S3ProxyLauncher.CREDENTIALS_FILE);
        try
        {
            if (!Files.exists(credFile))
                proxy.credentials().writeFile(credFile);
        }
        catch (IOException e)
        {
            throw new java.io.UncheckedIOException(e);
        }
        return S3ColdStoreConfig.local(proxy.endpoint(), bucket, credFile).withOptions(options());
    }

    @Override
    protected ColdStore createStore()
    {
        return new S3ColdStore(config("elect-it"), Map.of());
    }

    @Override
    protected void corruptAtRest(String key, long storedOffset) throws IOException
    {
        Path file = runDir.resolve(S3ProxyLauncher.DATA_DIR).resolve("elect-it").resolve(key);
        assertTrue(Files.isRegularFile(file), "S3Proxy filesystem layout changed? no " + file);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw"))
        {
            f.seek(storedOffset);
            int b = f.read();
            f.seek(storedOffset);
            f.write(b ^ (1 << random.nextInt(8)));
        }
    }

    @Test
    void missingBucketIsAClearErrorNotAMissingObject() throws IOException
    {
        try (ColdStore s = new S3ColdStore(config("no-such-bucket"), Map.of()))
        {
            assertMessage(ColdStoreException.class, "bucket 'no-such-bucket' does not exist", () -> s.head("a/b"));
            assertMessage(ColdStoreException.class, "bucket 'no-such-bucket' does not exist", () -> s.readAll("a/b"));
            assertMessage(ColdStoreException.class, "bucket 'no-such-bucket' does not exist",
                          () -> s.put("a/b", ByteBuffer.allocate(3)));
        }
    }

    @Test
    void wrongCredentialsAreRejectedWithoutRetrying() throws IOException
    {
        S3ColdStoreConfig c = new S3ColdStoreConfig(proxy.endpoint(), "us-east-1", "elect-it", true, null,
                                                    Duration.ofSeconds(10), false, options());
        Map<String, String> env = Map.of(S3Credentials.ENV_ACCESS_KEY, "WRONG", S3Credentials.ENV_SECRET_KEY, "wrong");
        try (ColdStore s = new S3ColdStore(c, env))
        {
            ColdStoreException e = assertThrows(ColdStoreException.class, () -> s.put(prefix + "x", ByteBuffer.allocate(3)));
            assertTrue(e.getMessage().contains("403"), e.getMessage());
            assertTrue(s.metrics().retries.sum() == 0);
        }
    }

    @Test
    void endpointMustBeHttp()
    {
        assertMessage(IllegalArgumentException.class, "endpoint", () -> S3ColdStoreConfig.local(URI.create("ftp://x"),
                                                                                                 "elect", null));
        assertMessage(IllegalArgumentException.class, "bucket", () -> S3ColdStoreConfig.local(proxy.endpoint(), "",
                                                                                               null));
    }
}
