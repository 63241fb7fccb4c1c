package io.elect.core.node;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Golden cases of the join catch-up's retry waits. */
class NodeRebuildsTest
{
    @Test
    void retryWaitsDoubleFromTheFirstUpToTheMaximum()
    {
        List<Long> waits = new ArrayList<>();
        for (int attempt = 1; attempt <= 7; attempt++)
            waits.add(NodeRebuilds.retryDelay(attempt, 2_000, 30_000));
        assertEquals(List.of(2_000L, 4_000L, 8_000L, 16_000L, 30_000L, 30_000L, 30_000L), waits);
        assertEquals(30_000L, NodeRebuilds.retryDelay(Integer.MAX_VALUE, 2_000, 30_000), "no overflow after many attempts");
        assertEquals(5_000L, NodeRebuilds.retryDelay(3, 5_000, 5_000), "first == max: a fixed wait");
        assertThrows(IllegalArgumentException.class, () -> NodeRebuilds.retryDelay(0, 2_000, 30_000));
        assertThrows(IllegalArgumentException.class, () -> NodeRebuilds.retryDelay(1, 0, 30_000));
        assertThrows(IllegalArgumentException.class, () -> NodeRebuilds.retryDelay(1, 40_000, 30_000));
    }
}
