package io.elect.core.jmx;

/**
 * Node-level facts for {@code electtool status}, registered as {@value #OBJECT_NAME}. Read-only.
 */
public interface ElectNodeMBean
{
    String OBJECT_NAME = "io.elect:type=Node";

    String getElectVersion();

    String getCassandraVersion();

    /** This node's broadcast address. */
    String getAddress();

    /** Cassandra's operation mode (STARTING, NORMAL, JOINING, DRAINING, ...). */
    String getOperationMode();

    /** The {@code elect:} configuration in effect, as JSON (holds no secret). */
    String getConfigJson();

    /** Milliseconds since the ELECT node finished starting. */
    long getUptimeMillis();

    /**
     * The storage report of every ELECT table, gathered from every live node ({@code electtool storage --json}):
     * hot and cold bytes per node, achieved saving vs target, stripes per state. Costs one request per node and table.
     */
    String getStorageJson();
}
