package io.elect.core.stripes;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A parity file that stores only up to the longest data member reads as the whole parity member (issue 16). */
class LocatorMemberReaderParityTest
{
    @TempDir
    Path tmp;

    @Test
    void parityPastTheLongestMemberReadsAsZerosWithoutTouchingTheFile() throws Exception
    {
        byte[] stored = new byte[3000];
        new java.util.Random(7).nextBytes(stored);
        Path parity = Files.write(tmp.resolve("p.parity"), stored);
        Path data = Files.write(tmp.resolve("d"), new byte[3000]);
        // code length 8192 (a merge shortened the longest member from 8192 to 3000 bytes); the file holds 3000
        StripeLayout layout = new StripeLayout("rs-cauchy-gf8-11d:k=2:m=1", 2, 1, new long[]{ 3000, 1200 }, 8192,
                                               List.of(LocatorMemberReader.file(data), LocatorMemberReader.file(tmp.resolve("d2")),
                                                       LocatorMemberReader.file(parity)));
        LocatorMemberReader reader = new LocatorMemberReader(name -> null);
        ByteBuffer whole = reader.read(layout, 2, 0, 8192);
        assertEquals(8192, whole.remaining());
        byte[] got = new byte[8192];
        whole.get(got);
        assertArrayEquals(stored, Arrays.copyOf(got, 3000));
        assertArrayEquals(new byte[8192 - 3000], Arrays.copyOfRange(got, 3000, 8192));
        ByteBuffer tail = reader.read(layout, 2, 5000, 100);
        assertArrayEquals(new byte[100], tail.array().length == 100 ? tail.array() : Arrays.copyOfRange(tail.array(), 0, 100));
        // a parity file shorter than the longest member is a real error, not zeros
        Files.write(parity, Arrays.copyOf(stored, 2000));
        assertThrows(java.io.IOException.class, () -> reader.read(layout, 2, 0, 8192));
        // a data member is read as it is (a short one is an error too)
        assertThrows(java.io.IOException.class, () -> reader.read(layout, 1, 0, 1200));
    }

    /** A chunk whose node left the ring while a change was in flight: unreadable (an erasure for decoders), never zeros. */
    @Test
    void aGoneChunkFailsItsReadsNamingTheNode() throws Exception
    {
        Path data = Files.write(tmp.resolve("d"), new byte[100]);
        StripeLayout layout = new StripeLayout("rs-cauchy-gf8-11d:k=2:m=1", 2, 1, new long[]{ 100, 100 }, 100,
                                               List.of(LocatorMemberReader.file(data), LocatorMemberReader.gone("10.0.0.6"),
                                                       LocatorMemberReader.gone("10.0.0.7")));
        LocatorMemberReader reader = new LocatorMemberReader(name -> null);
        assertEquals(100, reader.read(layout, 0, 0, 100).remaining());
        java.io.IOException e = assertThrows(java.io.IOException.class, () -> reader.read(layout, 1, 0, 100));
        assertEquals(true, e.getMessage().contains("10.0.0.6") && e.getMessage().contains("left the ring"), e.getMessage());
        assertThrows(java.io.IOException.class, () -> reader.read(layout, 2, 0, 100));
        assertEquals(true, LocatorMemberReader.isGone(layout.locators().get(2)));
        assertEquals(false, LocatorMemberReader.isGone(layout.locators().get(0)));
    }
}
