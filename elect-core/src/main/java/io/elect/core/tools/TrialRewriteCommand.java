package io.elect.core.tools;

import java.io.PrintStream;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code electtool trial-rewrite KEYSPACE.TABLE [--json]}: on the node asked, merges into each encoded member of the
 * table the newer versions of its key range, as a member merge would, WITHOUT installing anything (each trial's files
 * are deleted before it returns), and reports how many pages of the member would change: the size of the parity
 * delta such a merge produces. Writes a full copy of each member meanwhile (disk space and I/O of the member's size).
 */
final class TrialRewriteCommand implements ElectTool.Command
{
    @Override
    public String summary()
    {
        return "KEYSPACE.TABLE: pages a merge of newer versions would change in each encoded member (dry run)";
    }

    @Override
    public int run(JmxClient node, List<String> args, PrintStream out) throws Exception
    {
        String table = null;
        boolean json = false;
        for (String a : args)
        {
            if (a.equals("--json"))
                json = true;
            else if (a.startsWith("-") || table != null)
                throw new IllegalArgumentException("trial-rewrite: unexpected argument '" + a + "' (KEYSPACE.TABLE [--json])");
            else
                table = a;
        }
        if (table == null || table.indexOf('.') <= 0 || table.indexOf('.') == table.length() - 1)
            throw new IllegalArgumentException("trial-rewrite: name the table as KEYSPACE.TABLE");
        if (!node.isRegistered(TablesCommand.MBEAN))
        {
            out.println("node at " + node.endpoint() + " has no ELECT table yet (or ELECT is not running on it)");
            return 1;
        }
        String ks = table.substring(0, table.indexOf('.')), t = table.substring(table.indexOf('.') + 1);
        String doc = (String) node.invoke(TablesCommand.MBEAN, "memberTrialsJson", new Object[]{ ks, t },
                                          new String[]{ String.class.getName(), String.class.getName() });
        if (json)
        {
            out.println(doc);
            return 0;
        }
        JsonNode d = new ObjectMapper().readTree(doc);
        long pages = 0, changed = 0, inPlace = 0, uncompressed = 0;
        for (JsonNode m : d.path("members"))
        {
            out.printf("%s (stripe %s): %d -> %d bytes, %d newer SSTables, %d of %d partitions changed (%d same size), "
                       + "%d of %d pages changed; layout-preserving bound %d of %d pages%n",
                       m.path("member").asText(), m.path("stripe").asText(), m.path("bytes_before").asLong(),
                       m.path("bytes_after").asLong(), m.path("newer_sstables").asInt(), m.path("changed_partitions").asLong(),
                       m.path("partitions").asLong(), m.path("same_size_partitions").asLong(), m.path("changed_pages").asLong(),
                       m.path("pages").asLong(), m.path("in_place_pages").asLong(), m.path("uncompressed_pages").asLong());
            pages += m.path("pages").asLong();
            changed += m.path("changed_pages").asLong();
            inPlace += m.path("in_place_pages").asLong();
            uncompressed += m.path("uncompressed_pages").asLong();
        }
        out.printf("%s on %s: %d encoded members, %d of %d pages (%s) would change; layout-preserving bound %s (pages of %d B)%n",
                   table, d.path("node").asText(), d.path("members").size(), changed, pages, percent(changed, pages),
                   percent(inPlace, uncompressed), d.path("page_bytes").asInt());
        return 0;
    }

    private static String percent(long a, long b)
    {
        return b == 0 ? "-" : String.format("%.1f%%", 100.0 * a / b);
    }
}
