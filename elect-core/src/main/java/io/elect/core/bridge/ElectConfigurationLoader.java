package io.elect.core.bridge;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLConnection;
import java.net.URLStreamHandler;
import java.nio.charset.StandardCharsets;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.config.ElectConfigException;
import io.elect.core.config.ElectYaml;
import org.apache.cassandra.config.Config;
import org.apache.cassandra.config.ConfigurationLoader;
import org.apache.cassandra.config.YamlConfigurationLoader;
import org.apache.cassandra.exceptions.ConfigurationException;

/**
 * Cassandra's configuration loader, plugged in with {@code -Dcassandra.config.loader}: takes the {@code elect:}
 * section out of cassandra.yaml, validates it (see {@link io.elect.core.config.ElectConfig}), publishes it in
 * {@link NodeHandoff}, and hands the rest of the file, unchanged, to Cassandra's {@link YamlConfigurationLoader}.
 * The file is located exactly as Cassandra does: {@code -Dcassandra.config} as a URL, else a classpath resource.
 */
public class ElectConfigurationLoader implements ConfigurationLoader
{
    private static final Logger logger = LoggerFactory.getLogger(ElectConfigurationLoader.class);

    @Override
    public Config loadConfig() throws ConfigurationException
    {
        URL url = configUrl();
        ElectYaml.Split split;
        try
        {
            split = load(url);
        }
        catch (ElectConfigException e)
        {
            // logStackTrace=false: Cassandra prints the one-line message and exits.
            throw new ConfigurationException("Invalid ELECT configuration in " + url + ": " + e.getMessage(), false);
        }
        // Cassandra calls the loader several times during start-up: log the section once, or when it changes.
        String text = split.config.toString();
        if (!text.equals(String.valueOf(NodeHandoff.loadedConfig())))
            logger.info("ELECT configuration from {}: {}", url, text);
        NodeHandoff.configLoaded(split.config);
        Config cassandra = cassandraConfig(split);
        ElectTransportSecurity.validate(cassandra, split.config); // transport_encryption vs server_encryption_options
        return cassandra;
    }

    /**
     * Cassandra's part of the file, loaded by Cassandra's loader, with the settings ELECT depends on checked:
     * {@code uuid_sstable_identifiers_enabled} must be true, because stripe records, stubs and redirects name members
     * by SSTable file, and sequential ids restart at 1 on a replaced disk (a reused name would be taken for an old
     * stripe member).
     */
    static Config cassandraConfig(ElectYaml.Split split)
    {
        Config c = new YamlConfigurationLoader().loadConfig(inMemoryUrl(split.cassandraYaml));
        if (!c.uuid_sstable_identifiers_enabled)
            throw new ConfigurationException("uuid_sstable_identifiers_enabled: false is not allowed with ELECT; set it to true in "
                                             + "cassandra.yaml (stripe members are named by SSTable file, and sequential ids repeat "
                                             + "after a disk is replaced)", false);
        return c;
    }

    /** Reads and splits the file; shared with {@link ElectDaemon}'s pre-start check. */
    static ElectYaml.Split load(URL url)
    {
        try (InputStream in = url.openStream())
        {
            return ElectYaml.split(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        catch (IOException e)
        {
            throw new ConfigurationException("Cannot read " + url + ": " + e.getMessage(), false);
        }
    }

    static URL configUrl()
    {
        String location = System.getProperty("cassandra.config", "cassandra.yaml");
        try
        {
            URL url = new URL(location);
            url.openStream().close();
            return url;
        }
        catch (IOException e)
        {
            URL url = ElectConfigurationLoader.class.getClassLoader().getResource(location);
            if (url == null)
                throw new ConfigurationException("Cannot locate the configuration " + location + " (-Dcassandra.config; local files need a file:// URL)", false);
            return url;
        }
    }

    /** A URL whose stream is the given text, so Cassandra's loader reads Cassandra's part without a temp file. */
    private static URL inMemoryUrl(String text)
    {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        URLStreamHandler handler = new URLStreamHandler()
        {
            @Override
            protected URLConnection openConnection(URL u)
            {
                return new URLConnection(u)
                {
                    @Override
                    public void connect()
                    {
                    }

                    @Override
                    public InputStream getInputStream()
                    {
                        return new ByteArrayInputStream(bytes);
                    }
                };
            }
        };
        try
        {
            return new URL("elect-config", "", -1, "/cassandra.yaml", handler);
        }
        catch (MalformedURLException e)
        {
            throw new AssertionError(e);
        }
    }
}
