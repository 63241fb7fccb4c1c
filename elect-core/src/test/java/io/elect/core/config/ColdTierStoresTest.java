package io.elect.core.config;

import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.elect.offload.s3.S3ColdStoreConfig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

class ColdTierStoresTest
{
    @Test
    void mapsEveryColdTierKey()
    {
        ElectConfig c = ElectConfig.fromMap(Map.of("cold_tier", Map.of("endpoint", "https://s3.eu.example:8443", "bucket", "cold.bucket",
                                                                        "region", "eu-west-3", "path_style", false,
                                                                        "credentials_file", "/etc/elect/creds")));
        S3ColdStoreConfig s3 = ColdTierStores.s3Config(c.coldTier);
        assertEquals("https://s3.eu.example:8443", s3.endpoint().toString());
        assertEquals("cold.bucket", s3.bucket());
        assertEquals("eu-west-3", s3.region());
        assertFalse(s3.pathStyle());
        assertEquals(Path.of("/etc/elect/creds"), s3.credentialsFile());
    }

    @Test
    void noCredentialsFileMeansEnvironment()
    {
        assertNull(ColdTierStores.s3Config(ElectConfig.defaults().coldTier).credentialsFile());
    }
}
