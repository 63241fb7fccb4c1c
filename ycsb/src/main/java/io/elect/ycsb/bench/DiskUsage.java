package io.elect.ycsb.bench;

import java.util.ArrayList;
import java.util.List;

import javax.management.InstanceNotFoundException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Bytes on disk of YCSB tables per node, over each node's local JMX port (used by {@code scripts/bench compare}).
 *
 * <pre>DiskUsage KEYSPACE TABLE[,TABLE...] HOST:JMX_PORT [HOST:JMX_PORT...]</pre>
 *
 * Prints one JSON object per (node, table) and line: {@code {"jmx":"127.0.0.1:7199","table":"t",
 * "live_bytes":123,"elect":DOC}} where {@code live_bytes} is Cassandra's {@code LiveDiskSpaceUsed} table metric and
 * DOC is ELECT's per-role document ({@code io.elect:type=Tables} {@code tableJson}, levels and bytes per role), or
 * {@code null} for a table that is not an ELECT table or a node without ELECT's MBean. Exit code 1 if a node
 * cannot be reached. Only javax.management is used, so this runs on the binding's classpath.
 */
public final class DiskUsage
{
    private DiskUsage()
    {
    }

    public static void main(String[] args) throws Exception
    {
        if (args.length < 3)
        {
            System.err.println("usage: DiskUsage KEYSPACE TABLE[,TABLE...] HOST:JMX_PORT [HOST:JMX_PORT...]");
            System.exit(2);
        }
        String keyspace = args[0];
        String[] tables = args[1].split(",");
        int failures = 0;
        for (int i = 2; i < args.length; i++)
        {
            try
            {
                for (String line : node(args[i], keyspace, tables))
                    System.out.println(line);
            }
            catch (Exception e)
            {
                System.err.println("DiskUsage: " + args[i] + ": " + e);
                failures++;
            }
        }
        System.exit(failures == 0 ? 0 : 1);
    }

    static List<String> node(String hostPort, String keyspace, String[] tables) throws Exception
    {
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://" + hostPort + "/jmxrmi");
        List<String> out = new ArrayList<>();
        try (JMXConnector c = JMXConnectorFactory.connect(url))
        {
            MBeanServerConnection s = c.getMBeanServerConnection();
            for (String table : tables)
            {
                ObjectName live = new ObjectName("org.apache.cassandra.metrics:type=Table,keyspace=" + keyspace
                                                 + ",scope=" + table + ",name=LiveDiskSpaceUsed");
                long bytes = ((Number) s.getAttribute(live, "Count")).longValue();
                String elect = "null";
                try
                {
                    elect = (String) s.invoke(new ObjectName("io.elect:type=Tables"), "tableJson",
                                              new Object[]{ keyspace, table },
                                              new String[]{ String.class.getName(), String.class.getName() });
                }
                catch (InstanceNotFoundException e)
                {
                    // not an ELECT node: plain Cassandra
                }
                catch (javax.management.MBeanException | javax.management.RuntimeMBeanException e)
                {
                    // IllegalArgumentException from the MBean: this table is not an ELECT table
                }
                out.add("{\"jmx\":\"" + hostPort + "\",\"table\":\"" + table + "\",\"live_bytes\":" + bytes
                        + ",\"elect\":" + elect + "}");
            }
        }
        return out;
    }
}
