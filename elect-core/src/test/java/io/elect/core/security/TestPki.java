package io.elect.core.security;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.elect.core.transport.CallerPolicy;
import io.elect.core.transport.TransportSecurity;

/**
 * Throw-away certificates for TLS tests, made once under {@code target/} by {@link ThrowAwayPki} (keytool's code, in
 * process) and reused by later test classes: a CA with nodes n1..n4 on 127.0.0.1..4 and "wrongip" (signed by the CA,
 * naming 127.0.0.9), and a second, untrusted CA with "rogue" naming 127.0.0.1.
 */
public final class TestPki
{
    public static final Path DIR = Path.of("target", "test-pki").toAbsolutePath();
    public static final Path ROGUE_DIR = Path.of("target", "test-pki-rogue").toAbsolutePath();

    private TestPki()
    {
    }

    public static synchronized void ensure() throws Exception
    {
        ThrowAwayPki.generate(DIR, List.of("n1:127.0.0.1", "n2:127.0.0.2", "n3:127.0.0.3", "n4:127.0.0.4", "wrongip:127.0.0.9"));
        ThrowAwayPki.generate(ROGUE_DIR, List.of("rogue:127.0.0.1"));
    }

    public static String password(Path dir) throws Exception
    {
        return Files.readString(dir.resolve("password")).trim();
    }

    /** Settings of node {@code name} of the CA in {@code dir}, trusting that CA. */
    public static TlsSettings settings(Path dir, String name) throws Exception
    {
        ensure();
        String pw = password(dir);
        return new TlsSettings("server_encryption_options", dir.resolve(name + ".p12"), Secret.of(pw), dir.resolve("truststore.p12"),
                               Secret.of(pw), "PKCS12", null, List.of(), List.of(), null, null);
    }

    private static final java.util.Map<String, TransportSecurity> BUILT = new java.util.concurrent.ConcurrentHashMap<>();

    /** Contexts are built once per node name and JVM (loading PKCS12 stores is slow on a loaded machine). */
    public static TransportSecurity security(String name, CallerPolicy policy) throws Exception
    {
        TransportSecurity s = BUILT.get(name);
        if (s == null)
        {
            s = TlsContexts.build(settings(DIR, name), CallerPolicy.ALLOW_ALL);
            BUILT.put(name, s);
        }
        return s.withPolicy(policy);
    }
}
