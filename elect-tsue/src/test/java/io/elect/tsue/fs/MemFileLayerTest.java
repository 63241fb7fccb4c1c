package io.elect.tsue.fs;

import java.io.IOException;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemFileLayerTest
{
    @Test
    void crashDropsUnsyncedWritesOnly() throws IOException
    {
        MemFileLayer fs = new MemFileLayer();
        fs.write("a", 0, new byte[]{ 1, 2, 3, 4 }, 0, 4);
        fs.sync("a");
        fs.write("a", 2, new byte[]{ 9, 9, 9, 9 }, 0, 4);   // overwrite + extend, unsynced
        fs.write("b", 0, new byte[]{ 7 }, 0, 1);            // created (durable), content unsynced
        assertEquals(6, fs.size("a"));
        fs.crash();
        assertArrayEquals(new byte[]{ 1, 2, 3, 4 }, fs.readFully("a", 0, 4));
        assertEquals(4, fs.size("a"));
        assertEquals(0, fs.size("b"));
    }

    @Test
    void faultInjectionStopsAtTheCrashPointAndAfter() throws IOException
    {
        MemFileLayer mem = new MemFileLayer();
        FaultInjectingFileLayer.CrashClock clock = new FaultInjectingFileLayer.CrashClock(3);
        FileLayer fs = new FaultInjectingFileLayer(mem, clock);
        fs.write("x", 0, new byte[]{ 1 }, 0, 1);   // op 1
        fs.sync("x");                              // op 2
        assertThrows(SimulatedCrashException.class, () -> fs.write("x", 1, new byte[]{ 2 }, 0, 1));
        assertThrows(SimulatedCrashException.class, () -> fs.read("x", 0, new byte[1], 0, 1));
        assertTrue(clock.crashed());
        assertEquals(1, mem.size("x"), "the write at the crash point was not performed");
        clock.restart();
        assertEquals(List.of("x"), fs.list());
    }

    @Test
    void countingSeparatesOverwritesFromAppends() throws IOException
    {
        IoStats st = new IoStats();
        FileLayer fs = new CountingFileLayer(new MemFileLayer(), st);
        fs.write("f", 0, new byte[100], 0, 100);
        fs.write("f", 50, new byte[100], 0, 100);   // 50 bytes overwrite, 50 appended
        fs.read("f", 0, new byte[10], 0, 10);
        assertEquals(2, st.writes.sum());
        assertEquals(1, st.overwrites.sum());
        assertEquals(50, st.overwriteBytes.sum());
        assertEquals(1, st.reads.sum());
        assertEquals(210, st.bytes());
    }
}
