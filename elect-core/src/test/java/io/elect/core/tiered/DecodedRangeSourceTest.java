package io.elect.core.tiered;

import io.elect.core.stripes.ChunkCorruptionException;

import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.stripes.StripeMemberReader;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.elect.coding.ErasureCoder;
import io.elect.coding.ErasureCoders;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A stripe of k data members of different lengths plus m parity members, held in memory behind a
 * StripeMemberReader that can make members unavailable or return wrong bytes. These sources never read self
 * directly (selfFirst=false), so every read is a reconstruction; DecodedRangeSourceSelfFirstTest covers self-first.
 */
class DecodedRangeSourceTest
{
    private static final int CS = 4096;

    static final class MemoryMembers implements StripeMemberReader
    {
        final byte[][] members;
        final Set<Integer> unavailable = new HashSet<>();
        final Set<Integer> lying = new HashSet<>();

        MemoryMembers(byte[][] members)
        {
            this.members = members;
        }

        @Override
        public ByteBuffer read(StripeLayout stripe, int member, long offset, int length) throws IOException
        {
            if (unavailable.contains(member))
                throw new IOException("member " + member + " is down");
            assertTrue(offset + length <= stripe.memberLength(member), "read past the member's real length");
            byte[] out = java.util.Arrays.copyOfRange(members[member], (int) offset, (int) offset + length);
            if (lying.contains(member) && length > 0)
                out[0] ^= 0x5a;
            return ByteBuffer.wrap(out);
        }
    }

    /** Builds data members of random lengths and encodes parity over the zero-padded stripe. */
    static byte[][] stripe(Random rnd, ErasureCoder coder, long[] lengths)
    {
        int k = coder.dataChunks(), m = coder.parityChunks();
        long max = 0;
        for (int i = 0; i < k; i++)
        {
            lengths[i] = CS * 3 + rnd.nextInt(CS * 5);
            max = Math.max(max, lengths[i]);
        }
        byte[][] members = new byte[k + m][];
        ByteBuffer[] data = new ByteBuffer[k];
        ByteBuffer[] parity = new ByteBuffer[m];
        for (int i = 0; i < k; i++)
        {
            members[i] = new byte[(int) lengths[i]];
            rnd.nextBytes(members[i]);
            data[i] = ByteBuffer.allocate((int) max).put(members[i]).clear();
        }
        for (int j = 0; j < m; j++)
        {
            members[k + j] = new byte[(int) max];
            parity[j] = ByteBuffer.wrap(members[k + j]);
        }
        coder.encode(data, parity, 0, (int) max);
        return members;
    }

    private static StripeLayout layout(ErasureCoder coder, long[] lengths)
    {
        List<String> locators = new ArrayList<>();
        for (int i = 0; i < coder.dataChunks() + coder.parityChunks(); i++)
            locators.add("mem:" + i);
        long max = java.util.Arrays.stream(lengths).max().getAsLong();
        return new StripeLayout(coder.codecId(), coder.dataChunks(), coder.parityChunks(), lengths, max, locators);
    }

    @Test
    void rangesAreReconstructedFromKTimesTheBytes() throws IOException
    {
        long seed = System.nanoTime();
        System.out.println("DecodedRangeSourceTest seed=" + seed);
        Random rnd = new Random(seed);
        ErasureCoder coder = ErasureCoders.create(4, 2, ErasureCoders.JAVA);
        long[] lengths = new long[4];
        byte[][] members = stripe(rnd, coder, lengths);
        StripeLayout layout = layout(coder, lengths);
        MemoryMembers reader = new MemoryMembers(members);
        for (int self = 0; self < 4; self++)
        {
            ChunkChecksums sums = ChunkChecksums.compute(ByteBuffer.wrap(members[self]), CS);
            DecodedRangeSource src = new DecodedRangeSource(layout, self, coder, reader, sums, null, null, false, DecodedRangeSource.DEFAULT_DEADLINE_MILLIS, DecodeContext.direct(io.elect.core.util.Clock.SYSTEM));
            for (int i = 0; i < 50; i++)
            {
                int len = 1 + rnd.nextInt(CS);
                long pos = rnd.nextInt((int) lengths[self] - len + 1);
                SourceCounters.Snapshot before = src.counters().snapshot();
                ByteBuffer dst = ByteBuffer.allocate(len);
                src.read(pos, dst);
                assertArrayEquals(java.util.Arrays.copyOfRange(members[self], (int) pos, (int) pos + len), dst.array(),
                                  "member " + self + " at " + pos + "+" + len);
                SourceCounters.Snapshot d = src.counters().snapshot().minus(before);
                long chunks = (pos + len - 1) / CS - pos / CS + 1;
                // k survivors times the chunk-aligned range, never whole members
                assertTrue(d.bytesFetched() <= 4 * chunks * CS, d.toString());
                assertTrue(d.requests() <= 4, d.toString());
            }
        }
    }

    @Test
    void unavailableAndLyingMembersAreRoutedAroundOrReported() throws IOException
    {
        Random rnd = new Random(7);
        ErasureCoder coder = ErasureCoders.create(4, 2, ErasureCoders.JAVA);
        long[] lengths = new long[4];
        byte[][] members = stripe(rnd, coder, lengths);
        StripeLayout layout = layout(coder, lengths);
        MemoryMembers reader = new MemoryMembers(members);
        ChunkChecksums sums = ChunkChecksums.compute(ByteBuffer.wrap(members[0]), CS);
        DecodedRangeSource src = new DecodedRangeSource(layout, 0, coder, reader, sums, null, null, false, DecodedRangeSource.DEFAULT_DEADLINE_MILLIS, DecodeContext.direct(io.elect.core.util.Clock.SYSTEM));
        int len = 1000;
        byte[] expect = java.util.Arrays.copyOfRange(members[0], 100, 100 + len);

        reader.unavailable.add(1);
        ByteBuffer dst = ByteBuffer.allocate(len);
        src.read(100, dst);
        assertArrayEquals(expect, dst.array(), "member 1 down: parity used");

        reader.unavailable.clear();
        reader.lying.add(2);
        dst = ByteBuffer.allocate(len);
        src.read(100, dst);
        assertArrayEquals(expect, dst.array(), "member 2 lies: a set without it verifies");
        assertEquals(1, src.counters().repairs.sum());

        reader.unavailable.add(5); // exactly k members left, one of them lying
        assertThrows(ChunkCorruptionException.class, () -> src.read(100, ByteBuffer.allocate(len)),
                     "no spare to route around the liar: an error, never wrong bytes");
        reader.lying.clear();
        reader.unavailable.add(3);
        StripeUnavailableException e = assertThrows(StripeUnavailableException.class, () -> src.read(100, ByteBuffer.allocate(len)));
        assertArrayEquals(new int[]{ 0, 3, 5 }, e.unavailableMembers(), e.getMessage());
        assertTrue(e.getMessage().contains("3 of 6 stripe members unavailable (more than m=2)"), e.getMessage());

        assertThrows(IllegalArgumentException.class,
                     () -> new DecodedRangeSource(layout, 0, ErasureCoders.create(3, 2, ErasureCoders.JAVA), reader, sums,
                                                  null, null, DecodeContext.direct(io.elect.core.util.Clock.SYSTEM)));
    }
}
