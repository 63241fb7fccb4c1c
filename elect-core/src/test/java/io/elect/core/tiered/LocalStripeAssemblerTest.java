package io.elect.core.tiered;

import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.stripes.StripeLayout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.elect.coding.ErasureCoder;
import io.elect.coding.ErasureCoders;
import io.elect.offload.FramedColdStore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A stripe assembled from local files (hard links + parity in a filesystem cold store) decodes every member, whole
 * and by random ranges, after its original file is deleted; encoding works in batches larger than one.
 */
class LocalStripeAssemblerTest
{
    @TempDir
    Path dir;

    @Test
    void everyMemberIsReconstructedFromTheOthers() throws IOException
    {
        long seed = System.nanoTime();
        System.out.println("LocalStripeAssemblerTest seed=" + seed);
        Random rnd = new Random(seed);
        ErasureCoder coder = ErasureCoders.create(3, 2, ErasureCoders.JAVA);
        List<Path> files = new ArrayList<>();
        List<byte[]> contents = new ArrayList<>();
        for (int i = 0; i < 3; i++)
        {
            byte[] b = new byte[(1 << 20) + rnd.nextInt(300_000)]; // > one encoding batch
            rnd.nextBytes(b);
            Path f = dir.resolve("data-" + i);
            Files.write(f, b);
            files.add(f);
            contents.add(b);
        }
        try (FramedColdStore store = FramedColdStore.fileSystem(dir.resolve("store")))
        {
            StripeLayout stripe = LocalStripeAssembler.assemble(files, coder, store, "fs", "stripes/x", dir.resolve("links"));
            assertEquals(3 + 2, stripe.locators().size());
            assertTrue(store.exists("stripes/x/parity-1"));
            LocatorMemberReader reader = new LocatorMemberReader(Map.of("fs", store)::get);
            for (int self = 0; self < 3; self++)
            {
                ChunkChecksums sums;
                try (FileChannel ch = FileChannel.open(files.get(self)))
                {
                    sums = ChunkChecksums.compute(ch, 16384);
                }
                // the stripe keeps its own hard links: the original file may go
                Files.delete(files.get(self));
                DecodedRangeSource src = new DecodedRangeSource(stripe, self, coder, reader, sums, null, null, DecodeContext.direct(io.elect.core.util.Clock.SYSTEM));
                ByteBuffer all = ByteBuffer.allocate((int) src.length());
                src.read(0, all);
                assertArrayEquals(contents.get(self), all.array(), "member " + self);
                for (int i = 0; i < 20; i++)
                {
                    int len = rnd.nextInt(40_000);
                    int pos = rnd.nextInt(contents.get(self).length - len);
                    ByteBuffer part = ByteBuffer.allocate(len);
                    src.read(pos, part);
                    assertArrayEquals(java.util.Arrays.copyOfRange(contents.get(self), pos, pos + len), part.array());
                }
                Files.write(files.get(self), contents.get(self));
            }
        }
    }
}
