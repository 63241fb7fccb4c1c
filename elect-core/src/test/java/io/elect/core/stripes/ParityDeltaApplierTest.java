package io.elect.core.stripes;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.elect.coding.ErasureCoder;
import io.elect.coding.ErasureCoders;
import io.elect.core.stripes.ParityDeltaApplier.Version;
import io.elect.core.util.Clock;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ParityDeltaApplier against a fresh encoding of the changed stripe: removing a member, replacing it with a version
 * of another length, filling a virtual slot; repeat after a complete result; corrupt old parity refused; the old
 * generation left untouched. Small checksum chunks and windows so that members span several windows.
 */
class ParityDeltaApplierTest
{
    private static final int CS = 1024;
    private static final int WINDOW = 3 * CS;
    private static final int K = 3, M = 2;

    @TempDir
    Path tmp;

    /** Members as byte arrays (null = virtual), parity j of them built by ParityBuilder into dir as name. */
    private Path built(byte[][] members, int j, String name) throws IOException
    {
        List<String> locators = new ArrayList<>();
        long[] lengths = new long[K];
        for (int i = 0; i < K; i++)
        {
            if (members[i] == null)
                locators.add(LocatorMemberReader.ZERO);
            else
            {
                Path f = tmp.resolve(name + "-member-" + i);
                Files.write(f, members[i]);
                locators.add(LocatorMemberReader.FILE + f);
                lengths[i] = members[i].length;
            }
        }
        long max = 0;
        for (long l : lengths)
            max = Math.max(max, l);
        for (int j2 = 0; j2 < M; j2++)
            locators.add(LocatorMemberReader.ZERO + "parity");
        StripeLayout layout = new StripeLayout(ErasureCoders.create(K, M).codecId(), K, M, lengths, max, locators);
        return new ParityBuilder(WINDOW, CS, new Coders("auto"), Clock.SYSTEM)
                   .build(layout, j, new LocatorMemberReader(n -> null), tmp, name).path();
    }

    /** Parity j of the members padded to codeLength, by the coder's whole-buffer encode. */
    private static byte[] expected(byte[][] members, int j, int codeLength)
    {
        ErasureCoder coder = ErasureCoders.create(K, M);
        ByteBuffer[] data = new ByteBuffer[K], parity = new ByteBuffer[M];
        for (int i = 0; i < K; i++)
        {
            data[i] = ByteBuffer.allocateDirect(codeLength);
            if (members[i] != null)
                data[i].put(members[i]).clear();
        }
        for (int p = 0; p < M; p++)
            parity[p] = ByteBuffer.allocateDirect(codeLength);
        coder.encode(data, parity, 0, codeLength);
        byte[] out = new byte[codeLength];
        parity[j].get(out);
        return out;
    }

    /**
     * The parity member a file holds, zero-extended to the code length; asserts that the file stores exactly the
     * longest member's bytes of its sidecar (issue 16: the zeros past it are not stored).
     */
    private static byte[] member(Path file, int code) throws Exception
    {
        ParitySidecar s = ParitySidecar.read(ParitySidecar.of(file));
        long longest = java.util.Arrays.stream(s.dataLengths()).max().orElse(0);
        assertEquals(longest, Files.size(file), file + " stores up to its longest member");
        assertEquals(code, s.codeLength(), file + " records the code length");
        return java.util.Arrays.copyOf(Files.readAllBytes(file), code);
    }

    private static Version of(byte[] b)
    {
        return b == null ? Version.absent() : new Version((off, len) -> ByteBuffer.wrap(b, (int) off, len).slice(), b.length);
    }

    private static byte[] random(Random r, int n)
    {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    @Test
    void removingReplacingAndFillingEqualAFreshEncoding() throws Exception
    {
        Random r = new Random(16_2026);
        int code = 7 * CS + 300; // the longest member; not a multiple of the window or the chunk
        byte[][] members = { random(r, 5 * CS + 11), random(r, code), random(r, 2 * CS) };
        ParityDeltaApplier applier = new ParityDeltaApplier(WINDOW, Clock.SYSTEM);
        ErasureCoder coder = ErasureCoders.create(K, M);
        for (int j = 0; j < M; j++)
        {
            Path g0 = built(members, j, "s-p" + j);
            byte[] g0Bytes = Files.readAllBytes(g0);
            assertArrayEquals(expected(members, j, code), g0Bytes);

            // remove the LONGEST member: the code length stays, the parity is that of the other two
            byte[][] removed = { members[0], null, members[2] };
            Path g1 = tmp.resolve("s-p" + j + ".g1.parity");
            ParityBuilder.ParityResult res = applier.apply(coder, 1, g0, of(members[1]), Version.absent(), g1);
            assertArrayEquals(expected(removed, j, code), member(g1, code), "removal, parity " + j);
            assertEquals(code, res.length());
            assertArrayEquals(new long[]{ members[0].length, 0, members[2].length },
                              ParitySidecar.read(ParitySidecar.of(g1)).dataLengths());
            assertArrayEquals(g0Bytes, Files.readAllBytes(g0), "the old generation is never modified");

            // replace member 0 by a shorter new version (a merge that dropped obsolete rows)
            byte[] merged = random(r, 3 * CS + 5);
            byte[][] replaced = { merged, null, members[2] };
            Path g2 = tmp.resolve("s-p" + j + ".g2.parity");
            applier.apply(coder, 0, g1, of(members[0]), of(merged), g2);
            assertArrayEquals(expected(replaced, j, code), member(g2, code), "replacement, parity " + j);

            // fill the virtual slot again (what widening's first step does), longer than before but within the code
            byte[] filled = random(r, 6 * CS);
            byte[][] refilled = { merged, filled, members[2] };
            Path g3 = tmp.resolve("s-p" + j + ".g3.parity");
            applier.apply(coder, 1, g2, Version.absent(), of(filled), g3);
            assertArrayEquals(expected(refilled, j, code), member(g3, code), "fill, parity " + j);
            assertTrue(ParityBuilder.verify(g3).isPresent(), "the new generation verifies against its sidecar");
        }
        try (var s = Files.list(tmp))
        {
            assertFalse(s.anyMatch(p -> p.getFileName().toString().contains(".tmp-")), "no temporary file is left");
        }
    }

    /**
     * A replacement applied from the member node's difference (previous XOR next, zero-padded to the longer one)
     * equals the one applied from both versions, byte for byte, for a shorter and a longer next version; a
     * difference of the wrong length is refused.
     */
    @Test
    void aPushedDeltaEqualsTheTwoVersions() throws Exception
    {
        Random r = new Random(40_2026);
        int code = 6 * CS + 77;
        byte[][] members = { random(r, 4 * CS + 9), random(r, code), random(r, CS + 1) };
        ParityDeltaApplier applier = new ParityDeltaApplier(WINDOW, Clock.SYSTEM);
        ErasureCoder coder = ErasureCoders.create(K, M);
        for (int j = 0; j < M; j++)
        {
            Path g0 = built(members, j, "d-p" + j);
            for (byte[] next : new byte[][]{ random(r, 2 * CS + 3), random(r, 5 * CS + 1) })
            {
                byte[] delta = new byte[Math.max(members[0].length, next.length)];
                for (int x = 0; x < delta.length; x++)
                    delta[x] = (byte) ((x < members[0].length ? members[0][x] : 0) ^ (x < next.length ? next[x] : 0));
                Path two = tmp.resolve("d-p" + j + "-" + next.length + ".two.parity");
                Path one = tmp.resolve("d-p" + j + "-" + next.length + ".one.parity");
                applier.apply(coder, 0, g0, of(members[0]), of(next), two);
                applier.applyDelta(coder, 0, g0, members[0].length, next.length, of(delta), one);
                assertArrayEquals(Files.readAllBytes(two), Files.readAllBytes(one), "parity " + j + ", next version of " + next.length);
                assertArrayEquals(expected(new byte[][]{ next, members[1], members[2] }, j, code), member(one, code));
                assertArrayEquals(ParitySidecar.read(ParitySidecar.of(two)).dataLengths(), ParitySidecar.read(ParitySidecar.of(one)).dataLengths());
                Path bad = tmp.resolve("d-p" + j + ".bad.parity");
                assertThrows(IllegalArgumentException.class,
                             () -> applier.applyDelta(coder, 0, g0, members[0].length, next.length, of(java.util.Arrays.copyOf(delta, delta.length - 1)), bad));
            }
        }
    }

    /**
     * Widening (issue 18): RS(2, 2) parity reshaped to k = 3 (same bytes, wider sidecar), then slot 2 filled by the
     * RS(3, 2) coder, equals a fresh RS(3, 2) encoding of the three members; a repeat returns the complete result; a
     * narrowing is refused.
     */
    @Test
    void aReshapedParityFilledInItsNewSlotEqualsAFreshWiderEncoding() throws Exception
    {
        Random r = new Random(18_2026);
        int code = 5 * CS + 17;
        byte[] a = random(r, code), b = random(r, 3 * CS + 2), c = random(r, 4 * CS);
        ParityDeltaApplier applier = new ParityDeltaApplier(WINDOW, Clock.SYSTEM);
        for (int j = 0; j < M; j++)
        {
            // the narrow stripe: k = 2 (the class's K is 3)
            List<String> locators = new ArrayList<>();
            Path fa = tmp.resolve("w-a"), fb = tmp.resolve("w-b");
            Files.write(fa, a);
            Files.write(fb, b);
            locators.add(LocatorMemberReader.FILE + fa);
            locators.add(LocatorMemberReader.FILE + fb);
            locators.add(LocatorMemberReader.ZERO + "p0");
            locators.add(LocatorMemberReader.ZERO + "p1");
            StripeLayout narrow = new StripeLayout(ErasureCoders.create(2, M).codecId(), 2, M, new long[]{ a.length, b.length }, code, locators);
            Path g0 = new ParityBuilder(WINDOW, CS, new Coders("auto"), Clock.SYSTEM)
                .build(narrow, j, new LocatorMemberReader(n -> null), tmp, "w-p" + j).path();
            String wide = ErasureCoders.create(3, M).codecId();
            Path g1 = tmp.resolve("w-p" + j + ".g1.parity");
            ParityBuilder.ParityResult res = applier.reshape(g0, wide, 3, g1);
            assertArrayEquals(Files.readAllBytes(g0), Files.readAllBytes(g1), "a widening copies the parity");
            ParitySidecar sc = ParitySidecar.read(ParitySidecar.of(g1));
            assertEquals(wide, sc.codecId());
            assertEquals(3, sc.k());
            assertArrayEquals(new long[]{ a.length, b.length, 0 }, sc.dataLengths());
            long modified = Files.getLastModifiedTime(g1).toMillis();
            Thread.sleep(20);
            assertEquals(res.length(), applier.reshape(g0, wide, 3, g1).length());
            assertEquals(modified, Files.getLastModifiedTime(g1).toMillis(), "a complete result is returned as it is");
            Path g2 = tmp.resolve("w-p" + j + ".g2.parity");
            applier.apply(ErasureCoders.create(3, M), 2, g1, Version.absent(), of(c), g2);
            assertArrayEquals(expected(new byte[][]{ a, b, c }, j, code), member(g2, code), "widened and filled, parity " + j);
            Path bad = tmp.resolve("w-p" + j + ".bad.parity");
            assertThrows(IllegalArgumentException.class, () -> applier.reshape(g1, ErasureCoders.create(2, M).codecId(), 2, bad));
        }
    }

    /**
     * A fill with a member longer than the parity (issue 18: the record's code length is the longest member rounded
     * up; the parity files are as long as the longest member was): the parity grows to the new member's length and
     * equals a fresh encoding at that length; the old parity's checksums still guard the bytes read from it.
     */
    @Test
    void aLongerNewMemberGrowsTheParityToAFreshEncodingOfItsLength() throws Exception
    {
        Random r = new Random(18_2027);
        byte[][] members = { random(r, 3 * CS + 5), null, random(r, 2 * CS) };
        int code = 3 * CS + 5;
        ParityDeltaApplier applier = new ParityDeltaApplier(WINDOW, Clock.SYSTEM);
        ErasureCoder coder = ErasureCoders.create(K, M);
        for (int j = 0; j < M; j++)
        {
            Path g0 = built(members, j, "grow-p" + j);
            assertEquals(code, Files.size(g0));
            byte[] longer = random(r, 5 * CS + 7);
            Path g1 = tmp.resolve("grow-p" + j + ".g1.parity");
            ParityBuilder.ParityResult res = applier.apply(coder, 1, g0, Version.absent(), of(longer), g1);
            assertEquals(longer.length, res.length());
            assertArrayEquals(expected(new byte[][]{ members[0], longer, members[2] }, j, longer.length), member(g1, longer.length),
                              "grown parity " + j);
            assertTrue(ParityBuilder.verify(g1).isPresent());
            assertArrayEquals(new long[]{ members[0].length, longer.length, members[2].length }, ParitySidecar.read(ParitySidecar.of(g1)).dataLengths());
            // and removing it again keeps the grown length (the code length of a stripe does not shrink)
            Path g2 = tmp.resolve("grow-p" + j + ".g2.parity");
            applier.apply(coder, 1, g1, of(longer), Version.absent(), g2);
            assertArrayEquals(expected(new byte[][]{ members[0], null, members[2] }, j, longer.length), member(g2, longer.length));
        }
    }

    @Test
    void aRepeatAfterACompleteResultChangesNothingAndAnIncompleteOneIsRedone() throws Exception
    {
        Random r = new Random(7);
        byte[][] members = { random(r, 4 * CS), random(r, 4 * CS), random(r, 1000) };
        Path g0 = built(members, 0, "t-p0");
        ErasureCoder coder = ErasureCoders.create(K, M);
        ParityDeltaApplier applier = new ParityDeltaApplier(WINDOW, Clock.SYSTEM);
        Path g1 = tmp.resolve("t-p0.g1.parity");
        applier.apply(coder, 2, g0, of(members[2]), Version.absent(), g1);
        byte[] once = Files.readAllBytes(g1);
        long modified = Files.getLastModifiedTime(g1).toMillis();
        Thread.sleep(20);
        applier.apply(coder, 2, g0, of(members[2]), Version.absent(), g1);
        assertArrayEquals(once, Files.readAllBytes(g1), "an XOR applied twice would cancel: the repeat must not apply it");
        assertEquals(modified, Files.getLastModifiedTime(g1).toMillis(), "a complete result is returned as it is");
        // a crash after the rename but before the sidecar: the file is redone from generation 0
        Files.delete(ParitySidecar.of(g1));
        Files.write(g1, new byte[]{ 1, 2, 3 });
        applier.apply(coder, 2, g0, of(members[2]), Version.absent(), g1);
        assertArrayEquals(once, Files.readAllBytes(g1));
    }

    @Test
    void refusesCorruptOldParityAndAVersionItWasNotComputedFrom() throws Exception
    {
        Random r = new Random(8);
        byte[][] members = { random(r, 4 * CS), random(r, 2 * CS), random(r, 3 * CS) };
        Path g0 = built(members, 1, "u-p1");
        ErasureCoder coder = ErasureCoders.create(K, M);
        ParityDeltaApplier applier = new ParityDeltaApplier(WINDOW, Clock.SYSTEM);
        Path g1 = tmp.resolve("u-p1.g1.parity");
        assertThrows(IllegalArgumentException.class,
                     () -> applier.apply(coder, 0, g0, of(members[1]), Version.absent(), g1), "member 0 is recorded with another length");
        assertThrows(IllegalArgumentException.class, () -> applier.apply(coder, 0, g0, of(members[0]), Version.absent(), g0));
        assertThrows(IllegalArgumentException.class,
                     () -> applier.apply(ErasureCoders.create(4, 2), 0, g0, of(members[0]), Version.absent(), g1), "another codec");
        byte[] bad = Files.readAllBytes(g0);
        bad[2 * CS + 17] ^= 0x40;
        Files.write(g0, bad);
        assertThrows(ChunkCorruptionException.class, () -> applier.apply(coder, 0, g0, of(members[0]), Version.absent(), g1));
        assertFalse(Files.exists(g1), "nothing is written from a corrupt old parity");
        try (var s = Files.list(tmp))
        {
            assertFalse(s.anyMatch(p -> p.getFileName().toString().contains(".tmp-")), "no temporary file is left");
        }
    }
}
