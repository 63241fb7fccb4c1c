package io.elect.tsue.net;

import java.io.IOException;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.elect.coding.ErasureCoders;
import io.elect.tsue.fs.CountingFileLayer;
import io.elect.tsue.fs.IoStats;
import io.elect.tsue.fs.MemFileLayer;
import io.elect.tsue.log.LogTimes;
import io.elect.tsue.log.RecordLog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Retired record logs are reused by new logs without any old record showing through, also after a crash. */
class StorageNodeTest
{
    private static StorageNode node(io.elect.tsue.fs.FileLayer fs)
    {
        return new StorageNode(0, fs, ErasureCoders.create(4, 2, ErasureCoders.JAVA), (s, i) -> "c-" + s + "-" + i,
                               new StorageNode.Settings(4096, 1 << 20, 1 << 16, true, null, new LogTimes(),
                                                        System::nanoTime));
    }

    @Test
    void retiredLogIsReusedWithoutItsRecords() throws IOException
    {
        MemFileLayer fs = new MemFileLayer();
        StorageNode n = node(fs);
        for (int i = 0; i < 20; i++)
            n.appendRecord("dlog-1", 1, new byte[]{ (byte) i, 1, 2, 3 }, true);
        long size = fs.size("dlog-1");
        n.retire("dlog-1");
        assertFalse(fs.list().contains("dlog-1"), "retired log leaves its name");
        assertTrue(fs.list().stream().anyMatch(f -> f.startsWith("free-")), "and waits for reuse");
        n.appendRecord("dlog-2", 1, new byte[]{ 42 }, true);
        assertEquals(size, fs.size("dlog-2"), "the new log took the retired file (no growth for a small append)");
        assertFalse(fs.list().stream().anyMatch(f -> f.startsWith("free-")));
        List<RecordLog.Entry> es = n.scanLog("dlog-2");
        assertEquals(1, es.size(), "no record of the retired log shows through");
        byte[] p = new byte[es.get(0).payload().remaining()];
        es.get(0).payload().get(p);
        assertArrayEquals(new byte[]{ 42 }, p);
        // a crash loses nothing acknowledged and resurrects nothing retired; a new node finds the free files
        n.retire("dlog-2");
        fs.crash();
        StorageNode again = node(fs);
        assertEquals(0, again.scanLog(fs.list().stream().filter(f -> f.startsWith("free-")).findFirst().orElseThrow())
                             .size());
        again.appendRecord("dlog-3", 1, new byte[]{ 7 }, true);
        assertEquals(1, again.scanLog("dlog-3").size());
        assertFalse(fs.list().stream().anyMatch(f -> f.startsWith("free-")), "the free file found after restart was reused");
    }

    @Test
    void aLogRetiredByThisNodeIsReusedWithoutReadingIt() throws IOException
    {
        MemFileLayer mem = new MemFileLayer();
        IoStats io = new IoStats();
        StorageNode n = node(new CountingFileLayer(mem, io));
        for (int i = 0; i < 5; i++)
            n.appendRecord("dlog-1", 1, new byte[]{ (byte) i }, true);
        n.retire("dlog-1");
        n.retire("dlog-1");   // twice: ignored (absent)
        long reads = io.reads.sum();
        n.appendRecord("dlog-2", 1, new byte[]{ 42 }, true);
        assertEquals(reads, io.reads.sum(), "its epoch is known: no header or record read");
        n.appendRecord("dlog-2", 1, new byte[]{ 43 }, true);
        mem.crash();
        List<RecordLog.Entry> es = node(mem).scanLog("dlog-2");
        assertEquals(2, es.size(), "appends after the reuse carry the epoch the header holds");
    }
}
