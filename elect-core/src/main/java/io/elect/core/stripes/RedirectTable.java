package io.elect.core.stripes;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BiPredicate;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

/**
 * The node's persisted redirects (docs/formats/redirects.md): absolute path of a file that moved to the cold tier ->
 * its {@code cold:<store>/<key>} locator. Other nodes keep naming the old path in their stripe layouts
 * ({@code node:<host>:<port>/<path>}); {@link MemberServer}'s fallback serves those paths from the cold tier.
 *
 * <p>Every change rewrites the whole file atomically (temporary file, fsync, rename, fsync of the directory): a crash
 * leaves the old or the new table. A corrupt file is an IOException naming it, never an empty table (that would
 * silently break every redirected locator). Paths are stored normalized. Thread-safe: reads see an immutable
 * snapshot, writers serialize on this object.
 */
public final class RedirectTable
{
    /** DO NOT CHANGE: first line of the file. */
    static final String MAGIC = "elect-redirects";
    static final int VERSION = 1;
    private static final Pattern LOCATOR = Pattern.compile("cold:[A-Za-z0-9_.-]+/[\\x21-\\x7e]{1,1024}");

    private final Path file;
    private volatile Map<Path, String> entries;

    private RedirectTable(Path file, Map<Path, String> entries)
    {
        this.file = file;
        this.entries = entries;
    }

    /** Reads the table kept in {@code file} (missing file: empty table); IOException naming the file if corrupt. */
    public static RedirectTable open(Path file) throws IOException
    {
        return new RedirectTable(file, read(file));
    }

    public Path file()
    {
        return file;
    }

    /** The cold locator the path is redirected to, if any (path normalized first). */
    public Optional<String> lookup(Path path)
    {
        return Optional.ofNullable(entries.get(path.toAbsolutePath().normalize()));
    }

    /** Every entry, sorted by path; an immutable snapshot. */
    public Map<Path, String> entries()
    {
        return entries;
    }

    /** Durably records path -> locator (replacing an older target). Idempotent: the same entry again writes nothing. */
    public synchronized void put(Path path, String coldLocator) throws IOException
    {
        Path key = checkPath(path);
        checkLocator(coldLocator);
        if (coldLocator.equals(entries.get(key)))
            return;
        Map<Path, String> next = new TreeMap<>(entries);
        next.put(key, coldLocator);
        write(file, next);
        entries = Collections.unmodifiableMap(next);
    }

    /** Durably removes the entries that {@code drop} accepts; returns how many. */
    public synchronized int removeIf(BiPredicate<Path, String> drop) throws IOException
    {
        Map<Path, String> next = new TreeMap<>(entries);
        next.entrySet().removeIf(e -> drop.test(e.getKey(), e.getValue()));
        int removed = entries.size() - next.size();
        if (removed > 0)
        {
            write(file, next);
            entries = Collections.unmodifiableMap(next);
        }
        return removed;
    }

    /** The {@code <store>} and {@code <key>} of a {@code cold:<store>/<key>} locator. */
    public static String[] parseLocator(String coldLocator)
    {
        checkLocator(coldLocator);
        String rest = coldLocator.substring("cold:".length());
        int slash = rest.indexOf('/');
        return new String[]{ rest.substring(0, slash), rest.substring(slash + 1) };
    }

    private static Path checkPath(Path path)
    {
        if (!path.isAbsolute())
            throw new IllegalArgumentException("redirected path must be absolute, got " + path);
        Path n = path.normalize();
        if (n.toString().indexOf('\n') >= 0 || n.toString().indexOf('\r') >= 0)
            throw new IllegalArgumentException("redirected path must not contain a line end: " + n);
        return n;
    }

    private static void checkLocator(String locator)
    {
        if (locator == null || !LOCATOR.matcher(locator).matches())
            throw new IllegalArgumentException("redirect target must be cold:<store>/<key> (store [A-Za-z0-9_.-]+, key "
                                               + "printable ASCII without spaces), got '" + locator + "'");
    }

    // ---- file format ---------------------------------------------------------------------------------------------

    static void write(Path file, Map<Path, String> entries) throws IOException
    {
        StringBuilder sb = new StringBuilder();
        sb.append(MAGIC).append('\n').append("version=").append(VERSION).append('\n');
        for (Map.Entry<Path, String> e : new TreeMap<>(entries).entrySet())
        {
            checkLocator(e.getValue());
            sb.append("redirect=").append(e.getValue()).append(' ').append(checkPath(e.getKey())).append('\n');
        }
        byte[] body = sb.toString().getBytes(StandardCharsets.UTF_8);
        CRC32C crc = new CRC32C();
        crc.update(body);
        byte[] trailer = String.format("crc32c=%08x\n", crc.getValue()).getBytes(StandardCharsets.UTF_8);
        Files.createDirectories(file.getParent());
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                                               StandardOpenOption.TRUNCATE_EXISTING))
        {
            ch.write(ByteBuffer.wrap(body));
            ch.write(ByteBuffer.wrap(trailer));
            ch.force(true);
        }
        try
        {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        catch (AtomicMoveNotSupportedException e)
        {
            Files.deleteIfExists(tmp);
            throw new IOException("cannot atomically replace " + file, e);
        }
        try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ))
        {
            dir.force(true);
        }
        catch (IOException e)
        {
            // fsync of a directory is not supported everywhere; the rename itself is atomic
        }
    }

    static Map<Path, String> read(Path file) throws IOException
    {
        byte[] bytes;
        try
        {
            bytes = Files.readAllBytes(file);
        }
        catch (NoSuchFileException e)
        {
            return Collections.emptyMap();
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (!text.endsWith("\n"))
            throw corrupt(file, "truncated (no final line end)");
        int last = text.lastIndexOf('\n', text.length() - 2);
        if (last < 0)
            throw corrupt(file, "too short");
        String body = text.substring(0, last + 1);
        String trailer = text.substring(last + 1, text.length() - 1);
        if (!trailer.matches("crc32c=[0-9a-f]{8}"))
            throw corrupt(file, "last line is not crc32c=XXXXXXXX (truncated?)");
        CRC32C crc = new CRC32C();
        crc.update(body.getBytes(StandardCharsets.UTF_8));
        if (crc.getValue() != Long.parseLong(trailer.substring(7), 16))
            throw corrupt(file, String.format("checksum mismatch: computed %08x, stored %s", crc.getValue(), trailer.substring(7)));
        String[] lines = body.split("\n", -1); // the last element is the empty string after the final line end
        if (lines.length < 3 || !MAGIC.equals(lines[0]))
            throw corrupt(file, "bad magic, expected " + MAGIC);
        if (!("version=" + VERSION).equals(lines[1]))
            throw corrupt(file, "unsupported " + lines[1] + " (this build reads version=" + VERSION + ")");
        Map<Path, String> out = new TreeMap<>();
        for (int i = 2; i < lines.length - 1; i++)
        {
            String line = lines[i];
            int space = line.indexOf(' ');
            if (!line.startsWith("redirect=") || space < 0)
                throw corrupt(file, "line " + (i + 1) + " is not redirect=<locator> <path>");
            String locator = line.substring("redirect=".length(), space);
            String path = line.substring(space + 1);
            if (!LOCATOR.matcher(locator).matches() || !path.startsWith("/") || !Paths.get(path).normalize().toString().equals(path))
                throw corrupt(file, "line " + (i + 1) + " is not redirect=<cold locator> <absolute normalized path>");
            if (out.put(Paths.get(path), locator) != null)
                throw corrupt(file, "path " + path + " listed twice");
        }
        return Collections.unmodifiableMap(out);
    }

    private static IOException corrupt(Path file, String problem)
    {
        return new IOException("corrupt redirect table " + file + ": " + problem
                               + " (fix it; removing it breaks the node: locators of files moved to the cold tier)");
    }
}
