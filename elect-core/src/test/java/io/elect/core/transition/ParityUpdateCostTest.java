package io.elect.core.transition;

import org.junit.jupiter.api.Test;

import io.elect.core.transition.ParityUpdateCost.Way;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Golden cases of update_policy auto's choice (bytes brought to the parity node). */
class ParityUpdateCostTest
{
    private static final long MB = 1 << 20;

    @Test
    void goldenCases()
    {
        // k=2, hot parity: the pushed delta (1 MB) beats reading both members of the new plan (0.6 + 1 MB)
        assertEquals(Way.DELTA, ParityUpdateCost.choose(new long[]{ 6 * MB / 10, MB }, MB, false, MB));
        // k=2, parity offloaded: delta 1 MB + recall 1 MB > re-encoding 1.6 MB (what the updates bench measured)
        assertEquals(Way.REENCODE, ParityUpdateCost.choose(new long[]{ 6 * MB / 10, MB }, MB, true, MB));
        // k=4, parity offloaded: delta 1 + 1 MB < re-encoding 0.6 + 3 x 1 MB
        assertEquals(Way.DELTA, ParityUpdateCost.choose(new long[]{ 6 * MB / 10, MB, MB, MB }, MB, true, MB));
        // no pushed delta (both versions: 1 + 0.6 MB), k=2, hot parity: 1.6 MB vs 1.6 MB: a tie goes to DELTA
        assertEquals(Way.DELTA, ParityUpdateCost.choose(new long[]{ 6 * MB / 10, MB }, MB + 6 * MB / 10, false, MB));
        // a removal that leaves one small member: re-encoding reads 0.1 MB, the delta 1 MB
        assertEquals(Way.REENCODE, ParityUpdateCost.choose(new long[]{ 0, MB / 10 }, MB, false, MB));
        // a stripe padded with a virtual member (0): only real members count
        assertEquals(Way.DELTA, ParityUpdateCost.choose(new long[]{ MB, 0, MB }, MB, false, MB));
        assertEquals(2 * MB, ParityUpdateCost.delta(MB, true, MB));
        assertEquals(MB, ParityUpdateCost.delta(MB, false, MB));
        assertThrows(IllegalArgumentException.class, () -> ParityUpdateCost.reencode(new long[]{ -1 }));
        assertThrows(IllegalArgumentException.class, () -> ParityUpdateCost.delta(-1, false, 0));
    }
}
