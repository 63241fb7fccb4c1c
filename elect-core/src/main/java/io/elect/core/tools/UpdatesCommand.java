package io.elect.core.tools;

import java.io.PrintStream;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.elect.core.jmx.ElectNodeMBean;

/**
 * {@code electtool updates [--json]}: how this node handles updates to encoded data (docs/design/updates.md): the
 * update policy and merge settings in effect, what its transitioning rounds did (stripes retired, members removed and
 * merged), what its parity changes cost, and what is pending on it (next versions of merged members that no stripe
 * record names yet, member deltas not yet deleted). Counters are cumulative since the node started.
 */
final class UpdatesCommand implements ElectTool.Command
{
    @Override
    public String summary()
    {
        return "updates of encoded data on this node: update policy, merges, parity maintenance cost, pending next versions";
    }

    @Override
    public int run(JmxClient node, List<String> args, PrintStream out) throws Exception
    {
        for (String a : args)
            if (!a.equals("--json"))
                throw new IllegalArgumentException("updates: unknown option '" + a + "' (--json)");
        if (!ElectTool.electRunning(node, out))
            return 1;
        String doc = (String) node.attribute(ElectNodeMBean.OBJECT_NAME, "UpdatesJson");
        if (args.contains("--json"))
        {
            out.println(doc);
            return 0;
        }
        JsonNode d = new ObjectMapper().readTree(doc);
        out.println("updates of encoded data on " + d.path("node").asText() + " (counters since the node started)");
        out.printf("  update_policy %s, member merges %s (min obsolete share %s)%n", d.path("update_policy").asText(),
                   d.path("member_merge_enabled").asBoolean() ? "on" : "off", d.path("member_merge_min_obsolete_share").asText());
        JsonNode c = d.path("coordinator");
        out.printf("  as coordinator: %d stripes retired, %d members removed, %d members merged, %d virtual slots filled, %d stripes widened%n",
                   c.path("StripesRetired").asLong(), c.path("MembersRemoved").asLong(), c.path("MembersMerged").asLong(),
                   c.path("VirtualSlotsFilled").asLong(), c.path("StripesWidened").asLong());
        JsonNode p = d.path("parity_maintenance");
        out.printf("  as parity node: %d parity generations (%d from both member versions, %d from pushed deltas, %d re-encoded)%n",
                   p.path("Changes").asLong(), p.path("ByTwoVersions").asLong(), p.path("ByPushedDelta").asLong(), p.path("Reencoded").asLong());
        out.printf("    member bytes read: %d from other nodes, %d from the cold tier, %d local; parity bytes: %d read (%d of them recalled "
                   + "from the cold tier first), %d written; for %d bytes of member changes%n",
                   p.path("MemberBytesFromNodes").asLong(), p.path("MemberBytesFromColdTier").asLong(), p.path("MemberBytesLocal").asLong(),
                   p.path("ParityBytesRead").asLong(), p.path("ParityBytesRecalled").asLong(), p.path("ParityBytesWritten").asLong(),
                   p.path("ChangedMemberBytes").asLong());
        JsonNode pending = d.path("unnamed_next_versions");
        out.printf("  pending here: %d next versions no record names yet, %d member deltas (%d bytes)%n", pending.size(),
                   d.path("member_deltas").path("files").asLong(), d.path("member_deltas").path("bytes").asLong());
        for (JsonNode e : pending)
            out.printf("    %s stripe %s: %s -> %s (%d s old)%n", e.path("table").asText(), e.path("stripe").asText(), e.path("member").asText(),
                       e.path("next").asText(), e.path("age_ms").asLong() / 1000);
        return 0;
    }
}
