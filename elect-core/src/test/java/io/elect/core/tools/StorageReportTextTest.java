package io.elect.core.tools;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The text form of `electtool storage`: the per-table lines, including what updates made the rounds do. */
class StorageReportTextTest
{
    @Test
    void showsTheChangesUpdatesCausedWhenReported() throws Exception
    {
        String json = "{\"target_saving\":0.6,\"k\":2,\"m\":1,\"live_nodes\":3,\"ring_nodes\":3,\"tables\":[{\"table\":\"ks.t\","
                      + "\"hot_bytes\":1048576,\"cold_bytes\":0,\"obsolete_bytes\":2048,\"full_replication_bytes\":2097152,"
                      + "\"achieved_saving\":0.5,\"plan\":{\"reachable\":true},\"nodes\":[{\"node\":\"127.0.0.1\",\"hot_bytes\":1048576}],"
                      + "\"changes_by_this_node\":{\"stripes_retired\":9,\"members_removed\":1,\"members_merged\":6,\"member_merge_enabled\":true}}],"
                      + "\"stripes\":{\"committed\":7}}";
        String text = StorageReportText.render(json);
        assertTrue(text.contains("9 stripes retired, 1 members removed, 6 members merged (merges on)"), text);
        assertTrue(text.contains("obsolete in frozen files 2.0 KiB"), text);
        // an older node's report has no such entry: no line
        assertFalse(StorageReportText.render(json.replace("\"changes_by_this_node\"", "\"x\"")).contains("members merged"));
        assertFalse(text.contains("virtual slots"), "no fill count reported: no line");
        String filled = StorageReportText.render(json.replace("\"member_merge_enabled\":true", "\"member_merge_enabled\":true,\"virtual_slots_filled\":4,\"fill_virtual_slots\":true"));
        assertTrue(filled.contains("virtual slots of stripes filled by this node's rounds since it started: 4 (fills on)"), filled);
    }

    @Test
    void namesTheDepartedNodesThatStripesStillName() throws Exception
    {
        String json = "{\"target_saving\":0.6,\"k\":2,\"m\":1,\"live_nodes\":3,\"ring_nodes\":3,\"tables\":[],"
                      + "\"stripes\":{\"committed\":7},\"stripes_naming_departed_nodes\":{\"127.0.0.4\":3}}";
        String text = StorageReportText.render(json);
        assertTrue(text.contains("Stripes naming 127.0.0.4, which left the ring: 3"), text);
        assertFalse(StorageReportText.render(json.replace("{\"127.0.0.4\":3}", "{}")).contains("left the ring"));
    }
}
