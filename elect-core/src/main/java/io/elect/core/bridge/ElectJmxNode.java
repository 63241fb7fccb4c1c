package io.elect.core.bridge;

import java.lang.management.ManagementFactory;
import javax.management.ObjectName;
import javax.management.StandardMBean;

import io.elect.core.ElectVersion;
import io.elect.core.config.ActiveConfig;
import io.elect.core.jmx.ElectNodeMBean;
import org.apache.cassandra.service.StorageService;
import org.apache.cassandra.utils.FBUtilities;

/** The {@link ElectNodeMBean} of a running node, backed by Cassandra's StorageService. */
public final class ElectJmxNode implements ElectNodeMBean
{
    private final long startedAtMillis = System.currentTimeMillis();

    /** Registers the node MBean in the platform MBean server (the one Cassandra's JMX port serves). Idempotent. */
    public static void register() throws Exception
    {
        ObjectName name = new ObjectName(OBJECT_NAME);
        var server = ManagementFactory.getPlatformMBeanServer();
        if (!server.isRegistered(name))
            server.registerMBean(new StandardMBean(new ElectJmxNode(), ElectNodeMBean.class), name);
    }

    @Override
    public String getElectVersion()
    {
        return ElectVersion.get();
    }

    @Override
    public String getCassandraVersion()
    {
        return FBUtilities.getReleaseVersionString();
    }

    @Override
    public String getAddress()
    {
        return FBUtilities.getBroadcastAddressAndPort().getHostAddressAndPort();
    }

    @Override
    public String getOperationMode()
    {
        return StorageService.instance.getOperationMode();
    }

    @Override
    public String getConfigJson()
    {
        return ActiveConfig.get().toString();
    }

    @Override
    public String getStorageJson()
    {
        TransitionService t = TransitionService.instance();
        if (t == null)
            throw new IllegalStateException("ELECT transitioning is not running on this node (see its log)");
        return t.storageJson();
    }

    @Override
    public String startRebuild(int parallelism, double throttleMiBps, boolean stream, String keyspace) throws Exception
    {
        return running().startRebuild(parallelism, throttleMiBps, stream, keyspace == null || keyspace.isEmpty() ? null : keyspace);
    }

    @Override
    public String getRebuildJson()
    {
        return NodeRebuild.status();
    }

    @Override
    public String awaitRebuild(long maxWaitMillis) throws Exception
    {
        if (maxWaitMillis < 0 || maxWaitMillis > 5000)
            throw new IllegalArgumentException("maxWaitMillis must be in [0, 5000], got " + maxWaitMillis);
        return NodeRebuild.await(maxWaitMillis);
    }

    @Override
    public String verify() throws Exception
    {
        return running().verify();
    }

    private static TransitionService running()
    {
        TransitionService t = TransitionService.instance();
        if (t == null)
            throw new IllegalStateException("ELECT transitioning is not running on this node (see its log)");
        return t;
    }

    @Override
    public long getUptimeMillis()
    {
        return System.currentTimeMillis() - startedAtMillis;
    }
}
