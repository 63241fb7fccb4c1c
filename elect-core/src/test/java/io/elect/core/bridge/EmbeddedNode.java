package io.elect.core.bridge;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;

import org.apache.cassandra.service.EmbeddedCassandraService;

/**
 * One Cassandra node in the test JVM (the embedded-node tests of this package): the yaml and logback files come from
 * the test resources folder ({@code elect.test.resources}, default {@code src/test/resources}), data under
 * {@code storageDir}, logs under {@code logDir}. A JVM runs at most one such node (Cassandra's singletons).
 */
public final class EmbeddedNode
{
    private EmbeddedNode()
    {
    }

    public static Path resources()
    {
        return Paths.get(System.getProperty("elect.test.resources", "src/test/resources")).toAbsolutePath();
    }

    /** Starts the node; the caller registers cold stores (or anything else read at start-up) first. */
    public static EmbeddedCassandraService start(String yaml, String logback, Path storageDir, Path logDir) throws Exception
    {
        Files.createDirectories(storageDir);
        Files.createDirectories(logDir);
        System.setProperty("cassandra.config", resources().resolve(yaml).toUri().toString());
        System.setProperty("logback.configurationFile", resources().resolve(logback).toString());
        System.setProperty("cassandra.storagedir", storageDir.toString());
        System.setProperty("cassandra.logdir", logDir.toString());
        System.setProperty("cassandra-foreground", "yes");
        System.setProperty("cassandra.skip_wait_for_gossip_to_settle", "0");
        EmbeddedCassandraService cassandra = new EmbeddedCassandraService();
        cassandra.start();
        return cassandra;
    }

    /** A driver session on 127.0.0.1:nativePort with a 60 s request timeout (compactions on this machine are slow). */
    public static CqlSession session(int nativePort)
    {
        return CqlSession.builder()
                         .addContactPoint(new InetSocketAddress("127.0.0.1", nativePort))
                         .withLocalDatacenter("datacenter1")
                         .withConfigLoader(DriverConfigLoader.programmaticBuilder()
                                                             .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(60))
                                                             .build())
                         .build();
    }

    /**
     * The partitions of an SSTable of a text-keyed table in data order: their keys, and their start offsets in the
     * uncompressed data followed by its length (so partition i spans starts[i]..starts[i+1]).
     */
    public record Layout(java.util.List<String> keys, java.util.List<Long> starts)
    {
    }

    public static Layout layout(org.apache.cassandra.io.sstable.format.SSTableReader f) throws java.io.IOException
    {
        java.util.List<String> keys = new java.util.ArrayList<>();
        java.util.List<Long> starts = new java.util.ArrayList<>();
        try (org.apache.cassandra.io.sstable.KeyReader kr = f.keyReader())
        {
            for (boolean more = !kr.isExhausted(); more; more = kr.advance())
            {
                keys.add(org.apache.cassandra.db.marshal.UTF8Type.instance.compose(kr.key()));
                starts.add(kr.dataPosition());
            }
        }
        starts.add(f.uncompressedLength());
        return new Layout(keys, starts);
    }
}
