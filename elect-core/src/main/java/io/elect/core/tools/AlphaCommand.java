package io.elect.core.tools;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

import io.elect.core.config.Json;
import io.elect.core.jmx.ElectNodeMBean;

/**
 * {@code electtool alpha [VALUE] [--json]}: shows the storage-saving target the node's transitioning works towards,
 * or sets it at runtime (from the next round on; not persisted: cassandra.yaml's {@code elect.storage_saving_target}
 * applies again after a restart). Set the same value on every node: the transitioning coordinator is the ring member
 * with the smallest address, and another node takes over when it is down.
 */
final class AlphaCommand implements ElectTool.Command
{
    @Override
    public String summary()
    {
        return "show the storage-saving target in effect, or set it at runtime (not persisted): alpha [VALUE]";
    }

    @Override
    public int run(JmxClient node, List<String> args, PrintStream out) throws Exception
    {
        boolean json = args.contains("--json");
        List<String> values = new ArrayList<>(args);
        values.remove("--json");
        if (values.size() > 1)
            throw new IllegalArgumentException("alpha takes at most one value, got " + values);
        if (!ElectTool.electRunning(node, out))
            return 1;
        double before = ((Number) node.attribute(ElectNodeMBean.OBJECT_NAME, "StorageSavingTarget")).doubleValue();
        if (values.isEmpty())
        {
            out.println(json ? Json.write(java.util.Map.of("storage_saving_target", before)) : "storage_saving_target: " + before);
            return 0;
        }
        double alpha = parse(values.get(0));
        node.setAttribute(ElectNodeMBean.OBJECT_NAME, "StorageSavingTarget", alpha);
        double after = ((Number) node.attribute(ElectNodeMBean.OBJECT_NAME, "StorageSavingTarget")).doubleValue();
        if (json)
        {
            java.util.Map<String, Object> doc = new java.util.LinkedHashMap<>();
            doc.put("storage_saving_target", after);
            doc.put("previous", before);
            out.println(Json.write(doc));
        }
        else
            out.printf("storage_saving_target: %s (was %s; runtime only, cassandra.yaml applies after a restart; set it on every node)%n",
                       after, before);
        return 0;
    }

    /** The value as alpha, or an IllegalArgumentException (exit code 2) naming the key. */
    static double parse(String value)
    {
        double alpha;
        try
        {
            alpha = Double.parseDouble(value);
        }
        catch (NumberFormatException e)
        {
            throw new IllegalArgumentException("storage_saving_target: '" + value + "' is not a number");
        }
        if (!(alpha >= 0.0 && alpha < 1.0))
            throw new IllegalArgumentException("storage_saving_target: " + value + " is out of range; allowed: a number in [0, 1)");
        return alpha;
    }
}
