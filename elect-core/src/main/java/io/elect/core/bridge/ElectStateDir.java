package io.elect.core.bridge;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import org.apache.cassandra.config.DatabaseDescriptor;

/**
 * The node-local directory where ELECT keeps its own durable state (e.g. the frozen-SSTable registries,
 * {@code docs/formats/frozen-registry.md}).
 *
 * <p>Location: the sibling directory {@code elect} of the FIRST data file location of the node
 * ({@code DatabaseDescriptor.getAllDataFileLocations()[0]}); with the default {@code <storagedir>/data} that is
 * {@code <storagedir>/elect}. It is outside every Cassandra table directory, so Cassandra's directory scans
 * (SSTable loading, {@code nodetool import}, snapshots, cleanup of unknown files) never see it, and it moves with
 * the node's storage. Created on demand. Changing the first data location in cassandra.yaml therefore moves ELECT's
 * state too: move the directory with it.
 *
 * <p>Thread-safe (stateless; creation is idempotent).
 */
public final class ElectStateDir
{
    /** DO NOT CHANGE: the name of the directory beside the first data location. */
    public static final String NAME = "elect";

    private ElectStateDir()
    {
    }

    /** The state root, created if missing. REQUIRES: Cassandra's configuration is loaded. */
    public static Path root()
    {
        String[] locations = DatabaseDescriptor.getAllDataFileLocations();
        if (locations == null || locations.length == 0)
            throw new IllegalStateException("no data_file_directories configured: ELECT has nowhere to keep its state");
        Path data = Paths.get(locations[0]).toAbsolutePath().normalize();
        Path parent = data.getParent();
        if (parent == null)
            throw new IllegalStateException("the first data location " + data + " has no parent directory for "
                                            + NAME + "/");
        Path root = parent.resolve(NAME);
        try
        {
            Files.createDirectories(root);
        }
        catch (IOException e)
        {
            throw new UncheckedIOException("cannot create ELECT's state directory " + root, e);
        }
        return root;
    }

    /** {@code root()/name}, created if missing. */
    public static Path subdirectory(String name) throws IOException
    {
        Path dir = root().resolve(name);
        Files.createDirectories(dir);
        return dir;
    }
}
