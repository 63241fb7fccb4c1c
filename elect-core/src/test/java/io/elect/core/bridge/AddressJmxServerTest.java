package io.elect.core.bridge;

import java.net.InetAddress;
import java.net.ServerSocket;

import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXServiceURL;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * JMX on one address: a client reaches it there (registry and connector on the one port, the stub naming that
 * address), and the port stays free on every other address (a wildcard bind would make binding 127.0.0.2 fail).
 */
class AddressJmxServerTest
{
    @Test
    void servesOnItsAddressOnly() throws Exception
    {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1")))
        {
            port = s.getLocalPort();
        }
        JMXConnectorServer server = AddressJmxServer.start(InetAddress.getByName("127.0.0.1"), port);
        try
        {
            JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi");
            try (JMXConnector c = JMXConnectorFactory.connect(url))
            {
                Object vm = c.getMBeanServerConnection().getAttribute(new ObjectName("java.lang:type=Runtime"), "Name");
                assertEquals(java.lang.management.ManagementFactory.getRuntimeMXBean().getName(), vm);
            }
            try (ServerSocket other = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.2")))
            {
                assertTrue(other.isBound(), "port " + port + " is free on 127.0.0.2");
            }
        }
        finally
        {
            server.stop();
        }
    }

    @Test
    void aBadPortIsNamed()
    {
        java.io.IOException e = assertThrows(java.io.IOException.class, () -> AddressJmxServer.start(InetAddress.getLoopbackAddress(), 70000));
        assertTrue(e.getMessage().contains("elect.jmx.port"), e.getMessage());
    }
}
