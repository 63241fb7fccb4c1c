package io.elect.core.bridge;

import io.elect.core.config.ElectConfig;
import io.elect.core.node.ElectNode;

/**
 * The one hand-off between the classes Cassandra instantiates by name (the configuration loader, every
 * {@link ElectCompactionStrategy} instance, the {@code electtiered} SSTable format, JMX beans) and the node object,
 * which they cannot be given as a constructor argument. It is the only mutable static state of ELECT's main code:
 *
 * <ol>
 * <li>The configuration loader publishes the validated {@code elect:} section ({@link #configLoaded}).</li>
 * <li>{@link ElectDaemon} builds the {@link ElectNode} and its {@link Bridge} and {@link #install installs} it BEFORE
 *     Cassandra starts (Cassandra opens tiered SSTables and creates strategies during its start-up).</li>
 * <li>Plug-ins call {@link #bridge()}. In a process that did not go through ElectDaemon (an embedded node in a
 *     test), the first call builds a default bridge from the loaded configuration (or the defaults), without a cold
 *     tier: tests register the stores they need in {@code bridge().node().tiered()}.</li>
 * </ol>
 * Thread-safe.
 */
public final class NodeHandoff
{
    private static volatile ElectConfig loaded;
    private static volatile Bridge bridge;

    private NodeHandoff()
    {
    }

    /** Called by the configuration loader (possibly several times; the last one wins). */
    static void configLoaded(ElectConfig config)
    {
        loaded = config;
    }

    /** The configuration the loader published, or null before it ran. */
    public static ElectConfig loadedConfig()
    {
        return loaded;
    }

    /** Installs the process's bridge; IllegalStateException if another one was installed or built already. */
    public static synchronized void install(Bridge b)
    {
        if (bridge != null && bridge != b)
            throw new IllegalStateException("an ELECT node is already installed in this process");
        bridge = b;
    }

    /** The process's bridge (built with defaults on first use if none was installed, see the class comment). */
    public static Bridge bridge()
    {
        Bridge b = bridge;
        if (b != null)
            return b;
        synchronized (NodeHandoff.class)
        {
            if (bridge == null)
            {
                ElectConfig config = loaded != null ? loaded : ElectConfig.defaults();
                bridge = new Bridge(ElectNode.create(config, CassandraMetrics.REGISTRAR));
            }
            return bridge;
        }
    }
}
