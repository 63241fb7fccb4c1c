package io.elect.core.tools;

import java.io.PrintStream;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.elect.core.jmx.ElectNodeMBean;

/**
 * {@code electtool metrics [--json] [PREFIX]}: every ELECT metric of the node (transport per verb, cold stores,
 * tiered sources, transitioning), as Cassandra's metrics registry exports them under {@code io.elect.metrics}; one
 * {@code name value} line each, sorted, or the JSON document. A PREFIX keeps only names starting with it (e.g.
 * {@code Transport.}).
 */
final class MetricsCommand implements ElectTool.Command
{
    @Override
    public String summary()
    {
        return "ELECT's metrics of the node (transport, cold store, tiered sources, transitioning)";
    }

    @Override
    public int run(JmxClient node, List<String> args, PrintStream out) throws Exception
    {
        boolean json = false;
        String prefix = "";
        for (String a : args)
        {
            if (a.equals("--json"))
                json = true;
            else if (a.startsWith("-"))
                throw new IllegalArgumentException("metrics: unknown option '" + a + "' (--json, PREFIX)");
            else
                prefix = a;
        }
        if (!ElectTool.electRunning(node, out))
            return 1;
        String doc = (String) node.attribute(ElectNodeMBean.OBJECT_NAME, "MetricsJson");
        JsonNode all = new ObjectMapper().readTree(doc);
        if (json && prefix.isEmpty())
        {
            out.println(doc);
            return 0;
        }
        var filtered = new ObjectMapper().createObjectNode();
        for (Iterator<Map.Entry<String, JsonNode>> it = all.fields(); it.hasNext(); )
        {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().startsWith(prefix))
                filtered.set(e.getKey(), e.getValue());
        }
        if (json)
            out.println(filtered);
        else
            for (Iterator<Map.Entry<String, JsonNode>> it = filtered.fields(); it.hasNext(); )
            {
                Map.Entry<String, JsonNode> e = it.next();
                out.println(e.getKey() + " " + (e.getValue().isValueNode() ? e.getValue().asText() : e.getValue().toString()));
            }
        return 0;
    }
}
