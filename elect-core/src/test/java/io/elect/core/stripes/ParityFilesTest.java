package io.elect.core.stripes;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Parity file names and cold keys per generation (docs/formats/parity-file.md): golden names, parse round trips. */
class ParityFilesTest
{
    @TempDir
    Path state;

    @Test
    void generationZeroKeepsTheNamesOfEveryExistingFileAndLaterGenerationsGetTheirOwn() throws Exception
    {
        String id = "0123456789abcdef0123456789abcdef";
        assertEquals(id + "-p1.parity", ParityFiles.name(id, 1));
        assertEquals(id + "-p1.parity", ParityFiles.name(id, 1, 0));
        assertEquals(id + "-p1.g7.parity", ParityFiles.name(id, 1, 7));
        assertEquals("parity/ks.t/" + id + "/1", ParityFiles.coldKey("ks", "t", id, 1));
        assertEquals("parity/ks.t/" + id + "/1.g7", ParityFiles.coldKey("ks", "t", id, 1, 7));
        assertThrows(IllegalArgumentException.class, () -> ParityFiles.name(id, 1, -1));

        ParityFiles files = new ParityFiles(state);
        Path g0 = files.hot("ks", "t", id, 1), g7 = files.hot("ks", "t", id, 1, 7);
        assertEquals(new ParityFiles.Name("ks", "t", id, 1, 0, g0), files.parse(g0));
        assertEquals(new ParityFiles.Name("ks", "t", id, 1, 7, g7), files.parse(g7));
        assertEquals("parity/ks.t/" + id + "/1.g7", files.parse(g7).coldKey());
        assertEquals(id + "-p1.g7.cold", files.parse(g7).marker().getFileName().toString());
        Path dir = g0.getParent();
        for (String notOurs : new String[]{ id + "-p1.g0.parity", id + "-p1.g-1.parity", id + "-p01.parity",
                                            id + "-p1.gx.parity", id + "-p1.g7.parity.checksums", id + "-p.parity" })
            assertNull(files.parse(dir.resolve(notOurs)), notOurs);
    }
}
