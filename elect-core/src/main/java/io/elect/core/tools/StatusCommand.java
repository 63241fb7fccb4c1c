package io.elect.core.tools;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.elect.core.config.Json;
import io.elect.core.jmx.ElectNodeMBean;

/** {@code electtool status}: the node, its ELECT and Cassandra versions, ring membership and the config in effect. */
final class StatusCommand implements ElectTool.Command
{
    private static final String STORAGE_SERVICE = "org.apache.cassandra.db:type=StorageService";
    private static final String TRANSPORT = "io.elect:type=Transport";



    @Override
    public String summary()
    {
        return "node, versions, live/down nodes, and the elect: configuration in effect";
    }

    @Override
    public int run(JmxClient node, List<String> args, PrintStream out) throws Exception
    {
        boolean json = args.contains("--json");
        if (!ElectTool.electRunning(node, out))
            return 1;
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("address", node.attribute(ElectNodeMBean.OBJECT_NAME, "Address"));
        s.put("elect_version", node.attribute(ElectNodeMBean.OBJECT_NAME, "ElectVersion"));
        s.put("cassandra_version", node.attribute(ElectNodeMBean.OBJECT_NAME, "CassandraVersion"));
        s.put("operation_mode", node.attribute(ElectNodeMBean.OBJECT_NAME, "OperationMode"));
        s.put("uptime_s", ((Number) node.attribute(ElectNodeMBean.OBJECT_NAME, "UptimeMillis")).longValue() / 1000);
        s.put("live_nodes", stringList(node.attribute(STORAGE_SERVICE, "LiveNodesWithPort")));
        s.put("down_nodes", stringList(node.attribute(STORAGE_SERVICE, "UnreachableNodesWithPort")));
        // alpha in effect: cassandra.yaml's storage_saving_target (in the config below) unless set at runtime
        s.put("storage_saving_target", node.attribute(ElectNodeMBean.OBJECT_NAME, "StorageSavingTarget"));
        String config = (String) node.attribute(ElectNodeMBean.OBJECT_NAME, "ConfigJson");
        String coder = (String) node.attribute(ElectNodeMBean.OBJECT_NAME, "CoderJson");
        String metrics = null;
        // the ELECT transport's encryption in effect and its refusal counters (absent while transitioning has not started)
        if (node.isRegistered(TRANSPORT))
        {
            s.put("transport_encryption", node.attribute(TRANSPORT, "Encryption"));
            metrics = (String) node.attribute(TRANSPORT, "MetricsJson");
        }
        else
        {
            s.put("transport_encryption", "not started");
        }
        if (json)
        {
            String head = Json.write(s);
            out.println(head.substring(0, head.length() - 1) + ",\"coder\":" + coder
                        + (metrics == null ? "" : ",\"transport_metrics\":" + metrics) + ",\"config\":" + config + "}");
            return 0;
        }
        out.printf("Node:          %s%n", s.get("address"));
        out.printf("ELECT:         %s%n", s.get("elect_version"));
        out.printf("Cassandra:     %s%n", s.get("cassandra_version"));
        out.printf("Mode:          %s (up %d s)%n", s.get("operation_mode"), s.get("uptime_s"));
        out.printf("Live nodes:    %s%n", String.join(" ", stringList(s.get("live_nodes"))));
        out.printf("Down nodes:    %s%n", String.join(" ", stringList(s.get("down_nodes"))));
        out.printf("Alpha:         %s (storage_saving_target in effect)%n", s.get("storage_saving_target"));
        out.printf("Coder:         %s%n", coder);
        out.printf("Transport:     %s%n", s.get("transport_encryption"));
        if (metrics != null)
            out.printf("Transport counters: %s%n", metrics);
        out.printf("Config (elect:): %s%n", config);
        return 0;
    }

    private static List<String> stringList(Object o)
    {
        List<String> l = new ArrayList<>();
        if (o instanceof Iterable)
            for (Object x : (Iterable<?>) o)
                l.add(String.valueOf(x));
        return l;
    }
}
