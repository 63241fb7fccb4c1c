package io.elect.core.node;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.elect.core.config.Json;

/**
 * {@code electtool updates}: the state of this node's handling of updates to encoded data (issue 16,
 * docs/design/updates.md): the settings in effect, what this node's rounds did (stripes retired, members removed and
 * merged, as coordinator), what its parity changes cost (as parity node: how each generation was computed and the
 * bytes it moved), and what is pending here (next versions no record names yet, member deltas not yet deleted).
 * Counters are cumulative since the node started. Document version 1.
 */
final class UpdatesReport
{
    static final int VERSION = 1;
    /** Changes of stripes this node coordinated (fills and widenings change stripes too: parity generation + 1). */
    private static final String[] ROUNDS = { "StripesRetired", "MembersRemoved", "MembersMerged", "VirtualSlotsFilled", "StripesWidened" };
    private static final String[] PARITY = { "Changes", "ByTwoVersions", "ByPushedDelta", "Reencoded", "Widened", "Copied", "MemberBytesFromNodes",
                                             "MemberBytesFromColdTier", "MemberBytesLocal", "ParityBytesRecalled", "ParityBytesRead", "ParityBytesWritten",
                                             "ChangedMemberBytes" };

    private UpdatesReport()
    {
    }

    static String json(NodeContext node, MergeMarkers markers) throws IOException
    {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("version", VERSION);
        doc.put("node", node.self());
        doc.put("update_policy", node.config().updatePolicy);
        doc.put("member_merge_enabled", node.config().memberMergeEnabled);
        doc.put("member_merge_min_obsolete_share", node.config().memberMergeMinObsoleteShare);
        Map<String, Object> rounds = new LinkedHashMap<>();
        for (String c : ROUNDS)
            rounds.put(c, node.metrics().counter("Transitioning", c, null).getCount());
        doc.put("coordinator", rounds);
        Map<String, Object> parity = new LinkedHashMap<>();
        for (String c : PARITY)
            parity.put(c, node.metrics().counter("ParityMaintenance", c, null).getCount());
        doc.put("parity_maintenance", parity);
        List<Map<String, Object>> pending = new ArrayList<>();
        for (MergeMarkers.Marker m : markers.all())
        {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("stripe", m.stripe());
            e.put("table", m.table().keyspace() + "." + m.table().table());
            e.put("member", m.member());
            e.put("next", m.next());
            e.put("age_ms", Math.max(0, node.clock().millis() - m.writtenMillis()));
            pending.add(e);
        }
        doc.put("unnamed_next_versions", pending);
        long files = 0, bytes = 0;
        Path dir = node.stateDir().resolve(MemberDeltas.DIR);
        if (Files.isDirectory(dir))
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir))
            {
                for (Path p : ds)
                {
                    files++;
                    bytes += Files.size(p);
                }
            }
        doc.put("member_deltas", Map.of("files", files, "bytes", bytes));
        return Json.write(doc);
    }
}
