package io.elect.core.bridge;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.apache.cassandra.config.Config;
import org.apache.cassandra.config.ParameterizedClass;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** When a starting node bootstraps in write survey mode to wait for ELECT's catch-up (issue 18): golden cases. */
class JoinSurveyTest
{
    @TempDir
    Path dir;

    @AfterEach
    void clear()
    {
        System.clearProperty(JoinSurvey.PROPERTY);
    }

    private Config config(String listen, String seeds)
    {
        Config c = new Config();
        c.listen_address = listen;
        c.seed_provider = new ParameterizedClass("org.apache.cassandra.locator.SimpleSeedProvider", Map.of("seeds", seeds));
        c.data_file_directories = new String[]{ dir.resolve("data").toString() };
        return c;
    }

    private Path marker()
    {
        return dir.resolve("elect").resolve("join").resolve("survey");
    }

    @Test
    void aFreshNonSeedThatBootstrapsWaitsInSurveyModeUntilTheMarkerGoes() throws Exception
    {
        JoinSurvey join = JoinSurvey.decide(config("127.0.0.4", "127.0.0.1:7000,127.0.0.2:7000, 127.0.0.3"));
        assertNotNull(join);
        assertEquals("true", System.getProperty(JoinSurvey.PROPERTY));
        assertTrue(Files.exists(marker()), "the marker makes a restart mid-join resume it");
        join.finished();
        assertFalse(Files.exists(marker()));
    }

    @Test
    void aRestartMidJoinResumesEvenWithTheSystemKeyspacePresent() throws Exception
    {
        Files.createDirectories(marker().getParent());
        Files.writeString(marker(), "x");
        Files.createDirectories(dir.resolve("data").resolve("system"));
        assertNotNull(JoinSurvey.decide(config("127.0.0.4", "127.0.0.1")));
        assertEquals("true", System.getProperty(JoinSurvey.PROPERTY));
    }

    @Test
    void seedsNodesThatStartedBeforeReplacementsAndNoBootstrapJoinAsUsual() throws Exception
    {
        assertNull(JoinSurvey.decide(config("127.0.0.2", "127.0.0.1:7000,127.0.0.2:7000")), "a seed never bootstraps");
        Config noBootstrap = config("127.0.0.4", "127.0.0.1");
        noBootstrap.auto_bootstrap = false;
        assertNull(JoinSurvey.decide(noBootstrap));
        Files.createDirectories(dir.resolve("data").resolve("system"));
        assertNull(JoinSurvey.decide(config("127.0.0.4", "127.0.0.1")), "a node that started before is not joining");
        Files.delete(dir.resolve("data").resolve("system"));
        System.setProperty("cassandra.replace_address_first_boot", "127.0.0.4");
        try
        {
            assertNull(JoinSurvey.decide(config("127.0.0.4", "127.0.0.1")), "a replacement is rebuilt by electtool rebuild");
        }
        finally
        {
            System.clearProperty("cassandra.replace_address_first_boot");
        }
        assertNull(System.getProperty(JoinSurvey.PROPERTY));
        assertFalse(Files.exists(marker()));
    }

    @Test
    void theUsersOwnSurveyModeAndAnUnknownAddressAreLeftAlone()
    {
        System.setProperty(JoinSurvey.PROPERTY, "true");
        assertNull(JoinSurvey.decide(config("127.0.0.4", "127.0.0.1")), "set by the user: joined with nodetool join");
        System.clearProperty(JoinSurvey.PROPERTY);
        assertNull(JoinSurvey.decide(config(null, "127.0.0.1")), "no listen_address: cannot tell a seed (WARN line)");
        assertNull(System.getProperty(JoinSurvey.PROPERTY));
    }
}
