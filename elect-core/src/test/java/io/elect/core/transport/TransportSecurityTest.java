package io.elect.core.transport;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.elect.core.security.Secret;
import io.elect.core.security.TestPki;
import io.elect.core.security.TlsContexts;
import io.elect.core.security.TlsSettings;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Who may make a verb run (issue 19), on real sockets with real TLS: a client without a certificate, with an
 * untrusted one, with a trusted one naming another address, or speaking plaintext to a TLS port never gets a
 * handler to run; a caller the policy does not admit gets exactly one ERROR and the connection is closed; ring
 * members (identified by the address their outgoing connections are bound to) are served.
 */
class TransportSecurityTest
{
    static final int ECHO = 1;
    static final TransportOptions OPTS = new TransportOptions(1 << 20, 8_000, 1, 10);
    final List<Transport> opened = new ArrayList<>();
    final AtomicInteger handled = new AtomicInteger();

    @BeforeAll
    static void certificates() throws Exception
    {
        TestPki.ensure();
    }

    @AfterEach
    void closeAll()
    {
        opened.forEach(Transport::close);
    }

    Transport open(String host, TransportSecurity security)
    {
        Transport t = new NettyTransport(host, 0, OPTS, PeerLiveness.ALWAYS, security);
        opened.add(t);
        return t;
    }

    Transport server(String host, TransportSecurity security)
    {
        Transport s = open(host, security);
        s.register(ECHO, p -> { handled.incrementAndGet(); return p; });
        return s;
    }

    /** Admits only the given addresses (what RingAccessPolicy does with gossip). */
    static CallerPolicy members(String... addresses)
    {
        Set<String> m = Set.of(addresses);
        return new CallerPolicy()
        {
            @Override
            public String refuseCaller(Caller caller)
            {
                return m.contains(caller.address().getHostAddress()) ? null : caller.address().getHostAddress() + " is not a ring member";
            }

            @Override
            public String refuseRequest(Caller caller, int verb, byte[] payload)
            {
                return null;
            }
        };
    }

    static TransportException failure(CompletableFuture<byte[]> f) throws Exception
    {
        try
        {
            f.get(30, TimeUnit.SECONDS);
        }
        catch (ExecutionException e)
        {
            if (e.getCause() instanceof TransportException)
                return (TransportException) e.getCause();
            throw new AssertionError("unexpected failure", e.getCause());
        }
        return fail("expected a failure");
    }

    static void eventually(String what, java.util.function.BooleanSupplier cond) throws InterruptedException
    {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!cond.getAsBoolean())
        {
            if (System.nanoTime() > end)
                fail("timed out waiting for: " + what);
            Thread.sleep(10);
        }
    }

    @Test
    void ringMembersOverMutualTlsAreServedOthersGetOneError() throws Exception
    {
        Transport s = server("127.0.0.2", TestPki.security("n2", members("127.0.0.2", "127.0.0.3")));
        Transport member = open("127.0.0.3", TestPki.security("n3", CallerPolicy.ALLOW_ALL));
        byte[] hello = "hello".getBytes(StandardCharsets.UTF_8);
        assertArrayEquals(hello, member.request(s.localPeer(), ECHO, hello).get(30, TimeUnit.SECONDS));

        // n4's certificate is valid and names its address, but 127.0.0.4 is not a member
        Transport stranger = open("127.0.0.4", TestPki.security("n4", CallerPolicy.ALLOW_ALL));
        TransportException e = failure(stranger.request(s.localPeer(), ECHO, hello));
        assertEquals(TransportException.Reason.REMOTE_ERROR, e.reason);
        assertTrue(e.getMessage().contains("refused: 127.0.0.4 is not a ring member"), e.getMessage());
        assertEquals(1, handled.get(), "only the member's request ran");
        assertEquals(1, s.metrics().refusedCallers.get());
    }

    @Test
    void certificateNamingAnotherAddressIsRefused() throws Exception
    {
        Transport s = server("127.0.0.1", TestPki.security("n1", CallerPolicy.ALLOW_ALL));
        // signed by the cluster's CA, but names 127.0.0.9 while connecting from 127.0.0.1
        Transport impostor = open("127.0.0.1", TestPki.security("wrongip", CallerPolicy.ALLOW_ALL));
        TransportException e = failure(impostor.request(s.localPeer(), ECHO, new byte[1]));
        assertEquals(TransportException.Reason.REMOTE_ERROR, e.reason);
        assertTrue(e.getMessage().contains("does not name 127.0.0.1") && e.getMessage().contains("IP:127.0.0.9"), e.getMessage());
        assertEquals(0, handled.get());
        assertEquals(1, s.metrics().refusedCallers.get());
    }

    @Test
    void serverWhoseCertificateNamesAnotherAddressIsNotTrusted() throws Exception
    {
        Transport s = server("127.0.0.1", TestPki.security("n2", CallerPolicy.ALLOW_ALL)); // n2 names 127.0.0.2
        Transport c = open("127.0.0.1", TestPki.security("n1", CallerPolicy.ALLOW_ALL));
        TransportException e = failure(c.request(s.localPeer(), ECHO, new byte[1]));
        assertEquals(TransportException.Reason.CONNECTION, e.reason);
        assertTrue(c.metrics().tlsHandshakeFailures.get() >= 1);
        assertEquals(0, handled.get());
    }

    @Test
    void untrustedCertificateNoCertificateAndPlaintextNeverRunAVerb() throws Exception
    {
        Transport s = server("127.0.0.1", TestPki.security("n1", CallerPolicy.ALLOW_ALL));
        String pw = TestPki.password(TestPki.DIR);
        // a certificate of another CA (the client trusts the right CA, so only the server can refuse it)
        TlsSettings rogue = new TlsSettings("test", TestPki.ROGUE_DIR.resolve("rogue.p12"), Secret.of(TestPki.password(TestPki.ROGUE_DIR)),
                                            TestPki.DIR.resolve("truststore.p12"), Secret.of(pw), "PKCS12", null, List.of(), List.of(), null, null);
        Transport r = open("127.0.0.1", TlsContexts.build(rogue, CallerPolicy.ALLOW_ALL));
        failure(r.request(s.localPeer(), ECHO, new byte[1]));
        eventually("rogue handshake counted", () -> s.metrics().tlsHandshakeFailures.get() >= 1);

        // a TLS client without any certificate
        SSLContext ctx = SSLContext.getInstance("TLSv1.3");
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        java.security.KeyStore ts = java.security.KeyStore.getInstance("PKCS12");
        try (InputStream in = java.nio.file.Files.newInputStream(TestPki.DIR.resolve("truststore.p12")))
        {
            ts.load(in, pw.toCharArray());
        }
        tmf.init(ts);
        ctx.init(null, tmf.getTrustManagers(), null);
        byte[] frame = FrameCodec.encode(new Frame(Frame.Kind.REQUEST, 1, ECHO, new byte[]{ 1 }), OPTS.maxFrameBytes());
        try (SSLSocket sock = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", s.localPeer().port()))
        {
            sock.setSoTimeout(20_000);
            assertThrows(IOException.class, () -> {
                sock.startHandshake();
                sock.getOutputStream().write(frame);
                sock.getOutputStream().flush();
                if (sock.getInputStream().read() < 0)
                    throw new EOFException("closed");
            });
        }
        eventually("no-certificate handshake counted", () -> s.metrics().tlsHandshakeFailures.get() >= 2);

        // plaintext frames to the TLS port
        try (Socket sock = new Socket("127.0.0.1", s.localPeer().port()))
        {
            sock.setSoTimeout(20_000);
            sock.getOutputStream().write(frame);
            sock.getOutputStream().flush();
            assertEquals(-1, sock.getInputStream().read(), "the server closes the connection without an answer");
        }
        eventually("plaintext handshake counted", () -> s.metrics().tlsHandshakeFailures.get() >= 3);
        assertEquals(0, handled.get(), "no handler ran");
        assertEquals(0, s.metrics().requestsServed.get());
    }

    /** Three frames in one write from a non-member: one ERROR frame comes back, then the connection is closed. */
    @Test
    void nonMemberGetsExactlyOneErrorThenEof() throws Exception
    {
        Transport s = server("127.0.0.2", new TransportSecurity(null, null, members("127.0.0.2"), "none"));
        try (Socket sock = new Socket())
        {
            sock.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.5"), 0));
            sock.connect(new InetSocketAddress("127.0.0.2", s.localPeer().port()));
            sock.setSoTimeout(20_000);
            OutputStream out = sock.getOutputStream();
            for (int i = 1; i <= 3; i++)
                out.write(FrameCodec.encode(new Frame(Frame.Kind.REQUEST, i, ECHO, new byte[]{ (byte) i }), OPTS.maxFrameBytes()));
            out.flush();
            DataInputStream in = new DataInputStream(sock.getInputStream());
            int length = in.readInt();
            byte[] body = new byte[length];
            in.readFully(body);
            Frame f = FrameCodec.decodeBody(body);
            assertEquals(Frame.Kind.ERROR, f.kind());
            assertEquals(1, f.requestId());
            assertTrue(new String(f.payload(), StandardCharsets.UTF_8).contains("127.0.0.5 is not a ring member"));
            assertEquals(-1, in.read(), "closed after the one ERROR");
        }
        assertEquals(0, handled.get());
        assertEquals(1, s.metrics().refusedCallers.get());
    }
}
