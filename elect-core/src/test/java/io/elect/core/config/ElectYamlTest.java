package io.elect.core.config;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ElectYamlTest
{
    private static final String YAML = String.join("\n",
        "cluster_name: 'Test'",
        "# ELECT settings",
        "elect:",
        "  data_chunks: 6",
        "  # a comment inside",
        "",
        "  parity_chunks: 3",
        "  cold_tier:",
        "    bucket: mine",
        "num_tokens: 1",
        "electron: not ours",
        "seed_provider:",
        "  - class_name: org.apache.cassandra.locator.SimpleSeedProvider",
        "");

    @Test
    void splitsSectionOutAndKeepsTheRestVerbatim()
    {
        ElectYaml.Split s = ElectYaml.split(YAML);
        assertEquals(6, s.config.dataChunks);
        assertEquals(3, s.config.parityChunks);
        assertEquals("mine", s.config.coldTier.bucket);
        assertEquals(String.join("\n", "cluster_name: 'Test'", "# ELECT settings", "num_tokens: 1", "electron: not ours",
                                 "seed_provider:", "  - class_name: org.apache.cassandra.locator.SimpleSeedProvider", ""),
                     s.cassandraYaml);
    }

    @Test
    void missingSectionMeansDefaults()
    {
        ElectYaml.Split s = ElectYaml.split("cluster_name: x\n");
        assertEquals(4, s.config.dataChunks);
        assertEquals("cluster_name: x\n", s.cassandraYaml);
    }

    @Test
    void flowStyleSection()
    {
        ElectYaml.Split s = ElectYaml.split("elect: {data_chunks: 2, parity_chunks: 1}\nnum_tokens: 1\n");
        assertEquals(2, s.config.dataChunks);
        assertFalse(s.cassandraYaml.contains("elect"));
    }

    @Test
    void invalidValueNamesKey()
    {
        ElectConfigException e = assertThrows(ElectConfigException.class,
                                              () -> ElectYaml.split("elect:\n  storage_saving_target: 1.5\n"));
        assertEquals("elect.storage_saving_target", e.key());
    }

    @Test
    void duplicateSectionRejected()
    {
        assertThrows(ElectConfigException.class, () -> ElectYaml.split("elect:\n  data_chunks: 2\nelect:\n  data_chunks: 3\n"));
    }

    @Test
    void brokenYamlIsOneLineError()
    {
        ElectConfigException e = assertThrows(ElectConfigException.class, () -> ElectYaml.split("elect:\n  data_chunks: [4\n"));
        assertEquals("elect", e.key());
        assertFalse(e.getMessage().contains("\n"));
    }

    @Test
    void scalarSectionRejected()
    {
        ElectConfigException e = assertThrows(ElectConfigException.class, () -> ElectYaml.split("elect: yes\n"));
        assertTrue(e.getMessage().contains("mapping"));
    }

    /** A value that refers to itself through a YAML anchor is named as a bad value, not a StackOverflowError (fuzzer). */
    @Test
    void recursiveAliasIsAClearError()
    {
        ElectConfigException e = org.junit.jupiter.api.Assertions.assertThrows(ElectConfigException.class,
                                                                              () -> ElectYaml.split("elect: &a\n  offload_enabled: [*a]\n"));
        org.junit.jupiter.api.Assertions.assertEquals("elect.offload_enabled", e.key());
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("a list is not a boolean"), e.getMessage());
    }
}
