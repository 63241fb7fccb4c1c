package io.elect.core.tools;

import java.io.PrintStream;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code electtool tables [--json] [KEYSPACE.TABLE]}: per ELECT table and replica role, SSTable count and bytes per
 * level, and the node's role ranges; read from the {@code io.elect:type=Tables} MBean (JSON format version 1).
 */
final class TablesCommand implements ElectTool.Command
{
    static final String MBEAN = "io.elect:type=Tables";

    @Override
    public String summary()
    {
        return "ELECT tables: SSTables and bytes per role and level, and this node's role ranges";
    }

    @Override
    public int run(JmxClient node, List<String> args, PrintStream out) throws Exception
    {
        boolean json = args.contains("--json");
        String target = args.stream().filter(a -> !a.startsWith("--")).findFirst().orElse(null);
        if (!node.isRegistered(MBEAN))
        {
            out.println("node at " + node.endpoint() + " has no ELECT tables bean (not an ELECT node, or still starting)");
            return 1;
        }
        String doc;
        if (target == null)
            doc = (String) node.attribute(MBEAN, "TablesJson");
        else
        {
            String[] kt = target.split("\\.", 2);
            if (kt.length != 2 || kt[0].isEmpty() || kt[1].isEmpty())
            {
                out.println("electtool tables: '" + target + "' is not KEYSPACE.TABLE");
                return 2;
            }
            doc = (String) node.invoke(MBEAN, "tableJson", new Object[]{ kt[0], kt[1] },
                                       new String[]{ String.class.getName(), String.class.getName() });
        }
        if (json)
        {
            out.println(doc);
            return 0;
        }
        print(new ObjectMapper().readTree(doc), out);
        return 0;
    }

    private static void print(JsonNode doc, PrintStream out)
    {
        out.println("Node: " + doc.path("node").asText());
        JsonNode tables = doc.path("tables");
        if (tables.isEmpty())
            out.println("No ELECT tables.");
        for (JsonNode t : tables)
        {
            out.printf("%nTable %s.%s%s%n", t.path("keyspace").asText(), t.path("table").asText(),
                       t.path("misfits").asInt() > 0 ? "  (" + t.path("misfits").asInt() + " SSTables awaiting re-split)" : "");
            out.printf("  %-10s %-6s %9s %14s%n", "role", "level", "sstables", "bytes");
            for (JsonNode r : t.path("roles"))
            {
                String role = roleName(r.path("role"));
                for (JsonNode l : r.path("levels"))
                    out.printf("  %-10s %-6d %9d %14d%n", role, l.path("level").asInt(), l.path("sstables").asLong(), l.path("bytes").asLong());
            }
        }
        JsonNode ranges = doc.path("role_ranges");
        ranges.fieldNames().forEachRemaining(ks -> {
            out.printf("%nRole ranges of keyspace %s (start exclusive, end inclusive):%n", ks);
            for (JsonNode r : ranges.path(ks))
                out.printf("  (%s, %s]  %s%n", r.path("start").isNull() ? "-inf" : r.path("start").asText(),
                           r.path("end").isNull() ? "+inf" : r.path("end").asText(), roleName(r.path("role")));
        });
    }

    private static String roleName(JsonNode role)
    {
        if (!role.isInt())
            return role.asText();
        int r = role.asInt();
        return r == 0 ? "primary" : r < 0 ? "none" : "secondary-" + r;
    }
}
