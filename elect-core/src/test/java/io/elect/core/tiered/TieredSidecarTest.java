package io.elect.core.tiered;

import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.StripeLayout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TieredSidecarTest
{
    @TempDir
    Path dir;

    private static ChunkChecksums sums(int n)
    {
        byte[] b = new byte[n];
        new java.util.Random(n).nextBytes(b);
        return ChunkChecksums.compute(ByteBuffer.wrap(b), 1024);
    }

    @Test
    void roundTripsBothKinds() throws IOException
    {
        TieredSidecar cold = TieredSidecar.cold(sums(5000), "s3", "tiered/ks/t/oa-1-Data.db", true);
        Path f = dir.resolve("a");
        cold.write(f);
        assertEquals(cold, TieredSidecar.read(f));

        StripeLayout stripe = new StripeLayout("rs-cauchy-gf8-11d:k=2:m=1", 2, 1, new long[]{ 3000, 5000 }, 5000,
                                               List.of("file:/x/Data.db", "cold:s3/a", "cold:s3/p"));
        TieredSidecar dec = TieredSidecar.decoded(sums(3000), stripe, 0);
        dec.write(f);
        assertEquals(dec, TieredSidecar.read(f));
    }

    @Test
    void rejectsCorruptionAndUnknownVersions() throws IOException
    {
        String text = TieredSidecar.cold(sums(5000), "s3", "key", false).serialize();
        Path f = dir.resolve("b");
        Files.writeString(f, text.replace("cold.key=key", "cold.key=kez"));
        IOException e = assertThrows(IOException.class, () -> TieredSidecar.read(f));
        assertTrue(e.getMessage().contains("checksum mismatch"), e.getMessage());
        Files.writeString(f, text.substring(0, text.length() - 5));
        assertThrows(IOException.class, () -> TieredSidecar.read(f));
        // a future version with a valid checksum is refused by name
        String v2 = text.substring(0, text.lastIndexOf("crc32c=")).replace("version=1", "version=2");
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(v2.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        Files.writeString(f, v2 + String.format("crc32c=%08x\n", crc.getValue()));
        e = assertThrows(IOException.class, () -> TieredSidecar.read(f));
        assertTrue(e.getMessage().contains("unsupported sidecar version 2"), e.getMessage());
    }
}
