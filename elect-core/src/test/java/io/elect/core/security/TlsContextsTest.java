package io.elect.core.security;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.elect.core.transport.CallerPolicy;
import io.elect.core.transport.TransportSecurity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Setting up TLS from keystores: TLS 1.3 by default, and every bad setting named in one line without the password. */
class TlsContextsTest
{
    static final String WRONG = "Wr0ng-Passw0rd-4242";

    @BeforeAll
    static void certificates() throws Exception
    {
        TestPki.ensure();
    }

    static TlsSettings with(Path keystore, String keystorePw, Path truststore, String truststorePw, String type)
    {
        return new TlsSettings("server_encryption_options", keystore, Secret.of(keystorePw), truststore, Secret.of(truststorePw), type,
                               null, List.of(), List.of(), null, null);
    }

    static String failure(TlsSettings s)
    {
        TlsContexts.TlsConfigException e = assertThrows(TlsContexts.TlsConfigException.class, () -> TlsContexts.build(s, CallerPolicy.ALLOW_ALL));
        assertFalse(e.getMessage().contains(WRONG), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        return e.getMessage();
    }

    @Test
    void tls13MutualByDefault() throws Exception
    {
        TransportSecurity s = TlsContexts.build(TestPki.settings(TestPki.DIR, "n1"), CallerPolicy.ALLOW_ALL);
        assertTrue(s.tls());
        assertTrue(s.describe().startsWith("tls TLSv1.3 (mutual, identity checked"), s.describe());
        assertEquals(List.of("TLSv1.3"), TlsContexts.protocols(TestPki.settings(TestPki.DIR, "n1")));
    }

    @Test
    void badSettingsAreNamedWithoutThePassword() throws Exception
    {
        String pw = TestPki.password(TestPki.DIR);
        Path ks = TestPki.DIR.resolve("n1.p12"), ts = TestPki.DIR.resolve("truststore.p12");
        assertTrue(failure(with(ks, WRONG, ts, pw, "PKCS12")).startsWith("server_encryption_options.keystore_password: wrong password for " + ks));
        assertTrue(failure(with(ks, pw, ts, WRONG, "PKCS12")).startsWith("server_encryption_options.truststore_password: wrong password for " + ts));
        assertTrue(failure(with(TestPki.DIR.resolve("nope.p12"), WRONG, ts, pw, "PKCS12")).contains("keystore: " + TestPki.DIR.resolve("nope.p12") + " is not a readable file"));
        assertTrue(failure(with(ts, pw, ts, pw, "PKCS12")).contains("holds no private key entry"));
        assertTrue(failure(with(ks, WRONG, ts, pw, "NOPE")).startsWith("server_encryption_options.store_type: 'NOPE'"));
        assertTrue(failure(with(null, WRONG, ts, pw, "PKCS12")).startsWith("server_encryption_options.keystore: not set"));
        assertEquals("<redacted>", Secret.of(WRONG).toString());
        assertFalse(with(ks, WRONG, ts, WRONG, "PKCS12").toString().contains(WRONG));
    }
}
