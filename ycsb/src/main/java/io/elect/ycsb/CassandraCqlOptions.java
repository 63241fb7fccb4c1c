package io.elect.ycsb;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;

/**
 * The binding's settings, parsed from YCSB properties (workload file, {@code -p k=v}, {@code -P file}).
 * Immutable and thread-safe. Every invalid value is rejected with an {@link IllegalArgumentException} that names
 * the property, so that a typo fails the run at start-up instead of silently running with a default.
 *
 * <p>Property names follow the usual YCSB Cassandra CQL binding where one exists ({@code hosts}, {@code port},
 * {@code cassandra.readconsistencylevel}, ...), so existing command lines keep working.
 */
public final class CassandraCqlOptions
{
    public static final String HOSTS = "hosts";
    public static final String PORT = "port";
    public static final String KEYSPACE = "cassandra.keyspace";
    public static final String LOCAL_DC = "cassandra.localdc";
    public static final String READ_CL = "cassandra.readconsistencylevel";
    public static final String WRITE_CL = "cassandra.writeconsistencylevel";
    public static final String SCAN_CL = "cassandra.scanconsistencylevel";
    public static final String REQUEST_TIMEOUT_MS = "cassandra.requesttimeoutms";
    public static final String CONNECT_TIMEOUT_MS = "cassandra.connecttimeoutms";
    public static final String CONNECTIONS_PER_HOST = "cassandra.connectionsperhost";
    public static final String DEBUG = "debug";

    public static final String DEFAULT_HOSTS = "127.0.0.1";
    public static final int DEFAULT_PORT = 9042;
    public static final String DEFAULT_KEYSPACE = "ycsb";
    /** Cassandra's default data center name with SimpleSnitch. */
    public static final String DEFAULT_LOCAL_DC = "datacenter1";
    public static final ConsistencyLevel DEFAULT_CL = DefaultConsistencyLevel.ONE;
    /** The driver's 2 s default is too short for a 2-core box running three nodes and a compaction. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

    public final List<InetSocketAddress> contactPoints;
    public final int port;
    public final String keyspace;
    public final String localDatacenter;
    public final ConsistencyLevel readConsistency;
    public final ConsistencyLevel writeConsistency;
    public final ConsistencyLevel scanConsistency;
    public final Duration requestTimeout;
    public final Duration connectTimeout;
    public final int connectionsPerHost;
    public final boolean debug;

    private CassandraCqlOptions(Properties p)
    {
        port = parseInt(p, PORT, DEFAULT_PORT, 1, 65535);
        contactPoints = parseHosts(p.getProperty(HOSTS, DEFAULT_HOSTS), port);
        keyspace = parseIdentifier(p, KEYSPACE, DEFAULT_KEYSPACE);
        localDatacenter = nonEmpty(p, LOCAL_DC, DEFAULT_LOCAL_DC);
        readConsistency = parseConsistency(p, READ_CL, DEFAULT_CL);
        writeConsistency = parseConsistency(p, WRITE_CL, DEFAULT_CL);
        // Scans default to the read level: a scan is a read of several partitions.
        scanConsistency = parseConsistency(p, SCAN_CL, readConsistency);
        requestTimeout = Duration.ofMillis(parseInt(p, REQUEST_TIMEOUT_MS, (int) DEFAULT_REQUEST_TIMEOUT.toMillis(),
                                                    1, Integer.MAX_VALUE));
        connectTimeout = Duration.ofMillis(parseInt(p, CONNECT_TIMEOUT_MS, (int) DEFAULT_CONNECT_TIMEOUT.toMillis(),
                                                    1, Integer.MAX_VALUE));
        connectionsPerHost = parseInt(p, CONNECTIONS_PER_HOST, 1, 1, 64);
        debug = parseBoolean(p, DEBUG, false);
    }

    /** @throws IllegalArgumentException naming the first invalid property */
    public static CassandraCqlOptions parse(Properties properties)
    {
        return new CassandraCqlOptions(properties);
    }

    /**
     * Comma-separated {@code host} or {@code host:port}; a host without a port uses {@code defaultPort}.
     * The addresses are left unresolved so that parsing never touches the network.
     */
    static List<InetSocketAddress> parseHosts(String value, int defaultPort)
    {
        List<InetSocketAddress> result = new ArrayList<>();
        for (String raw : value.split(","))
        {
            String h = raw.trim();
            if (h.isEmpty())
                continue;
            int port = defaultPort;
            int colon = h.lastIndexOf(':');
            if (colon >= 0 && h.indexOf(':') == colon)
            {
                port = parsePort(h.substring(colon + 1), h);
                h = h.substring(0, colon);
            }
            if (h.isEmpty())
                throw new IllegalArgumentException("Property " + HOSTS + ": empty host name in '" + value + "'");
            result.add(InetSocketAddress.createUnresolved(h, port));
        }
        if (result.isEmpty())
            throw new IllegalArgumentException("Property " + HOSTS + " must name at least one host, got '" + value + "'");
        return List.copyOf(result);
    }

    private static int parsePort(String s, String entry)
    {
        try
        {
            int port = Integer.parseInt(s);
            if (port >= 1 && port <= 65535)
                return port;
        }
        catch (NumberFormatException e)
        {
            // fall through to the error below
        }
        throw new IllegalArgumentException("Property " + HOSTS + ": bad port in '" + entry + "'");
    }

    static ConsistencyLevel parseConsistency(Properties p, String name, ConsistencyLevel dflt)
    {
        String v = p.getProperty(name);
        if (v == null || v.isBlank())
            return dflt;
        try
        {
            return DefaultConsistencyLevel.valueOf(v.trim().toUpperCase(Locale.ROOT));
        }
        catch (IllegalArgumentException e)
        {
            throw new IllegalArgumentException("Property " + name + ": unknown consistency level '" + v
                                               + "' (one of ONE, TWO, THREE, QUORUM, ALL, LOCAL_ONE, LOCAL_QUORUM, "
                                               + "EACH_QUORUM, ANY, SERIAL, LOCAL_SERIAL)");
        }
    }

    static int parseInt(Properties p, String name, int dflt, int min, int max)
    {
        String v = p.getProperty(name);
        if (v == null || v.isBlank())
            return dflt;
        int n;
        try
        {
            n = Integer.parseInt(v.trim());
        }
        catch (NumberFormatException e)
        {
            throw new IllegalArgumentException("Property " + name + ": not an integer: '" + v + "'");
        }
        if (n < min || n > max)
            throw new IllegalArgumentException("Property " + name + ": " + n + " is outside [" + min + ", " + max + "]");
        return n;
    }

    static boolean parseBoolean(Properties p, String name, boolean dflt)
    {
        String v = p.getProperty(name);
        if (v == null || v.isBlank())
            return dflt;
        switch (v.trim().toLowerCase(Locale.ROOT))
        {
            case "true":
                return true;
            case "false":
                return false;
            default:
                throw new IllegalArgumentException("Property " + name + ": expected true or false, got '" + v + "'");
        }
    }

    /** Keyspace and table names are spliced into CQL text, so only plain identifiers are accepted. */
    static String parseIdentifier(Properties p, String name, String dflt)
    {
        return checkIdentifier(name, p.getProperty(name, dflt).trim());
    }

    static String checkIdentifier(String what, String id)
    {
        if (!id.matches("[A-Za-z][A-Za-z0-9_]{0,47}"))
            throw new IllegalArgumentException(what + ": '" + id + "' is not a plain CQL identifier "
                                               + "(a letter, then up to 47 letters, digits or '_')");
        return id;
    }

    private static String nonEmpty(Properties p, String name, String dflt)
    {
        String v = p.getProperty(name, dflt).trim();
        if (v.isEmpty())
            throw new IllegalArgumentException("Property " + name + " must not be empty");
        return v;
    }
}
