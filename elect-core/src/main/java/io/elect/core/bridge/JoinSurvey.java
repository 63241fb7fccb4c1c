package io.elect.core.bridge;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.apache.cassandra.config.Config;

/**
 * A node that joins a cluster by bootstrapping waits in Cassandra's write survey mode until ELECT has caught up
 * (issue 18, docs/design/topology.md "Bootstrap"). Cassandra streams a joining node its ranges, but ELECT's tiered
 * SSTables (stubs, COLD members) are left out of every outgoing stream, so the rows of encoded members would reach
 * the joiner from nowhere and it would answer reads of them with nothing. In survey mode the joiner streams and takes
 * the writes of its pending ranges but serves no reads; ELECT installs the stubs of the spans it will replicate
 * ({@code NodeRebuilds.startJoin}) and then makes it join the ring ({@code StorageService.joinRing}).
 *
 * <p>Decided before Cassandra starts ({@link #decide}), because Cassandra reads {@code cassandra.write_survey} once,
 * when StorageService is created: survey mode is set when the node will bootstrap (auto_bootstrap, not a seed, not a
 * replacement) and has never started (no {@code system} keyspace directory), or when the marker file
 * {@code <state>/join/survey} says an earlier start began such a join and did not finish it (a crash mid-join resumes
 * it). The marker is written before Cassandra starts and removed once the node joined. A user who sets
 * {@code cassandra.write_survey} on purpose keeps it, and joins with {@code nodetool join} as usual.
 */
final class JoinSurvey
{
    private static final Logger logger = LoggerFactory.getLogger(JoinSurvey.class);
    static final String PROPERTY = "cassandra.write_survey";
    private final Path marker;

    private JoinSurvey(Path marker)
    {
        this.marker = marker;
    }

    /**
     * Sets survey mode for a join that needs ELECT's catch-up (see the class comment); returns the join to finish, or
     * null when the node starts as usual. Logs one INFO line when it sets it, a WARN line when the node's own address
     * cannot be told apart from the seeds.
     */
    static JoinSurvey decide(Config c)
    {
        if (System.getProperty(PROPERTY) != null)
            return null; // the user's choice
        Path data = firstDataDirectory(c);
        if (data == null || data.getParent() == null)
            return null;
        Path m = data.getParent().resolve(ElectStateDir.NAME).resolve("join").resolve("survey");
        boolean resume = Files.exists(m);
        if (!resume)
        {
            Path system = (c.local_system_data_file_directory != null ? Paths.get(c.local_system_data_file_directory) : data).resolve("system");
            if (!c.auto_bootstrap || replacing() || Files.isDirectory(system))
                return null;
            Boolean seed = isSeed(c);
            if (seed == null)
            {
                logger.warn("ELECT cannot tell whether this node is a seed (listen_address is not set); it joins without waiting for "
                            + "the stubs of encoded data: reads of encoded rows it replicates may miss until `electtool rebuild` ran on it");
                return null;
            }
            if (seed)
                return null;
            try
            {
                Files.createDirectories(m.getParent());
                Files.writeString(m, "a bootstrap waits for ELECT's catch-up before joining the ring\n");
            }
            catch (IOException e)
            {
                logger.warn("ELECT cannot write {} ({}); the node joins without waiting for the stubs of encoded data", m, e.getMessage());
                return null;
            }
        }
        System.setProperty(PROPERTY, "true");
        logger.info("ELECT: this node {} a bootstrap in write survey mode: it joins the ring once the stubs of the encoded data it "
                    + "will replicate are installed", resume ? "resumes" : "begins");
        return new JoinSurvey(m);
    }

    /** The join finished: the marker goes (the next start is an ordinary restart). */
    void finished() throws IOException
    {
        Files.deleteIfExists(marker);
    }

    private static Path firstDataDirectory(Config c)
    {
        if (c.data_file_directories != null && c.data_file_directories.length > 0)
            return Paths.get(c.data_file_directories[0]).toAbsolutePath().normalize();
        String storage = System.getProperty("cassandra.storagedir");
        return storage == null ? null : Paths.get(storage, "data").toAbsolutePath().normalize();
    }

    private static boolean replacing()
    {
        for (String p : new String[]{ "cassandra.replace_address", "cassandra.replace_address_first_boot", "cassandra.replace_node",
                                      "cassandra.replace_token" })
            if (System.getProperty(p) != null)
                return true;
        return false;
    }

    /** Whether the node's listen (or broadcast) address is among the seeds; null if it cannot be told. */
    private static Boolean isSeed(Config c)
    {
        String own = c.broadcast_address != null ? c.broadcast_address : c.listen_address;
        if (own == null || c.seed_provider == null || c.seed_provider.parameters == null)
            return null;
        String seeds = c.seed_provider.parameters.get("seeds");
        if (seeds == null)
            return null;
        try
        {
            InetAddress self = InetAddress.getByName(own.trim());
            for (String s : seeds.split(","))
            {
                String host = s.trim();
                if (host.isEmpty())
                    continue;
                int colon = host.lastIndexOf(':');
                if (colon > 0 && host.indexOf(':') == colon) // host:port (an IPv6 literal has several colons)
                    host = host.substring(0, colon);
                if (InetAddress.getByName(host).equals(self))
                    return true;
            }
            return false;
        }
        catch (UnknownHostException e)
        {
            return null;
        }
    }
}
