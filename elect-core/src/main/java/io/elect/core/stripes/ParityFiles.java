package io.elect.core.stripes;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Where a node keeps the parity members it holds, and their names (docs/formats/parity-file.md):
 * <ul>
 * <li>{@code <state>/parity/<ks>.<table>/<stripe>-p<j>.parity}: a hot parity member, with its checksum sidecar
 *     ({@link ParitySidecar});</li>
 * <li>{@code <state>/parity/<ks>.<table>/<stripe>-p<j>.cold}: the member was moved to the cold tier; the marker holds
 *     its length (for accounting and range checks), written durably before the hot file is deleted;</li>
 * <li>cold object key {@code parity/<ks>.<table>/<stripe>/<j>}.</li>
 * </ul>
 * Those are the names of parity generation 0 (see {@code StripeRecord#parityGeneration}). Generation g >= 1 inserts
 * {@code .g<g>} before the suffix ({@code <stripe>-p<j>.g<g>.parity}, {@code .g<g>.cold}) and appends it to the cold
 * key ({@code parity/<ks>.<table>/<stripe>/<j>.g<g>}), so that two generations of a parity member are two files.
 * DO NOT CHANGE the names: stripe records and peers' locators name these paths and keys. Thread-safe (stateless).
 */
public final class ParityFiles
{
    /** DO NOT CHANGE: the directory under the node's state directory. */
    public static final String DIRECTORY = "parity";
    static final String HOT_SUFFIX = ".parity";
    static final String COLD_SUFFIX = ".cold";

    private final Path root;

    /** @param stateDir the node's ELECT state directory */
    public ParityFiles(Path stateDir)
    {
        this.root = stateDir.resolve(DIRECTORY);
    }

    public Path root()
    {
        return root;
    }

    /** The table's parity directory, created if missing. */
    public Path dir(String keyspace, String table) throws IOException
    {
        Path dir = root.resolve(keyspace + "." + table);
        Files.createDirectories(dir);
        return dir;
    }

    /** The file name of hot parity member {@code index} of a stripe (generation 0). */
    public static String name(String stripeId, int index)
    {
        return name(stripeId, index, 0);
    }

    /** The file name of hot parity member {@code index} of a stripe in parity generation {@code generation}. */
    public static String name(String stripeId, int index, long generation)
    {
        return stripeId + "-p" + index + generationInfix(generation) + HOT_SUFFIX;
    }

    /** The hot parity file of member {@code index} (generation 0). */
    public Path hot(String keyspace, String table, String stripeId, int index) throws IOException
    {
        return hot(keyspace, table, stripeId, index, 0);
    }

    /** The hot parity file of member {@code index} in parity generation {@code generation}. */
    public Path hot(String keyspace, String table, String stripeId, int index, long generation) throws IOException
    {
        return dir(keyspace, table).resolve(name(stripeId, index, generation));
    }

    /** The cold object key of parity member {@code index} (generation 0). */
    public static String coldKey(String keyspace, String table, String stripeId, int index)
    {
        return coldKey(keyspace, table, stripeId, index, 0);
    }

    /** The cold object key of parity member {@code index} in parity generation {@code generation}. */
    public static String coldKey(String keyspace, String table, String stripeId, int index, long generation)
    {
        return "parity/" + keyspace + "." + table + "/" + stripeId + "/" + index + generationInfix(generation);
    }

    private static String generationInfix(long generation)
    {
        if (generation < 0)
            throw new IllegalArgumentException("parity generation must be >= 0, was " + generation);
        return generation == 0 ? "" : ".g" + generation;
    }

    /** The cold marker beside a hot parity file's path. */
    public static Path coldMarker(Path hotFile)
    {
        String name = hotFile.getFileName().toString();
        return hotFile.resolveSibling(name.substring(0, name.length() - HOT_SUFFIX.length()) + COLD_SUFFIX);
    }

    public static long readColdMarker(Path marker) throws IOException
    {
        return Long.parseLong(Files.readString(marker, StandardCharsets.US_ASCII).trim());
    }

    /** Writes the marker durably: temporary file, fsync, atomic rename, directory fsync. */
    public static void writeColdMarker(Path marker, long length) throws IOException
    {
        Path tmp = marker.resolveSibling(marker.getFileName() + ".tmp");
        Files.writeString(tmp, length + "\n", StandardCharsets.US_ASCII);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE))
        {
            ch.force(true);
        }
        Files.move(tmp, marker, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel d = FileChannel.open(marker.getParent(), StandardOpenOption.READ))
        {
            d.force(true);
        }
        catch (IOException e)
        {
            // directory fsync unsupported here; the rename is still atomic
        }
    }

    /** {hot, cold} parity bytes of the table held by this node. */
    public long[] bytes(String keyspace, String table) throws IOException
    {
        long hot = 0, cold = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir(keyspace, table)))
        {
            for (Path p : ds)
            {
                String name = p.getFileName().toString();
                if (name.endsWith(HOT_SUFFIX))
                    hot += Files.size(p);
                else if (name.endsWith(COLD_SUFFIX))
                    cold += readColdMarker(p);
            }
        }
        return new long[]{ hot, cold };
    }

    /** Deletes a hot parity file and its checksum sidecar (idempotent). */
    public static void deleteHot(Path file) throws IOException
    {
        Files.deleteIfExists(file);
        Files.deleteIfExists(ParitySidecar.of(file));
    }

    /** A hot parity member's identity, parsed from its path. */
    public record Name(String keyspace, String table, String stripeId, int index, long generation, Path file)
    {
        /** Generation 0. */
        public Name(String keyspace, String table, String stripeId, int index, Path file)
        {
            this(keyspace, table, stripeId, index, 0, file);
        }

        /** This member's cold object key. */
        public String coldKey()
        {
            return ParityFiles.coldKey(keyspace, table, stripeId, index, generation);
        }

        public Path marker()
        {
            return coldMarker(file);
        }
    }

    /** The identity of a hot parity file under this root, or null if the path is not one. */
    public Name parse(Path file)
    {
        Path dir = file.getParent();
        if (dir == null || dir.getParent() == null || !dir.getParent().equals(root))
            return null;
        String name = file.getFileName().toString(), table = dir.getFileName().toString();
        int dot = table.indexOf('.'), p = name.lastIndexOf("-p");
        if (!name.endsWith(HOT_SUFFIX) || dot <= 0 || p <= 0)
            return null;
        try
        {
            String tail = name.substring(p + 2, name.length() - HOT_SUFFIX.length()); // "<j>" or "<j>.g<g>"
            int g = tail.indexOf(".g");
            int index = Integer.parseInt(g < 0 ? tail : tail.substring(0, g));
            long generation = g < 0 ? 0 : Long.parseLong(tail.substring(g + 2));
            if (index < 0 || generation < (g < 0 ? 0 : 1) || !name.equals(name(name.substring(0, p), index, generation)))
                return null; // not a name this class writes (e.g. "-p01", ".g0", ".g-1")
            return new Name(table.substring(0, dot), table.substring(dot + 1), name.substring(0, p), index, generation, file);
        }
        catch (NumberFormatException e)
        {
            return null;
        }
    }
}
