package io.elect.core.transport;

import java.net.InetAddress;
import java.security.cert.X509Certificate;
import java.util.Objects;

/**
 * Who sent a request, as the receiving transport knows it: the remote address of the connection and, on a TLS
 * connection, the client certificate the handshake verified against the truststore and whether that certificate
 * names the remote address ({@code identityVerified}; see {@code io.elect.core.security.CertificateIdentity}).
 * Without TLS the address is all there is (anyone who can spoof it is trusted: see docs/security.md).
 *
 * @param address          remote IP of the connection (never null)
 * @param certificate      the peer's verified leaf certificate, or null on a plaintext connection
 * @param identityVerified true on a TLS connection whose certificate names {@code address}; false otherwise
 */
public record Caller(InetAddress address, X509Certificate certificate, boolean identityVerified)
{
    public Caller
    {
        Objects.requireNonNull(address, "address");
        if (identityVerified && certificate == null)
            throw new IllegalArgumentException("identityVerified needs a certificate");
    }

    /** A caller on a plaintext connection. */
    public static Caller plaintext(InetAddress address)
    {
        return new Caller(address, null, false);
    }

    public boolean tls()
    {
        return certificate != null;
    }

    /** For logs: the address and, with TLS, the certificate's subject (never key material). */
    @Override
    public String toString()
    {
        return certificate == null ? address.getHostAddress()
                                   : address.getHostAddress() + " (" + certificate.getSubjectX500Principal().getName() + ")";
    }
}
