package io.elect.core.tiered;

import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.stripes.StripeLayout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.coding.ErasureCoder;
import io.elect.offload.ColdStore;

/**
 * Assembles a stripe on one node from k local data files: the files are hard-linked into {@code linkDir} (so the
 * stripe's data members outlive compaction of the SSTables they came from) and m parity members are computed
 * range by range and uploaded to the cold store. This is the "locally assembled stripe" used by tests and the
 * benchmark; transitioning builds stripes across nodes and supplies its own locators.
 */
public final class LocalStripeAssembler
{
    private static final Logger logger = LoggerFactory.getLogger(LocalStripeAssembler.class);
    private static final int BATCH = 1 << 20;

    private LocalStripeAssembler()
    {
    }

    /**
     * @param dataFiles the k data members, in member order
     * @param linkDir   directory for hard links of the data members (created; same file system as dataFiles)
     * @param store     where parity goes, as {@code <keyPrefix>/parity-<j>}
     */
    public static StripeLayout assemble(List<Path> dataFiles, ErasureCoder coder, ColdStore store, String storeName,
                                        String keyPrefix, Path linkDir) throws IOException
    {
        List<ColdStore> stores = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int j = 0; j < coder.parityChunks(); j++)
        {
            stores.add(store);
            names.add(storeName);
        }
        return assemble(dataFiles, coder, stores, names, keyPrefix, linkDir);
    }

    /** As above, with parity j in {@code stores.get(j)}, registered as {@code storeNames.get(j)}. */
    public static StripeLayout assemble(List<Path> dataFiles, ErasureCoder coder, List<ColdStore> stores,
                                        List<String> storeNames, String keyPrefix, Path linkDir) throws IOException
    {
        int k = coder.dataChunks(), m = coder.parityChunks();
        if (stores.size() != m || storeNames.size() != m)
            throw new IllegalArgumentException("need one store and one store name per parity member (m=" + m + ")");
        if (dataFiles.size() != k)
            throw new IllegalArgumentException("dataFiles must hold k=" + k + " files, got " + dataFiles.size());
        long start = io.elect.core.util.Clock.SYSTEM.nanoTime();
        Files.createDirectories(linkDir);
        long[] lengths = new long[k];
        List<String> locators = new ArrayList<>();
        long max = 0;
        for (int i = 0; i < k; i++)
        {
            Path link = linkDir.resolve("member-" + i);
            Files.deleteIfExists(link);
            Files.createLink(link, dataFiles.get(i));
            lengths[i] = Files.size(link);
            max = Math.max(max, lengths[i]);
            locators.add(LocatorMemberReader.file(link));
        }
        Path[] parityFiles = new Path[m];
        for (int j = 0; j < m; j++)
        {
            parityFiles[j] = linkDir.resolve("parity-" + j + ".tmp");
            locators.add(LocatorMemberReader.cold(storeNames.get(j), keyPrefix + "/parity-" + j));
        }
        encode(linkDir, k, m, lengths, max, coder, parityFiles);
        for (int j = 0; j < m; j++)
        {
            stores.get(j).put(keyPrefix + "/parity-" + j, parityFiles[j]);
            Files.delete(parityFiles[j]);
        }
        StripeLayout layout = new StripeLayout(coder.codecId(), k, m, lengths, max, locators);
        logger.info("Assembled stripe {} ({}, {} bytes per member) in {} ms", keyPrefix, coder.codecId(), max,
                    (io.elect.core.util.Clock.SYSTEM.nanoTime() - start) / 1_000_000);
        return layout;
    }

    private static void encode(Path linkDir, int k, int m, long[] lengths, long max, ErasureCoder coder, Path[] parityFiles)
    throws IOException
    {
        FileChannel[] in = new FileChannel[k];
        FileChannel[] out = new FileChannel[m];
        try
        {
            for (int i = 0; i < k; i++)
                in[i] = FileChannel.open(linkDir.resolve("member-" + i), StandardOpenOption.READ);
            for (int j = 0; j < m; j++)
                out[j] = FileChannel.open(parityFiles[j], StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                                          StandardOpenOption.TRUNCATE_EXISTING);
            ByteBuffer[] data = new ByteBuffer[k];
            ByteBuffer[] parity = new ByteBuffer[m];
            for (int i = 0; i < k; i++)
                data[i] = ByteBuffer.allocateDirect(BATCH);
            for (int j = 0; j < m; j++)
                parity[j] = ByteBuffer.allocateDirect(BATCH);
            for (long off = 0; off < max; off += BATCH)
            {
                int len = (int) Math.min(BATCH, max - off);
                for (int i = 0; i < k; i++)
                {
                    data[i].clear();
                    int avail = (int) Math.max(0, Math.min(len, lengths[i] - off));
                    data[i].limit(avail);
                    while (data[i].hasRemaining())
                        if (in[i].read(data[i], off + data[i].position()) < 0)
                            throw new IOException("member " + i + " shrank while encoding");
                    data[i].limit(len);
                    while (data[i].position() < len)
                        data[i].put((byte) 0);
                    data[i].clear();
                }
                coder.encode(data, parity, 0, len);
                for (int j = 0; j < m; j++)
                {
                    ByteBuffer b = parity[j].duplicate();
                    b.clear().limit(len);
                    while (b.hasRemaining())
                        out[j].write(b);
                }
            }
            for (FileChannel c : out)
                c.force(true);
        }
        finally
        {
            for (FileChannel c : in)
                if (c != null)
                    c.close();
            for (FileChannel c : out)
                if (c != null)
                    c.close();
        }
    }
}
