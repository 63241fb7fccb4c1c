package io.elect.core.bridge;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.RMIServerSocketFactory;
import java.util.HashMap;
import java.util.Map;

import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXServiceURL;
import javax.management.remote.rmi.RMIConnectorServer;
import javax.management.remote.rmi.RMIJRMPServerImpl;

/**
 * JMX (for nodetool and electtool) on exactly one address of the host: {@code bin/elect --jmx-address A --jmx-port N}
 * sets the system properties {@value #ADDRESS_PROPERTY} and {@value #PORT_PROPERTY} instead of Cassandra's
 * {@code cassandra.jmx.local.port}. Cassandra offers loopback only (local JMX) or every address (remote JMX), and the
 * JDK's agent adds a local connector on the wildcard address; a node on a shared host, or a test proving that nothing
 * relies on loopback, needs neither. The registry and the connector share port N and one socket factory bound to A,
 * and clients are handed A ({@code java.rmi.server.hostname}), not whatever the host name resolves to.
 *
 * <p>No authentication and no TLS: only for addresses that nobody but the operators reaches (docs/deploy.md); for
 * authenticated remote JMX use Cassandra's own ({@code -Dcassandra.jmx.remote.port} with its
 * {@code com.sun.management.jmxremote.*} settings). Credentials are never accepted as anything but strings (the
 * deserialization filter Cassandra applies too). Uses only the JDK: no Cassandra class.
 */
public final class AddressJmxServer
{
    public static final String ADDRESS_PROPERTY = "elect.jmx.address";
    public static final String PORT_PROPERTY = "elect.jmx.port";

    private AddressJmxServer()
    {
    }

    /** Starts the server when {@value #ADDRESS_PROPERTY} is set; returns it, or null when it is not. */
    public static JMXConnectorServer startIfConfigured() throws IOException
    {
        String address = System.getProperty(ADDRESS_PROPERTY);
        if (address == null || address.isBlank())
            return null;
        String port = System.getProperty(PORT_PROPERTY, "7199");
        int p;
        try
        {
            p = Integer.parseInt(port);
        }
        catch (NumberFormatException e)
        {
            throw new IOException(PORT_PROPERTY + ": '" + port + "' is not a port number");
        }
        return start(InetAddress.getByName(address), p);
    }

    /** JMX on address:port (registry "jmxrmi" and connector on that one port); the returned server is started. */
    public static JMXConnectorServer start(InetAddress address, int port) throws IOException
    {
        if (port < 1 || port > 65535)
            throw new IOException(PORT_PROPERTY + ": " + port + " is out of range; allowed: 1 .. 65535");
        System.setProperty("java.rmi.server.hostname", address.getHostAddress());
        // one instance for the registry and the connector: RMI shares a listening port only between equal factories
        RMIServerSocketFactory sockets = new BoundSocketFactory(address);
        Registry registry = LocateRegistry.createRegistry(port, null, sockets);
        Map<String, Object> env = new HashMap<>();
        env.put(RMIConnectorServer.RMI_SERVER_SOCKET_FACTORY_ATTRIBUTE, sockets);
        env.put("jmx.remote.rmi.server.credential.types", new String[]{ String[].class.getName(), String.class.getName() });
        env.put("jmx.remote.x.daemon", "true"); // a permanent export: the JVM can exit with it running
        RMIJRMPServerImpl server = new RMIJRMPServerImpl(port, null, sockets, env);
        RMIConnectorServer connector = new RMIConnectorServer(new JMXServiceURL("rmi", address.getHostAddress(), port), env, server,
                                                              ManagementFactory.getPlatformMBeanServer());
        connector.start();
        registry.rebind("jmxrmi", server.toStub());
        return connector;
    }

    /** Server sockets on one address only. */
    private record BoundSocketFactory(InetAddress address) implements RMIServerSocketFactory
    {
        @Override
        public ServerSocket createServerSocket(int port) throws IOException
        {
            return new ServerSocket(port, 50, address);
        }
    }
}
