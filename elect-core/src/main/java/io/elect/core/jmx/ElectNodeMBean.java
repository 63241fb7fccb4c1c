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
}
