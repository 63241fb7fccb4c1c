package io.elect.core.config;

import java.nio.file.Path;
import java.time.Duration;

import io.elect.offload.ColdStore;
import io.elect.offload.ColdStoreOptions;
import io.elect.offload.s3.S3ColdStore;
import io.elect.offload.s3.S3ColdStoreConfig;

/** Opens the cold tier named by {@code elect.cold_tier} (any S3-compatible endpoint). */
public final class ColdTierStores
{
    /** The name under which a node registers its configured cold tier for tiered data files. */
    public static final String DEFAULT_STORE = "cold-tier";

    private ColdTierStores()
    {
    }

    /** The S3 client configuration for the section; credentials are resolved by the store, never held here. */
    public static S3ColdStoreConfig s3Config(ColdTierConfig c)
    {
        return new S3ColdStoreConfig(c.endpoint, c.region, c.bucket, c.pathStyle,
                                     c.credentialsFile == null ? null : Path.of(c.credentialsFile),
                                     Duration.ofSeconds(30), false, ColdStoreOptions.defaults());
    }

    /** Creates the client; contacts nothing until the first operation. */
    public static ColdStore open(ColdTierConfig c)
    {
        return new S3ColdStore(s3Config(c));
    }
}
