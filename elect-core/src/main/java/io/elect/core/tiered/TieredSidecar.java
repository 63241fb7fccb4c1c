package io.elect.core.tiered;

import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.StripeLayout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The sidecar of a tiered SSTable: names where its data component lives and the checksums to verify it by. One
 * small UTF-8 text file next to the SSTable's other components; format specified in docs/formats/tiered-sidecar.md
 * (versioned, ends with a CRC32C of everything before it). Written atomically (temporary file, fsync, rename).
 *
 * @param source     COLD or DECODED
 * @param checksums  chunk checksums (and length) of the data component
 * @param coldStore  COLD: name of the cold store; DECODED: null
 * @param coldKey    COLD: object key; DECODED: null
 * @param owned      COLD: the object belongs to this SSTable and is deleted with it (unless a snapshot links it)
 * @param stripe     DECODED: the stripe; COLD: null
 * @param self       DECODED: this SSTable's member index in the stripe; COLD: -1
 */
public record TieredSidecar(Source source, ChunkChecksums checksums, String coldStore, String coldKey, boolean owned,
                            StripeLayout stripe, int self)
{
    /** DO NOT CHANGE the names: they are persisted. */
    public enum Source
    {
        COLD, DECODED
    }

    public static final String MAGIC = "elect-tiered-sidecar";
    public static final int VERSION = 1;

    public TieredSidecar
    {
        if (source == null || checksums == null)
            throw new IllegalArgumentException("source and checksums must not be null");
        if (source == Source.COLD && (coldStore == null || coldKey == null || stripe != null))
            throw new IllegalArgumentException("a COLD sidecar needs coldStore and coldKey and no stripe");
        if (source == Source.DECODED && (stripe == null || self < 0 || self >= stripe.k()))
            throw new IllegalArgumentException("a DECODED sidecar needs a stripe and self in [0, k), got self=" + self);
    }

    public static TieredSidecar cold(ChunkChecksums checksums, String store, String key, boolean owned)
    {
        return new TieredSidecar(Source.COLD, checksums, store, key, owned, null, -1);
    }

    public static TieredSidecar decoded(ChunkChecksums checksums, StripeLayout stripe, int self)
    {
        return new TieredSidecar(Source.DECODED, checksums, null, null, false, stripe, self);
    }

    public String serialize()
    {
        StringBuilder sb = new StringBuilder();
        sb.append(MAGIC).append('\n');
        line(sb, "version", Integer.toString(VERSION));
        line(sb, "source", source.name());
        line(sb, "data_length", Long.toString(checksums.length()));
        line(sb, "chunk_size", Integer.toString(checksums.chunkSize()));
        ByteBuffer crcs = ByteBuffer.allocate(4 * checksums.chunkCount());
        for (int c : checksums.crcs())
            crcs.putInt(c);
        line(sb, "chunk_crc32c", Base64.getEncoder().encodeToString(crcs.array()));
        if (source == Source.COLD)
        {
            line(sb, "cold.store", coldStore);
            line(sb, "cold.key", coldKey);
            line(sb, "cold.owned", Boolean.toString(owned));
        }
        else
        {
            line(sb, "stripe.codec", stripe.codecId());
            line(sb, "stripe.k", Integer.toString(stripe.k()));
            line(sb, "stripe.m", Integer.toString(stripe.m()));
            StringBuilder lengths = new StringBuilder();
            for (long l : stripe.dataLengths())
                lengths.append(lengths.length() == 0 ? "" : ",").append(l);
            line(sb, "stripe.data_lengths", lengths.toString());
            line(sb, "stripe.length", Long.toString(stripe.stripeLength()));
            line(sb, "stripe.self", Integer.toString(self));
            for (int i = 0; i < stripe.locators().size(); i++)
                line(sb, "stripe.member." + i, stripe.locators().get(i));
        }
        CRC32C crc = new CRC32C();
        crc.update(sb.toString().getBytes(StandardCharsets.UTF_8));
        line(sb, "crc32c", String.format(Locale.ROOT, "%08x", crc.getValue()));
        return sb.toString();
    }

    private static void line(StringBuilder sb, String key, String value)
    {
        if (value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0)
            throw new IllegalArgumentException(key + " must not contain line breaks: '" + value + "'");
        sb.append(key).append('=').append(value).append('\n');
    }

    /** Parses a sidecar; any deviation (magic, version, checksum, missing or malformed field) is an IOException naming it. */
    public static TieredSidecar parse(String text, String origin) throws IOException
    {
        int crcLine = text.lastIndexOf("crc32c=");
        if (!text.startsWith(MAGIC + "\n") || crcLine < 0 || !text.endsWith("\n"))
            throw new IOException(origin + ": not a tiered sidecar (bad magic or truncated)");
        CRC32C crc = new CRC32C();
        crc.update(text.substring(0, crcLine).getBytes(StandardCharsets.UTF_8));
        String expected = String.format(Locale.ROOT, "%08x", crc.getValue());
        String recorded = text.substring(crcLine + "crc32c=".length(), text.length() - 1);
        if (!expected.equals(recorded))
            throw new IOException(origin + ": sidecar checksum mismatch (recorded " + recorded + ", computed " + expected + ")");
        Map<String, String> f = new LinkedHashMap<>();
        for (String l : text.substring(MAGIC.length() + 1, crcLine).split("\n"))
        {
            int eq = l.indexOf('=');
            if (eq <= 0)
                throw new IOException(origin + ": malformed sidecar line '" + l + "'");
            f.put(l.substring(0, eq), l.substring(eq + 1));
        }
        try
        {
            int version = Integer.parseInt(req(f, "version", origin));
            if (version != VERSION)
                throw new IOException(origin + ": unsupported sidecar version " + version + " (this build reads " + VERSION + ")");
            Source source = Source.valueOf(req(f, "source", origin));
            long length = Long.parseLong(req(f, "data_length", origin));
            int chunkSize = Integer.parseInt(req(f, "chunk_size", origin));
            ByteBuffer raw = ByteBuffer.wrap(Base64.getDecoder().decode(req(f, "chunk_crc32c", origin)));
            int[] crcs = new int[raw.remaining() / 4];
            for (int i = 0; i < crcs.length; i++)
                crcs[i] = raw.getInt();
            ChunkChecksums checksums = new ChunkChecksums(chunkSize, length, crcs);
            if (source == Source.COLD)
                return cold(checksums, req(f, "cold.store", origin), req(f, "cold.key", origin),
                            Boolean.parseBoolean(req(f, "cold.owned", origin)));
            int k = Integer.parseInt(req(f, "stripe.k", origin));
            int m = Integer.parseInt(req(f, "stripe.m", origin));
            String[] ls = req(f, "stripe.data_lengths", origin).split(",");
            long[] lengths = new long[ls.length];
            for (int i = 0; i < ls.length; i++)
                lengths[i] = Long.parseLong(ls[i]);
            List<String> locators = new ArrayList<>();
            for (int i = 0; i < k + m; i++)
                locators.add(req(f, "stripe.member." + i, origin));
            StripeLayout stripe = new StripeLayout(req(f, "stripe.codec", origin), k, m, lengths,
                                                   Long.parseLong(req(f, "stripe.length", origin)), locators);
            return decoded(checksums, stripe, Integer.parseInt(req(f, "stripe.self", origin)));
        }
        catch (IllegalArgumentException e)
        {
            throw new IOException(origin + ": invalid sidecar: " + e.getMessage(), e);
        }
    }

    private static String req(Map<String, String> f, String key, String origin) throws IOException
    {
        String v = f.get(key);
        if (v == null)
            throw new IOException(origin + ": sidecar field '" + key + "' is missing");
        return v;
    }

    public static TieredSidecar read(Path file) throws IOException
    {
        return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
    }

    /** Writes atomically: a reader sees the old file, no file, or the complete new one; durable when this returns. */
    public void write(Path file) throws IOException
    {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                                               StandardOpenOption.TRUNCATE_EXISTING))
        {
            ByteBuffer b = ByteBuffer.wrap(serialize().getBytes(StandardCharsets.UTF_8));
            while (b.hasRemaining())
                ch.write(b);
            ch.force(true);
        }
        try
        {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        catch (AtomicMoveNotSupportedException e)
        {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
        try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ))
        {
            dir.force(true);
        }
        catch (IOException e)
        {
            // some file systems cannot fsync a directory; the rename itself is still atomic
        }
    }
}
