package io.elect.core.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The {@code elect.cold_tier:} section: where offloaded data and parity go (any S3-compatible endpoint).
 * Credentials are never part of the configuration: they come from the environment
 * ({@code ELECT_S3_ACCESS_KEY_ID}, {@code ELECT_S3_SECRET_ACCESS_KEY}) or from the file named by
 * {@code credentials_file}, and are never logged.
 */
public final class ColdTierConfig
{
    /** S3 bucket naming rules (the subset that works on every S3-compatible store). */
    private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

    public final URI endpoint;
    public final String bucket;
    public final String region;
    public final boolean pathStyle;
    /** Path of a credentials file ({@code access_key=...}, {@code secret_key=...}), or null for the environment. */
    public final String credentialsFile;

    ColdTierConfig(ConfigReader r)
    {
        endpoint = parseEndpoint(r, r.string("endpoint", "http://127.0.0.1:9000"));
        bucket = r.string("bucket", "elect");
        if (!BUCKET.matcher(bucket).matches())
            throw new ElectConfigException(r.key("bucket"), "'" + bucket + "' is not a valid bucket name; allowed: 3-63 of a-z 0-9 . -, starting and ending with a letter or digit");
        region = r.string("region", "us-east-1");
        if (region.isBlank())
            throw new ElectConfigException(r.key("region"), "must not be empty; allowed: a region name such as us-east-1");
        pathStyle = r.bool("path_style", true);
        credentialsFile = r.string("credentials_file", null);
        if (credentialsFile != null && credentialsFile.isBlank())
            throw new ElectConfigException(r.key("credentials_file"), "must not be empty; allowed: a file path, or leave the key out to use the environment");
        r.rejectUnknownKeys();
    }

    private static URI parseEndpoint(ConfigReader r, String s)
    {
        try
        {
            URI u = new URI(s);
            if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null)
                throw new URISyntaxException(s, "not an http(s) URL with a host");
            return u;
        }
        catch (URISyntaxException e)
        {
            throw new ElectConfigException(r.key("endpoint"), "'" + s + "' is not a valid endpoint; allowed: an http:// or https:// URL with a host");
        }
    }

    Map<String, Object> toMap()
    {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("endpoint", endpoint.toString());
        m.put("bucket", bucket);
        m.put("region", region);
        m.put("path_style", pathStyle);
        m.put("credentials", credentialsFile == null ? "environment" : "file " + credentialsFile);
        return m;
    }
}
