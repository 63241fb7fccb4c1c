package io.elect.tsue.log;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.elect.coding.ErasureCoder;
import io.elect.coding.ErasureCoders;
import io.elect.tsue.fs.CountingFileLayer;
import io.elect.tsue.fs.FaultInjectingFileLayer;
import io.elect.tsue.fs.FileLayer;
import io.elect.tsue.fs.IoStats;
import io.elect.tsue.fs.MemFileLayer;
import io.elect.tsue.fs.SimulatedCrashException;
import io.elect.tsue.log.TxRecord.Extent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What TSUE's concurrent logs save in writes, and that the saving keeps their crash behaviour: several records in one
 * write, deferred delta-log COMMITs, and parity applies that coalesce ranges several pages apart (redone after a cut
 * at every crash point).
 */
class ParityLogBatchingTest
{
    private static final ErasureCoder CODER = ErasureCoders.create(4, 2, ErasureCoders.JAVA);
    private static final ParityLog.ChunkNamer NAMES = (s, i) -> "c-" + s + "-" + i;

    private static ParityLog delta(FileLayer fs) throws IOException
    {
        return new ParityLog(fs, "tdelta-0", CODER, NAMES, 4096, 1 << 20,
                             new ParityLog.Options(ParityLog.Role.DELTA, true, true, 0, null, null, System::nanoTime));
    }

    private static TxRecord dataDelta(long tx, long stripe)
    {
        byte[] d = new byte[100];
        new Random(tx).nextBytes(d);
        return new TxRecord(tx, 1, stripe, TxRecord.DATA_DELTA, 0, 2, List.of(new int[]{ 2, 0, 100, 7 }),
                            List.of(new Extent(0, d)));
    }

    @Test
    void recordsOfOneAppendShareOneWrite() throws IOException
    {
        MemFileLayer mem = new MemFileLayer();
        IoStats io = new IoStats();
        ParityLog log = delta(new CountingFileLayer(mem, io));
        long before = io.writes.sum();
        log.append(List.of(dataDelta(1, 5), dataDelta(1, 5), dataDelta(2, 6)), true);
        assertEquals(1, io.writes.sum() - before, "three records, one write");
        mem.crash();
        ParityLog again = delta(mem);
        assertEquals(2, again.all().size());
        assertEquals(2, again.all().get(0).size(), "both records of transaction 1 survive");
    }

    @Test
    void deferredCommitRidesOnTheNextWrite() throws IOException
    {
        MemFileLayer mem = new MemFileLayer();
        IoStats io = new IoStats();
        ParityLog log = delta(new CountingFileLayer(mem, io));
        log.append(List.of(dataDelta(1, 5)), true);
        long before = io.writes.sum();
        log.commitDeferred(new long[]{ 1 });
        assertEquals(before, io.writes.sum(), "no write of its own");
        assertTrue(log.isCommitted(1), "committed in memory at once");
        assertEquals(1, log.committedPrefix(1 << 20, Long.MAX_VALUE).size(), "a forward may take it");
        log.append(List.of(dataDelta(2, 5)), true);
        assertEquals(before + 1, io.writes.sum(), "COMMIT and the next transaction in one write");
        mem.crash();
        ParityLog again = delta(mem);
        assertTrue(again.isCommitted(1), "the COMMIT became durable with the next synced append");
        assertFalse(again.isCommitted(2));
    }

    @Test
    void deferredCommitLostInACrashLeavesTheTransactionForRecovery() throws IOException
    {
        MemFileLayer mem = new MemFileLayer();
        ParityLog log = delta(mem);
        log.append(List.of(dataDelta(1, 5)), true);
        log.commitDeferred(new long[]{ 1 });
        mem.crash();
        ParityLog again = delta(mem);
        assertEquals(1, again.uncommitted().size(), "uncommitted, as after a lost unsynced COMMIT: recovery decides");
        assertFalse(again.isCommitted(1));
    }

    @Test
    void deferredCommitIsWrittenBeforeAForwardedRecord() throws IOException
    {
        MemFileLayer mem = new MemFileLayer();
        ParityLog log = delta(mem);
        log.append(List.of(dataDelta(1, 5), dataDelta(2, 6)), true);
        log.commitDeferred(new long[]{ 1, 2 });
        log.forwarded(new long[]{ 1 }, true);
        mem.crash();
        ParityLog again = delta(mem);
        assertEquals(1, again.all().size());
        assertTrue(again.isCommitted(2));
    }

    /**
     * Rotations reuse one retired generation (reset, then renamed {@code <base>.spare}) instead of creating a file per
     * generation; a reuse cut between the rename and the new generation's ROTATED marker is discarded on open.
     */
    @Test
    void rotationsReuseOneSpareFileAndAnInterruptedReuseIsDiscarded() throws IOException
    {
        MemFileLayer mem = new MemFileLayer();
        java.util.function.Supplier<ParityLog> open = () -> {
            try
            {
                return new ParityLog(mem, "tdelta-0", CODER, NAMES, 4096, 2048,
                                     new ParityLog.Options(ParityLog.Role.DELTA, true, true, 0, null, null, System::nanoTime));
            }
            catch (IOException e)
            {
                throw new java.io.UncheckedIOException(e);
            }
        };
        ParityLog log = open.get();
        log.append(List.of(dataDelta(1, 5)), true);   // stays unapplied throughout: every rotation copies it
        long tx = 100;
        for (int round = 0; round < 8; round++)
        {
            long[] ids = new long[20];
            List<TxRecord> records = new java.util.ArrayList<>();
            for (int i = 0; i < ids.length; i++)
            {
                ids[i] = tx++;
                records.add(dataDelta(ids[i], 6));
            }
            log.append(records, true);
            log.forwarded(ids, true);   // gone from the log: the next rotation copies only transaction 1
        }
        List<String> files = mem.list().stream().filter(f -> f.startsWith("tdelta-0")).sorted().toList();
        assertEquals(2, files.size(), "one generation and the spare: " + files);
        assertTrue(files.contains("tdelta-0.spare"), files.toString());
        long gen = Long.parseLong(files.get(0).substring("tdelta-0.".length()));
        assertTrue(gen >= 5, "the log rotated every round or so: generation " + gen);
        assertEquals(0, RecordLog.scan(mem, "tdelta-0.spare").size(), "the spare holds no valid record");
        mem.crash();
        assertEquals(1, open.get().uncommitted().size(), "transaction 1 survives the rotations and the crash");
        // the rotation on open took the spare; cut a reuse after its rename, before its ROTATED marker
        gen = mem.list().stream().filter(f -> f.matches("tdelta-0\\.\\d+")).mapToLong(f -> Long.parseLong(f.substring(9))).max().orElseThrow();
        mem.rename("tdelta-0.spare", "tdelta-0." + (gen + 1));
        mem.crash();
        ParityLog again = open.get();
        assertEquals(1, again.uncommitted().size(), "the interrupted reuse (no ROTATED marker) is discarded, generation " + gen + " read");
        assertEquals(List.of("tdelta-0." + (gen + 2), "tdelta-0.spare"),
                     mem.list().stream().filter(f -> f.startsWith("tdelta-0")).sorted().toList());
    }

    /** Parity log of node-local parity chunk 4 (parity 0) of stripe 5, applies coalescing ranges < 16 pages apart. */
    private static ParityLog parity(FileLayer fs) throws IOException
    {
        return new ParityLog(fs, "tplog", CODER, NAMES, 4096, 1 << 20,
                             new ParityLog.Options(ParityLog.Role.PARITY, true, true, 0, null, null, System::nanoTime,
                                                   16));
    }

    @Test
    void coalescedApplyIsOneRangeAndIsRedoneAfterACutAtEveryCrashPoint() throws IOException
    {
        Random rnd = new Random(42);
        byte[] parity = new byte[256 << 10];
        rnd.nextBytes(parity);
        List<Extent> deltas = new ArrayList<>();
        for (int off : new int[]{ 1000, 40 << 10, (40 << 10) + 5000, 200 << 10 })   // 3 ranges after coalescing
        {
            byte[] d = new byte[3000];
            rnd.nextBytes(d);
            deltas.add(new Extent(off, d));
        }
        byte[] expected = parity.clone();
        for (Extent e : deltas)
            ParityLog.xor(e.bytes(), 0, expected, e.offset(), e.bytes().length);
        TxRecord rec = new TxRecord(9, 0, 5, TxRecord.PARITY_DELTA, 0, 0, List.of(), deltas);

        // without a crash: the first two extents (36 KiB apart) are one read and one write of the parity chunk
        MemFileLayer plain = new MemFileLayer();
        plain.write("c-5-4", 0, parity, 0, parity.length);
        IoStats io = new IoStats();
        ParityLog p = parity(new CountingFileLayer(plain, io));
        p.append(List.of(rec), true);
        p.commit(new long[]{ 9 }, true);
        p.apply();
        assertEquals(2, io.byKind.get("c")[0].sum(), "parity reads: [0, 48K) and [200K, 204K)");
        assertEquals(2, io.byKind.get("c")[2].sum(), "parity writes");
        assertArrayEquals(expected, plain.readFully("c-5-4", 0, parity.length));

        for (long crashAt = 1; ; crashAt++)
        {
            MemFileLayer mem = new MemFileLayer();
            mem.write("c-5-4", 0, parity, 0, parity.length);
            mem.sync("c-5-4");
            FaultInjectingFileLayer.CrashClock clock = new FaultInjectingFileLayer.CrashClock(crashAt);
            boolean crashed = false, committed = false;
            try
            {
                ParityLog l = parity(new FaultInjectingFileLayer(mem, clock));
                l.append(List.of(rec), true);
                l.commit(new long[]{ 9 }, true);
                committed = true;
                l.apply();
            }
            catch (SimulatedCrashException e)
            {
                crashed = true;
            }
            mem.crash();
            ParityLog after = parity(mem);   // finishes a cut apply
            if (after.isCommitted(9))
                after.apply();
            byte[] now = mem.readFully("c-5-4", 0, parity.length);
            if (committed)
                assertArrayEquals(expected, now, "crash point " + crashAt + ": a committed transaction is applied once");
            else if (!java.util.Arrays.equals(expected, now))
                assertArrayEquals(parity, now, "crash point " + crashAt + ": nothing or everything applied");
            if (!crashed)
                break;
        }
    }
    @Test
    void aLargeConcurrentApplyRunsInBoundedCyclesAndAppliesEverything() throws IOException
    {
        Random rnd = new Random(7);
        MemFileLayer mem = new MemFileLayer();
        IoStats io = new IoStats();
        ParityLog log = new ParityLog(new CountingFileLayer(mem, io), "tplog", CODER, NAMES, 4096, 1L << 40,
                                      new ParityLog.Options(ParityLog.Role.PARITY, true, true, 0, null, null,
                                                            System::nanoTime, 16));   // never rotates: APPLYs stay
        int stripes = (int) (ParityLog.APPLY_CYCLE_BYTES / (256 << 10)) * 2 + 3;   // about 2.x cycles of records
        List<byte[]> expected = new ArrayList<>();
        for (int s = 0; s < stripes; s++)
        {
            byte[] parity = new byte[256 << 10], d = new byte[256 << 10];
            rnd.nextBytes(parity);
            rnd.nextBytes(d);
            mem.write("c-" + s + "-4", 0, parity, 0, parity.length);
            ParityLog.xor(d, 0, parity, 0, d.length);
            expected.add(parity);
            log.append(List.of(new TxRecord(100 + s, 0, s, TxRecord.PARITY_DELTA, 0, 0, List.of(),
                                            List.of(new Extent(0, d)))), true);
            log.commit(new long[]{ 100 + s }, false);
        }
        log.apply();
        assertTrue(log.isEmpty(), "one apply() takes every committed transaction");
        long applies = RecordLog.scan(mem, "tplog.1").stream().filter(e -> e.type() == ParityLog.TYPE_APPLY).count();
        assertEquals(3, applies, "in cycles of at most APPLY_CYCLE_BYTES of records");
        for (int s = 0; s < stripes; s++)
            assertArrayEquals(expected.get(s), mem.readFully("c-" + s + "-4", 0, 256 << 10), "stripe " + s);
    }
    @Test
    void applyCyclesRotateTheLogOnceAtTheEnd() throws IOException
    {
        MemFileLayer mem = new MemFileLayer();
        ParityLog log = parity(mem);   // rotates above 1 MiB: before, after every cycle, copying what was unapplied
        int stripes = (int) (ParityLog.APPLY_CYCLE_BYTES / (256 << 10)) * 2 + 3;
        for (int s = 0; s < stripes; s++)
        {
            mem.write("c-" + s + "-4", 0, new byte[256 << 10], 0, 256 << 10);
            log.append(List.of(new TxRecord(100 + s, 0, s, TxRecord.PARITY_DELTA, 0, 0, List.of(),
                                            List.of(new Extent(0, new byte[256 << 10])))), true);
            log.commit(new long[]{ 100 + s }, false);
        }
        log.apply();
        assertTrue(log.isEmpty());
        assertEquals(List.of("tplog.2", "tplog.spare"), mem.list().stream().filter(f -> f.startsWith("tplog")).sorted().toList(),
                     "generation 1 from the open, one rotation after the apply's three cycles; generation 1 kept, reset, for the next");
    }
}
