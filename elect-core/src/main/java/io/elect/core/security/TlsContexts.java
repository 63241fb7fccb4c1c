package io.elect.core.security;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.UnrecoverableKeyException;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import io.elect.core.transport.CallerPolicy;
import io.elect.core.transport.TransportSecurity;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;

/**
 * Builds the mutual-TLS contexts of the ELECT transport from {@link TlsSettings}: TLS 1.3 unless the settings name
 * protocols, client certificates required. The engine is BoringSSL (netty-tcnative, which Cassandra ships) when it
 * loads, else the JDK's: same protocols, certificates and checks, several times the JDK's bulk throughput
 * ({@code -Delect.transport.ssl_provider=JDK} forces the JDK's). Every problem is a {@link TlsConfigException} naming the
 * setting ({@code server_encryption_options.keystore: ...}); no message ever contains a password (messages of the
 * JDK's exceptions are not passed on where they could echo input). Stateless.
 */
public final class TlsContexts
{
    private TlsContexts()
    {
    }

    /** A setting that stops TLS from being set up; the message names the setting and never holds a secret. */
    public static final class TlsConfigException extends IllegalArgumentException
    {
        public TlsConfigException(String message)
        {
            super(message);
        }
    }

    /** BoringSSL if it loads and has TLS 1.3, unless {@code -Delect.transport.ssl_provider=JDK}. */
    public static SslProvider provider()
    {
        if ("JDK".equalsIgnoreCase(System.getProperty("elect.transport.ssl_provider", "")))
            return SslProvider.JDK;
        try
        {
            return OpenSsl.isAvailable() && OpenSsl.isCipherSuiteAvailable("TLS_AES_128_GCM_SHA256") ? SslProvider.OPENSSL : SslProvider.JDK;
        }
        catch (Throwable t) // a native library that does not load is no reason not to run
        {
            return SslProvider.JDK;
        }
    }

    /** The protocols to enable: the settings' list, else TLSv1.3 where the engine supports it, else TLSv1.2. */
    public static List<String> protocols(TlsSettings s)
    {
        if (!s.protocols().isEmpty())
            return s.protocols();
        if (provider() == SslProvider.OPENSSL)
            return List.of("TLSv1.3");
        try
        {
            List<String> supported = Arrays.asList(SSLContext.getDefault().getSupportedSSLParameters().getProtocols());
            return supported.contains("TLSv1.3") ? List.of("TLSv1.3") : List.of("TLSv1.2");
        }
        catch (GeneralSecurityException e)
        {
            return List.of("TLSv1.2");
        }
    }

    /** Server and client contexts from the settings, with {@code policy}. Wipes nothing (the caller owns the settings). */
    public static TransportSecurity build(TlsSettings s, CallerPolicy policy)
    {
        TrustManagerFactory tmf = trust(s);
        KeyManagerFactory serverKeys = keys(s, "keystore", s.keystore(), s.keystorePassword());
        KeyManagerFactory clientKeys = s.outboundKeystore() == null ? serverKeys
                                       : keys(s, "outbound_keystore", s.outboundKeystore(), s.outboundKeystorePassword());
        List<String> protocols = protocols(s);
        SslProvider provider = provider();
        try
        {
            SslContextBuilder server = SslContextBuilder.forServer(serverKeys).trustManager(tmf).clientAuth(ClientAuth.REQUIRE)
                                                        .sslProvider(provider).protocols(protocols);
            SslContextBuilder client = SslContextBuilder.forClient().keyManager(clientKeys).trustManager(tmf)
                                                        .sslProvider(provider).protocols(protocols);
            if (!s.cipherSuites().isEmpty())
            {
                server.ciphers(s.cipherSuites());
                client.ciphers(s.cipherSuites());
            }
            SslContext sc = server.build();
            SslContext cc = client.build();
            return new TransportSecurity(sc, cc, policy, "tls " + String.join(",", protocols) + " (mutual, identity checked, " + provider + ")");
        }
        catch (javax.net.ssl.SSLException | IllegalArgumentException e)
        {
            throw new TlsConfigException(s.source() + ".protocol/cipher_suites: cannot set up TLS with protocols " + protocols
                                         + (s.cipherSuites().isEmpty() ? "" : " and cipher suites " + s.cipherSuites()) + ": " + e.getMessage());
        }
    }

    private static KeyManagerFactory keys(TlsSettings s, String key, Path file, Secret password)
    {
        KeyStore ks = load(s, key, file, password);
        try
        {
            if (!hasPrivateKey(ks))
                throw new TlsConfigException(s.source() + "." + key + ": " + file + " holds no private key entry; allowed: a keystore with this node's key and certificate");
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(s.algorithm() == null ? KeyManagerFactory.getDefaultAlgorithm() : s.algorithm());
            char[] pw = password == null ? new char[0] : password.chars();
            try
            {
                kmf.init(ks, pw);
            }
            finally
            {
                Arrays.fill(pw, '\0');
            }
            return kmf;
        }
        catch (UnrecoverableKeyException e)
        {
            throw new TlsConfigException(s.source() + "." + key + "_password: the private key in " + file
                                         + " cannot be recovered with it (a key password different from the keystore password is not supported)");
        }
        catch (GeneralSecurityException e)
        {
            throw new TlsConfigException(s.source() + ".algorithm: " + e.getClass().getSimpleName() + " setting up the key manager for " + file);
        }
    }

    private static TrustManagerFactory trust(TlsSettings s)
    {
        KeyStore ts = load(s, "truststore", s.truststore(), s.truststorePassword());
        try
        {
            if (ts.size() == 0)
                throw new TlsConfigException(s.source() + ".truststore: " + s.truststore() + " holds no certificate; allowed: a keystore with the CA certificate(s) of the cluster");
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(s.algorithm() == null ? TrustManagerFactory.getDefaultAlgorithm() : s.algorithm());
            tmf.init(ts);
            return tmf;
        }
        catch (GeneralSecurityException e)
        {
            throw new TlsConfigException(s.source() + ".algorithm: " + e.getClass().getSimpleName() + " setting up the trust manager for " + s.truststore());
        }
    }

    private static KeyStore load(TlsSettings s, String key, Path file, Secret password)
    {
        if (file == null)
            throw new TlsConfigException(s.source() + "." + key + ": not set; allowed: the path of a " + s.storeType() + " keystore");
        if (!Files.isRegularFile(file) || !Files.isReadable(file))
            throw new TlsConfigException(s.source() + "." + key + ": " + file + " is not a readable file");
        KeyStore ks;
        try
        {
            ks = KeyStore.getInstance(s.storeType());
        }
        catch (GeneralSecurityException e)
        {
            throw new TlsConfigException(s.source() + ".store_type: '" + s.storeType() + "' is not a keystore type of this JDK; allowed: JKS, PKCS12");
        }
        char[] pw = password == null ? null : password.chars();
        try (InputStream in = Files.newInputStream(file))
        {
            ks.load(in, pw);
            return ks;
        }
        catch (IOException e)
        {
            // The JDK reports a wrong password as an IOException whose cause is an UnrecoverableKeyException.
            if (e.getCause() instanceof UnrecoverableKeyException)
                throw new TlsConfigException(s.source() + "." + key + "_password: wrong password for " + file);
            throw new TlsConfigException(s.source() + "." + key + ": " + file + " cannot be read as a " + s.storeType()
                                         + " keystore (wrong store_type, wrong password or a corrupt file)");
        }
        catch (GeneralSecurityException e)
        {
            throw new TlsConfigException(s.source() + "." + key + ": " + file + " cannot be loaded (" + e.getClass().getSimpleName() + ")");
        }
        finally
        {
            if (pw != null)
                Arrays.fill(pw, '\0');
        }
    }

    private static boolean hasPrivateKey(KeyStore ks) throws GeneralSecurityException
    {
        for (Enumeration<String> e = ks.aliases(); e.hasMoreElements(); )
            if (ks.isKeyEntry(e.nextElement()))
                return true;
        return false;
    }
}
