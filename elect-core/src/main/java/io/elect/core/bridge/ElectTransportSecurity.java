package io.elect.core.bridge;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.management.ObjectName;
import javax.management.StandardMBean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.config.Json;
import io.elect.core.config.ElectConfig;
import io.elect.core.security.RingAccessPolicy;
import io.elect.core.security.Secret;
import io.elect.core.security.TlsContexts;
import io.elect.core.security.TlsSettings;
import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.transition.StripeStore;
import io.elect.core.transport.NettyTransport;
import io.elect.core.transport.PeerLiveness;
import io.elect.core.transport.TransportOptions;
import io.elect.core.transport.TransportSecurity;
import org.apache.cassandra.config.Config;
import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.config.EncryptionOptions.ServerEncryptionOptions;
import org.apache.cassandra.config.EncryptionOptions.ServerEncryptionOptions.InternodeEncryption;
import org.apache.cassandra.exceptions.ConfigurationException;
import org.apache.cassandra.gms.Gossiper;
import org.apache.cassandra.locator.InetAddressAndPort;
import org.apache.cassandra.service.StorageService;
import org.apache.cassandra.utils.FBUtilities;

/**
 * The Cassandra side of the ELECT transport's security (issue 19, docs/security.md), in one place:
 * <ul>
 * <li>TLS settings from Cassandra's {@code server_encryption_options} (keystore, truststore, passwords, store type,
 *     protocol), so one set of certificates serves both ports;</li>
 * <li>whether TLS is on: {@code elect.transport_encryption} if set, else TLS exactly when Cassandra's
 *     {@code internode_encryption} is not {@code none}; {@code none} while internode encryption is {@code all} is
 *     a configuration error (it would silently leave stripe traffic in the clear);</li>
 * <li>ring membership from gossip and stripe participants from the stripe records, for {@link RingAccessPolicy};</li>
 * <li>the {@code io.elect:type=Transport} MBean ({@code electtool status}: encryption and counters; no secret).</li>
 * </ul>
 * Everything else lives in {@code io.elect.core.security} and {@code io.elect.core.transport}, free of Cassandra.
 */
public final class ElectTransportSecurity
{
    private static final Logger logger = LoggerFactory.getLogger(ElectTransportSecurity.class);
    public static final String MBEAN = "io.elect:type=Transport";
    static final String SOURCE = "server_encryption_options";
    static final String DEFAULT_FACTORY = "org.apache.cassandra.security.DefaultSslContextFactory";

    private ElectTransportSecurity()
    {
    }

    /**
     * Checks the elect: section against Cassandra's server_encryption_options (called by the configuration loader,
     * so a bad combination stops the node at start with one line); with TLS it also loads the keystores once.
     *
     * @throws ConfigurationException naming the setting; never containing a password
     */
    public static void validate(Config cassandra, ElectConfig elect)
    {
        try
        {
            ServerEncryptionOptions o = cassandra.server_encryption_options;
            if (tlsWanted(elect, o))
            {
                TlsSettings s = settings(o);
                try
                {
                    TlsContexts.build(s, io.elect.core.transport.CallerPolicy.ALLOW_ALL);
                }
                finally
                {
                    s.wipe();
                }
            }
        }
        catch (IllegalArgumentException e)
        {
            throw new ConfigurationException("Invalid ELECT configuration: " + e.getMessage(), false);
        }
    }

    /**
     * Whether the ELECT transport uses TLS.
     *
     * @throws IllegalArgumentException (naming elect.transport_encryption) for none with internode_encryption all
     */
    static boolean tlsWanted(ElectConfig elect, ServerEncryptionOptions o)
    {
        InternodeEncryption internode = o == null || o.internode_encryption == null ? InternodeEncryption.none : o.internode_encryption;
        if (elect.transportEncryption == null)
            return internode != InternodeEncryption.none;
        if ("none".equals(elect.transportEncryption) && internode == InternodeEncryption.all)
            throw new IllegalArgumentException("elect.transport_encryption: none is not allowed while " + SOURCE
                                               + ".internode_encryption is all; allowed: tls (or leave the key out)");
        return "tls".equals(elect.transportEncryption);
    }

    static TlsSettings settings(ServerEncryptionOptions o)
    {
        if (o == null)
            throw new IllegalArgumentException(SOURCE + ": not set; the ELECT transport's TLS uses its keystore and truststore");
        if (o.ssl_context_factory != null && o.ssl_context_factory.class_name != null
            && !o.ssl_context_factory.class_name.equals(DEFAULT_FACTORY) && !o.ssl_context_factory.class_name.equals("DefaultSslContextFactory"))
            throw new IllegalArgumentException(SOURCE + ".ssl_context_factory: " + o.ssl_context_factory.class_name
                                               + " is not supported by the ELECT transport; allowed: " + DEFAULT_FACTORY + " (keystore files)");
        String protocol = o.getProtocol();
        List<String> protocols = protocol != null && protocol.startsWith("TLSv") ? List.of(protocol) : List.of();
        return new TlsSettings(SOURCE, path(o.keystore), Secret.of(o.keystore_password), path(o.truststore), Secret.of(o.truststore_password),
                               o.store_type == null ? "JKS" : o.store_type, o.algorithm, protocols, o.cipher_suites,
                               path(o.outbound_keystore), Secret.of(o.outbound_keystore_password));
    }

    private static Path path(String s)
    {
        return s == null || s.isEmpty() ? null : Path.of(s).toAbsolutePath();
    }

    /** The node's transport: TLS as configured, ring-member and stripe-participant checks, its MBean registered. */
    public static NettyTransport open(String host, ElectConfig config, StripeStore stripes, PeerLiveness liveness)
    {
        RingAccessPolicy policy = new RingAccessPolicy(new GossipRing(), id -> participants(stripes, id), io.elect.core.util.Clock.SYSTEM);
        TransportSecurity security;
        ServerEncryptionOptions o = DatabaseDescriptor.getRawConfig().server_encryption_options;
        if (tlsWanted(config, o))
        {
            TlsSettings s = settings(o);
            try
            {
                security = TlsContexts.build(s, policy);
            }
            finally
            {
                s.wipe();
            }
            logger.info("ELECT transport TLS: {} from {}", security.describe(), s);
        }
        else
        {
            security = TransportSecurity.PLAINTEXT_OPEN.withPolicy(policy);
        }
        NettyTransport t = new NettyTransport(host, config.transportPort, TransportOptions.fromConfig(config), liveness, security);
        registerMBean(t);
        return t;
    }

    static Optional<Set<String>> participants(StripeStore stripes, String stripeId)
    {
        StripeId id;
        try
        {
            id = StripeId.parse(stripeId);
        }
        catch (IllegalArgumentException e)
        {
            return Optional.empty(); // not a stripe id: no record can exist
        }
        Optional<StripeRecord> r = stripes.getCommitted(id);
        if (r.isEmpty())
            return Optional.empty();
        Set<String> out = new HashSet<>(r.get().parityNodes());
        for (Member m : r.get().members())
            if (!m.isVirtual())
                out.add(m.node());
        return Optional.of(out);
    }

    /** Ring membership from gossip (live and unreachable members); cheap: two small set scans. */
    static final class GossipRing implements RingAccessPolicy.Ring
    {
        @Override
        public boolean isMember(InetAddress address)
        {
            if (isSelf(address))
                return true;
            for (InetAddressAndPort ep : Gossiper.instance.getLiveMembers())
                if (ep.getAddress().equals(address))
                    return true;
            for (InetAddressAndPort ep : Gossiper.instance.getUnreachableMembers())
                if (ep.getAddress().equals(address))
                    return true;
            return false;
        }

        @Override
        public boolean isSelf(InetAddress address)
        {
            return FBUtilities.getBroadcastAddressAndPort().getAddress().equals(address);
        }

        /**
         * As the node's TransitionService picks it: the smallest host address string among the ring's token owners
         * (rounds run only while every member is up, so this is the node that runs them).
         */
        @Override
        public Optional<String> coordinator()
        {
            return StorageService.instance.getTokenMetadata().getAllEndpoints().stream()
                                          .map(ep -> ep.getAddress().getHostAddress()).min(String::compareTo);
        }
    }

    /** {@code electtool status}: the transport's encryption and counters. */
    public interface TransportStatusMBean
    {
        String getEncryption();

        String getMetricsJson();
    }

    private static void registerMBean(NettyTransport t)
    {
        try
        {
            ObjectName name = new ObjectName(MBEAN);
            var server = ManagementFactory.getPlatformMBeanServer();
            if (server.isRegistered(name))
                server.unregisterMBean(name);
            TransportStatusMBean bean = new TransportStatusMBean()
            {
                @Override
                public String getEncryption()
                {
                    return t.security().describe();
                }

                @Override
                public String getMetricsJson()
                {
                    return Json.write(new java.util.LinkedHashMap<String, Object>(t.metrics().toMap()));
                }
            };
            server.registerMBean(new StandardMBean(bean, TransportStatusMBean.class), name);
        }
        catch (Exception e)
        {
            logger.warn("ELECT transport MBean not registered: {}", e.toString());
        }
    }
}
