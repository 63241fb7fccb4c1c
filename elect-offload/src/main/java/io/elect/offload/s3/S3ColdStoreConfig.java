package io.elect.offload.s3;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;

import io.elect.offload.ColdStoreOptions;

/**
 * Where and how to reach the S3-compatible cold tier. elect-core maps the cold_tier section of
 * cassandra.yaml (endpoint, bucket, region, path_style, credentials_file) onto this.
 *
 * @param endpoint        e.g. http://127.0.0.1:9000 for S3Proxy; null for AWS's regional endpoint
 * @param region          signing region (S3Proxy accepts any; "us-east-1" by default)
 * @param bucket          the bucket (must exist)
 * @param pathStyle       path-style addressing (http://host/bucket/key), needed by S3Proxy and most
 *                        self-hosted stores
 * @param credentialsFile optional file of access_key=/secret_key= lines; see CredentialsResolver for the order
 * @param attemptTimeout  limit of one HTTP attempt (then retried)
 * @param signPayload     SHA-256-sign request bodies (the SDK's default over http); off by default because the
 *                        block CRCs already protect the data end to end and hashing halves upload throughput
 * @param options         retry, concurrency and multipart tuning
 */
public record S3ColdStoreConfig(URI endpoint, String region, String bucket, boolean pathStyle, Path credentialsFile,
                                Duration attemptTimeout, boolean signPayload, ColdStoreOptions options)
{
    public S3ColdStoreConfig
    {
        if (bucket == null || bucket.isBlank())
            throw new IllegalArgumentException("bucket must not be empty");
        if (!bucket.matches("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]"))
            throw new IllegalArgumentException("bucket must be a valid S3 bucket name (3-63 of a-z 0-9 . -), got '"
                                               + bucket + "'");
        if (region == null || region.isBlank())
            throw new IllegalArgumentException("region must not be empty");
        if (endpoint != null && (endpoint.getScheme() == null || endpoint.getHost() == null
                                 || !(endpoint.getScheme().equals("http") || endpoint.getScheme().equals("https"))))
            throw new IllegalArgumentException("endpoint must be an http(s) URI like http://127.0.0.1:9000, got "
                                               + endpoint);
        if (attemptTimeout == null || attemptTimeout.isNegative() || attemptTimeout.isZero())
            throw new IllegalArgumentException("attemptTimeout must be positive, got " + attemptTimeout);
        if (options == null)
            throw new IllegalArgumentException("options must not be null");
    }

    /** A config for a local S3-compatible endpoint (path style) with default tuning. */
    public static S3ColdStoreConfig local(URI endpoint, String bucket, Path credentialsFile)
    {
        return new S3ColdStoreConfig(endpoint, "us-east-1", bucket, true, credentialsFile, Duration.ofSeconds(30),
                                     false, ColdStoreOptions.defaults());
    }

    public S3ColdStoreConfig withOptions(ColdStoreOptions o)
    {
        return new S3ColdStoreConfig(endpoint, region, bucket, pathStyle, credentialsFile, attemptTimeout, signPayload,
                                     o);
    }

    public S3ColdStoreConfig withSignPayload(boolean sign)
    {
        return new S3ColdStoreConfig(endpoint, region, bucket, pathStyle, credentialsFile, attemptTimeout, sign,
                                     options);
    }
}
