package io.elect.core.tools;

import java.io.PrintStream;
import java.util.List;

import io.elect.core.jmx.ElectNodeMBean;

/**
 * {@code electtool storage [--json]}: per ELECT table, the hot-tier bytes of every live node, cold-tier bytes, the
 * achieved storage saving against full replication and the target, and stripes per state. The node asked gathers
 * the numbers from every live node over the ELECT transport.
 */
final class StorageCommand implements ElectTool.Command
{
    @Override
    public String summary()
    {
        return "hot/cold bytes per node, achieved saving vs target, stripes per state";
    }

    @Override
    public int run(JmxClient node, List<String> args, PrintStream out) throws Exception
    {
        if (!ElectTool.electRunning(node, out))
            return 1;
        String json = (String) node.attribute(ElectNodeMBean.OBJECT_NAME, "StorageJson");
        if (args.contains("--json"))
        {
            out.println(json);
            return 0;
        }
        out.print(StorageReportText.render(json));
        return 0;
    }
}
