package io.elect.core.tools;

import java.io.PrintStream;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.elect.core.jmx.ElectNodeMBean;

/**
 * {@code electtool reads [--json]}: where this node's reads of each ELECT table were served from: per class of file
 * (unencoded primary, unencoded secondary, encoded, cold = offloaded, stub) the files, bytes on disk, reads (Cassandra's
 * per-SSTable read meters, cumulative since each file was opened) and their share. {@code --json} prints the node's
 * document, which also lists each file's reads (two documents give the reads of an interval).
 */
final class ReadsCommand implements ElectTool.Command
{
    @Override
    public String summary()
    {
        return "where this node's reads of each ELECT table were served from (primary, secondary, encoded, cold, stub)";
    }

    @Override
    public int run(JmxClient node, List<String> args, PrintStream out) throws Exception
    {
        for (String a : args)
            if (!a.equals("--json"))
                throw new IllegalArgumentException("reads: unknown option '" + a + "' (--json)");
        if (!ElectTool.electRunning(node, out))
            return 1;
        String doc = (String) node.attribute(ElectNodeMBean.OBJECT_NAME, "ReadsJson");
        if (args.contains("--json"))
        {
            out.println(doc);
            return 0;
        }
        JsonNode d = new ObjectMapper().readTree(doc);
        out.println("reads on " + d.path("node").asText() + " (cumulative per live file)");
        if (d.path("tables").isEmpty())
            out.println("  no ELECT table");
        for (JsonNode t : d.path("tables"))
        {
            long total = 0;
            for (JsonNode s : t.path("sources"))
                total += s.path("reads").asLong();
            out.println(t.path("table").asText() + ":");
            out.printf("  %-10s %6s %14s %12s %7s%n", "source", "files", "bytes", "reads", "share");
            for (Iterator<Map.Entry<String, JsonNode>> it = t.path("sources").fields(); it.hasNext(); )
            {
                Map.Entry<String, JsonNode> e = it.next();
                long reads = e.getValue().path("reads").asLong();
                out.printf("  %-10s %6d %14d %12d %6.1f%%%n", e.getKey(), e.getValue().path("files").asLong(),
                           e.getValue().path("bytes").asLong(), reads, total == 0 ? 0.0 : 100.0 * reads / total);
            }
        }
        return 0;
    }
}
