package io.elect.offload.s3;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An access key pair. toString never shows the secret. The credentials file format (also written by the
 * S3Proxy launcher) is text, one "name=value" per line, '#' comments ignored:
 * <pre>
 *   access_key=...
 *   secret_key=...
 * </pre>
 */
public record S3Credentials(String accessKey, String secretKey)
{
    public static final String ENV_ACCESS_KEY = "ELECT_S3_ACCESS_KEY_ID";
    public static final String ENV_SECRET_KEY = "ELECT_S3_SECRET_ACCESS_KEY";
    private static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    private static final String SECRET_ALPHABET = ALPHABET + "abcdefghijklmnopqrstuvwxyz";

    public S3Credentials
    {
        if (accessKey == null || accessKey.isBlank())
            throw new IllegalArgumentException("access key must not be empty");
        if (secretKey == null || secretKey.isBlank())
            throw new IllegalArgumentException("secret key must not be empty");
    }

    @Override
    public String toString()
    {
        return "S3Credentials{accessKey=" + accessKey + ", secretKey=<hidden>}";
    }

    /** Credentials from ELECT_S3_ACCESS_KEY_ID / ELECT_S3_SECRET_ACCESS_KEY if both are set. */
    public static Optional<S3Credentials> fromEnv(Map<String, String> env)
    {
        String a = env.get(ENV_ACCESS_KEY), s = env.get(ENV_SECRET_KEY);
        if (a == null || a.isBlank() || s == null || s.isBlank())
            return Optional.empty();
        return Optional.of(new S3Credentials(a.trim(), s.trim()));
    }

    public static S3Credentials readFile(Path file) throws IOException
    {
        if (!Files.isReadable(file))
            throw new IOException("credentials file " + file + " does not exist or is not readable");
        String access = null, secret = null;
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (String line : lines)
        {
            String l = line.trim();
            if (l.isEmpty() || l.startsWith("#"))
                continue;
            int eq = l.indexOf('=');
            if (eq < 0)
                throw new IOException("credentials file " + file + ": expected name=value, got a line without '='");
            String name = l.substring(0, eq).trim(), value = l.substring(eq + 1).trim();
            if (name.equals("access_key"))
                access = value;
            else if (name.equals("secret_key"))
                secret = value;
        }
        if (access == null || access.isEmpty() || secret == null || secret.isEmpty())
            throw new IOException("credentials file " + file + " must contain access_key= and secret_key= lines");
        return new S3Credentials(access, secret);
    }

    /** Writes the file atomically with mode 0600 (created 0600 before any secret is written). */
    public void writeFile(Path file) throws IOException
    {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, ".credentials", ".tmp",
                                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try
        {
            Files.writeString(tmp, "# ELECT cold tier credentials\naccess_key=" + accessKey + "\nsecret_key=" + secretKey
                                   + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        finally
        {
            Files.deleteIfExists(tmp);
        }
    }

    /** Fresh random credentials (20-character access key, 40-character secret) from a SecureRandom. */
    public static S3Credentials generate()
    {
        SecureRandom random = new SecureRandom();
        return new S3Credentials("ELECT" + random(random, ALPHABET, 15), random(random, SECRET_ALPHABET, 40));
    }

    private static String random(SecureRandom random, String alphabet, int n)
    {
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++)
            sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
        return sb.toString();
    }
}
