package io.elect.core.tools;

import java.io.IOException;
import java.util.Map;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/** A JMX connection to one node, with plain attribute reads by object name (no Cassandra classes needed). */
public final class JmxClient implements AutoCloseable
{
    /** The node could not be reached (down, wrong port, JMX disabled). */
    public static final class UnreachableException extends IOException
    {
        UnreachableException(String message, Throwable cause)
        {
            super(message, cause);
        }
    }

    private final JMXConnector connector;
    private final MBeanServerConnection connection;
    private final String endpoint;

    private JmxClient(JMXConnector connector, String endpoint) throws IOException
    {
        this.connector = connector;
        this.connection = connector.getMBeanServerConnection();
        this.endpoint = endpoint;
    }

    public static JmxClient connect(String host, int port) throws UnreachableException
    {
        String endpoint = host + ":" + port;
        try
        {
            JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://" + endpoint + "/jmxrmi");
            return new JmxClient(JMXConnectorFactory.connect(url, Map.of()), endpoint);
        }
        catch (IOException e)
        {
            throw new UnreachableException("cannot reach the node's JMX at " + endpoint + " (is the node up? right -p?): " + e.getMessage(), e);
        }
    }

    public String endpoint()
    {
        return endpoint;
    }

    public Object attribute(String objectName, String attribute) throws Exception
    {
        return connection.getAttribute(new ObjectName(objectName), attribute);
    }

    public Object invoke(String objectName, String operation, Object[] params, String[] signature) throws Exception
    {
        return connection.invoke(new ObjectName(objectName), operation, params, signature);
    }

    public void setAttribute(String objectName, String attribute, Object value) throws Exception
    {
        connection.setAttribute(new ObjectName(objectName), new javax.management.Attribute(attribute, value));
    }

    public boolean isRegistered(String objectName) throws Exception
    {
        return connection.isRegistered(new ObjectName(objectName));
    }

    /** Whether the MBean has an operation of that name (a node of an older version may lack it). */
    public boolean hasOperation(String objectName, String operation) throws Exception
    {
        for (javax.management.MBeanOperationInfo op : connection.getMBeanInfo(new ObjectName(objectName)).getOperations())
            if (op.getName().equals(operation))
                return true;
        return false;
    }

    @Override
    public void close() throws IOException
    {
        connector.close();
    }
}
