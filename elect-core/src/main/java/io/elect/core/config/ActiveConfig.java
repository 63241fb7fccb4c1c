package io.elect.core.config;

/**
 * The {@code elect:} configuration this node runs with. Set once by the configuration loader before
 * Cassandra's own start-up continues; read by every ELECT component afterwards.
 */
public final class ActiveConfig
{
    private static volatile ElectConfig config;

    private ActiveConfig()
    {
    }

    public static void set(ElectConfig c)
    {
        config = c;
    }

    /** The configuration set by the loader, or null before it ran. */
    public static ElectConfig getIfSet()
    {
        return config;
    }

    /** The configuration in effect, or the defaults when no loader ran (e.g. in tools and unit tests). */
    public static ElectConfig get()
    {
        ElectConfig c = config;
        return c != null ? c : ElectConfig.defaults();
    }
}
