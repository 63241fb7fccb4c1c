package io.elect.core.tiered;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.elect.coding.ErasureCoder;
import io.elect.coding.ErasureCoders;
import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.stripes.StripeMemberReader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A stub's source switched to the next parity generation of its stripe (a member removed: docs/design/updates.md
 * item 4) decodes with the new generation only: once switched, the removed member and the old parity may be gone.
 */
class DecodedRangeSourceRelayoutTest
{
    private static final int CS = 4096;

    /** Members by locator; a missing locator is a deleted file. */
    static final class ByLocator implements StripeMemberReader
    {
        final Map<String, byte[]> files = new HashMap<>();

        @Override
        public ByteBuffer read(StripeLayout stripe, int member, long offset, int length) throws IOException
        {
            byte[] f = files.get(stripe.locators().get(member));
            if (f == null)
                throw new IOException(stripe.locators().get(member) + " is gone");
            return ByteBuffer.wrap(java.util.Arrays.copyOfRange(f, (int) offset, (int) offset + length));
        }
    }

    private static byte[][] encode(ErasureCoder coder, byte[][] data, long codeLength)
    {
        int k = coder.dataChunks(), m = coder.parityChunks();
        ByteBuffer[] d = new ByteBuffer[k];
        for (int i = 0; i < k; i++)
            d[i] = ByteBuffer.allocate((int) codeLength).put(data[i]).clear();
        byte[][] parity = new byte[m][(int) codeLength];
        ByteBuffer[] p = new ByteBuffer[m];
        for (int j = 0; j < m; j++)
            p[j] = ByteBuffer.wrap(parity[j]);
        coder.encode(d, p, 0, (int) codeLength);
        return parity;
    }

    @Test
    void aRelayoutDecodesWithTheNextGenerationOnly() throws IOException
    {
        Random rnd = new Random(11);
        ErasureCoder coder = ErasureCoders.create(4, 2, ErasureCoders.JAVA);
        long[] lengths = { 5 * CS + 17, 3 * CS, 4 * CS + 100, 6 * CS + 9 };
        long codeLength = 6 * CS + 9; // member 3 is the longest: removing it keeps the code length
        byte[][] data = new byte[4][];
        ByLocator reader = new ByLocator();
        List<String> g0 = new ArrayList<>();
        for (int i = 0; i < 4; i++)
        {
            data[i] = new byte[(int) lengths[i]];
            rnd.nextBytes(data[i]);
            g0.add("mem:d" + i);
            reader.files.put("mem:d" + i, data[i]);
        }
        byte[][] parity0 = encode(coder, data, codeLength);
        for (int j = 0; j < 2; j++)
        {
            g0.add("mem:p" + j + ".g0");
            reader.files.put("mem:p" + j + ".g0", parity0[j]);
        }
        StripeLayout before = new StripeLayout(coder.codecId(), 4, 2, lengths, codeLength, g0);

        // generation 1: member 3 removed (a zero chunk), parity recomputed without it
        byte[][] without = { data[0], data[1], data[2], new byte[0] };
        byte[][] parity1 = encode(coder, without, codeLength);
        List<String> g1 = new ArrayList<>(g0.subList(0, 3));
        g1.add(LocatorMemberReader.zero());
        for (int j = 0; j < 2; j++)
        {
            g1.add("mem:p" + j + ".g1");
            reader.files.put("mem:p" + j + ".g1", parity1[j]);
        }
        StripeLayout after = new StripeLayout(coder.codecId(), 4, 2, new long[]{ lengths[0], lengths[1], lengths[2], 0 }, codeLength, g1);

        ChunkChecksums sums = ChunkChecksums.compute(ByteBuffer.wrap(data[0]), CS);
        DecodedRangeSource src = new DecodedRangeSource(before, 0, coder, reader, sums, null, null, false,
                                                        DecodedRangeSource.DEFAULT_DEADLINE_MILLIS, DecodeContext.direct(io.elect.core.util.Clock.SYSTEM));
        byte[] expect = java.util.Arrays.copyOfRange(data[0], 1000, 1000 + 3 * CS);
        ByteBuffer dst = ByteBuffer.allocate(3 * CS);
        src.read(1000, dst);
        assertArrayEquals(expect, dst.array(), "generation 0");

        src.relayout(after);
        // what the change deletes once every stub switched: the removed member and generation 0
        reader.files.remove("mem:d3");
        reader.files.remove("mem:p0.g0");
        reader.files.remove("mem:p1.g0");
        reader.files.remove("mem:d1"); // and a survivor down as well: decoding needs the new parity
        dst = ByteBuffer.allocate(3 * CS);
        src.read(1000, dst);
        assertArrayEquals(expect, dst.array(), "generation 1, member 1 down");

        // a relayout must describe the same member at the same code length, or a longer one (a longer new member
        // grew the parity, issue 18), never a shorter one, nor another codec of the same k
        List<String> otherSelf = new ArrayList<>(g1);
        otherSelf.set(0, "mem:elsewhere");
        assertThrows(IllegalArgumentException.class, () -> src.relayout(new StripeLayout(coder.codecId(), 4, 2, after.dataLengths(),
                                                                                          codeLength, otherSelf)));
        long longest = java.util.Arrays.stream(after.dataLengths()).max().orElse(0);
        if (longest < codeLength)
            assertThrows(IllegalArgumentException.class, () -> src.relayout(new StripeLayout(coder.codecId(), 4, 2, after.dataLengths(),
                                                                                              codeLength - 1, g1)));
        assertThrows(IllegalArgumentException.class, () -> src.relayout(new StripeLayout("rs-other", 4, 2, after.dataLengths(),
                                                                                          codeLength, g1)));
        src.relayout(new StripeLayout(coder.codecId(), 4, 2, after.dataLengths(), codeLength + 1, g1));
        assertEquals(codeLength + 1, src.stripe().stripeLength());
    }
}
