package io.elect.core;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The ELECT release, from the build (resource filtered by Maven). */
public final class ElectVersion
{
    private static final String VERSION = load();

    private ElectVersion()
    {
    }

    public static String get()
    {
        return VERSION;
    }

    private static String load()
    {
        try (InputStream in = ElectVersion.class.getResourceAsStream("/io/elect/core/version.properties"))
        {
            Properties p = new Properties();
            if (in != null)
                p.load(in);
            return p.getProperty("version", "unknown");
        }
        catch (IOException e)
        {
            return "unknown";
        }
    }
}
