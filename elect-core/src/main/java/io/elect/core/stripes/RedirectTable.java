package io.elect.core.stripes;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BiPredicate;
import java.util.regex.Pattern;

import io.elect.core.util.ChecksummedTextFile;

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
    /** A cold object ({@code cold:<store>/<key>}) or, since a node rebuild, a local file ({@code file:<absolute path>}). */
    private static final Pattern LOCATOR = Pattern.compile("cold:[A-Za-z0-9_.-]+/[\\x21-\\x7e]{1,1024}|file:/[\\x21-\\x7e]{0,4095}");

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
        if (!coldLocator.startsWith("cold:"))
            throw new IllegalArgumentException("not a cold: locator: '" + coldLocator + "'");
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
                                               + "printable ASCII without spaces) or file:<absolute path>, got '" + locator + "'");
    }

    // ---- file format ---------------------------------------------------------------------------------------------

    static void write(Path file, Map<Path, String> entries) throws IOException
    {
        List<String> body = new ArrayList<>();
        for (Map.Entry<Path, String> e : new TreeMap<>(entries).entrySet())
        {
            checkLocator(e.getValue());
            body.add("redirect=" + e.getValue() + ' ' + checkPath(e.getKey()));
        }
        ChecksummedTextFile.write(file, MAGIC, VERSION, body);
    }

    static Map<Path, String> read(Path file) throws IOException
    {
        Optional<List<String>> read = ChecksummedTextFile.read(file, MAGIC, VERSION, RedirectTable::corrupt);
        if (read.isEmpty())
            return Collections.emptyMap();
        List<String> lines = read.get();
        Map<Path, String> out = new TreeMap<>();
        for (int i = 0; i < lines.size(); i++)
        {
            String line = lines.get(i);
            int space = line.indexOf(' ');
            if (!line.startsWith("redirect=") || space < 0)
                throw corrupt(file, "line " + (i + 3) + " is not redirect=<locator> <path>");
            String locator = line.substring("redirect=".length(), space);
            String path = line.substring(space + 1);
            // a NUL makes Paths.get throw InvalidPathException: refused as a bad line like any other (fuzzer)
            if (!LOCATOR.matcher(locator).matches() || !path.startsWith("/") || path.indexOf('\0') >= 0
                || !Paths.get(path).normalize().toString().equals(path))
                throw corrupt(file, "line " + (i + 3) + " is not redirect=<cold: or file: locator> <absolute normalized path>");
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
