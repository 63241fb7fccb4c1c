package io.elect.core.tiered;

import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.stripes.StripeMemberReader;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.elect.coding.ErasureCoder;
import io.elect.coding.ErasureCoders;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Degraded reads of a k=4, m=2 stripe held in memory behind a reader that can delay, refuse (a peer marked down) or
 * never answer: member reads run in parallel, a failed survivor is replaced by a spare at once, more than m missing
 * members is a StripeUnavailableException, a stuck member is hedged or hits the deadline, and warm() fills the cache.
 * Timing assertions compare against multiples of the injected delays (behaviour, not a benchmark).
 */
class DecodedRangeSourceDegradedTest
{
    private static final int CS = 4096;
    private static final long[] LENGTHS = { 10L * CS + 123, 7L * CS, 9L * CS + 5, 3L * CS + 1 };
    private static final ErasureCoder CODER = ErasureCoders.create(4, 2, ErasureCoders.JAVA);

    /** Members in memory; per member: a delay, refused (down), or hanging until released or interrupted. */
    static final class FaultyMembers implements StripeMemberReader
    {
        final byte[][] members;
        final Set<Integer> down = ConcurrentHashMap.newKeySet();
        final Set<Integer> hanging = ConcurrentHashMap.newKeySet();
        final ConcurrentHashMap<Integer, Long> delayMillis = new ConcurrentHashMap<>();
        final AtomicIntegerArray reads = new AtomicIntegerArray(6);
        final AtomicInteger concurrent = new AtomicInteger();
        final AtomicInteger maxConcurrent = new AtomicInteger();
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch interrupted = new CountDownLatch(1);
        volatile long failFrom = Long.MAX_VALUE;

        FaultyMembers(byte[][] members)
        {
            this.members = members;
        }

        @Override
        public ByteBuffer read(StripeLayout stripe, int member, long offset, int length) throws IOException
        {
            reads.incrementAndGet(member);
            maxConcurrent.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
            try
            {
                if (down.contains(member))
                    throw new IOException("peer of member " + member + " is down");
                if (offset + length > failFrom)
                    throw new IOException("injected failure past " + failFrom);
                if (hanging.contains(member))
                {
                    release.await();
                    throw new IOException("released");
                }
                long d = delayMillis.getOrDefault(member, 0L);
                if (d > 0)
                    Thread.sleep(d);
                assertTrue(offset + length <= stripe.memberLength(member), "read past the member's real length");
                return ByteBuffer.wrap(Arrays.copyOfRange(members[member], (int) offset, (int) offset + length));
            }
            catch (InterruptedException e)
            {
                interrupted.countDown();
                throw new InterruptedIOException("cancelled");
            }
            finally
            {
                concurrent.decrementAndGet();
            }
        }
    }

    private final List<FaultyMembers> readers = new ArrayList<>();

    @AfterEach
    void releaseHangingReads()
    {
        readers.forEach(r -> r.release.countDown());
    }

    FaultyMembers members(long seed)
    {
        Random rnd = new Random(seed);
        long max = Arrays.stream(LENGTHS).max().getAsLong();
        byte[][] members = new byte[6][];
        ByteBuffer[] data = new ByteBuffer[4];
        ByteBuffer[] parity = new ByteBuffer[2];
        for (int i = 0; i < 4; i++)
        {
            members[i] = new byte[(int) LENGTHS[i]];
            rnd.nextBytes(members[i]);
            data[i] = ByteBuffer.allocate((int) max).put(members[i]).clear();
        }
        for (int j = 0; j < 2; j++)
            parity[j] = ByteBuffer.wrap(members[4 + j] = new byte[(int) max]);
        CODER.encode(data, parity, 0, (int) max);
        FaultyMembers r = new FaultyMembers(members);
        readers.add(r);
        return r;
    }

    static StripeLayout layout()
    {
        List<String> locators = new ArrayList<>();
        for (int i = 0; i < 6; i++)
            locators.add("mem:" + i);
        return new StripeLayout(CODER.codecId(), 4, 2, LENGTHS, Arrays.stream(LENGTHS).max().getAsLong(), locators);
    }

    private static final DecodeContext CONTEXT = DecodeContext.pooled(io.elect.core.util.Clock.SYSTEM, "test-fetch");

    static DecodedRangeSource source(FaultyMembers r, boolean selfFirst, long deadlineMillis, TieredChunkCache cache)
    {
        ChunkChecksums sums = ChunkChecksums.compute(ByteBuffer.wrap(r.members[0]), CS);
        return new DecodedRangeSource(layout(), 0, CODER, r, sums, cache, new SourceCounters(), selfFirst, deadlineMillis, CONTEXT);
    }

    static void readAndCheck(DecodedRangeSource src, FaultyMembers r, long pos, int len) throws IOException
    {
        ByteBuffer dst = ByteBuffer.allocate(len);
        src.read(pos, dst);
        assertArrayEquals(Arrays.copyOfRange(r.members[0], (int) pos, (int) pos + len), dst.array(), pos + "+" + len);
    }

    static long millisSince(long startNanos)
    {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    @Test
    void survivorsAreFetchedInParallel() throws IOException
    {
        FaultyMembers r = members(11);
        long d = 200;
        for (int i = 0; i < 6; i++)
            r.delayMillis.put(i, d);
        DecodedRangeSource src = source(r, false, 10_000, null);
        long start = System.nanoTime();
        readAndCheck(src, r, 100, 2 * CS);
        long took = millisSince(start);
        assertTrue(took >= d && took < 2.5 * d, "k=4 reads of " + d + " ms each took " + took + " ms");
        assertEquals(4, r.maxConcurrent.get(), "all k reads in flight at once");
        assertEquals(4, src.counters().requests.sum());
        assertEquals(1, src.counters().decodedRuns.sum());
        assertEquals(0, src.counters().slowAvoided.sum(), "equally slow survivors: none is slower than the others");

        // chunk 8 lies past the real lengths of members 1 and 3: their bytes are zeros, not requested
        readAndCheck(src, r, 8L * CS, CS);
        assertEquals(6, src.counters().requests.sum());
        assertEquals(1, r.reads.get(1));
        assertEquals(1, r.reads.get(3));
    }

    @Test
    void aSurvivorMuchSlowerThanTheOthersIsAvoidedWhileASpareCanReplaceIt() throws IOException
    {
        // member 4 (the first parity) answers like a far cold tier, the others like local disks: the first read
        // waits for it (data first, then parity in index order), later reads use the other parity instead
        FaultyMembers r = members(15);
        r.delayMillis.put(4, 80L);
        DecodedRangeSource src = source(r, false, 10_000, null);
        long start = System.nanoTime();
        readAndCheck(src, r, 100, CS);
        assertTrue(millisSince(start) >= 80, "the first read used member 4");
        assertEquals(1, r.reads.get(4));
        assertEquals(1, src.counters().slowAvoided.sum());
        // (no upper bound on time here: a loaded machine may be slow; which members were read is the proof)
        for (int i = 0; i < 5; i++)
            readAndCheck(src, r, 2L * CS + 7 * i, 300);
        assertEquals(1, r.reads.get(4), "member 4 is not read again while member 5 can replace it");
        assertEquals(5, r.reads.get(5));
        assertEquals(1, src.counters().slowAvoided.sum());

        // with member 5 down as well, the avoided member is the only way to k survivors: when its replacement fails
        // it is read again at once, and no longer counted as avoided (no spare was left in that run)
        FaultyMembers q = members(16);
        q.delayMillis.put(4, 40L);
        q.down.add(5);
        DecodedRangeSource only = source(q, false, 10_000, null);
        readAndCheck(only, q, 0, CS);
        assertEquals(1, only.counters().slowAvoided.sum(), "member 5 looked like a spare: not read yet");
        readAndCheck(only, q, CS, CS);
        assertEquals(1, q.reads.get(5), "member 5 was tried in place of the slow member and failed");
        assertEquals(2, q.reads.get(4));
        assertEquals(1, only.counters().slowAvoided.sum());

        // both parity members slow (both in a far cold tier): one of them is needed whichever it is, so after the
        // first is put last the second is kept (no flip-flop between two slow members on every read)
        FaultyMembers both = members(17);
        both.delayMillis.put(4, 40L);
        both.delayMillis.put(5, 40L);
        DecodedRangeSource cold = source(both, false, 10_000, null);
        for (int i = 0; i < 4; i++)
            readAndCheck(cold, both, i * 100L, 100);
        assertEquals(1, cold.counters().slowAvoided.sum(), "member 4 put last once, member 5 then kept");
        assertEquals(1, both.reads.get(4));
        assertEquals(3, both.reads.get(5));
    }

    @Test
    void aFailedSurvivorIsReplacedBySpareAtOnceAndThenAvoided() throws IOException
    {
        FaultyMembers r = members(12);
        long d = 300;
        for (int i = 0; i < 6; i++)
            r.delayMillis.put(i, d);
        r.down.add(2);
        DecodedRangeSource src = source(r, false, 10_000, null);
        long start = System.nanoTime();
        readAndCheck(src, r, 3 * CS + 5, 100);
        long took = millisSince(start);
        assertEquals(1, r.reads.get(2));
        assertEquals(1, r.reads.get(5), "the spare (first parity not in the set) was read");
        for (int i : new int[]{ 1, 3, 4 })
            assertEquals(1, r.reads.get(i), "member " + i);
        assertTrue(took < 1.8 * d, "the spare started when member 2 failed, not after the others: " + took + " ms");
        assertEquals(5, src.counters().requests.sum());

        // member 2 failed recently: the next read goes straight to members that answer
        readAndCheck(src, r, 0, CS);
        assertEquals(1, r.reads.get(2));
        assertEquals(9, src.counters().requests.sum());
    }

    @Test
    void moreThanMUnavailableIsAStripeUnavailableException() throws IOException
    {
        FaultyMembers r = members(13);
        DecodedRangeSource src = source(r, false, 10_000, null);
        r.down.add(1); // with self, m=2 members missing: still decodable
        readAndCheck(src, r, 2 * CS, 3 * CS);

        r.down.add(4); // self, 1 and 4: more than m
        long start = System.nanoTime();
        StripeUnavailableException e = assertThrows(StripeUnavailableException.class,
                                                    () -> src.read(2 * CS, ByteBuffer.allocate(3 * CS)));
        assertTrue(millisSince(start) < 2_000, "members refused at once cost no waiting");
        assertArrayEquals(new int[]{ 0, 1, 4 }, e.unavailableMembers());
        String msg = e.getMessage();
        assertTrue(msg.contains("cannot reconstruct bytes 8192..20480: 3 of 6 stripe members unavailable (more than m=2)"), msg);
        assertTrue(msg.contains("member 0 (mem:0): being reconstructed"), msg);
        assertTrue(msg.contains("member 1 (mem:1): peer of member 1 is down"), msg);
        assertTrue(msg.contains("member 4 (mem:4): peer of member 4 is down"), msg);
        assertFalse(msg.contains("member 5 (mem:5)"), msg);
    }

    @Test
    void selfDownCountsAsOneOfTheUnavailableMembers() throws IOException
    {
        FaultyMembers r = members(14);
        DecodedRangeSource src = source(r, true, 10_000, null);
        r.down.add(0);
        r.down.add(3);
        readAndCheck(src, r, 0, CS); // self and 3 missing: m=2, decodable
        assertEquals(1, src.counters().decodedRuns.sum());
        r.down.add(5);
        r.delayMillis.put(0, 10_000L); // self is not tried again within the retry interval
        StripeUnavailableException e = assertThrows(StripeUnavailableException.class, () -> src.read(CS, ByteBuffer.allocate(10)));
        assertArrayEquals(new int[]{ 0, 3, 5 }, e.unavailableMembers());
        assertEquals(1, r.reads.get(0), e.getMessage());
    }

    @Test
    void aStuckMemberWithoutSpareFailsAtTheDeadline() throws Exception
    {
        FaultyMembers r = members(15);
        r.hanging.add(2);
        r.down.add(5); // the only spare besides member 4, which is in the set
        long deadline = 800;
        DecodedRangeSource src = source(r, false, deadline, null);
        long start = System.nanoTime();
        IOException e = assertThrows(IOException.class, () -> src.read(100, ByteBuffer.allocate(1000)));
        long took = millisSince(start);
        assertTrue(took >= deadline && took < deadline + 700, "failed after " + took + " ms");
        assertFalse(e instanceof StripeUnavailableException, e.toString());
        String msg = e.getMessage();
        assertTrue(msg.contains("degraded read of bytes 0..4096 gave up after"), msg);
        assertTrue(msg.contains("(deadline 800 ms) with 3 of the 4 member reads it needed"), msg);
        assertTrue(msg.contains("slow: member 2 (mem:2) (no answer after"), msg);
        assertTrue(msg.contains("unavailable: member 5 (mem:5): peer of member 5 is down"), msg);
        assertTrue(r.interrupted.await(5, TimeUnit.SECONDS), "the stuck read was cancelled");
    }

    @Test
    void aStuckMemberIsHedgedWithASpare() throws Exception
    {
        FaultyMembers r = members(16);
        r.hanging.add(1);
        long deadline = 2_000;
        DecodedRangeSource src = source(r, false, deadline, null);
        long start = System.nanoTime();
        readAndCheck(src, r, 5 * CS, 2 * CS);
        long took = millisSince(start);
        // the hedge starts after a quarter of the deadline
        assertTrue(took >= deadline / 4 && took < deadline, "took " + took + " ms");
        assertEquals(1, r.reads.get(5), "the spare raced the stuck member");
        assertTrue(r.interrupted.await(5, TimeUnit.SECONDS), "the stuck read was cancelled once k had arrived");

        // the stuck member is tried last now: no wait for the next read
        start = System.nanoTime();
        readAndCheck(src, r, 0, 100);
        assertTrue(millisSince(start) < deadline / 4, "took " + millisSince(start) + " ms");
        assertEquals(1, r.reads.get(1));
    }

    @Test
    void aSlowSelfFallsBackToReconstructionAfterTheHedgeDelay() throws IOException
    {
        FaultyMembers r = members(17);
        r.hanging.add(0);
        DecodedRangeSource src = source(r, true, 1_000, null);
        long start = System.nanoTime();
        readAndCheck(src, r, 100, 100);
        long took = millisSince(start);
        assertTrue(took >= 250 && took < 1_000, "took " + took + " ms");
        assertEquals(0, src.counters().directRuns.sum());
        assertEquals(1, src.counters().decodedRuns.sum());
    }

    @Test
    void warmedChunksAreServedFromTheCache() throws IOException
    {
        FaultyMembers r = members(18);
        DecodedRangeSource src = source(r, false, 10_000, new TieredChunkCache(1 << 20));
        assertEquals(3, src.warm(new long[]{ 7, 2, 3, 9 }, 3));
        // chunk 7 (members 1 and 3 end before it: 2 requests), then chunks 2..3 as one run (4 requests)
        assertEquals(6, src.counters().requests.sum());

        SourceCounters.Snapshot before = src.counters().snapshot();
        readAndCheck(src, r, 7L * CS + 10, 100);
        readAndCheck(src, r, 2L * CS, 2 * CS);
        SourceCounters.Snapshot d = src.counters().snapshot().minus(before);
        assertEquals(0, d.requests(), d.toString());
        assertEquals(3, d.cacheHits(), d.toString());

        readAndCheck(src, r, 9L * CS, 10); // beyond maxChunks: not warmed
        assertEquals(1, src.counters().snapshot().minus(before).decodedRuns());

        // a failing run stops warming: chunk 4 warmed, chunk 6 fails, chunk 5 is not attempted
        r.failFrom = 6L * CS;
        assertEquals(1, src.warm(new long[]{ 4, 6, 5 }, 10));
        before = src.counters().snapshot();
        readAndCheck(src, r, 4L * CS, 10);
        assertEquals(0, src.counters().snapshot().minus(before).requests());
        readAndCheck(src, r, 5L * CS, 10);
        assertTrue(src.counters().snapshot().minus(before).requests() > 0);

        assertThrows(IllegalArgumentException.class, () -> src.warm(new long[]{ 11 }, 1));
        assertEquals(0, source(r, false, 10_000, null).warm(new long[]{ 0 }, 1), "nothing to warm without a cache");
    }
}
