package io.elect.core.stripes;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The redirect table: round trip, the documented encoding, idempotent puts, removal, every corruption refused. */
class RedirectTableTest
{
    @TempDir
    Path tmp;

    @Test
    void roundTripAndGoldenEncoding() throws IOException
    {
        Path file = tmp.resolve("redirects.txt");
        RedirectTable t = RedirectTable.open(file);
        assertTrue(t.entries().isEmpty());
        assertFalse(Files.exists(file), "a missing file is an empty table; nothing is written until a change");
        t.put(Path.of("/data/ks/t-1/nb-2-big-Data.db"), "cold:cold-tier/tiered/ks/t/3-Data.db");
        t.put(Path.of("/data/ks/t-1/../t-1/nb-1-big-Data.db"), "cold:cold-tier/tiered/ks/t/4-Data.db");
        t.put(Path.of("/data/with space/x-Data.db"), "cold:s3.b_1/k");
        byte[] before = Files.readAllBytes(file);
        t.put(Path.of("/data/ks/t-1/nb-2-big-Data.db"), "cold:cold-tier/tiered/ks/t/3-Data.db"); // same entry: no write
        assertArrayEquals(before, Files.readAllBytes(file));
        String text = new String(before, StandardCharsets.UTF_8);
        assertEquals("elect-redirects\nversion=1\n"
                     + "redirect=cold:cold-tier/tiered/ks/t/4-Data.db /data/ks/t-1/nb-1-big-Data.db\n"
                     + "redirect=cold:cold-tier/tiered/ks/t/3-Data.db /data/ks/t-1/nb-2-big-Data.db\n"
                     + "redirect=cold:s3.b_1/k /data/with space/x-Data.db\n"
                     + "crc32c=" + text.substring(text.length() - 9), text);
        RedirectTable again = RedirectTable.open(file);
        assertEquals(t.entries(), again.entries());
        assertEquals(Optional.of("cold:cold-tier/tiered/ks/t/4-Data.db"), again.lookup(Path.of("/data/ks/./t-1/nb-1-big-Data.db")));
        assertEquals(Optional.empty(), again.lookup(Path.of("/data/ks/t-1/nb-3-big-Data.db")));
        assertEquals(1, again.removeIf((p, l) -> l.endsWith("/3-Data.db")));
        assertEquals(0, again.removeIf((p, l) -> false));
        assertEquals(Map.of(Path.of("/data/ks/t-1/nb-1-big-Data.db"), "cold:cold-tier/tiered/ks/t/4-Data.db",
                            Path.of("/data/with space/x-Data.db"), "cold:s3.b_1/k"),
                     RedirectTable.open(file).entries());
        assertArrayEquals(new String[]{ "s3.b_1", "k" }, RedirectTable.parseLocator("cold:s3.b_1/k"));
    }

    @Test
    void badArgumentsAreRefused() throws IOException
    {
        RedirectTable t = RedirectTable.open(tmp.resolve("r.txt"));
        assertThrows(IllegalArgumentException.class, () -> t.put(Path.of("rel/x"), "cold:s/k"));
        assertThrows(IllegalArgumentException.class, () -> t.put(Path.of("/x"), "node:h:1/x"));
        assertThrows(IllegalArgumentException.class, () -> t.put(Path.of("/x"), "cold:s/has space"));
        assertThrows(IllegalArgumentException.class, () -> t.put(Path.of("/x"), "cold:/k"));
        assertThrows(IllegalArgumentException.class, () -> t.put(Path.of("/x\ny"), "cold:s/k"));
        assertThrows(IllegalArgumentException.class, () -> t.put(Path.of("/x"), "file:relative/x"));
        assertThrows(IllegalArgumentException.class, () -> t.put(Path.of("/x"), "file:/has space"));
        assertTrue(t.entries().isEmpty());
    }

    @Test
    void fileTargetsOfRebuiltMembers() throws IOException
    {
        Path file = tmp.resolve("redirects.txt");
        RedirectTable t = RedirectTable.open(file);
        t.put(Path.of("/data/ks/t-1/nb-2-big-Data.db"), "file:/data/ks/t-1/nb-9-big-Data.db");
        RedirectTable again = RedirectTable.open(file);
        assertEquals(Optional.of("file:/data/ks/t-1/nb-9-big-Data.db"), again.lookup(Path.of("/data/ks/t-1/nb-2-big-Data.db")));
        assertThrows(IllegalArgumentException.class, () -> RedirectTable.parseLocator("file:/data/ks/t-1/nb-9-big-Data.db"),
                     "a file: target is not a cold object");
    }

    @Test
    void corruptionIsRefusedNeverEmpty() throws IOException
    {
        Path file = tmp.resolve("redirects.txt");
        RedirectTable.open(file).put(Path.of("/d/a-Data.db"), "cold:s/k1");
        String good = Files.readString(file);
        String body = good.substring(0, good.lastIndexOf("crc32c="));
        assertCorrupt(file, good.replace("k1", "k2"), "checksum mismatch");
        assertCorrupt(file, good.substring(0, good.length() - 1), "truncated");
        assertCorrupt(file, body, "last line is not crc32c");
        assertCorrupt(file, withCrc(body.replace("version=1", "version=2")), "unsupported version=2");
        assertCorrupt(file, withCrc(body.replace("elect-redirects", "elect-redirect")), "bad magic");
        assertCorrupt(file, withCrc(body.replace("redirect=cold:s/k1 ", "redirect=cold:s/k1")), "is not redirect=");
        assertCorrupt(file, withCrc(body.replace("/d/a-Data.db", "d/a-Data.db")), "absolute normalized path");
        assertCorrupt(file, withCrc(body.replace("/d/a-Data.db", "/d/../d/a-Data.db")), "absolute normalized path");
        assertCorrupt(file, withCrc(body + "redirect=cold:s/k9 /d/a-Data.db\n"), "listed twice");
        assertCorrupt(file, "", "truncated");
        Files.writeString(file, good);
        assertEquals(1, RedirectTable.open(file).entries().size());
    }

    private static String withCrc(String body)
    {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(body.getBytes(StandardCharsets.UTF_8));
        return body + String.format("crc32c=%08x\n", crc.getValue());
    }

    private static void assertCorrupt(Path file, String content, String why) throws IOException
    {
        Files.writeString(file, content);
        IOException e = assertThrows(IOException.class, () -> RedirectTable.open(file));
        assertTrue(e.getMessage().contains("corrupt redirect table " + file) && e.getMessage().contains(why), e.getMessage());
    }
}
