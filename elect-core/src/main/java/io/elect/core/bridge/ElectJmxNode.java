package io.elect.core.bridge;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;

import javax.management.ObjectName;
import javax.management.StandardMBean;

import org.apache.cassandra.service.StorageService;
import org.apache.cassandra.utils.FBUtilities;

import io.elect.core.ElectVersion;
import io.elect.core.config.Json;
import io.elect.core.jmx.ElectNodeMBean;
import io.elect.core.node.ElectNode;

/** The {@link ElectNodeMBean} of a running node: Cassandra's facts from its StorageService, ELECT's from the node. */
public final class ElectJmxNode implements ElectNodeMBean
{
    private final ElectNode node;
    private final long startedAtMillis;

    private ElectJmxNode(ElectNode node)
    {
        this.node = node;
        this.startedAtMillis = node.clock().millis();
    }

    /** Registers the node MBean in the platform MBean server (the one Cassandra's JMX port serves). Idempotent. */
    public static void register(Bridge bridge) throws Exception
    {
        ObjectName name = new ObjectName(OBJECT_NAME);
        var server = ManagementFactory.getPlatformMBeanServer();
        if (!server.isRegistered(name))
            server.registerMBean(new StandardMBean(new ElectJmxNode(bridge.node()), ElectNodeMBean.class), name);
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
        return node.config().toString();
    }

    @Override
    public String getStorageJson()
    {
        return node.storageJson();
    }

    @Override
    public String getReadsJson() throws Exception
    {
        return node.readsJson();
    }

    @Override
    public String startRebuild(int parallelism, double throttleMiBps, boolean stream, String keyspace) throws Exception
    {
        return node.startRebuild(parallelism, throttleMiBps, stream, keyspace == null || keyspace.isEmpty() ? null : keyspace);
    }

    @Override
    public String getUpdatesJson() throws Exception
    {
        return node.ops().updatesJson();
    }

    @Override
    public String getRebuildJson()
    {
        return node.rebuilds().status();
    }

    @Override
    public String awaitRebuild(long maxWaitMillis) throws Exception
    {
        if (maxWaitMillis < 0 || maxWaitMillis > 5000)
            throw new IllegalArgumentException("maxWaitMillis must be in [0, 5000], got " + maxWaitMillis);
        return node.rebuilds().await(maxWaitMillis);
    }

    @Override
    public String verify() throws Exception
    {
        return node.verify();
    }

    @Override
    public String widenPlan(int targetK) throws Exception
    {
        return node.widenPlanJson(targetK);
    }

    @Override
    public String widen(int targetK) throws Exception
    {
        return node.widenJson(targetK);
    }

    @Override
    public String startDecommission() throws Exception
    {
        return node.decommission().start(() -> {
            try
            {
                StorageService.instance.decommission(false); // Cassandra's own: LEAVING, stream, LEFT
            }
            catch (InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Cassandra's decommission was interrupted", e);
            }
        });
    }

    @Override
    public String cancelDecommission() throws Exception
    {
        return node.decommission().cancel();
    }

    @Override
    public String getDecommissionJson()
    {
        return node.isStarted() ? node.decommission().status() : "{\"phase\":\"IDLE\"}";
    }

    @Override
    public String awaitDecommission(long maxWaitMillis) throws Exception
    {
        return node.decommission().await(maxWaitMillis);
    }

    @Override
    public double getStorageSavingTarget()
    {
        return node.savingTarget();
    }

    @Override
    public void setStorageSavingTarget(double alpha)
    {
        node.setSavingTarget(alpha);
    }

    @Override
    public String getCoderJson()
    {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("configured", node.tiered().coders().configured());
        doc.put("in_use", node.tiered().coders().resolved());
        doc.put("reason", node.tiered().coders().reason());
        return Json.write(doc);
    }

    @Override
    public String getMetricsJson()
    {
        return Json.write(node.metricsSnapshot());
    }

    @Override
    public long getUptimeMillis()
    {
        return node.clock().millis() - startedAtMillis;
    }
}
