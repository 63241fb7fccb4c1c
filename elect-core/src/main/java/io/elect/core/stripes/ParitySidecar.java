package io.elect.core.stripes;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.zip.CRC32C;

import io.elect.core.stripes.ChunkChecksums;

/**
 * The checksum sidecar of a parity file, {@code <parity file>.checksums} (docs/formats/parity-file.md, versions 1
 * and 2): which stripe and parity index the file holds and the CRC32C of every chunk of it. UTF-8 {@code key=value}
 * lines, first the magic, last a CRC32C of everything before it. Immutable.
 *
 * <p>The file holds the parity's first {@code checksums.length()} bytes; the parity member is {@code codeLength}
 * bytes long (the stripe's code length, what the stubs' layouts state) and every byte past the file's end is zero.
 * Version 1 (written when the two are equal) has no {@code code_length} line; version 2 (a file trimmed to the
 * longest data member after a merge or removal shortened it, issue 16) has one.
 *
 * @param codecId     the codec the parity was computed with
 * @param k           data members of the stripe
 * @param m           parity members of the stripe
 * @param parityIndex which parity, 0 <= parityIndex < m (stripe member k + parityIndex)
 * @param dataLengths real lengths of the k data members the parity was computed from
 * @param checksums   of the parity file; its length is what the file holds (at least the longest data member)
 * @param codeLength  the parity member's length (the stripe's code length); bytes past the file's end are zero
 */
public record ParitySidecar(String codecId, int k, int m, int parityIndex, long[] dataLengths, ChunkChecksums checksums,
                            long codeLength)
{
    static final String MAGIC = "elect-parity-sidecar";
    /** Written when the file holds the whole member (no code_length line). */
    static final int VERSION = 1;
    /** Written when the file is shorter than the member (code_length line). */
    static final int VERSION_TRIMMED = 2;
    public static final String SUFFIX = ".checksums";

    public ParitySidecar
    {
        if (parityIndex < 0 || parityIndex >= m)
            throw new IllegalArgumentException("parityIndex must be in [0, " + m + "), got " + parityIndex);
        if (dataLengths.length != k)
            throw new IllegalArgumentException("dataLengths must have k=" + k + " entries");
        if (codeLength < checksums.length())
            throw new IllegalArgumentException("codeLength " + codeLength + " is shorter than the file's " + checksums.length() + " bytes");
        dataLengths = dataLengths.clone();
    }

    /** A sidecar of a file that holds the whole parity member (code length = the file's length). */
    public ParitySidecar(String codecId, int k, int m, int parityIndex, long[] dataLengths, ChunkChecksums checksums)
    {
        this(codecId, k, m, parityIndex, dataLengths, checksums, checksums.length());
    }

    /** Where the sidecar of parity file {@code file} lives. */
    public static Path of(Path file)
    {
        return file.resolveSibling(file.getFileName() + SUFFIX);
    }

    @Override
    public long[] dataLengths()
    {
        return dataLengths.clone();
    }

    String encode()
    {
        StringBuilder sb = new StringBuilder(MAGIC).append('\n');
        boolean trimmed = codeLength != checksums.length();
        line(sb, "version", Integer.toString(trimmed ? VERSION_TRIMMED : VERSION));
        line(sb, "codec", codecId);
        line(sb, "k", Integer.toString(k));
        line(sb, "m", Integer.toString(m));
        line(sb, "parity_index", Integer.toString(parityIndex));
        StringBuilder lengths = new StringBuilder();
        for (int i = 0; i < k; i++)
            lengths.append(i == 0 ? "" : ",").append(dataLengths[i]);
        line(sb, "data_lengths", lengths.toString());
        line(sb, "length", Long.toString(checksums.length()));
        if (trimmed)
            line(sb, "code_length", Long.toString(codeLength));
        line(sb, "chunk_size", Integer.toString(checksums.chunkSize()));
        ByteBuffer crcs = ByteBuffer.allocate(4 * checksums.chunkCount());
        for (int i = 0; i < checksums.chunkCount(); i++)
            crcs.putInt(checksums.crcOf(i));
        line(sb, "chunk_crc32c", Base64.getEncoder().encodeToString(crcs.array()));
        line(sb, "crc32c", crcHex(sb.toString()));
        return sb.toString();
    }

    private static void line(StringBuilder sb, String key, String value)
    {
        if (value.indexOf('\n') >= 0)
            throw new IllegalArgumentException(key + " must not contain a line break");
        sb.append(key).append('=').append(value).append('\n');
    }

    private static String crcHex(String text)
    {
        CRC32C crc = new CRC32C();
        crc.update(text.getBytes(StandardCharsets.UTF_8));
        return String.format(Locale.ROOT, "%08x", crc.getValue());
    }

    /** Parses a sidecar; IOException naming the file and the problem if it is malformed or its CRC does not match. */
    public static ParitySidecar read(Path sidecar) throws IOException
    {
        String text = Files.readString(sidecar, StandardCharsets.UTF_8);
        int crcLine = text.lastIndexOf("\ncrc32c=");
        if (!text.startsWith(MAGIC + "\n") || crcLine < 0 || !text.endsWith("\n"))
            throw new IOException(sidecar + ": not a parity sidecar (bad magic or missing crc32c line)");
        String recorded = text.substring(crcLine + "\ncrc32c=".length(), text.length() - 1);
        String expected = crcHex(text.substring(0, crcLine + 1));
        if (!recorded.equals(expected))
            throw new IOException(sidecar + ": checksum mismatch (recorded " + recorded + ", computed " + expected + ")");
        Map<String, String> f = new LinkedHashMap<>();
        for (String l : text.substring(MAGIC.length() + 1, crcLine + 1).split("\n"))
        {
            int eq = l.indexOf('=');
            if (eq <= 0)
                throw new IOException(sidecar + ": malformed line '" + l + "'");
            f.put(l.substring(0, eq), l.substring(eq + 1));
        }
        try
        {
            int version = Integer.parseInt(req(f, "version", sidecar));
            if (version != VERSION && version != VERSION_TRIMMED)
                throw new IOException(sidecar + ": version " + version + " is unknown (this reader knows " + VERSION + " and "
                                      + VERSION_TRIMMED + ")");
            int k = Integer.parseInt(req(f, "k", sidecar));
            String[] ls = req(f, "data_lengths", sidecar).split(",");
            long[] lengths = Arrays.stream(ls).mapToLong(Long::parseLong).toArray();
            long length = Long.parseLong(req(f, "length", sidecar));
            long codeLength = version == VERSION_TRIMMED ? Long.parseLong(req(f, "code_length", sidecar)) : length;
            int chunkSize = Integer.parseInt(req(f, "chunk_size", sidecar));
            ByteBuffer raw = ByteBuffer.wrap(Base64.getDecoder().decode(req(f, "chunk_crc32c", sidecar)));
            if (raw.remaining() % 4 != 0)
                throw new IOException(sidecar + ": chunk_crc32c is not a whole number of 4-byte entries");
            int[] crcs = new int[raw.remaining() / 4];
            for (int i = 0; i < crcs.length; i++)
                crcs[i] = raw.getInt();
            return new ParitySidecar(req(f, "codec", sidecar), k, Integer.parseInt(req(f, "m", sidecar)),
                                     Integer.parseInt(req(f, "parity_index", sidecar)), lengths,
                                     new ChunkChecksums(chunkSize, length, crcs), codeLength);
        }
        catch (IllegalArgumentException e) // includes NumberFormatException and bad base64
        {
            throw new IOException(sidecar + ": malformed: " + e.getMessage(), e);
        }
    }

    private static String req(Map<String, String> f, String key, Path origin) throws IOException
    {
        String v = f.get(key);
        if (v == null)
            throw new IOException(origin + ": missing field " + key);
        return v;
    }

    /** Writes this sidecar for parity file {@code file} atomically: temporary file, fsync, rename, fsync of the directory. */
    public void write(Path file) throws IOException
    {
        writeAtomically(of(file), ByteBuffer.wrap(encode().getBytes(StandardCharsets.UTF_8)));
    }

    /** Writes bytes to target through a temporary file in the same directory, fsynced, then atomically renamed. */
    static void writeAtomically(Path target, ByteBuffer bytes) throws IOException
    {
        Path tmp = tempFor(target);
        try
        {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))
            {
                while (bytes.hasRemaining())
                    ch.write(bytes);
                ch.force(true);
            }
            rename(tmp, target);
        }
        finally
        {
            Files.deleteIfExists(tmp);
        }
    }

    static Path tempFor(Path target)
    {
        return target.resolveSibling(target.getFileName() + ".tmp-" + Long.toHexString(ThreadLocalRandom.current().nextLong()));
    }

    /** Atomic rename of tmp over target, then fsync of the directory so the rename survives a crash. */
    static void rename(Path tmp, Path target) throws IOException
    {
        try
        {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        catch (AtomicMoveNotSupportedException e)
        {
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
        }
        try (FileChannel dir = FileChannel.open(target.toAbsolutePath().getParent(), StandardOpenOption.READ))
        {
            dir.force(true);
        }
        catch (IOException e)
        {
            // some file systems cannot fsync a directory; the rename itself is still atomic
        }
    }

    @Override
    public boolean equals(Object o)
    {
        return o instanceof ParitySidecar s && s.codecId.equals(codecId) && s.k == k && s.m == m
               && s.parityIndex == parityIndex && Arrays.equals(s.dataLengths, dataLengths) && s.checksums.equals(checksums)
               && s.codeLength == codeLength;
    }

    @Override
    public int hashCode()
    {
        return codecId.hashCode() * 31 + parityIndex + checksums.hashCode();
    }
}
