package io.elect.core.stripes;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.coding.ErasureCoder;
import io.elect.coding.ErasureCoders;
import io.elect.core.util.Clock;

/**
 * A parity node's side of a plan change that changes ONE data member of a stripe (a member merged into a new
 * version, a member removed from its stripe, a virtual slot filled): parity j of generation g + 1 =
 * parity j of generation g XOR a(j, slot) * (old member XOR new member), both members zero-padded to the stripe's
 * code length (the linearity {@link ErasureCoder#update} relies on; an absent member is all zeros).
 *
 * <p>The new generation is written as a NEW file beside the old one (temporary file, fsync, atomic rename, then its
 * checksum sidecar, as {@link ParityBuilder} does), never in place, because:
 * <ul>
 * <li>an XOR applied twice cancels itself: reading generation g (never modified) and writing g + 1 makes a repeat
 * after a crash harmless, and a complete g + 1 found on disk is returned as it is;</li>
 * <li>readers of generation g (stubs whose layouts name it) are never disturbed: the stripe record switches to
 * g + 1 once every parity node holds it, and g is deleted only after that (docs/design/updates.md).</li>
 * </ul>
 * The old parity is verified against its sidecar chunk by chunk as it is read: a corrupt old parity fails the update
 * ({@link ChunkCorruptionException}) instead of being carried into the next generation. The member versions are
 * read through {@link Bytes}; checking them is the caller's business (e.g. reads verified against the member's
 * recorded checksums). Thread-safe (stateless apart from its settings).
 */
public final class ParityDeltaApplier
{
    private static final Logger logger = LoggerFactory.getLogger(ParityDeltaApplier.class);

    /** Bytes [offset, offset + length) of one member version (exactly length bytes; the caller keeps within its size). */
    @FunctionalInterface
    public interface Bytes
    {
        ByteBuffer read(long offset, int length) throws IOException;

        /** A member that is absent (length 0): reads are never made. */
        Bytes NONE = (offset, length) -> {
            throw new IllegalStateException("read of an absent member");
        };
    }

    /** One member version: its bytes and real length (0 = absent, all zeros). */
    public record Version(Bytes bytes, long length)
    {
        public Version
        {
            Objects.requireNonNull(bytes, "bytes");
            if (length < 0)
                throw new IllegalArgumentException("length must be >= 0, was " + length);
        }

        public static Version absent()
        {
            return new Version(Bytes.NONE, 0);
        }
    }

    private final int window;
    private final Clock clock;

    /** @param window bytes processed at once; a positive multiple of the parity's checksum chunk size */
    public ParityDeltaApplier(int window, Clock clock)
    {
        if (window < 1)
            throw new IllegalArgumentException("window must be >= 1, was " + window);
        this.window = window;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    public ParityDeltaApplier(Clock clock)
    {
        this(ParityBuilder.DEFAULT_WINDOW, clock);
    }

    /**
     * Writes {@code newFile} (and its sidecar): parity {@code oldFile}'s generation with data member {@code slot}
     * changed from {@code before} to {@code after}.
     *
     * @param coder   the stripe's coder (its codec id, k and m must be those of the old parity's sidecar)
     * @param slot    the data member that changes, 0 <= slot < k
     * @param oldFile generation g of parity j, with its sidecar; its sidecar must record {@code before.length()} for
     *                the slot (the parity was computed from that version)
     * @param newFile where generation g + 1 goes (must differ from oldFile)
     * @return the new file, its length (the code length, unchanged) and checksums
     * @throws IOException              reading or writing failed (nothing is left at newFile but a complete previous
     *                                  result)
     * @throws ChunkCorruptionException the old parity does not match its sidecar
     */
    public ParityBuilder.ParityResult apply(ErasureCoder coder, int slot, Path oldFile, Version before, Version after,
                                            Path newFile) throws IOException
    {
        return apply(coder, slot, oldFile, before.length(), after.length(), (delta, off, len) -> fillDelta(delta, before, after, off, len),
                     newFile);
    }

    /**
     * As {@link #apply(ErasureCoder, int, Path, Version, Version, Path)}, from the difference of the two versions
     * computed elsewhere (the member's node: previous XOR next, each zero-padded; {@code delta.length()} = the longer
     * version's length): one stream read instead of two.
     */
    public ParityBuilder.ParityResult applyDelta(ErasureCoder coder, int slot, Path oldFile, long beforeLength, long afterLength,
                                                 Version delta, Path newFile) throws IOException
    {
        if (delta.length() != Math.max(beforeLength, afterLength))
            throw new IllegalArgumentException("the delta covers " + delta.length() + " bytes, the longer version has "
                                               + Math.max(beforeLength, afterLength));
        return apply(coder, slot, oldFile, beforeLength, afterLength, (buf, off, len) -> fillDelta(buf, delta, Version.absent(), off, len),
                     newFile);
    }

    /** Fills delta[0, len) with the difference over [off, off + len) and sets its limit to len. */
    @FunctionalInterface
    private interface DeltaFill
    {
        void fill(ByteBuffer delta, long off, int len) throws IOException;
    }

    private ParityBuilder.ParityResult apply(ErasureCoder coder, int slot, Path oldFile, long beforeLength, long afterLength,
                                             DeltaFill fill, Path newFile) throws IOException
    {
        Objects.requireNonNull(coder, "coder");
        if (oldFile.toAbsolutePath().normalize().equals(newFile.toAbsolutePath().normalize()))
            throw new IllegalArgumentException("newFile must differ from oldFile (a generation is never rewritten in place): " + oldFile);
        ParitySidecar old = ParitySidecar.read(ParitySidecar.of(oldFile));
        if (!old.codecId().equals(coder.codecId()) || old.k() != coder.dataChunks() || old.m() != coder.parityChunks())
            throw new IllegalArgumentException(oldFile + ": parity of codec " + old.codecId() + " (k=" + old.k() + ", m=" + old.m()
                                               + "), but the coder is " + coder.codecId());
        if (slot < 0 || slot >= old.k())
            throw new IllegalArgumentException("slot must be in [0, " + old.k() + "), was " + slot);
        long oldLength = old.checksums().length(); // what the old file holds; zeros after, up to its code length
        long[] lengths = old.dataLengths();
        if (lengths[slot] != beforeLength)
            throw new IllegalArgumentException(oldFile + ": member " + slot + " is recorded with " + lengths[slot]
                                               + " bytes, not " + beforeLength + " (the parity was not computed from that version)");
        // A new version longer than the parity grows it (issue 18: a fill or a widening with a member longer than the
        // stripe's longest): every other member is zero past the old length, so the parity there is the new member's
        // contribution alone, and the old parity is read as zero-extended.
        long code = Math.max(old.codeLength(), afterLength);
        long length = Math.max(oldLength, afterLength); // computed up to here: the old parity and both versions
        lengths[slot] = afterLength;
        long stored = 0; // written up to here (the longest member of the new plan): the rest is zero, checked below
        for (long l : lengths)
            stored = Math.max(stored, l);
        Optional<ParityBuilder.ParityResult> done = ParityBuilder.verify(newFile);
        if (done.isPresent())
        {
            ParitySidecar found = ParitySidecar.read(ParitySidecar.of(newFile));
            if (found.parityIndex() == old.parityIndex() && Arrays.equals(found.dataLengths(), lengths)
                && found.codecId().equals(old.codecId()) && found.codeLength() == code)
                return done.get();
        }
        long start = clock.nanoTime();
        int chunkSize = old.checksums().chunkSize();
        int win = Math.max(chunkSize, window / chunkSize * chunkSize);
        int buffer = (int) Math.min(win, Math.max(chunkSize, (length + chunkSize - 1) / chunkSize * chunkSize));
        ByteBuffer delta = ErasureCoders.allocateAligned(buffer);
        ByteBuffer[] parity = new ByteBuffer[old.m()];
        for (int j = 0; j < parity.length; j++)
            parity[j] = ErasureCoders.allocateAligned(buffer);
        int j = old.parityIndex();
        int[] crcs = new int[(int) ((stored + chunkSize - 1) / chunkSize)];
        Path tmp = ParitySidecar.tempFor(newFile);
        try (FileChannel in = FileChannel.open(oldFile, StandardOpenOption.READ);
             FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))
        {
            if (in.size() != oldLength)
                throw new ChunkCorruptionException(oldFile + ": " + in.size() + " bytes, its sidecar says " + oldLength);
            for (long off = 0; off < length; off += buffer)
            {
                int len = (int) Math.min(buffer, length - off);
                int have = (int) Math.max(0, Math.min(len, oldLength - off)); // old parity bytes in this window; zero after
                ByteBuffer p = parity[j].clear().limit(have);
                while (p.hasRemaining())
                    if (in.read(p, off + p.position()) < 0)
                        throw new IOException(oldFile + ": unexpected end of file at " + (off + p.position()));
                parity[j].limit(len);
                for (int x = have; x < len; x++)
                    parity[j].put(x, (byte) 0);
                int first = (int) (off / chunkSize);
                for (int c = 0; c * chunkSize < have; c++)
                    old.checksums().verify(oldFile.toString(), first + c,
                                           p.duplicate().position(c * chunkSize).limit(Math.min(have, (c + 1) * chunkSize)));
                fill.fill(delta, off, len);
                for (int o = 0; o < parity.length; o++)
                    if (o != j)
                        parity[o].clear(); // contents ignored: only parity j is written
                coder.update(slot, delta, 0, parity, 0, len);
                // past the longest member of the new plan every member is zero, so the parity must be: checked, not
                // stored (a nonzero byte there means the recorded data lengths are wrong: refuse, write nothing)
                int keep = (int) Math.max(0, Math.min(len, stored - off));
                for (int x = keep; x < len; x++)
                    if (parity[j].get(x) != 0)
                        throw new ChunkCorruptionException(oldFile + " -> " + newFile + ": parity byte " + (off + x) + " is not zero past the longest member ("
                                                           + stored + " bytes; data lengths " + Arrays.toString(lengths) + ")");
                ByteBuffer w = parity[j].duplicate().position(0).limit(keep);
                for (int c = 0; c * chunkSize < keep; c++)
                    crcs[first + c] = ChunkChecksums.crc(w.duplicate().position(c * chunkSize).limit(Math.min(keep, (c + 1) * chunkSize)));
                while (w.hasRemaining())
                    out.write(w);
            }
            out.force(true);
        }
        catch (IOException | RuntimeException e)
        {
            Files.deleteIfExists(tmp);
            throw e;
        }
        ChunkChecksums sums = new ChunkChecksums(chunkSize, stored, crcs);
        Files.setLastModifiedTime(tmp, java.nio.file.attribute.FileTime.fromMillis(clock.millis()));
        ParitySidecar.rename(tmp, newFile);
        new ParitySidecar(old.codecId(), old.k(), old.m(), j, lengths, sums, code).write(newFile);
        logger.info("parity {} -> {}: member {} changed ({} -> {} bytes), parity {} rewritten: {} bytes stored of code length {} in {} ms",
                    oldFile.getFileName(), newFile.getFileName(), slot, beforeLength, afterLength, j, stored, code,
                    (clock.nanoTime() - start) / 1_000_000);
        return new ParityBuilder.ParityResult(newFile, code, sums);
    }

    /**
     * The next generation of a parity chunk whose stripe widens to {@code toK} data chunks (StripeRecord.beginReshape,
     * issue 18): the same bytes (verified chunk by chunk against the old sidecar while copied), with a sidecar of codec
     * {@code toCodecId}, k = {@code toK} and the old data lengths followed by zeros. Correct because the Cauchy
     * coefficient of a slot does not depend on k (docs/formats/codec.md); the caller checks the codec family.
     * Idempotent: a complete file with that sidecar is returned.
     */
    public ParityBuilder.ParityResult reshape(Path oldFile, String toCodecId, int toK, Path newFile) throws IOException
    {
        if (oldFile.toAbsolutePath().normalize().equals(newFile.toAbsolutePath().normalize()))
            throw new IllegalArgumentException("newFile must differ from oldFile (a generation is never rewritten in place): " + oldFile);
        ParitySidecar old = ParitySidecar.read(ParitySidecar.of(oldFile));
        if (toK < old.k())
            throw new IllegalArgumentException(oldFile + ": parity of k=" + old.k() + " cannot be narrowed to k=" + toK);
        long[] lengths = Arrays.copyOf(old.dataLengths(), toK);
        Optional<ParityBuilder.ParityResult> done = ParityBuilder.verify(newFile);
        if (done.isPresent())
        {
            ParitySidecar found = ParitySidecar.read(ParitySidecar.of(newFile));
            if (found.parityIndex() == old.parityIndex() && found.k() == toK && found.codecId().equals(toCodecId)
                && Arrays.equals(found.dataLengths(), lengths) && found.checksums().equals(old.checksums())
                && found.codeLength() == old.codeLength())
                return done.get();
        }
        long start = clock.nanoTime();
        long length = old.checksums().length();
        int chunkSize = old.checksums().chunkSize();
        Path tmp = ParitySidecar.tempFor(newFile);
        Files.deleteIfExists(tmp);
        try (FileChannel in = FileChannel.open(oldFile, StandardOpenOption.READ);
             FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))
        {
            if (in.size() != length)
                throw new ChunkCorruptionException(oldFile + ": " + in.size() + " bytes, its sidecar says " + length);
            ByteBuffer b = ByteBuffer.allocate(Math.max(chunkSize, window / chunkSize * chunkSize));
            for (long off = 0; off < length; off += b.capacity())
            {
                int len = (int) Math.min(b.capacity(), length - off);
                b.clear().limit(len);
                while (b.hasRemaining())
                    if (in.read(b, off + b.position()) < 0)
                        throw new IOException(oldFile + ": unexpected end of file at " + (off + b.position()));
                int first = (int) (off / chunkSize);
                for (int c = 0; c * chunkSize < len; c++)
                    old.checksums().verify(oldFile.toString(), first + c, b.duplicate().position(c * chunkSize).limit(Math.min(len, (c + 1) * chunkSize)));
                b.flip();
                while (b.hasRemaining())
                    out.write(b);
            }
            out.force(true);
        }
        catch (IOException | RuntimeException e)
        {
            Files.deleteIfExists(tmp);
            throw e;
        }
        Files.setLastModifiedTime(tmp, java.nio.file.attribute.FileTime.fromMillis(clock.millis()));
        ParitySidecar.rename(tmp, newFile);
        new ParitySidecar(toCodecId, toK, old.m(), old.parityIndex(), lengths, old.checksums(), old.codeLength()).write(newFile);
        logger.info("parity {} -> {}: {} ({}), {} bytes copied in {} ms", oldFile.getFileName(), newFile.getFileName(),
                    old.k() == toK ? "same k=" + toK : "widened from k=" + old.k() + " to k=" + toK, toCodecId, length, (clock.nanoTime() - start) / 1_000_000);
        return new ParityBuilder.ParityResult(newFile, old.codeLength(), old.checksums());
    }

    /** delta[0, len) = before XOR after over [off, off + len), each zero past its own length. */
    private static void fillDelta(ByteBuffer delta, Version before, Version after, long off, int len) throws IOException
    {
        delta.clear();
        for (int x = 0; x < len; x++)
            delta.put(x, (byte) 0);
        xorInto(delta, before, off, len);
        xorInto(delta, after, off, len);
        delta.limit(len);
    }

    private static void xorInto(ByteBuffer delta, Version v, long off, int len) throws IOException
    {
        int avail = (int) Math.max(0, Math.min(len, v.length() - off));
        if (avail == 0)
            return;
        ByteBuffer got = v.bytes().read(off, avail);
        if (got.remaining() != avail)
            throw new IOException("member version returned " + got.remaining() + " of " + avail + " bytes at " + off);
        int p = got.position();
        for (int x = 0; x < avail; x++)
            delta.put(x, (byte) (delta.get(x) ^ got.get(p + x)));
    }
}
