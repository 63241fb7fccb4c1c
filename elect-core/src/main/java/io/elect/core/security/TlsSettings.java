package io.elect.core.security;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Where the ELECT transport's TLS material is: the same keystore and truststore as Cassandra's
 * {@code server_encryption_options} (read by {@code io.elect.core.bridge.ElectTransportSecurity}), so one set of
 * certificates serves Cassandra's internode port and the ELECT port. Plain Java types; {@code source} names the
 * configuration section in error messages (e.g. {@code server_encryption_options}). Passwords are {@link Secret}s:
 * {@link #toString()} never shows them.
 *
 * @param protocols    TLS protocol names to enable; empty: TLSv1.3 if the JDK has it, else TLSv1.2
 * @param cipherSuites cipher suites to enable; empty: the JDK's defaults for those protocols
 * @param algorithm    KeyManagerFactory/TrustManagerFactory algorithm; null: the JDK's default
 * @param outboundKeystore keystore for outgoing connections (Cassandra's {@code outbound_keystore}); null: keystore
 */
public record TlsSettings(String source, Path keystore, Secret keystorePassword, Path truststore, Secret truststorePassword,
                          String storeType, String algorithm, List<String> protocols, List<String> cipherSuites,
                          Path outboundKeystore, Secret outboundKeystorePassword)
{
    public TlsSettings
    {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(storeType, "storeType");
        protocols = List.copyOf(protocols == null ? List.of() : protocols);
        cipherSuites = List.copyOf(cipherSuites == null ? List.of() : cipherSuites);
    }

    /** Wipes every password (after the contexts were built). */
    public void wipe()
    {
        for (Secret s : new Secret[]{ keystorePassword, truststorePassword, outboundKeystorePassword })
            if (s != null)
                s.wipe();
    }

    @Override
    public String toString()
    {
        return source + "{keystore=" + keystore + ", truststore=" + truststore + ", store_type=" + storeType + ", protocols="
               + (protocols.isEmpty() ? "default" : protocols) + (outboundKeystore == null ? "" : ", outbound_keystore=" + outboundKeystore) + "}";
    }
}
