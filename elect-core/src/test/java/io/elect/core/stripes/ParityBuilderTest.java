package io.elect.core.stripes;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.elect.coding.ErasureCoder;
import io.elect.coding.ErasureCoders;
import io.elect.core.stripes.ParityBuilder.ParityResult;
import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.stripes.StripeMemberReader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ParityBuilder against the coder's whole-buffer encode, on data files of unequal sizes. */
class ParityBuilderTest
{
    private static final int CS = 1024;
    /** Small windows so that members span several windows and lengths fall inside them. */
    private static final int WINDOW = 4 * CS;

    @TempDir
    Path tmp;

    /** Counts reads per member and checks the reader contract. */
    static final class CountingReader implements StripeMemberReader
    {
        final StripeMemberReader inner;
        final AtomicInteger[] reads;
        final List<String> calls = new ArrayList<>();

        CountingReader(StripeMemberReader inner, int members)
        {
            this.inner = inner;
            this.reads = new AtomicInteger[members];
            for (int i = 0; i < members; i++)
                reads[i] = new AtomicInteger();
        }

        @Override
        public synchronized ByteBuffer read(StripeLayout stripe, int member, long offset, int length) throws IOException
        {
            assertTrue(offset + length <= stripe.memberLength(member), "read past the member's real length");
            reads[member].incrementAndGet();
            calls.add(member + "@" + offset);
            return inner.read(stripe, member, offset, length);
        }

        int total()
        {
            return Arrays.stream(reads).mapToInt(AtomicInteger::get).sum();
        }
    }

    record Stripe(StripeLayout layout, byte[][] data, byte[][] parity)
    {
    }

    /** k data files of random unequal lengths (member zeroIndex, if >= 0, is a zero: member) and the expected parity. */
    Stripe stripe(Random rnd, ErasureCoder coder, int zeroIndex) throws IOException
    {
        int k = coder.dataChunks(), m = coder.parityChunks();
        long[] lengths = new long[k];
        byte[][] data = new byte[k][];
        List<String> locators = new ArrayList<>();
        int max = 0;
        for (int i = 0; i < k; i++)
        {
            int len = i == zeroIndex ? 0 : 1 + rnd.nextInt(5 * WINDOW);
            if (i == 1)
                len = 3 * WINDOW + 17; // not a multiple of anything
            data[i] = new byte[len];
            rnd.nextBytes(data[i]);
            lengths[i] = len;
            max = Math.max(max, len);
            if (i == zeroIndex)
                locators.add(LocatorMemberReader.zero());
            else
                locators.add(LocatorMemberReader.file(Files.write(tmp.resolve("data-" + i + "-" + rnd.nextInt(1 << 30)), data[i])));
        }
        for (int j = 0; j < m; j++)
            locators.add("cold:none/parity-" + j); // never read by the builder
        // whole-buffer reference encode over the zero-padded members
        ByteBuffer[] d = new ByteBuffer[k];
        ByteBuffer[] p = new ByteBuffer[m];
        byte[][] parity = new byte[m][max];
        for (int i = 0; i < k; i++)
            d[i] = ByteBuffer.allocate(max).put(data[i]).clear();
        for (int j = 0; j < m; j++)
            p[j] = ByteBuffer.wrap(parity[j]);
        coder.encode(d, p, 0, max);
        return new Stripe(new StripeLayout(coder.codecId(), k, m, lengths, max, locators), data, parity);
    }

    @Test
    void parityEqualsWholeBufferEncodeK2M1() throws IOException
    {
        checkAllParity(ErasureCoders.create(2, 1), new Random(21), -1);
    }

    @Test
    void parityEqualsWholeBufferEncodeK4M2() throws IOException
    {
        checkAllParity(ErasureCoders.create(4, 2), new Random(42), -1);
        checkAllParity(ErasureCoders.create(4, 2), new Random(43), 3); // with a virtual zero: member
    }

    private void checkAllParity(ErasureCoder coder, Random rnd, int zeroIndex) throws IOException
    {
        Stripe s = stripe(rnd, coder, zeroIndex);
        int k = coder.dataChunks(), m = coder.parityChunks();
        CountingReader reader = new CountingReader(new LocatorMemberReader(n -> null), k + m);
        Path dir = tmp.resolve("parity-" + rnd.nextInt(1 << 30));
        int[] indexes = new int[m];
        List<String> names = new ArrayList<>();
        for (int j = 0; j < m; j++)
        {
            indexes[j] = j;
            names.add("p" + j);
        }
        List<ParityResult> results = new ParityBuilder(WINDOW, CS, new Coders("auto"), io.elect.core.util.Clock.SYSTEM).build(s.layout(), indexes, reader, dir, names);
        // each data window read once for all m parities; zero: members and parity members never read
        long windows = (s.layout().stripeLength() + WINDOW - 1) / WINDOW;
        for (int i = 0; i < k; i++)
        {
            long expected = i == zeroIndex ? 0 : (s.layout().memberLength(i) + WINDOW - 1) / WINDOW;
            assertEquals(expected, reader.reads[i].get(), "reads of member " + i + " (" + windows + " windows)");
        }
        for (int j = 0; j < m; j++)
        {
            assertEquals(0, reader.reads[k + j].get());
            ParityResult r = results.get(j);
            assertEquals(dir.resolve("p" + j), r.path());
            assertArrayEquals(s.parity()[j], Files.readAllBytes(r.path()), "parity " + j);
            assertEquals(s.layout().stripeLength(), r.length());
            assertEquals(ChunkChecksums.compute(ByteBuffer.wrap(s.parity()[j]), CS), r.checksums());
            assertEquals(Optional.of(r), ParityBuilder.verify(r.path()));
            ParitySidecar sc = ParitySidecar.read(ParitySidecar.of(r.path()));
            assertEquals(j, sc.parityIndex());
            assertArrayEquals(s.layout().dataLengths(), sc.dataLengths());
        }
        try (var files = Files.list(dir))
        {
            assertEquals(2 * m, files.count(), "no temporary files left behind");
        }
        // one index at a time gives the same bytes
        ParityResult single = new ParityBuilder(WINDOW, CS, new Coders("auto"), io.elect.core.util.Clock.SYSTEM).build(s.layout(), m - 1, reader, tmp.resolve("single-" + rnd.nextInt()), "p");
        assertArrayEquals(s.parity()[m - 1], Files.readAllBytes(single.path()));
    }

    @Test
    void secondBuildIsIdempotentAndCorruptionIsDetected() throws IOException
    {
        ErasureCoder coder = ErasureCoders.create(4, 2);
        Stripe s = stripe(new Random(9), coder, -1);
        CountingReader reader = new CountingReader(new LocatorMemberReader(n -> null), 6);
        ParityBuilder builder = new ParityBuilder(WINDOW, CS, new Coders("auto"), io.elect.core.util.Clock.SYSTEM);
        Path dir = tmp.resolve("parity");
        ParityResult first = builder.build(s.layout(), 1, reader, dir, "stripe-7-parity-1");
        int reads = reader.total();
        assertTrue(reads > 0);
        FileTime mtime = FileTime.fromMillis(1_000_000);
        Files.setLastModifiedTime(first.path(), mtime);

        // second build: nothing read, nothing rewritten
        ParityResult second = builder.build(s.layout(), 1, reader, dir, "stripe-7-parity-1");
        assertEquals(first, second);
        assertEquals(reads, reader.total(), "an idempotent build reads no member");
        assertEquals(mtime, Files.getLastModifiedTime(first.path()));

        // a corrupt sidecar: verify says no, build rebuilds and repairs
        Path sidecar = ParitySidecar.of(first.path());
        byte[] sc = Files.readAllBytes(sidecar);
        byte[] bad = sc.clone();
        int at = new String(sc, java.nio.charset.StandardCharsets.UTF_8).indexOf("length=") + 7;
        bad[at] = (byte) (bad[at] == '1' ? '2' : '1');
        Files.write(sidecar, bad);
        IOException e = assertThrows(IOException.class, () -> ParitySidecar.read(sidecar));
        assertTrue(e.getMessage().contains("checksum mismatch"), e.getMessage());
        assertFalse(ParityBuilder.verify(first.path()).isPresent());
        ParityResult rebuilt = builder.build(s.layout(), 1, reader, dir, "stripe-7-parity-1");
        assertTrue(reader.total() > reads, "rebuilt");
        assertEquals(first, rebuilt);
        assertArrayEquals(sc, Files.readAllBytes(sidecar), "the sidecar is written again, identically");

        // a corrupt parity byte: detected, rebuilt
        byte[] parity = Files.readAllBytes(first.path());
        parity[parity.length / 2] ^= 1;
        Files.write(first.path(), parity);
        assertFalse(ParityBuilder.verify(first.path()).isPresent());
        reads = reader.total();
        builder.build(s.layout(), 1, reader, dir, "stripe-7-parity-1");
        assertTrue(reader.total() > reads);
        assertArrayEquals(s.parity()[1], Files.readAllBytes(first.path()));

        // a truncated parity file, a missing sidecar
        Files.write(first.path(), Arrays.copyOf(parity, parity.length - 1));
        assertFalse(ParityBuilder.verify(first.path()).isPresent());
        builder.build(s.layout(), 1, reader, dir, "stripe-7-parity-1");
        Files.delete(sidecar);
        assertFalse(ParityBuilder.verify(first.path()).isPresent());
        assertFalse(ParityBuilder.verify(dir.resolve("nothing")).isPresent());

        // a file built for another parity index under this name is not taken for this one
        Files.delete(first.path());
        builder.build(s.layout(), 0, reader, dir, "stripe-7-parity-1");
        reads = reader.total();
        builder.build(s.layout(), 1, reader, dir, "stripe-7-parity-1");
        assertTrue(reader.total() > reads, "index 0 under the name: rebuilt for index 1");
        assertArrayEquals(s.parity()[1], Files.readAllBytes(first.path()));
    }

    @Test
    void badArgumentsAndFailingMembers() throws IOException
    {
        ErasureCoder coder = ErasureCoders.create(2, 1);
        Stripe s = stripe(new Random(3), coder, -1);
        ParityBuilder builder = new ParityBuilder(WINDOW, CS, new Coders("auto"), io.elect.core.util.Clock.SYSTEM);
        StripeMemberReader ok = new LocatorMemberReader(n -> null);
        assertThrows(IllegalArgumentException.class, () -> new ParityBuilder(3 * CS / 2, CS, new Coders("auto"), io.elect.core.util.Clock.SYSTEM));
        assertThrows(IllegalArgumentException.class, () -> builder.build(s.layout(), 1, ok, tmp, "x"));
        StripeLayout otherCodec = new StripeLayout("rs-other:k=2:m=1", 2, 1, s.layout().dataLengths(),
                                                   s.layout().stripeLength(), s.layout().locators());
        assertThrows(IllegalArgumentException.class, () -> builder.build(otherCodec, 0, ok, tmp, "x"));
        // a member that fails: IOException, no file and no temporary file left
        Path dir = tmp.resolve("failing");
        StripeMemberReader failing = (stripe, member, offset, length) -> {
            if (member == 1 && offset > 0)
                throw new IOException("member 1 is down");
            return ok.read(stripe, member, offset, length);
        };
        IOException e = assertThrows(IOException.class, () -> builder.build(s.layout(), 0, failing, dir, "p0"));
        assertTrue(e.getMessage().contains("member 1 is down"));
        try (var files = Files.list(dir))
        {
            assertEquals(0, files.count());
        }
    }
}
