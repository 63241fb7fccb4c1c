package io.elect.core.bridge;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.elect.core.bridge.RebuildSources.RangeReplicas;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Golden cases of {@link RebuildSources#plan}: which replica each range of a rebuilding node is streamed from. */
class RebuildSourcesTest
{
    private static RangeReplicas<String> r(String range, String... replicas)
    {
        return new RangeReplicas<>(range, Arrays.asList(replicas));
    }

    @Test
    void secondariesBeforePrimaries()
    {
        // 3 nodes, RF 3, n3 rebuilding: R1 primary n1, R2 primary n2, R3 primary n3 (itself)
        List<RangeReplicas<String>> ranges = List.of(r("R1", "n1", "n2", "n3"), r("R2", "n2", "n3", "n1"), r("R3", "n3", "n1", "n2"));
        Map<String, List<String>> plan = RebuildSources.plan(ranges, "n3", n -> true);
        assertEquals(Map.of("n2", List.of("R1"), "n1", List.of("R2", "R3")), plan);
    }

    @Test
    void primaryWhenNoSecondaryIsLive()
    {
        List<RangeReplicas<String>> ranges = List.of(r("R1", "n1", "n2", "n3"), r("R2", "n2", "n3", "n1"));
        Map<String, List<String>> plan = RebuildSources.plan(ranges, "n3", n -> !n.equals("n2"));
        // R1: secondary n2 down -> primary n1; R2: secondary n1 live
        assertEquals(Map.of("n1", List.of("R1", "R2")), plan);
    }

    @Test
    void noLiveSourceIsReportedUnderNull()
    {
        List<RangeReplicas<String>> ranges = List.of(r("R1", "n1", "n3"), r("R2", "n3", "n2"));
        Set<String> up = Set.of("n3", "n2");
        Map<String, List<String>> plan = RebuildSources.plan(ranges, "n3", up::contains);
        assertEquals(List.of("R1"), plan.get(null));
        assertEquals(List.of("R2"), plan.get("n2"));
    }

    @Test
    void rfOneRangeOfItsOwnHasNoSource()
    {
        Map<String, List<String>> plan = RebuildSources.plan(List.of(r("R", "n3")), "n3", n -> true);
        assertEquals(List.of("R"), plan.get(null));
    }
}
