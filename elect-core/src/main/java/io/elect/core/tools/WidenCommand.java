package io.elect.core.tools;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.elect.core.jmx.ElectNodeMBean;

/**
 * {@code electtool widen --to K [--dry-run] [--json]}: the Scale-RS widening plan of the cluster's stripes to K data
 * chunks (docs/design/scaling.md): per stripe the members added (virtual slots first) and its new k and codec, per
 * node the bytes it would send and receive, the total against the Scale-RS lower bound. Without {@code --dry-run} the
 * node (the coordinator of transitioning rounds, every ring member up) carries the plan out: per stripe a widening
 * change to the wider codec, then one fill per added member; the report says what was done and skipped, and the
 * Scale-RS bound of what was done (exit 1 if any stripe failed).
 */
final class WidenCommand implements ElectTool.Command
{
    /** Parsed arguments. */
    record Options(int targetK, boolean dryRun, boolean json)
    {
    }

    @Override
    public String summary()
    {
        return "--to K [--dry-run]: widen stripes to K data chunks, or plan it (bytes per node vs the Scale-RS lower bound)";
    }

    /** @throws IllegalArgumentException naming the bad argument (electtool exits 2) */
    static Options parse(List<String> args)
    {
        Integer to = null;
        boolean dryRun = false, json = false;
        for (int i = 0; i < args.size(); i++)
        {
            String a = args.get(i);
            switch (a)
            {
                case "--dry-run" -> dryRun = true;
                case "--json" -> json = true;
                case "--to" -> {
                    if (i + 1 >= args.size())
                        throw new IllegalArgumentException("widen: --to needs a number of data chunks");
                    String v = args.get(++i);
                    try
                    {
                        to = Integer.parseInt(v);
                    }
                    catch (NumberFormatException e)
                    {
                        throw new IllegalArgumentException("widen: --to '" + v + "' is not a number");
                    }
                    if (to < 1 || to > 255)
                        throw new IllegalArgumentException("widen: --to must be in 1..255, got " + to);
                }
                default -> throw new IllegalArgumentException("widen: unknown option '" + a + "' (--to K, --dry-run, --json)");
            }
        }
        if (to == null)
            throw new IllegalArgumentException("widen: --to K is required (the data chunks k' to widen stripes to)");
        return new Options(to, dryRun, json);
    }

    @Override
    public int run(JmxClient node, List<String> args, PrintStream out) throws Exception
    {
        Options o = parse(args);
        if (!ElectTool.electRunning(node, out))
            return 1;
        if (!o.dryRun())
        {
            String done = (String) node.invoke(ElectNodeMBean.OBJECT_NAME, "widen", new Object[]{ o.targetK() }, new String[]{ "int" });
            if (o.json())
                out.println(done);
            else
                out.print(renderDone(done));
            return new ObjectMapper().readTree(done).path("failed").asInt() == 0 ? 0 : 1;
        }
        String doc = (String) node.invoke(ElectNodeMBean.OBJECT_NAME, "widenPlan", new Object[]{ o.targetK() }, new String[]{ "int" });
        if (o.json())
            out.println(doc);
        else
            out.print(render(doc));
        return 0;
    }

    /** The plan document (the JSON of {@code --json}) as text for people. */
    static String render(String json) throws IOException
    {
        JsonNode d = new ObjectMapper().readTree(json);
        StringBuilder sb = new StringBuilder();
        JsonNode oc = d.path("outcomes");
        sb.append(String.format("Widening to k'=%d (dry run): %d stripes: %d widened, %d partial, %d cannot widen, %d unchanged, %d not committed%n",
                                d.path("target_k").asInt(), d.path("stripes_total").asInt(), oc.path("widened").asInt(),
                                oc.path("partial").asInt(), oc.path("cannot_widen").asInt(), oc.path("unchanged").asInt(),
                                oc.path("not_committed").asInt()));
        sb.append(String.format("Bytes to move: %s (%d), Scale-RS lower bound %s (%d): %.2fx%n",
                                StorageReportText.bytes(d.path("bytes_moved").asLong()), d.path("bytes_moved").asLong(),
                                StorageReportText.bytes(d.path("lower_bound").asLong()), d.path("lower_bound").asLong(),
                                d.path("ratio_to_lower_bound").asDouble()));
        sb.append(String.format("%n%-24s %14s %14s%n", "node", "sends", "receives"));
        for (JsonNode n : d.path("nodes"))
            sb.append(String.format("%-24s %14s %14s%n", n.path("node").asText(), StorageReportText.bytes(n.path("send_bytes").asLong()),
                                    StorageReportText.bytes(n.path("receive_bytes").asLong())));
        if (d.path("stripes").size() > 0)
            sb.append(String.format("%nStripes:%n"));
        for (JsonNode s : d.path("stripes"))
        {
            sb.append(String.format("  %s %-13s k %d -> %d, chunk %s -> %s, %d of %d slots filled, %s to move%n",
                                    s.path("id").asText(), s.path("outcome").asText(), s.path("from_k").asInt(), s.path("to_k").asInt(),
                                    StorageReportText.bytes(s.path("from_code_length").asLong()),
                                    StorageReportText.bytes(s.path("to_code_length").asLong()), s.path("additions").size(),
                                    s.path("slots_asked").asInt(), StorageReportText.bytes(s.path("bytes_moved").asLong())));
            for (JsonNode a : s.path("additions"))
                sb.append(String.format("      slot %d%s <- %s %s (%s)%n", a.path("slot").asInt(),
                                        a.path("virtual_slot").asBoolean() ? " (virtual)" : "", a.path("node").asText(),
                                        a.path("member").asText(), StorageReportText.bytes(a.path("bytes").asLong())));
            if (!s.path("reason").isNull() && !s.path("reason").isMissingNode())
                sb.append("      why: ").append(s.path("reason").asText()).append('\n');
        }
        sb.append(String.format("%nNot applied (dry run): %s%n", d.path("apply").asText()));
        return sb.toString();
    }

    /** What a widening did (the JSON of {@code widen --to K --json}) as text for people. */
    static String renderDone(String json) throws IOException
    {
        JsonNode d = new ObjectMapper().readTree(json);
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("Widening to k'=%d: %d stripes widened, %d members filled (%s), %d skipped, %d failed (%d ms)%n",
                                d.path("target_k").asInt(), d.path("stripes_widened").asInt(), d.path("members_filled").asInt(),
                                StorageReportText.bytes(d.path("member_bytes_filled").asLong()), d.path("skipped").asInt(),
                                d.path("failed").asInt(), d.path("millis").asLong()));
        sb.append(String.format("Parity nodes read each filled member once: Scale-RS lower bound of what was done %s (%d)%n",
                                StorageReportText.bytes(d.path("lower_bound_of_done").asLong()), d.path("lower_bound_of_done").asLong()));
        for (JsonNode s : d.path("stripes"))
        {
            sb.append("  ").append(s.path("id").asText());
            if (s.has("error"))
                sb.append(" FAILED: ").append(s.path("error").asText());
            sb.append('\n');
            for (JsonNode st : s.path("steps"))
            {
                if (st.has("k"))
                    sb.append(String.format("      widened to k=%d (%s)%n", st.path("k").asInt(), st.path("codec").asText()));
                else
                    sb.append(String.format("      slot %d <- %s (%s): %s%s%n", st.path("slot").asInt(), st.path("member").asText(),
                                            StorageReportText.bytes(st.path("bytes").asLong()), st.path("step").asText(),
                                            st.has("reason") ? " (" + st.path("reason").asText() + ")" : ""));
            }
        }
        return sb.toString();
    }
}
