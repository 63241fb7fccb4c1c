package io.elect.core.transport;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Whether a certificate names a network address: the server side's check of a client certificate on the ELECT
 * transport (the client side uses the JDK's endpoint identification during the handshake, with the same rules for IP
 * addresses). A certificate names an address when one of its subjectAltName entries is
 * <ul>
 * <li>an iPAddress equal to it (the recommended form: docs/security.md generates such certificates), or</li>
 * <li>a dNSName whose forward resolution contains it (no wildcards: a wildcard name would admit every host of the
 *     domain as any node).</li>
 * </ul>
 * The subject's CN is never used (RFC 6125 deprecates it, and an attacker-chosen CN must not be an identity). The
 * certificate itself was already verified against the truststore by the TLS handshake: this class only decides
 * whether it belongs to the address that connected. Stateless, thread-safe; a DNS lookup may block, so it runs once
 * per connection.
 */
public final class CertificateIdentity
{
    private static final int SAN_DNS = 2;
    private static final int SAN_IP = 7;

    private CertificateIdentity()
    {
    }

    public static boolean names(X509Certificate cert, InetAddress address)
    {
        for (List<?> san : subjectAltNames(cert))
        {
            int type = (Integer) san.get(0);
            String value = String.valueOf(san.get(1));
            if (type == SAN_IP && sameAddress(value, address))
                return true;
            if (type == SAN_DNS && !value.contains("*") && resolvesTo(value, address))
                return true;
        }
        return false;
    }

    /** The subjectAltName entries as "IP:..." / "DNS:..." strings, for error messages. */
    public static List<String> describe(X509Certificate cert)
    {
        List<String> out = new ArrayList<>();
        for (List<?> san : subjectAltNames(cert))
        {
            int type = (Integer) san.get(0);
            if (type == SAN_IP || type == SAN_DNS)
                out.add((type == SAN_IP ? "IP:" : "DNS:") + san.get(1));
        }
        return out;
    }

    private static Collection<List<?>> subjectAltNames(X509Certificate cert)
    {
        try
        {
            Collection<List<?>> sans = cert.getSubjectAlternativeNames();
            return sans == null ? List.of() : sans;
        }
        catch (CertificateParsingException e)
        {
            return List.of();
        }
    }

    private static boolean sameAddress(String literal, InetAddress address)
    {
        try
        {
            // an IP literal: getByName does not resolve it through DNS
            return InetAddress.getByName(literal).equals(address);
        }
        catch (UnknownHostException e)
        {
            return false;
        }
    }

    private static boolean resolvesTo(String name, InetAddress address)
    {
        try
        {
            for (InetAddress a : InetAddress.getAllByName(name))
                if (a.equals(address))
                    return true;
        }
        catch (UnknownHostException e)
        {
            // fall through: a name that does not resolve names nothing
        }
        return false;
    }
}
