package io.elect.offload.s3;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

public class S3CredentialsTest
{
    @TempDir
    Path tmp;

    @Test
    void fileRoundTripsWithMode0600() throws Exception
    {
        S3Credentials c = S3Credentials.generate();
        Path f = tmp.resolve("credentials");
        c.writeFile(f);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        assertEquals(c, S3Credentials.readFile(f));
        assertTrue(Files.readString(f).contains("access_key=" + c.accessKey()));
        assertNotEquals(c, S3Credentials.generate());
    }

    @Test
    void secretNeverInToString()
    {
        S3Credentials c = new S3Credentials("AKIDEXAMPLE", "s3cr3t-value");
        assertFalse(c.toString().contains("s3cr3t"));
    }

    @Test
    void badFilesNameTheProblem() throws Exception
    {
        Path f = tmp.resolve("c");
        Files.writeString(f, "access_key=abc\n");
        Exception e = assertThrows(java.io.IOException.class, () -> S3Credentials.readFile(f));
        assertTrue(e.getMessage().contains("secret_key"), e.getMessage());
        Exception missing = assertThrows(java.io.IOException.class, () -> S3Credentials.readFile(tmp.resolve("none")));
        assertTrue(missing.getMessage().contains("none"), missing.getMessage());
    }

    @Test
    void environmentWinsOverFileWhichWinsOverDefaultChain() throws Exception
    {
        Path f = tmp.resolve("credentials");
        new S3Credentials("FILEKEY", "filesecret").writeFile(f);
        Map<String, String> env = Map.of(S3Credentials.ENV_ACCESS_KEY, "ENVKEY", S3Credentials.ENV_SECRET_KEY, "envsecret");
        CredentialsResolver fromEnv = CredentialsResolver.resolve(f, env);
        assertEquals("ENVKEY", fromEnv.provider().resolveCredentials().accessKeyId());
        assertTrue(fromEnv.description().startsWith("environment"));
        CredentialsResolver fromFile = CredentialsResolver.resolve(f, Map.of(S3Credentials.ENV_ACCESS_KEY, "only-one"));
        assertEquals("FILEKEY", fromFile.provider().resolveCredentials().accessKeyId());
        assertFalse(fromFile.description().contains("filesecret"));
        assertTrue(CredentialsResolver.resolve(null, Map.of()).description().contains("AWS default"));
        UncheckedIOException e = assertThrows(UncheckedIOException.class,
                                              () -> CredentialsResolver.resolve(tmp.resolve("nope"), Map.of()));
        assertTrue(e.getMessage().contains("credentials_file") && e.getMessage().contains("nope"), e.getMessage());
    }
}
