package io.elect.core.config;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One test per validation rule of the {@code elect:} section; each checks the key named and the range given. */
class ElectConfigTest
{
    private static ElectConfigException reject(Map<String, Object> section)
    {
        return assertThrows(ElectConfigException.class, () -> ElectConfig.fromMap(section));
    }

    private static Map<String, Object> map(Object... kv)
    {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2)
            m.put((String) kv[i], kv[i + 1]);
        return m;
    }

    @Test
    void defaults()
    {
        ElectConfig c = ElectConfig.defaults();
        assertEquals(4, c.dataChunks);
        assertEquals(2, c.parityChunks);
        assertEquals(0.6, c.storageSavingTarget);
        assertTrue(c.erasureCodingEnabled);
        assertTrue(c.offloadEnabled);
        assertEquals("auto", c.coder);
        assertEquals("elect", c.coldTier.bucket);
        assertTrue(c.coldTier.pathStyle);
    }

    @Test
    void acceptsValidValues()
    {
        ElectConfig c = ElectConfig.fromMap(map("data_chunks", 6, "parity_chunks", 3, "storage_saving_target", 0,
                                                "erasure_coding_enabled", false, "coder", "java",
                                                "cold_tier", map("endpoint", "https://s3.example.com", "bucket", "my.bucket-1",
                                                                 "region", "eu-west-1", "path_style", false)));
        assertEquals(6, c.dataChunks);
        assertEquals(3, c.parityChunks);
        assertEquals(0.0, c.storageSavingTarget);
        assertFalse(c.erasureCodingEnabled);
        assertEquals("https://s3.example.com", c.coldTier.endpoint.toString());
        assertFalse(c.coldTier.pathStyle);
    }

    @Test
    void alphaOutsideHalfOpenUnitInterval()
    {
        for (Object bad : new Object[]{ 1.5, 1.0, 1, -0.01 })
        {
            ElectConfigException e = reject(map("storage_saving_target", bad));
            assertEquals("elect.storage_saving_target", e.key());
            assertTrue(e.getMessage().contains("[0, 1)"), e.getMessage());
        }
        assertEquals(0.99, ElectConfig.fromMap(map("storage_saving_target", 0.99)).storageSavingTarget);
    }

    @Test
    void dataChunksBelowOne()
    {
        ElectConfigException e = reject(map("data_chunks", 0));
        assertEquals("elect.data_chunks", e.key());
        assertTrue(e.getMessage().contains("[1, "), e.getMessage());
    }

    @Test
    void parityChunksBelowOne()
    {
        assertEquals("elect.parity_chunks", reject(map("parity_chunks", 0)).key());
        assertEquals("elect.parity_chunks", reject(map("parity_chunks", -3)).key());
    }

    @Test
    void totalAboveCodecLimit()
    {
        ElectConfigException e = reject(map("data_chunks", 200, "parity_chunks", 56));
        assertEquals("elect.parity_chunks", e.key());
        assertTrue(e.getMessage().contains("<= " + ElectConfig.CODEC_MAX_CHUNKS), e.getMessage());
        ElectConfig.fromMap(map("data_chunks", 200, "parity_chunks", 55));
    }

    @Test
    void unknownKeyNamed()
    {
        ElectConfigException e = reject(map("data_chunk", 4));
        assertEquals("elect.data_chunk", e.key());
        assertTrue(e.getMessage().contains("unknown key"), e.getMessage());
        assertEquals("elect.cold_tier.endpiont", reject(map("cold_tier", map("endpiont", "http://x"))).key());
    }

    @Test
    void wrongTypes()
    {
        assertEquals("elect.data_chunks", reject(map("data_chunks", "four")).key());
        assertEquals("elect.data_chunks", reject(map("data_chunks", 4.5)).key());
        assertEquals("elect.storage_saving_target", reject(map("storage_saving_target", "high")).key());
        assertEquals("elect.offload_enabled", reject(map("offload_enabled", "yes please")).key());
        assertEquals("elect.cold_tier", reject(map("cold_tier", "s3://x")).key());
        assertEquals("elect.coder", reject(map("coder", 3)).key());
    }

    @Test
    void coderMustBeKnown()
    {
        ElectConfigException e = reject(map("coder", "gpu"));
        assertEquals("elect.coder", e.key());
        assertTrue(e.getMessage().contains("isal"), e.getMessage());
    }

    @Test
    void portRange()
    {
        assertEquals("elect.transport_port", reject(map("transport_port", 0)).key());
        assertEquals("elect.transport_port", reject(map("transport_port", 70000)).key());
    }

    @Test
    void coldTierEndpointAndBucket()
    {
        assertEquals("elect.cold_tier.endpoint", reject(map("cold_tier", map("endpoint", "ftp://host"))).key());
        assertEquals("elect.cold_tier.endpoint", reject(map("cold_tier", map("endpoint", "not a url"))).key());
        assertEquals("elect.cold_tier.bucket", reject(map("cold_tier", map("bucket", "Upper_Case"))).key());
        assertEquals("elect.cold_tier.bucket", reject(map("cold_tier", map("bucket", "ab"))).key());
        assertEquals("elect.cold_tier.region", reject(map("cold_tier", map("region", " "))).key());
        assertEquals("elect.cold_tier.credentials_file", reject(map("cold_tier", map("credentials_file", ""))).key());
    }

    @Test
    void messagesAreOneLine()
    {
        for (Map<String, Object> bad : java.util.List.of(map("storage_saving_target", 1.5), map("nope", 1),
                                                          map("cold_tier", map("bucket", "A"))))
            assertFalse(reject(bad).getMessage().contains("\n"));
    }

    @Test
    void toMapHoldsNoSecretAndRoundTrips()
    {
        ElectConfig c = ElectConfig.fromMap(map("cold_tier", map("credentials_file", "/etc/elect/s3.creds")));
        String json = c.toString();
        assertTrue(json.contains("\"credentials\":\"file /etc/elect/s3.creds\""), json);
        assertTrue(json.startsWith("{\"data_chunks\":4,"), json);
    }

    /** The transitioning keys (issue 8): defaults, one accepted value, and both range ends rejected naming the key. */
    @Test
    void transitioningKeys()
    {
        ElectConfig d = ElectConfig.defaults();
        assertEquals(600, d.hotnessHalfLifeSeconds);
        assertEquals(0.01, d.coldReadRate);
        assertEquals(2.0, d.hotnessHysteresis);
        assertEquals(3600, d.transitionMinAgeSeconds);
        assertEquals(86400, d.primaryOffloadMinAgeSeconds);
        assertEquals(300, d.stripeFillWaitSeconds);
        assertEquals(4096, d.stripeAlignmentBytes);
        assertEquals(16 << 20, d.transportMaxFrameBytes);
        assertEquals(10_000, d.transportRequestTimeoutMillis);
        assertEquals(3, d.transportRetries);
        assertEquals(60, d.transitionIntervalSeconds);

        ElectConfig c = ElectConfig.fromMap(map("hotness_half_life_seconds", 5, "cold_read_rate", 0.5, "hotness_hysteresis", 1.5,
                                                "transition_min_age_seconds", 0, "primary_offload_min_age_seconds", 10,
                                                "stripe_fill_wait_seconds", 2, "transport_max_frame_bytes", 4096,
                                                "transport_request_timeout_ms", 250, "transport_retries", 0,
                                                "transition_interval_seconds", 3, "stripe_alignment_bytes", 64));
        assertEquals(5, c.hotnessHalfLifeSeconds);
        assertEquals(0.5, c.coldReadRate);
        assertEquals(1.5, c.hotnessHysteresis);
        assertEquals(0, c.transitionMinAgeSeconds);
        assertEquals(10, c.primaryOffloadMinAgeSeconds);
        assertEquals(2, c.stripeFillWaitSeconds);
        assertEquals(4096, c.transportMaxFrameBytes);
        assertEquals(250, c.transportRequestTimeoutMillis);
        assertEquals(0, c.transportRetries);
        assertEquals(3, c.transitionIntervalSeconds);
        assertEquals(64, c.stripeAlignmentBytes);
        assertTrue(c.toString().contains("\"transport_retries\":0"), c.toString());

        Object[][] bad = { { "hotness_half_life_seconds", 0 }, { "hotness_half_life_seconds", 7 * 86400 + 1 },
                           { "cold_read_rate", -0.1 }, { "hotness_hysteresis", 0.99 }, { "hotness_hysteresis", 101 },
                           { "transition_min_age_seconds", -1 }, { "primary_offload_min_age_seconds", -1 },
                           { "stripe_fill_wait_seconds", -1 }, { "transport_max_frame_bytes", 1023 },
                           { "transport_max_frame_bytes", (1 << 30) + 1L }, { "transport_request_timeout_ms", 0 },
                           { "transport_retries", -1 }, { "transport_retries", 101 },
                           { "transition_interval_seconds", 0 }, { "transition_interval_seconds", 86401 },
                           { "stripe_alignment_bytes", 0 }, { "stripe_alignment_bytes", (1 << 20) + 1 } };
        for (Object[] b : bad)
            assertEquals("elect." + b[0], reject(map(b[0], b[1])).key(), String.valueOf(b[0]) + "=" + b[1]);
    }

    /** transport_encryption (issue 19): absent = follow Cassandra (null), none and tls accepted, anything else named. */
    @Test
    void transportEncryptionKey()
    {
        assertEquals(null, ElectConfig.defaults().transportEncryption);
        assertEquals("tls", ElectConfig.fromMap(map("transport_encryption", "tls")).transportEncryption);
        assertEquals("none", ElectConfig.fromMap(map("transport_encryption", "none")).transportEncryption);
        ElectConfigException e = reject(map("transport_encryption", "foo"));
        assertEquals("elect.transport_encryption", e.key());
        assertTrue(e.getMessage().contains("'foo' is not allowed; allowed: one of none, tls"), e.getMessage());
        assertEquals("elect.transport_encryption", reject(map("transport_encryption", 1)).key());
        assertTrue(ElectConfig.defaults().toString().contains("\"transport_encryption\":\"default"), ElectConfig.defaults().toString());
    }

    /** update_policy (issue 16): auto by default, delta and reencode accepted, tsue and anything else refused by name. */
    @Test
    void updatePolicyKey()
    {
        assertEquals("auto", ElectConfig.defaults().updatePolicy);
        assertEquals("delta", ElectConfig.fromMap(map("update_policy", "delta")).updatePolicy);
        assertEquals("reencode", ElectConfig.fromMap(map("update_policy", "reencode")).updatePolicy);
        ElectConfigException e = reject(map("update_policy", "tsue"));
        assertEquals("elect.update_policy", e.key());
        assertTrue(e.getMessage().contains("'tsue' is not allowed; allowed: one of auto, delta, reencode"), e.getMessage());
        assertTrue(ElectConfig.defaults().toString().contains("\"update_policy\":\"auto\""), ElectConfig.defaults().toString());
    }

    /** Member merges (issue 16): on by default at a share of 0.25; a share outside [0, 1] is refused by name. */
    @Test
    void memberMergeKeys()
    {
        assertTrue(ElectConfig.defaults().memberMergeEnabled);
        assertEquals(0.25, ElectConfig.defaults().memberMergeMinObsoleteShare);
        assertFalse(ElectConfig.fromMap(map("member_merge_enabled", false)).memberMergeEnabled);
        assertEquals(0.1, ElectConfig.fromMap(map("member_merge_min_obsolete_share", 0.1)).memberMergeMinObsoleteShare);
        assertEquals("elect.member_merge_min_obsolete_share", reject(map("member_merge_min_obsolete_share", 1.5)).key());
        assertEquals("elect.member_merge_enabled", reject(map("member_merge_enabled", "sometimes")).key());
        assertTrue(ElectConfig.defaults().toString().contains("\"member_merge_enabled\":true"), ElectConfig.defaults().toString());
    }

    @Test
    void fillVirtualSlotsKey()
    {
        assertTrue(ElectConfig.defaults().fillVirtualSlots);
        assertFalse(ElectConfig.fromMap(map("fill_virtual_slots", false)).fillVirtualSlots);
        assertEquals("elect.fill_virtual_slots", reject(map("fill_virtual_slots", "maybe")).key());
        assertTrue(ElectConfig.defaults().toString().contains("\"fill_virtual_slots\":true"), ElectConfig.defaults().toString());
    }
}
