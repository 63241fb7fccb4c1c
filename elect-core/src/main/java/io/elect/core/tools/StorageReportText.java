package io.elect.core.tools;

import java.io.IOException;
import java.util.Iterator;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Renders the storage report (the JSON of {@code electtool storage --json}) as text for people. */
final class StorageReportText
{
    private StorageReportText()
    {
    }

    static String render(String json) throws IOException
    {
        JsonNode doc = new ObjectMapper().readTree(json);
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("Target saving: %.1f%%   code: RS(k=%d, m=%d)   live nodes: %d of %d%n",
                                100 * doc.path("target_saving").asDouble(), doc.path("k").asInt(), doc.path("m").asInt(),
                                doc.path("live_nodes").asInt(), doc.path("ring_nodes").asInt()));
        for (JsonNode t : doc.path("tables"))
        {
            sb.append(String.format("%nTable %s: hot %s, cold %s, obsolete in frozen files %s, full replication of the live data %s, "
                                    + "achieved saving %.1f%%%s%n",
                                    t.path("table").asText(), bytes(t.path("hot_bytes").asLong()), bytes(t.path("cold_bytes").asLong()),
                                    bytes(t.path("obsolete_bytes").asLong()),
                                    bytes(t.path("full_replication_bytes").asLong()), 100 * t.path("achieved_saving").asDouble(),
                                    t.path("plan").path("reachable").asBoolean(true) ? ""
                                        : " (target not reachable: " + t.path("plan").path("limit").asText() + ")"));
            sb.append(String.format("  %-16s %12s %12s %12s %12s %12s %12s%n", "node", "hot", "encoded", "stubs", "parity hot", "cold",
                                    "obsolete"));
            for (JsonNode n : t.path("nodes"))
                sb.append(String.format("  %-16s %12s %12s %12s %12s %12s %12s%n", n.path("node").asText(), bytes(n.path("hot_bytes").asLong()),
                                        bytes(n.path("encoded_primary_bytes").asLong()), bytes(n.path("stub_bytes").asLong()),
                                        bytes(n.path("parity_hot_bytes").asLong()), bytes(n.path("cold_bytes").asLong()),
                                        bytes(n.path("obsolete_bytes").asLong())));
            for (JsonNode n : t.path("nodes"))
                if (n.path("unreplicated_member_bytes").asLong() > 0)
                    sb.append(String.format("  %s: %s of its encoded members lie outside the ranges it replicates (after a ring change; "
                                            + "not counted as replicated data)%n", n.path("node").asText(),
                                            bytes(n.path("unreplicated_member_bytes").asLong())));
            JsonNode pc = t.path("parity_cost");
            if (pc.path("committed_stripes").asInt() > 0)
                sb.append(String.format("  parity of %d committed stripes: %s by code length (%s at m/k of their data); of it zeros past the longest "
                                        + "member after merges and removals %s (not stored by parity files written since 2026-11-28); "
                                        + "%d padded stripes spend %s over m/k%n",
                                        pc.path("committed_stripes").asInt(), bytes(pc.path("parity_bytes").asLong()),
                                        bytes(pc.path("nominal_bytes").asLong()), bytes(pc.path("code_overhang_bytes").asLong()),
                                        pc.path("padded_stripes").asInt(), bytes(pc.path("padding_bytes").asLong())));
            JsonNode c = t.path("changes_by_this_node");
            if (!c.isMissingNode())
                sb.append(String.format("  updates absorbed by this node's rounds since it started: %d stripes retired, %d members removed, "
                                        + "%d members merged (merges %s)%n", c.path("stripes_retired").asLong(), c.path("members_removed").asLong(),
                                        c.path("members_merged").asLong(), c.path("member_merge_enabled").asBoolean() ? "on" : "off"));
            if (c.has("virtual_slots_filled"))
                sb.append(String.format("  virtual slots of stripes filled by this node's rounds since it started: %d (fills %s)%n",
                                        c.path("virtual_slots_filled").asLong(), c.path("fill_virtual_slots").asBoolean() ? "on" : "off"));
        }
        sb.append("\nStripes:");
        for (Iterator<Map.Entry<String, JsonNode>> it = doc.path("stripes").fields(); it.hasNext(); )
        {
            Map.Entry<String, JsonNode> e = it.next();
            sb.append(' ').append(e.getKey()).append('=').append(e.getValue().asInt());
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = doc.path("stripes_naming_departed_nodes").fields(); it.hasNext(); )
        {
            Map.Entry<String, JsonNode> e = it.next();
            sb.append(String.format("%nStripes naming %s, which left the ring: %d (repaired by the coordinator's rounds)", e.getKey(),
                                    e.getValue().asInt()));
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = doc.path("stripes_naming_draining_nodes").fields(); it.hasNext(); )
        {
            Map.Entry<String, JsonNode> e = it.next();
            sb.append(String.format("%nStripes naming %s, which drains before leaving: %d (moved off by the coordinator's rounds)", e.getKey(),
                                    e.getValue().asInt()));
        }
        return sb.append('\n').toString();
    }

    static String bytes(long b)
    {
        if (b < 1024)
            return b + " B";
        if (b < 1L << 20)
            return String.format("%.1f KiB", b / 1024.0);
        if (b < 1L << 30)
            return String.format("%.1f MiB", b / (double) (1L << 20));
        return String.format("%.2f GiB", b / (double) (1L << 30));
    }
}
