package io.elect.core.stripes;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.coding.ErasureCoder;
import io.elect.coding.ErasureCoders;
import io.elect.core.util.Clock;
import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.stripes.StripeMemberReader;

/**
 * Builds parity members of a stripe into local files. The k data members are read window by window through a
 * {@link StripeMemberReader} (zero-padded past each member's real length; {@code zero:} members are never read),
 * encoded with the coder of the layout's codec id, and parity member {@code k + j} is written to {@code <dir>/<name>}
 * with its checksum sidecar {@code <dir>/<name>.checksums} (docs/formats/parity-file.md).
 *
 * <p>Durability: each file is written to a temporary file, fsynced, atomically renamed and the directory fsynced;
 * the parity file first, then its sidecar, so a sidecar never describes a parity file that is not in place.
 *
 * <p>Idempotent: if {@code <name>} and its sidecar already exist, describe the same stripe (codec, k, m, parity
 * index, data lengths) and the file verifies against the sidecar, they are returned without reading or encoding
 * anything. Otherwise they are rebuilt and replaced. The name must therefore identify the stripe: two stripes with
 * the same codec and data lengths written under one name would be taken for each other.
 *
 * <p>Thread-safe; concurrent builds of the same name are not coordinated (each writes a complete file; the last
 * rename wins, and both are correct for the same stripe).
 */
public final class ParityBuilder
{
    private static final Logger logger = LoggerFactory.getLogger(ParityBuilder.class);
    public static final int DEFAULT_WINDOW = 1 << 20;

    /**
     * A built (or found) parity file: {@code length} is the parity member's length (the code length, what layouts
     * state); the file holds {@code checksums.length()} bytes of it (see {@link #stored}), zeros after.
     */
    public record ParityResult(Path path, long length, ChunkChecksums checksums)
    {
        /** Bytes the file holds. */
        public long stored()
        {
            return checksums.length();
        }
    }

    /**
     * How many bytes of a parity member of {@code layout} are stored: the longest data member's length. Parity j is a
     * linear combination of the data members zero-padded to the code length, so past the longest one it is zero
     * (issue 16: a merge or removal that shortened a stripe's longest member left the code length, and a file of it,
     * as long as before; the zeros are not stored).
     */
    public static long storedLength(StripeLayout layout)
    {
        long longest = 0;
        for (long l : layout.dataLengths())
            longest = Math.max(longest, l);
        return Math.min(longest, layout.stripeLength());
    }

    private final int window;
    private final int chunkSize;
    private final Coders coders;
    private final Clock clock;

    /** 1 MiB windows, {@link ChunkChecksums#DEFAULT_CHUNK_SIZE} checksum chunks. */
    public ParityBuilder(Coders coders, Clock clock)
    {
        this(DEFAULT_WINDOW, ChunkChecksums.DEFAULT_CHUNK_SIZE, coders, clock);
    }

    /** @param window bytes of each member read and encoded at once; a positive multiple of chunkSize */
    public ParityBuilder(int window, int chunkSize, Coders coders, Clock clock)
    {
        this.coders = java.util.Objects.requireNonNull(coders, "coders");
        this.clock = java.util.Objects.requireNonNull(clock, "clock");
        new ChunkChecksums(chunkSize, 0, new int[0]); // validates chunkSize
        if (window < chunkSize || window % chunkSize != 0)
            throw new IllegalArgumentException("window must be a positive multiple of chunkSize " + chunkSize + ", got " + window);
        this.window = window;
        this.chunkSize = chunkSize;
    }

    /** Builds parity {@code parityIndex} (0 <= parityIndex < m, stripe member k + parityIndex) as {@code dir/name}. */
    public ParityResult build(StripeLayout layout, int parityIndex, StripeMemberReader reader, Path dir, String name)
    throws IOException
    {
        return build(layout, new int[]{ parityIndex }, reader, dir, List.of(name)).get(0);
    }

    /**
     * Builds several parity members of one stripe, reading each data window once: parity {@code parityIndexes[i]}
     * goes to {@code dir/names[i]}. Those already built and verified are returned as they are.
     *
     * @return one result per index, in the order given
     */
    public List<ParityResult> build(StripeLayout layout, int[] parityIndexes, StripeMemberReader reader, Path dir,
                                    List<String> names) throws IOException
    {
        if (parityIndexes.length == 0 || parityIndexes.length != names.size())
            throw new IllegalArgumentException("need one name per parity index, got " + parityIndexes.length + " indexes and "
                                               + names.size() + " names");
        for (int j : parityIndexes)
            if (j < 0 || j >= layout.m())
                throw new IllegalArgumentException("parity index must be in [0, " + layout.m() + "), got " + j);
        if (Arrays.stream(parityIndexes).distinct().count() != parityIndexes.length || names.stream().distinct().count() != names.size())
            throw new IllegalArgumentException("parity indexes and names must be distinct: " + Arrays.toString(parityIndexes) + " " + names);
        ErasureCoder coder = coderFor(layout);
        Files.createDirectories(dir);
        ParityResult[] results = new ParityResult[parityIndexes.length];
        List<Integer> todo = new ArrayList<>();
        for (int i = 0; i < parityIndexes.length; i++)
        {
            Path file = dir.resolve(names.get(i));
            Optional<ParitySidecar> existing = check(file);
            if (existing.isPresent() && sameStripe(existing.get(), layout, parityIndexes[i]))
                results[i] = new ParityResult(file, existing.get().codeLength(), existing.get().checksums());
            else
                todo.add(i);
        }
        if (todo.isEmpty())
        {
            logger.info("Parity {} of stripe {} already built in {} ({} bytes each)", Arrays.toString(parityIndexes),
                        layout.codecId(), dir, layout.stripeLength());
            return List.of(results);
        }
        long start = clock.nanoTime();
        encode(layout, coder, reader, dir, parityIndexes, names, todo, results);
        logger.info("Built parity {} of stripe {} (k={}, {} bytes each) into {} in {} ms",
                    todo.stream().map(i -> parityIndexes[i]).toList(), layout.codecId(), layout.k(), layout.stripeLength(),
                    dir, (clock.nanoTime() - start) / 1_000_000);
        return List.of(results);
    }

    private ErasureCoder coderFor(StripeLayout layout)
    {
        ErasureCoder coder = coders.get(layout.k(), layout.m());
        if (!coder.codecId().equals(layout.codecId()) || coder.dataChunks() != layout.k() || coder.parityChunks() != layout.m())
            throw new IllegalArgumentException("no coder for codec " + layout.codecId() + " (k=" + layout.k() + ", m="
                                               + layout.m() + "): this build makes " + coder.codecId());
        return coder;
    }

    private static boolean sameStripe(ParitySidecar s, StripeLayout layout, int parityIndex)
    {
        return s.codecId().equals(layout.codecId()) && s.k() == layout.k() && s.m() == layout.m()
               && s.parityIndex() == parityIndex && Arrays.equals(s.dataLengths(), layout.dataLengths())
               && s.codeLength() == layout.stripeLength();
    }

    private void encode(StripeLayout layout, ErasureCoder coder, StripeMemberReader reader, Path dir, int[] parityIndexes,
                        List<String> names, List<Integer> todo, ParityResult[] results) throws IOException
    {
        int k = layout.k(), m = layout.m();
        long length = storedLength(layout); // the rest of the code length is zero: not written
        ByteBuffer[] data = new ByteBuffer[k];
        ByteBuffer[] parity = new ByteBuffer[m];
        // a stripe shorter than the window needs buffers of its length only (whole checksum chunks)
        int buffer = (int) Math.min(window, (length + chunkSize - 1) / chunkSize * chunkSize);
        for (int i = 0; i < k; i++)
            data[i] = ErasureCoders.allocateAligned(Math.max(buffer, chunkSize));
        for (int j = 0; j < m; j++)
            parity[j] = ErasureCoders.allocateAligned(Math.max(buffer, chunkSize));
        int chunks = (int) ((length + chunkSize - 1) / chunkSize);
        int[][] crcs = new int[todo.size()][chunks];
        Path[] tmp = new Path[todo.size()];
        FileChannel[] out = new FileChannel[todo.size()];
        try
        {
            for (int t = 0; t < todo.size(); t++)
            {
                tmp[t] = ParitySidecar.tempFor(dir.resolve(names.get(todo.get(t))));
                out[t] = FileChannel.open(tmp[t], StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            }
            for (long off = 0; off < length; off += window)
            {
                int len = (int) Math.min(window, length - off);
                for (int i = 0; i < k; i++)
                    fill(layout, reader, i, off, len, data[i]);
                coder.encode(data, parity, 0, len);
                for (int t = 0; t < todo.size(); t++)
                {
                    ByteBuffer p = parity[parityIndexes[todo.get(t)]].duplicate().clear().limit(len);
                    int firstChunk = (int) (off / chunkSize);
                    for (int c = 0; c * chunkSize < len; c++)
                    {
                        ByteBuffer slice = p.duplicate().position(c * chunkSize).limit(Math.min(len, (c + 1) * chunkSize));
                        crcs[t][firstChunk + c] = ChunkChecksums.crc(slice);
                    }
                    while (p.hasRemaining())
                        out[t].write(p);
                }
            }
            for (int t = 0; t < todo.size(); t++)
            {
                out[t].force(true);
                out[t].close();
                int i = todo.get(t);
                Path file = dir.resolve(names.get(i));
                ChunkChecksums sums = new ChunkChecksums(chunkSize, length, crcs[t]);
                // the member's age (offload picks the oldest) is measured on the node's clock
                Files.setLastModifiedTime(tmp[t], java.nio.file.attribute.FileTime.fromMillis(clock.millis()));
                ParitySidecar.rename(tmp[t], file);
                new ParitySidecar(layout.codecId(), k, m, parityIndexes[i], layout.dataLengths(), sums, layout.stripeLength()).write(file);
                results[i] = new ParityResult(file, layout.stripeLength(), sums);
            }
        }
        finally
        {
            for (int t = 0; t < todo.size(); t++)
            {
                if (out[t] != null)
                    out[t].close();
                if (tmp[t] != null)
                    Files.deleteIfExists(tmp[t]);
            }
        }
    }

    /** Bytes [off, off+len) of data member i into buf (position 0, limit len), zeros past its real length. */
    private static void fill(StripeLayout layout, StripeMemberReader reader, int i, long off, int len, ByteBuffer buf)
    throws IOException
    {
        buf.clear();
        int avail = (int) Math.max(0, Math.min(len, layout.memberLength(i) - off));
        if (avail > 0 && !LocatorMemberReader.isZero(layout.locators().get(i)))
        {
            ByteBuffer got = reader.read(layout, i, off, avail);
            if (got.remaining() != avail)
                throw new IOException("stripe member " + i + " (" + layout.locators().get(i) + ") returned "
                                      + got.remaining() + " of " + avail + " bytes at " + off);
            buf.put(got);
        }
        while (buf.position() < len)
            buf.put((byte) 0);
        buf.clear();
    }

    /**
     * The parity file {@code file} if it and its sidecar exist and the file verifies (length and every chunk's
     * CRC32C); empty otherwise (the reason is logged). Reads the whole file.
     */
    public static Optional<ParityResult> verify(Path file)
    {
        return check(file).map(s -> new ParityResult(file, s.codeLength(), s.checksums()));
    }

    private static Optional<ParitySidecar> check(Path file)
    {
        Path sidecar = ParitySidecar.of(file);
        if (!Files.exists(file) || !Files.exists(sidecar))
            return Optional.empty();
        try
        {
            ParitySidecar s = ParitySidecar.read(sidecar);
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ))
            {
                ChunkChecksums actual = ChunkChecksums.compute(ch, s.checksums().chunkSize());
                if (!actual.equals(s.checksums()))
                {
                    logger.warn("Parity file {} does not match its sidecar ({})", file, difference(actual, s.checksums()));
                    return Optional.empty();
                }
            }
            return Optional.of(s);
        }
        catch (IOException e)
        {
            logger.warn("Parity file {} cannot be verified ({})", file, e.getMessage());
            return Optional.empty();
        }
    }

    private static String difference(ChunkChecksums actual, ChunkChecksums expected)
    {
        if (actual.length() != expected.length())
            return actual.length() + " bytes, expected " + expected.length();
        for (int c = 0; c < actual.chunkCount(); c++)
            if (actual.crcOf(c) != expected.crcOf(c))
                return "crc32c mismatch in chunk " + c + " of " + actual.chunkCount();
        return "chunk size differs";
    }
}
