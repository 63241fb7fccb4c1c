package io.elect.core.tiered;

import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.stripes.StripeMemberReader;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.elect.coding.ErasureCoder;
import io.elect.coding.ErasureCoders;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Self-first reads of a DecodedRangeSource over a stripe of files: member self is read directly while its file is
 * there and intact, and reconstructed from k others when it is gone or corrupt; the bytes are the same either way.
 */
class DecodedRangeSourceSelfFirstTest
{
    private static final int CS = 4096;

    @TempDir
    Path tmp;

    /** Counts reads per member. */
    static final class Counting implements StripeMemberReader
    {
        final StripeMemberReader inner;
        final AtomicInteger[] reads = new AtomicInteger[16];

        Counting(StripeMemberReader inner)
        {
            this.inner = inner;
            for (int i = 0; i < reads.length; i++)
                reads[i] = new AtomicInteger();
        }

        @Override
        public ByteBuffer read(StripeLayout stripe, int member, long offset, int length) throws IOException
        {
            reads[member].incrementAndGet();
            return inner.read(stripe, member, offset, length);
        }

        int others(int self)
        {
            int n = 0;
            for (int i = 0; i < reads.length; i++)
                n += i == self ? 0 : reads[i].get();
            return n;
        }

        void reset()
        {
            for (AtomicInteger r : reads)
                r.set(0);
        }
    }

    record FileStripe(StripeLayout layout, byte[][] members, Path[] files)
    {
    }

    /** A k=4, m=2 stripe whose members are files; locator of member i is file: unless overridden. */
    FileStripe stripe(long seed, String selfLocatorOverride, int self) throws IOException
    {
        ErasureCoder coder = ErasureCoders.create(4, 2, ErasureCoders.JAVA);
        long[] lengths = new long[4];
        byte[][] members = DecodedRangeSourceTest.stripe(new Random(seed), coder, lengths);
        List<String> locators = new ArrayList<>();
        Path[] files = new Path[6];
        for (int i = 0; i < 6; i++)
        {
            files[i] = Files.write(tmp.resolve("member-" + i), members[i]);
            locators.add(i == self && selfLocatorOverride != null ? selfLocatorOverride : LocatorMemberReader.file(files[i]));
        }
        long max = Arrays.stream(lengths).max().getAsLong();
        return new FileStripe(new StripeLayout(coder.codecId(), 4, 2, lengths, max, locators), members, files);
    }

    static DecodedRangeSource source(FileStripe s, int self, StripeMemberReader reader)
    {
        ChunkChecksums sums = ChunkChecksums.compute(ByteBuffer.wrap(s.members()[self]), CS);
        return new DecodedRangeSource(s.layout(), self, ErasureCoders.create(4, 2, ErasureCoders.JAVA), reader, sums,
                                      null, new SourceCounters(), DecodeContext.direct(io.elect.core.util.Clock.SYSTEM));
    }

    static void readAndCheck(DecodedRangeSource src, byte[] expected, long pos, int len) throws IOException
    {
        ByteBuffer dst = ByteBuffer.allocate(len);
        src.read(pos, dst);
        assertArrayEquals(Arrays.copyOfRange(expected, (int) pos, (int) pos + len), dst.array(), pos + "+" + len);
    }

    @Test
    void selfIsReadDirectlyWithoutTouchingOthers() throws IOException
    {
        int self = 2;
        FileStripe s = stripe(1, null, self);
        Counting reader = new Counting(new LocatorMemberReader(n -> null));
        DecodedRangeSource src = source(s, self, reader);
        Random rnd = new Random(2);
        for (int i = 0; i < 30; i++)
        {
            int len = 1 + rnd.nextInt(2 * CS);
            long pos = rnd.nextInt(s.members()[self].length - len + 1);
            readAndCheck(src, s.members()[self], pos, len);
        }
        readAndCheck(src, s.members()[self], 0, s.members()[self].length);
        assertEquals(0, reader.others(self), "no other member is read while self is readable");
        assertEquals(31, reader.reads[self].get());
        SourceCounters.Snapshot c = src.counters().snapshot();
        assertEquals(31, c.directRuns());
        assertEquals(0, c.decodedRuns());
        assertEquals(0, c.corruptChunks());
    }

    @Test
    void missingSelfFallsBackToReconstruction() throws IOException
    {
        int self = 1;
        FileStripe s = stripe(3, null, self);
        Files.delete(s.files()[self]);
        Counting reader = new Counting(new LocatorMemberReader(n -> null));
        DecodedRangeSource src = source(s, self, reader);
        readAndCheck(src, s.members()[self], 100, 3 * CS);
        assertEquals(1, reader.reads[self].get(), "self tried once");
        assertTrue(reader.others(self) >= 4, "k others read: " + reader.others(self));
        // within the retry interval self is not tried again
        readAndCheck(src, s.members()[self], 5 * CS + 7, 100);
        readAndCheck(src, s.members()[self], 0, s.members()[self].length);
        assertEquals(1, reader.reads[self].get());
        SourceCounters.Snapshot c = src.counters().snapshot();
        assertEquals(0, c.directRuns());
        assertEquals(3, c.decodedRuns());
    }

    @Test
    void corruptSelfFallsBackToReconstruction() throws IOException
    {
        int self = 0;
        FileStripe s = stripe(5, null, self);
        byte[] bad = s.members()[self].clone();
        bad[CS + 10] ^= 0x40; // chunk 1
        Files.write(s.files()[self], bad);
        Counting reader = new Counting(new LocatorMemberReader(n -> null));
        DecodedRangeSource src = source(s, self, reader);
        readAndCheck(src, s.members()[self], CS, 2 * CS);
        SourceCounters.Snapshot c = src.counters().snapshot();
        assertEquals(1, c.corruptChunks(), "the corrupt direct read was detected");
        assertEquals(1, c.decodedRuns());
        assertEquals(0, c.directRuns());
        assertEquals(1, reader.reads[self].get());
        assertTrue(reader.others(self) >= 4);

        // a fresh source whose reads avoid the corrupt chunk reads self directly
        reader.reset();
        DecodedRangeSource fresh = source(s, self, reader);
        readAndCheck(fresh, s.members()[self], 2 * CS, CS);
        assertEquals(0, reader.others(self));
        assertEquals(1, fresh.counters().snapshot().directRuns());
    }

    @Test
    void zeroSelfIsNeverReadDirectly() throws IOException
    {
        int self = 3;
        FileStripe s = stripe(7, LocatorMemberReader.zero(), self);
        Counting reader = new Counting(new LocatorMemberReader(n -> null));
        DecodedRangeSource src = source(s, self, reader);
        readAndCheck(src, s.members()[self], 10, CS);
        assertEquals(0, reader.reads[self].get());
        assertEquals(1, src.counters().snapshot().decodedRuns());
    }
}
