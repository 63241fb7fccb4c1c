package io.elect.core.node;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.elect.core.transition.wire.TransitionMessages.TableRef;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Merge markers survive a restart (a new object over the same state directory); a damaged file is not trusted. */
class MergeMarkersTest
{
    private static final TableRef T = new TableRef("ks", "t");

    @Test
    void markersSurviveARestartAndRemovalsToo(@TempDir Path dir) throws Exception
    {
        MergeMarkers a = new MergeMarkers(dir);
        assertEquals(List.of(), a.all());
        MergeMarkers.Marker m1 = new MergeMarkers.Marker(T, "00000000000000000000000000000aaa", "3gb1_0x", "3gb1_1y", 1234);
        MergeMarkers.Marker m2 = new MergeMarkers.Marker(new TableRef("ks", "u"), "00000000000000000000000000000bbb", "m2", "n2", 99);
        a.put(m1);
        a.put(m2);

        MergeMarkers b = new MergeMarkers(dir);
        assertEquals(List.of(m1, m2), b.all());
        assertTrue(b.isNextVersion(T, "3gb1_1y"));
        assertFalse(b.isNextVersion(T, "n2"), "another table's next version");
        assertEquals(m1, b.of(m1.stripe(), T, "3gb1_0x").orElseThrow());
        assertTrue(b.of(m1.stripe(), T, "other").isEmpty());

        b.remove(m1);
        assertEquals(List.of(m2), new MergeMarkers(dir).all());
        b.remove(m2);
        assertEquals(List.of(), new MergeMarkers(dir).all());
    }

    @Test
    void aDamagedFileIsReportedAndReplaced(@TempDir Path dir) throws Exception
    {
        MergeMarkers a = new MergeMarkers(dir);
        a.put(new MergeMarkers.Marker(T, "00000000000000000000000000000aaa", "m", "n", 1));
        Path file = dir.resolve(MergeMarkers.FILE);
        String text = Files.readString(file);
        Files.writeString(file, text.replace(" m n ", " m x ")); // checksum no longer matches
        MergeMarkers b = new MergeMarkers(dir);
        assertEquals(List.of(), b.all(), "a file whose checksum fails names nothing");
        MergeMarkers.Marker m = new MergeMarkers.Marker(T, "00000000000000000000000000000ccc", "p", "q", 2);
        b.put(m);
        assertEquals(List.of(m), new MergeMarkers(dir).all(), "the next write replaces it");
    }

    @Test
    void aMalformedLineIsRejectedWhole(@TempDir Path dir) throws Exception
    {
        io.elect.core.util.ChecksummedTextFile.write(dir.resolve(MergeMarkers.FILE), MergeMarkers.MAGIC, MergeMarkers.VERSION,
                                                     List.of("00000000000000000000000000000aaa ks t m n 5", "too few fields"));
        assertEquals(List.of(), new MergeMarkers(dir).all());
        io.elect.core.util.ChecksummedTextFile.write(dir.resolve(MergeMarkers.FILE), MergeMarkers.MAGIC, MergeMarkers.VERSION,
                                                     List.of("00000000000000000000000000000aaa ks t m n -5"));
        assertEquals(List.of(), new MergeMarkers(dir).all(), "negative time");
    }
}
