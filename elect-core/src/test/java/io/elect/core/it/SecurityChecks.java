package io.elect.core.it;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

import io.elect.core.security.Secret;
import io.elect.core.security.ThrowAwayPki;
import io.elect.core.security.TlsContexts;
import io.elect.core.security.TlsSettings;
import io.elect.core.transition.wire.TransitionMessages.SnapshotRequest;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.core.transport.CallerPolicy;
import io.elect.core.transport.NettyTransport;
import io.elect.core.transport.Peer;
import io.elect.core.transport.PeerLiveness;
import io.elect.core.transport.TransportException;
import io.elect.core.transport.TransportOptions;
import io.elect.core.transport.Verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Checks of issue 19 against a running local cluster started with {@code --tls}: who may make a verb run on a real
 * node's ELECT port, and that no secret ever reaches a log (used by {@link LocalClusterIT}).
 */
final class SecurityChecks
{
    static final TransportOptions OPTS = new TransportOptions(1 << 20, 20_000, 0, 10);

    private SecurityChecks()
    {
    }

    static String password(Path tlsDir) throws IOException
    {
        return Files.readString(tlsDir.resolve("password")).trim();
    }

    static TlsSettings settings(Path tlsDir, String name) throws IOException
    {
        String pw = password(tlsDir);
        return new TlsSettings("test", tlsDir.resolve(name + ".p12"), Secret.of(pw), tlsDir.resolve("truststore.p12"), Secret.of(pw),
                               "PKCS12", null, List.of(), List.of(), null, null);
    }

    /** The outcome of one SNAPSHOT request from {@code source} with the certificate {@code cert}: the error text. */
    static String snapshotFrom(Path tlsDir, String source, String cert) throws Exception
    {
        NettyTransport t = new NettyTransport(source, 0, OPTS, PeerLiveness.ALWAYS, TlsContexts.build(settings(tlsDir, cert), CallerPolicy.ALLOW_ALL));
        try
        {
            t.request(new Peer("127.0.0.1", 7070), Verbs.SNAPSHOT, new SnapshotRequest(new TableRef("it", "kv")).encode()).get(60, TimeUnit.SECONDS);
            return "ok";
        }
        catch (ExecutionException e)
        {
            return String.valueOf(e.getCause());
        }
        finally
        {
            t.close();
        }
    }

    /**
     * A ring member with its certificate is served (the handler runs: it refuses a non-ELECT table); a valid
     * certificate of a host that is not a ring member, a member's certificate used from another address, a client
     * without certificate and plaintext all fail without any verb running.
     */
    static void onlyRingMembersWithTheirCertificateRunVerbs(Path tlsDir) throws Exception
    {
        ThrowAwayPki.generate(tlsDir, List.of("stranger:127.0.0.9"));
        String member = snapshotFrom(tlsDir, "127.0.0.2", "n2");
        assertTrue(!member.contains("refused") && (member.equals("ok") || member.contains("REMOTE_ERROR")), member);
        String stranger = snapshotFrom(tlsDir, "127.0.0.9", "stranger");
        assertTrue(stranger.contains("refused: 127.0.0.9 is not a ring member"), stranger);
        String stolen = snapshotFrom(tlsDir, "127.0.0.9", "n2");
        assertTrue(stolen.contains("refused: the client certificate") && stolen.contains("does not name 127.0.0.9"), stolen);

        SSLContext ctx = SSLContext.getInstance("TLSv1.3");
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        java.security.KeyStore ts = java.security.KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(tlsDir.resolve("truststore.p12")))
        {
            ts.load(in, password(tlsDir).toCharArray());
        }
        tmf.init(ts);
        ctx.init(null, tmf.getTrustManagers(), null);
        try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket())
        {
            s.bind(new java.net.InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0));
            s.connect(new java.net.InetSocketAddress("127.0.0.1", 7070), 10_000);
            s.setSoTimeout(20_000);
            assertThrows(IOException.class, () -> {
                s.startHandshake();
                s.getOutputStream().write(new byte[]{ 0, 0, 0, 18 });
                s.getOutputStream().flush();
                if (s.getInputStream().read() < 0)
                    throw new IOException("closed");
            }, "a client without a certificate must not get a session");
        }
    }

    /** Every line of every log under {@code runDir} and every extra text, searched for each secret. */
    static void noSecretIn(Path runDir, List<String> extraTexts, List<String> secrets) throws IOException
    {
        List<Path> logs = new ArrayList<>();
        try (Stream<Path> s = Files.walk(runDir))
        {
            s.filter(Files::isRegularFile).filter(p -> p.getFileName().toString().endsWith(".log")).forEach(logs::add);
        }
        assertTrue(logs.size() >= 3, "expected node logs under " + runDir + ", found " + logs);
        for (String secret : secrets)
        {
            assertTrue(secret.length() >= 8, "a secret too short to search for");
            for (Path log : logs)
                if (new String(Files.readAllBytes(log), StandardCharsets.ISO_8859_1).contains(secret))
                    fail("a secret (" + secret.length() + " characters, starting " + secret.substring(0, 2) + ") appears in " + log);
            for (String text : extraTexts)
                if (text.contains(secret))
                    fail("a secret appears in tool output: " + text.substring(0, Math.min(200, text.length())));
        }
        for (Path log : logs)
        {
            String text = new String(Files.readAllBytes(log), StandardCharsets.ISO_8859_1);
            assertTrue(!text.contains("PRIVATE KEY-----"), "private key material in " + log);
        }
    }
}
