package io.elect.tsue.log;

import java.io.IOException;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.elect.tsue.fs.MemFileLayer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;

class RecordLogTest
{


    private static byte[] payload(RecordLog.Entry e)
    {
        byte[] b = new byte[e.payload().remaining()];
        e.payload().duplicate().get(b);
        return b;
    }

    @Test
    void recordsSurviveSyncAndUnsyncedTailIsLost() throws IOException
    {
        long seed = System.nanoTime();
        System.out.println("RecordLogTest seed=" + seed);
        Random rnd = new Random(seed);
        MemFileLayer fs = new MemFileLayer();
        RecordLog log = RecordLog.open(fs, "l");
        byte[][] p = new byte[20][];
        for (int i = 0; i < p.length; i++)
        {
            p[i] = new byte[rnd.nextInt(3000)];
            rnd.nextBytes(p[i]);
            log.append(i, p[i], i < 15);
        }
        fs.crash();
        List<RecordLog.Entry> es = RecordLog.scan(fs, "l");
        assertEquals(15, es.size());
        for (int i = 0; i < 15; i++)
        {
            assertEquals(i, es.get(i).type());
            assertArrayEquals(p[i], payload(es.get(i)));
        }
        // reopened log continues after the last valid record
        RecordLog again = RecordLog.open(fs, "l");
        assertEquals(15, again.takeRecovered().size());
        again.append(99, new byte[]{ 5 }, true);
        assertEquals(16, RecordLog.scan(fs, "l").size());
    }

    @Test
    void corruptedRecordEndsTheValidPrefix() throws IOException
    {
        MemFileLayer fs = new MemFileLayer();
        RecordLog log = RecordLog.open(fs, "l");
        long a = log.append(1, new byte[]{ 1, 2, 3 }, false);
        long b = log.append(1, new byte[]{ 4, 5, 6 }, false);
        log.append(1, new byte[]{ 7, 8, 9 }, true);
        fs.write("l", b + RecordLog.FRAME_BYTES - 4 + 1, new byte[]{ 42 }, 0, 1);   // flip a payload byte of b
        List<RecordLog.Entry> es = RecordLog.scan(fs, "l");
        assertEquals(1, es.size());
        assertEquals(a, es.get(0).position());
    }

    @Test
    void resetStartsANewEpochOverOldBytes() throws IOException
    {
        MemFileLayer fs = new MemFileLayer();
        RecordLog log = RecordLog.open(fs, "l");
        for (int i = 0; i < 5; i++)
            log.append(1, new byte[100], true);
        log.reset();
        log.append(2, new byte[]{ 1 }, true);
        List<RecordLog.Entry> es = RecordLog.scan(fs, "l");
        assertEquals(1, es.size(), "records of the old epoch after the new tail are ignored");
        assertEquals(2, es.get(0).type());
        assertThrows(IllegalArgumentException.class, () -> log.append(256, new byte[0], false));
    }

    /**
     * Appends past the end of the file extend it with zeros to the next allocation step, so that the syncs of the
     * following appends overwrite allocated bytes; the zeros are never records, survive a crash only as a longer
     * file, and a reset log keeps its size (nothing before the old end is rewritten).
     */
    @Test
    void appendsExtendTheFileInAllocationSteps() throws IOException
    {
        assertEquals(0, RecordLog.allocateStep, "off by default");
        MemFileLayer plain = new MemFileLayer();
        RecordLog.open(plain, "l").append(1, new byte[100], true);
        assertEquals(RecordLog.HEADER_BYTES + RecordLog.FRAME_BYTES + 100, plain.size("l"), "no step: no zeros");
        int step = 1 << 20;
        RecordLog.allocateStep = step;
        try
        {
            allocationSteps(step);
        }
        finally
        {
            RecordLog.allocateStep = 0;
        }
    }

    private static void allocationSteps(int step) throws IOException
    {
        MemFileLayer fs = new MemFileLayer();
        RecordLog log = RecordLog.open(fs, "l");
        byte[] p = new byte[10_000];
        log.append(1, p, true);
        assertEquals(step, fs.size("l"), "the first append allocates one step");
        int records = 1;
        while ((records + 1) * (p.length + RecordLog.FRAME_BYTES) + RecordLog.HEADER_BYTES <= step)
        {
            log.append(1, p, true);
            records++;
            assertEquals(step, fs.size("l"), "appends inside the step do not grow the file");
        }
        log.append(1, p, true);   // crosses the first step
        records++;
        assertEquals(2L * step, fs.size("l"));
        assertEquals(records, RecordLog.scan(fs, "l").size(), "zeros after the tail are no records");
        log.append(1, p, false);
        fs.crash();
        assertEquals(records, RecordLog.scan(fs, "l").size());
        RecordLog again = RecordLog.open(fs, "l");
        assertEquals(records, again.takeRecovered().size());
        again.reset();
        byte[] before = fs.readFully("l", step, step);
        again.append(2, new byte[]{ 7 }, true);
        assertEquals(2L * step, fs.size("l"), "a reset log keeps its allocation");
        assertArrayEquals(before, fs.readFully("l", step, step), "bytes after the tail are left alone");
        assertEquals(1, RecordLog.scan(fs, "l").size());
    }

    /** Concurrent synced appends: every record durable and intact, and groups share writes (fewer writes than records). */
    @Test
    void groupCommitWritesGroupsAndLosesNothing() throws Exception
    {
        MemFileLayer mem = new MemFileLayer();
        java.util.concurrent.atomic.AtomicLong writes = new java.util.concurrent.atomic.AtomicLong();
        io.elect.tsue.fs.FileLayer slow = new io.elect.tsue.fs.FileLayer()
        {
            public int read(String n, long p, byte[] d, int o, int l) throws IOException { return mem.read(n, p, d, o, l); }
            public void write(String n, long p, byte[] s, int o, int l) throws IOException { writes.incrementAndGet(); mem.write(n, p, s, o, l); }
            public void sync(String n) throws IOException
            {
                try
                {
                    Thread.sleep(2);   // a device flush takes time; appenders queue behind it
                }
                catch (InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
                mem.sync(n);
            }
            public long size(String n) throws IOException { return mem.size(n); }
            public void delete(String n) throws IOException { mem.delete(n); }
            public void rename(String a, String b) throws IOException { mem.rename(a, b); }
            public java.util.List<String> list() throws IOException { return mem.list(); }
        };
        RecordLog log = RecordLog.open(slow, "g");
        writes.set(0);
        int threads = 8, each = 50;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        java.util.List<java.util.concurrent.Future<?>> fs = new java.util.ArrayList<>();
        for (int t = 0; t < threads; t++)
        {
            int id = t;
            fs.add(pool.submit(() -> {
                for (int i = 0; i < each; i++)
                    log.append(1, new byte[]{ (byte) id, (byte) i }, true);
                return null;
            }));
        }
        for (java.util.concurrent.Future<?> f : fs)
            f.get();
        pool.shutdown();
        mem.crash();   // only what was synced survives
        List<RecordLog.Entry> es = RecordLog.scan(mem, "g");
        assertEquals(threads * each, es.size(), "every acknowledged record is durable");
        int[] next = new int[threads];
        for (RecordLog.Entry e : es)
        {
            byte[] p = payload(e);
            assertEquals(next[p[0]]++, p[1], "a thread's records in its order");
        }
        assertTrue(writes.get() < threads * each, "groups share writes: " + writes.get() + " writes");
    }
}
