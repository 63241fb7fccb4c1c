package io.elect.core.bridge;


import java.io.IOException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.ElectVersion;
import io.elect.core.config.ColdTierStores;
import io.elect.core.config.ElectConfig;
import io.elect.core.config.ElectConfigException;
import io.elect.core.config.ElectYaml;
import io.elect.core.node.ElectNode;
import io.elect.core.node.NodeExecutors;
import io.elect.core.transport.NettyTransport;
import io.elect.core.transport.TransportOptions;
import org.apache.cassandra.exceptions.ConfigurationException;
import org.apache.cassandra.service.CassandraDaemon;
import org.apache.cassandra.service.StorageService;

/**
 * The main class of an ELECT node: an unmodified Cassandra daemon with ELECT's configuration loader and
 * services. Before Cassandra starts, the {@code elect:} section is validated, so that a bad value stops the
 * node with exactly one line on stderr (naming the key and the allowed range) and exit code 1.
 */
public final class ElectDaemon
{
    private static final Logger logger = LoggerFactory.getLogger(ElectDaemon.class);

    private ElectDaemon()
    {
    }

    public static void main(String[] args)
    {
        String javaVersion = System.getProperty("java.specification.version");
        if (!"17".equals(javaVersion))
            fail("ELECT nodes run on Java 17 (Cassandra 5.0.9 does not start on Java " + javaVersion + "); set JAVA_HOME to a Java 17 JDK");
        ElectConfig validated = null;
        org.apache.cassandra.config.Config cassandra = null;
        try
        {
            ElectYaml.Split split = ElectConfigurationLoader.load(ElectConfigurationLoader.configUrl());
            cassandra = ElectConfigurationLoader.cassandraConfig(split);
            validated = split.config;
            logger.info("ELECT {} starting; elect: {}", ElectVersion.get(), split.config);
        }
        catch (ElectConfigException e)
        {
            fail("invalid configuration: " + e.getMessage());
        }
        catch (ConfigurationException e)
        {
            fail(e.getMessage());
        }
        System.setProperty("cassandra.config.loader", ElectConfigurationLoader.class.getName());

        // The node object exists before Cassandra starts: Cassandra opens tiered SSTables and creates compaction
        // strategies during its start-up, and they reach the node through the hand-off.
        ElectConfig config = NodeHandoff.loadedConfig() != null ? NodeHandoff.loadedConfig() : validated;
        ElectNode node;
        try
        {
            node = ElectNode.create(config, CassandraMetrics.REGISTRAR);
        }
        catch (io.elect.coding.CoderUnavailableException e)
        {
            fail("invalid configuration: " + e.getMessage()); // an explicit elect.coder that cannot be loaded here
            return;
        }
        registerColdTier(node);
        Bridge bridge = new Bridge(node);
        NodeHandoff.install(bridge);

        try
        {
            // bin/elect --jmx-address: JMX on the node's own address instead of Cassandra's loopback-only JMX
            AddressJmxServer.startIfConfigured();
        }
        catch (IOException | RuntimeException e)
        {
            fail("JMX on " + System.getProperty(AddressJmxServer.ADDRESS_PROPERTY) + ":" + System.getProperty(AddressJmxServer.PORT_PROPERTY)
                 + " (--jmx-address, --jmx-port) did not start: " + e.getMessage());
        }
        JoinSurvey join = JoinSurvey.decide(cassandra); // before StorageService exists: it reads cassandra.write_survey once
        CassandraDaemon.main(args);
        try
        {
            ElectJmxNode.register(bridge);
        }
        catch (Exception e)
        {
            logger.error("ELECT could not register its JMX beans", e);
        }
        try
        {
            // TLS as configured, ring-member and stripe-participant checks, io.elect:type=Transport (docs/security.md)
            ElectStripeStore store = new ElectStripeStore(node.clock());
            NettyTransport transport = ElectTransportSecurity.open(bridge.ring().self(), config, store, bridge.ring());
            node.start(new ElectNode.Seams(bridge.localTables(), bridge.ring(), store, ElectStateDir.root(),
                                           transport, NodeExecutors.THREADS));
            node.scheduleRounds();
            if (join != null && StorageService.instance.isSurveyMode())
                node.completeJoin(() -> joinRing(join));
        }
        catch (IOException | RuntimeException e)
        {
            logger.error("ELECT services did not start; this node serves reads and writes but takes no part in stripes"
                         + (join != null ? "; it bootstrapped in write survey mode and stays out of the ring until ELECT starts "
                                           + "(fix and restart it; `nodetool join` would join without the stubs of encoded data)" : ""), e);
        }
        logger.info("ELECT {} node started", ElectVersion.get());
    }

    /**
     * Makes the configured cold tier available to tiered data files (SSTables whose data lives in the cold tier
     * name it in their sidecar). A cold tier that cannot be set up does not stop the node: reads of cold data then
     * fail with a clear error until it is fixed, everything else works.
     */
    private static void registerColdTier(ElectNode node)
    {
        ElectConfig config = node.config();
        if (!config.offloadEnabled)
            return;
        try
        {
            node.registerColdStore(ColdTierStores.DEFAULT_STORE, ColdTierStores.open(config.coldTier));
        }
        catch (RuntimeException e)
        {
            logger.warn("ELECT cold tier at {} (bucket {}) is not available: {}", config.coldTier.endpoint,
                        config.coldTier.bucket, e.getMessage());
        }
    }

    /** Leaves write survey mode once ELECT caught up (JoinSurvey); throws (and is retried) while that cannot be done. */
    private static void joinRing(JoinSurvey join)
    {
        if (StorageService.instance.isBootstrapMode())
            throw new IllegalStateException("Cassandra's bootstrap streaming has not completed (nodetool bootstrap resume)");
        try
        {
            StorageService.instance.joinRing();
            if (StorageService.instance.isSurveyMode())
                throw new IllegalStateException("Cassandra did not leave write survey mode (see its log)");
            join.finished();
        }
        catch (IOException e)
        {
            throw new java.io.UncheckedIOException("joining the ring: " + e.getMessage(), e);
        }
    }

    private static void fail(String line)
    {
        System.err.println("elect: " + line);
        System.exit(1);
    }
}
