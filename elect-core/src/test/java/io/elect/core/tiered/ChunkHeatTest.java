package io.elect.core.tiered;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ChunkHeatTest
{
    @Test
    void hottestFirstThenLowerIndex()
    {
        ChunkHeat h = new ChunkHeat(10);
        h.record(2, 4);     // 2, 3, 4
        h.record(3, 3);     // 3
        h.record(7, 7);
        h.record(7, 7);
        h.record(3, 3);
        assertEquals(List.of(new ChunkHeat.Hot(3, 3), new ChunkHeat.Hot(7, 2), new ChunkHeat.Hot(2, 1), new ChunkHeat.Hot(4, 1)),
                     h.hottest(10, 1));
        assertEquals(List.of(new ChunkHeat.Hot(3, 3), new ChunkHeat.Hot(7, 2)), h.hottest(10, 2));
        assertEquals(List.of(new ChunkHeat.Hot(3, 3)), h.hottest(1, 1));
        assertEquals(List.of(), h.hottest(0, 1));
        assertThrows(IllegalArgumentException.class, () -> h.hottest(1, 0));
    }

    @Test
    void decayHalvesAndForgetsSingleReads()
    {
        ChunkHeat h = new ChunkHeat(4);
        h.record(0, 3);
        h.record(1, 1);
        h.record(1, 1);
        h.record(1, 1);
        h.decay();
        assertEquals(0, h.reads(0));
        assertEquals(2, h.reads(1));
        assertEquals(List.of(new ChunkHeat.Hot(1, 2)), h.hottest(10, 1));
    }

    @Test
    void hugeSourcesAreNotTracked()
    {
        ChunkHeat h = new ChunkHeat(ChunkHeat.MAX_TRACKED_CHUNKS + 1L);
        h.record(5, 6);
        assertEquals(0, h.reads(5));
        assertEquals(List.of(), h.hottest(10, 1));
        assertThrows(IllegalArgumentException.class, () -> new ChunkHeat(-1));
    }
}
