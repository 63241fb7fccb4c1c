package io.elect.core.bridge;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The frozen-SSTable registry file (docs/formats/frozen-registry.md) without a node: round trip and corruption. */
class FrozenRegistryTest
{
    private static final String TABLE = "ks.t";

    @TempDir
    Path dir;

    @Test
    void roundTripsAndReplacesAtomically() throws IOException
    {
        Path file = dir.resolve("frozen").resolve(TABLE + ".txt");
        assertEquals(Map.of(), FrozenSSTables.read(file, TABLE), "a missing registry is empty");
        Map<String, String> entries = new TreeMap<>();
        entries.put("3gk1_0tqx_2pjdc2l3r1pyynyb3d", "stripe-7");
        entries.put("12", "stripe:9.a_b-c");
        FrozenSSTables.write(file, TABLE, entries);
        assertEquals(entries, FrozenSSTables.read(file, TABLE));
        String text = Files.readString(file);
        assertTrue(text.startsWith("elect-frozen-registry\nversion=1\ntable=ks.t\nfrozen=12 stripe:9.a_b-c\n"), text);
        assertTrue(text.matches("(?s).*\ncrc32c=[0-9a-f]{8}\n"), text);

        FrozenSSTables.write(file, TABLE, Map.of());
        assertEquals(Map.of(), FrozenSSTables.read(file, TABLE), "an empty registry is a valid file");
        try (var files = Files.list(file.getParent()))
        {
            assertEquals(1, files.count(), "no temporary file left behind");
        }
    }

    @Test
    void rejectsCorruptionNamingTheFile() throws IOException
    {
        Path file = dir.resolve(TABLE + ".txt");
        FrozenSSTables.write(file, TABLE, Map.of("12", "stripe-7", "13", "stripe-8"));
        byte[] good = Files.readAllBytes(file);

        // Every single-byte flip is detected (magic, fields, ids, tags, checksum line).
        for (int i = 0; i < good.length; i++)
        {
            byte[] bad = good.clone();
            bad[i] ^= 0x04;
            Files.write(file, bad);
            IOException e = assertThrows(IOException.class, () -> FrozenSSTables.read(file, TABLE), "flip at " + i);
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        }
        // Truncation anywhere.
        for (int len : new int[]{ 0, 1, 10, good.length / 2, good.length - 12, good.length - 1 })
        {
            Files.write(file, java.util.Arrays.copyOf(good, len));
            assertThrows(IOException.class, () -> FrozenSSTables.read(file, TABLE), "truncated to " + len);
        }
        // Another table's registry, an unknown version, a duplicate id, a bad line: with a VALID checksum.
        Files.write(file, good);
        IOException other = assertThrows(IOException.class, () -> FrozenSSTables.read(file, "ks.other"));
        assertTrue(other.getMessage().contains("table=ks.t"), other.getMessage());
        String[] bodies = { "elect-frozen-registry\nversion=2\ntable=ks.t\n",
                            "elect-frozen-registry\nversion=1\ntable=ks.t\nfrozen=12 a\nfrozen=12 b\n",
                            "elect-frozen-registry\nversion=1\ntable=ks.t\nfrozen=12\n",
                            "elect-frozen-registry\nversion=1\ntable=ks.t\nfrozen=12 a b\n",
                            "elect-frozen-registry\nversion=1\ntable=ks.t\nthawed=12 a\n",
                            "elect-frozen\nversion=1\ntable=ks.t\n" };
        for (String body : bodies)
        {
            Files.write(file, withCrc(body));
            IOException e = assertThrows(IOException.class, () -> FrozenSSTables.read(file, TABLE), body);
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        }
        // The same construction with a well-formed body is accepted (the helper itself is right).
        Files.write(file, withCrc("elect-frozen-registry\nversion=1\ntable=ks.t\nfrozen=12 a\n"));
        assertEquals(Map.of("12", "a"), FrozenSSTables.read(file, TABLE));
    }

    @Test
    void readsTheDocumentedExample() throws IOException
    {
        Path file = dir.resolve("ycsb.usertable.txt");
        Files.writeString(file, "elect-frozen-registry\nversion=1\ntable=ycsb.usertable\n"
                                + "frozen=3gk1_0tqx_2pjdc2l3r1pyynyb3d stripe-00000042\ncrc32c=75348c88\n");
        assertEquals(Map.of("3gk1_0tqx_2pjdc2l3r1pyynyb3d", "stripe-00000042"), FrozenSSTables.read(file, "ycsb.usertable"));
    }

    @Test
    void refusesBadTagsAndIds()
    {
        Path file = dir.resolve(TABLE + ".txt");
        assertThrows(IllegalArgumentException.class, () -> FrozenSSTables.write(file, TABLE, Map.of("12", "two words")));
        assertThrows(IllegalArgumentException.class, () -> FrozenSSTables.write(file, TABLE, Map.of("12", "")));
        assertThrows(IllegalArgumentException.class, () -> FrozenSSTables.write(file, TABLE, Map.of("1 2", "a")));
    }

    private static byte[] withCrc(String body)
    {
        CRC32C crc = new CRC32C();
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        crc.update(b);
        return (body + String.format("crc32c=%08x\n", crc.getValue())).getBytes(StandardCharsets.UTF_8);
    }
}
