package io.elect.core.tools;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.elect.core.jmx.ElectNodeMBean;

/**
 * {@code electtool decommission [--status] [--cancel] [--no-wait] [--json]}: this node leaves the ring without any
 * stripe losing a chunk: drained first (its stripe chunks moved to other nodes while it is up), then Cassandra's
 * decommission (docs/design/topology.md "Draining before leaving"). Shows progress until the node has left. Exit 0
 * when it has left (or, with --cancel, the drain was cancelled; with --status, always), 1 if it failed.
 */
final class DecommissionCommand implements ElectTool.Command
{
    private static final ObjectMapper JSON = new ObjectMapper();
    static final long POLL_MILLIS = 1000;

    @Override
    public String summary()
    {
        return "drain this node's stripe chunks to other nodes, then decommission it (progress; --cancel while draining)";
    }

    @Override
    public int run(JmxClient node, List<String> args, PrintStream out) throws Exception
    {
        boolean wait = true, json = false, cancel = false, status = false;
        for (String a : args)
        {
            switch (a)
            {
                case "--no-wait" -> wait = false;
                case "--json" -> json = true;
                case "--cancel" -> cancel = true;
                case "--status" -> status = true;
                default -> throw new IllegalArgumentException("decommission: unknown option '" + a + "' (--status, --cancel, --no-wait, --json)");
            }
        }
        if (cancel && status)
            throw new IllegalArgumentException("decommission: --cancel and --status exclude each other");
        if (!ElectTool.electRunning(node, out))
            return 1;
        if (status)
        {
            String doc = (String) node.attribute(ElectNodeMBean.OBJECT_NAME, "DecommissionJson");
            out.println(json ? doc : line(JSON.readTree(doc)));
            return 0;
        }
        if (cancel)
        {
            String doc = (String) node.invoke(ElectNodeMBean.OBJECT_NAME, "cancelDecommission", new Object[0], new String[0]);
            out.println(json ? doc : "decommission cancelled on " + node.endpoint() + ": " + line(JSON.readTree(doc)));
            return 0;
        }
        String first = (String) node.invoke(ElectNodeMBean.OBJECT_NAME, "startDecommission", new Object[0], new String[0]);
        if (!wait)
        {
            out.println(json ? first : "decommission started on " + node.endpoint() + " (electtool decommission --status shows progress)");
            return 0;
        }
        long lastLine = 0;
        String lastKey = "";
        while (true)
        {
            String doc = (String) node.invoke(ElectNodeMBean.OBJECT_NAME, "awaitDecommission", new Object[]{ POLL_MILLIS }, new String[]{ "long" });
            JsonNode s = JSON.readTree(doc);
            String phase = s.path("phase").asText();
            if (!phase.equals("DRAINING") && !phase.equals("LEAVING"))
            {
                out.println(json ? doc : line(s));
                return phase.equals("LEFT") || phase.equals("CANCELLED") ? 0 : 1;
            }
            // a line when the phase, the count or what it waits for changes, else every 10 s
            long now = io.elect.core.util.Clock.SYSTEM.millis();
            String key = phase + "|" + s.path("stripes_naming_node").asInt() + "|" + s.path("waiting").asText("");
            if (!json && (!key.equals(lastKey) || now - lastLine >= 10_000))
            {
                out.println(line(s));
                out.flush();
                lastLine = now;
                lastKey = key;
            }
        }
    }

    /** One progress line: phase, stripes still naming the node (of those at the start), elapsed, what it waits for. */
    static String line(JsonNode s)
    {
        String phase = s.path("phase").asText();
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "decommission %s: %d of %d stripes still name %s, elapsed %.1f s", phase,
                                                          Math.max(0, s.path("stripes_naming_node").asInt()),
                                                          Math.max(0, s.path("stripes_at_start").asInt()), s.path("node").asText("this node"),
                                                          s.path("elapsed_ms").asLong() / 1000.0));
        if (s.path("marked_draining").asBoolean(false) && phase.equals("IDLE"))
            b.append("; marked draining but no decommission runs here (the node restarted?): run electtool decommission to continue, or --cancel");
        if (!s.path("waiting").asText("").isEmpty())
            b.append("; waiting: ").append(s.path("waiting").asText());
        if (!s.path("error").isNull() && !s.path("error").isMissingNode())
            b.append("; error: ").append(s.path("error").asText());
        return b.toString();
    }
}
