package io.elect.core.bridge;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.apache.cassandra.cache.ChunkCache;
import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.compaction.OperationType;
import org.apache.cassandra.db.lifecycle.LifecycleTransaction;
import org.apache.cassandra.io.sstable.Component;
import org.apache.cassandra.io.sstable.Descriptor;
import org.apache.cassandra.io.sstable.format.SSTableFormat;
import org.apache.cassandra.io.sstable.format.SSTableFormat.Components;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.io.sstable.format.TOCComponent;
import org.apache.cassandra.io.sstable.format.Version;
import org.apache.cassandra.io.sstable.format.big.BigFormat;
import org.apache.cassandra.io.util.File;
import org.apache.cassandra.io.util.FileHandle;
import org.apache.cassandra.service.StorageService;
import org.apache.cassandra.utils.FBUtilities;

import io.elect.coding.ErasureCoder;
import io.elect.coding.ErasureCoders;
import io.elect.core.tiered.ByteRangeSource;
import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.tiered.TieredRuntime;
import io.elect.core.util.Clock;
import io.elect.core.tiered.ColdRangeSource;
import io.elect.core.tiered.DecodedRangeSource;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.tiered.SourceCounters;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.tiered.TieredChunkCache;
import io.elect.core.tiered.TieredSidecar;
import io.elect.offload.ColdStore;

/**
 * Tiered SSTables: switching a live SSTable's data component between LOCAL (a plain BIG SSTable), COLD (an object of
 * the cold tier) and DECODED (reconstructed from its stripe), and the runtime the {@code electtiered} format reads
 * through (cold stores by name, the shared chunk cache, counters).
 *
 * <p>Switching builds a second SSTable beside the original: same version and id-less components (Index, Filter,
 * CompressionInfo, CRC, Digest hard-linked; Statistics and Summary copied because Cassandra rewrites them in place),
 * a new Data.db (0-byte placeholder when tiered, the downloaded bytes when rehydrated), a sidecar naming the source,
 * and a TOC; then swaps it for the original in ONE tracker transaction. Readers therefore see either the original
 * or the replacement, each complete; reads in flight keep the original's files until they release it. The
 * original is held (marked compacting) for the whole switch, so compaction cannot take it meanwhile, and its
 * local data bytes are deleted when the transaction obsoletes it.
 *
 * <p>One instance per node, over the node's {@link TieredRuntime} (cold stores, coders, chunk cache, counters): the
 * format's hooks reach it through {@link NodeHandoff}. Stores must be registered in the runtime before a tiered
 * SSTable is READ; opening does not need them.
 */
public final class TieredSSTables
{
    private static final Logger logger = LoggerFactory.getLogger(TieredSSTables.class);

    /** DO NOT CHANGE: the SSTable format name in every file name of a tiered SSTable. */
    public static final String FORMAT_NAME = "electtiered";
    /** DO NOT CHANGE: the sidecar component (docs/formats/tiered-sidecar.md). */
    public static final String SIDECAR_NAME = "Tiered.txt";
    
    private final TieredRuntime runtime;
    private final Clock clock;

    public TieredSSTables(TieredRuntime runtime, Clock clock)
    {
        this.runtime = java.util.Objects.requireNonNull(runtime, "runtime");
        this.clock = java.util.Objects.requireNonNull(clock, "clock");
    }

    public TieredRuntime runtime()
    {
        return runtime;
    }

    // ------------------------------------------------------------------ runtime

    public static SSTableFormat<?, ?> format()
    {
        SSTableFormat<?, ?> f = DatabaseDescriptor.getSSTableFormats().get(FORMAT_NAME);
        if (f == null)
            throw new IllegalStateException("SSTable format " + FORMAT_NAME + " is not registered (is elect-core's "
                                            + "META-INF/services listing on the classpath?)");
        return f;
    }

    public static Component sidecarComponent(Descriptor desc)
    {
        return Component.parse(SIDECAR_NAME, desc.version.format);
    }

    static Path sidecarPath(Descriptor desc)
    {
        return desc.fileFor(sidecarComponent(desc)).toPath();
    }

    public static boolean hasSidecar(Descriptor desc)
    {
        return Files.exists(sidecarPath(desc));
    }

    public static TieredSidecar sidecar(Descriptor desc) throws IOException
    {
        return TieredSidecar.read(sidecarPath(desc));
    }

    public static boolean isTiered(SSTableReader reader)
    {
        return FORMAT_NAME.equals(reader.descriptor.version.format.name());
    }

    /** The source a tiered SSTable's data component is read from. */
    public ByteRangeSource openSource(Descriptor desc) throws IOException
    {
        return runtime.openSource(sidecar(desc), desc.toString());
    }

    /** Called by the format's loading builder: the data FileHandle builder of a tiered SSTable. */
    public FileHandle.Builder dataFileBuilder(Descriptor desc, int bufferSize, ChunkCache chunkCache)
    {
        try
        {
            ByteRangeSource source = openSource(desc);
            logger.info("Opening tiered {} ({} bytes from {})", desc, source.length(), source.describe());
            TieredFileHandleBuilder b = new TieredFileHandleBuilder(desc.fileFor(Components.DATA), source,
                                                                    desc.version.hasMaxCompressedLength());
            b.bufferSize(bufferSize);
            b.withChunkCache(chunkCache);
            return b;
        }
        catch (IOException e)
        {
            throw new UncheckedIOException("cannot open the tiered data source of " + desc, e);
        }
    }

    /**
     * Before Cassandra deletes a tiered SSTable's files: deletes the cold object it owns, unless another hard link
     * of the sidecar exists (a snapshot or backup still references the object), and drops its cached chunks.
     */
    public void beforeDelete(Descriptor desc)
    {
        Path path = sidecarPath(desc);
        try
        {
            TieredSidecar s = TieredSidecar.read(path);
            if (s.source() == TieredSidecar.Source.COLD)
            {
                runtime.forget(s);
                int links = (Integer) Files.getAttribute(path, "unix:nlink");
                ColdStore store = runtime.store(s.coldStore()).orElse(null);
                if (!s.owned() || links > 1)
                    logger.info("Keeping cold object {} of deleted {} (owned={}, sidecar links={})", s.coldKey(), desc,
                                s.owned(), links);
                else if (store == null)
                    logger.warn("Cold store '{}' not registered: cold object {} of deleted {} is left behind",
                                s.coldStore(), s.coldKey(), desc);
                else
                {
                    store.delete(s.coldKey());
                    logger.info("Deleted cold object {} of {}", s.coldKey(), desc);
                }
            }
            else
            {
                runtime.forget(s);
            }
        }
        catch (NoSuchFileException e)
        {
            // not tiered any more, or already deleted
        }
        catch (IOException | RuntimeException e)
        {
            logger.warn("Cleaning up the tiered source of {} failed; its cold object may be left behind", desc, e);
        }
    }

    public static void afterDelete(Descriptor desc)
    {
        try
        {
            Files.deleteIfExists(sidecarPath(desc));
        }
        catch (IOException e)
        {
            logger.warn("Cannot delete the sidecar of {}", desc, e);
        }
    }

    // ------------------------------------------------------------------ switching

    /**
     * LOCAL -> COLD: uploads the data component to store {@code storeName} and replaces the SSTable by a tiered one
     * reading it by ranges. Returns the new live reader. The original's Data.db is deleted once unreferenced.
     */
    public SSTableReader toCold(ColumnFamilyStore cfs, SSTableReader orig, String storeName) throws IOException
    {
        return toCold(cfs, orig, storeName, null);
    }

    /** Told where an SSTable's data goes, after the upload and before the swap (see {@link #toCold(ColumnFamilyStore, SSTableReader, String, BeforeSwap)}). */
    @FunctionalInterface
    public interface BeforeSwap
    {
        void accept(Path oldData, String coldStore, String coldKey) throws IOException;
    }

    /**
     * The cold object key of a data file: {@code tiered/<keyspace>/<table>/<node>/<sstable id>-Data.db}. Every node of
     * a cluster writes into the same bucket and SSTable ids are only unique per node (sequential {@code oa-33} ids
     * repeat on every node), so the key names the node: its host id, or its broadcast address before it has one.
     * Readers take the key from the sidecar, never from this function.
     */
    static String coldKey(Descriptor desc)
    {
        return coldKeyPrefix(desc.ksname, desc.cfname) + desc.id + "-Data.db";
    }

    /** {@code tiered/<keyspace>/<table>/<node>/}: where this node's tiered data files of the table go. */
    static String coldKeyPrefix(String keyspace, String table)
    {
        UUID host = StorageService.instance.getLocalHostUUID();
        String node = host != null ? host.toString()
                                   : FBUtilities.getBroadcastAddressAndPort().getHostAddressAndPort().replace(':', '_');
        return "tiered/" + keyspace + "/" + table + "/" + node + "/";
    }

    /**
     * {@link #toCold(ColumnFamilyStore, SSTableReader, String)}, calling {@code beforeSwap} (if not null) once the
     * object is uploaded and before the original is replaced, so a caller can durably record where the data went
     * (write-ahead) while the original Data.db still exists. If beforeSwap throws, nothing is switched, the object is
     * deleted and the exception propagates.
     */
    public SSTableReader toCold(ColumnFamilyStore cfs, SSTableReader orig, String storeName, BeforeSwap beforeSwap)
    throws IOException
    {
        ColdStore store = runtime.store(storeName).orElse(null);
        if (store == null)
            throw new IllegalArgumentException("storeName '" + storeName + "' is not a registered cold store");
        requireLocal(orig);
        long start = clock.nanoTime();
        try (SSTableHold held = acquire(cfs, orig))
        {
            LifecycleTransaction txn = held.txn();
            Path data = orig.descriptor.fileFor(Components.DATA).toPath();
            ChunkChecksums sums;
            try (FileChannel ch = FileChannel.open(data, StandardOpenOption.READ))
            {
                sums = ChunkChecksums.compute(ch, runtime.chunkSize());
            }
            Descriptor desc = cfs.newSSTableDescriptor(orig.descriptor.directory,
                                                       format().getVersion(orig.descriptor.version.version));
            String key = coldKey(desc);
            checkStop(held, orig);
            long stored = store.put(key, data).length();
            if (stored != sums.length())
                throw new IOException("cold object " + key + " has " + stored + " bytes, expected " + sums.length());
            SSTableReader fresh;
            try
            {
                checkStop(held, orig); // the upload may have been long: nothing is switched yet, the object goes
                if (beforeSwap != null)
                    beforeSwap.accept(data.toAbsolutePath().normalize(), storeName, key);
                fresh = swap(cfs, txn, orig, desc, TieredSidecar.cold(sums, storeName, key, true), null, null);
            }
            catch (IOException | RuntimeException e)
            {
                try
                {
                    store.delete(key); // nothing references it: the switch did not happen
                }
                catch (IOException | RuntimeException suppressed)
                {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
            logger.info("Tiered {} -> COLD {} as {} ({} bytes, {} chunks) in {} ms", orig.descriptor, key, desc,
                        sums.length(), sums.chunkCount(), TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - start));
            return fresh;
        }
    }

    /**
     * LOCAL -> DECODED: the SSTable's data component is member {@code self} of {@code stripe} (already encoded, its
     * parity and other members reachable through their locators); the local bytes are dropped and reads reconstruct
     * ranges from k other members. The local file is verified to have the member's length.
     */
    public SSTableReader toDecoded(ColumnFamilyStore cfs, SSTableReader orig, StripeLayout stripe, int self)
    throws IOException
    {
        requireLocal(orig);
        long start = clock.nanoTime();
        try (SSTableHold held = acquire(cfs, orig))
        {
            LifecycleTransaction txn = held.txn();
            Path data = orig.descriptor.fileFor(Components.DATA).toPath();
            ChunkChecksums sums;
            try (FileChannel ch = FileChannel.open(data, StandardOpenOption.READ))
            {
                sums = ChunkChecksums.compute(ch, runtime.chunkSize());
            }
            checkStop(held, orig);
            if (sums.length() != stripe.memberLength(self))
                throw new IllegalArgumentException("stripe member " + self + " has " + stripe.memberLength(self)
                                                   + " bytes but " + data + " has " + sums.length());
            Descriptor desc = cfs.newSSTableDescriptor(orig.descriptor.directory,
                                                       format().getVersion(orig.descriptor.version.version));
            SSTableReader fresh = swap(cfs, txn, orig, desc, TieredSidecar.decoded(sums, stripe, self), null, null);
            logger.info("Tiered {} -> DECODED member {} of stripe {} as {} ({} bytes) in {} ms", orig.descriptor, self,
                        stripe.codecId(), desc, sums.length(), TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - start));
            return fresh;
        }
    }

    /**
     * COLD/DECODED -> LOCAL (rehydrate): downloads (or reconstructs) the whole data component, verified chunk by
     * chunk, into a plain BIG SSTable that replaces the tiered one. An owned cold object is deleted with the tiered
     * SSTable, once no reader and no snapshot references it.
     */
    public SSTableReader rehydrate(ColumnFamilyStore cfs, SSTableReader tiered) throws IOException
    {
        return rehydrate(cfs, tiered, (id, data) -> {});
    }

    /** Told the new SSTable's id and data path once its files are in place and before it is opened and swapped in. */
    @FunctionalInterface
    public interface BeforeOpen
    {
        void accept(String id, Path data) throws IOException;
    }

    /** {@link #rehydrate(ColumnFamilyStore, SSTableReader)}, calling beforeOpen before the local SSTable goes live. */
    public SSTableReader rehydrate(ColumnFamilyStore cfs, SSTableReader tiered, BeforeOpen beforeOpen) throws IOException
    {
        if (!isTiered(tiered))
            throw new IllegalArgumentException("tiered must be an SSTable of format " + FORMAT_NAME + ": " + tiered);
        long start = clock.nanoTime();
        try (SSTableHold held = acquire(cfs, tiered))
        {
            LifecycleTransaction txn = held.txn();
            Version version = BigFormat.getInstance().getVersion(tiered.descriptor.version.version);
            Descriptor desc = cfs.newSSTableDescriptor(tiered.descriptor.directory, version);
            Path tmp = desc.fileFor(Components.DATA).toPath().resolveSibling(desc.fileFor(Components.DATA).name() + ".download");
            long length;
            try (ByteRangeSource source = openSource(tiered.descriptor);
                 FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                                                    StandardOpenOption.TRUNCATE_EXISTING))
            {
                length = source.length();
                ByteBuffer buf = ByteBuffer.allocate(1 << 20);
                for (long pos = 0; pos < length; )
                {
                    checkStop(held, tiered);
                    buf.clear().limit((int) Math.min(buf.capacity(), length - pos));
                    source.read(pos, buf);
                    buf.flip();
                    while (buf.hasRemaining())
                        pos += out.write(buf);
                }
                out.force(true);
            }
            SSTableReader fresh = swap(cfs, txn, tiered, desc, null, tmp, beforeOpen);
            logger.info("Rehydrated {} -> LOCAL {} ({} bytes) in {} ms", tiered.descriptor, desc, length,
                        TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - start));
            return fresh;
        }
    }

    /**
     * An IOException once Cassandra asked the operation holding r to stop (a maintenance operation of the table is
     * waiting for it): the caller's transaction aborts, nothing is switched, the tiering is retried later.
     */
    private static void checkStop(SSTableHold held, SSTableReader r) throws IOException
    {
        if (held.stopRequested())
            throw new IOException(r.descriptor + ": stopped by a maintenance operation of the table (compactions paused); retry later");
    }

    private static void requireLocal(SSTableReader orig)
    {
        if (isTiered(orig))
            throw new IllegalArgumentException(orig + " is already tiered; rehydrate it first");
        if (!BigFormat.is(orig.descriptor.version.format))
            throw new IllegalArgumentException("only BIG SSTables can be tiered, got " + orig.descriptor.version.format.name());
    }

    /**
     * The original, held against compaction; waits (up to 60 s) while a compaction holds it or the table's
     * compactions are paused (a major compaction, cleanup, ... waiting for holds to end: {@link SSTableHold}).
     */
    private SSTableHold acquire(ColumnFamilyStore cfs, SSTableReader orig) throws IOException
    {
        long deadline = clock.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true)
        {
            if (!cfs.getLiveSSTables().contains(orig))
                throw new IOException(orig + " is no longer live (compacted or already switched)");
            SSTableHold held = SSTableHold.tryAcquire(cfs, orig, OperationType.UNKNOWN);
            if (held != null)
                return held;
            if (clock.nanoTime() > deadline)
                throw new IOException(orig + " stayed busy (compacting) for 60 s");
            try
            {
                clock.sleep(50);
            }
            catch (InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for " + orig, e);
            }
        }
    }

    /**
     * Writes the replacement's components, opens it and swaps it for orig in txn. Exactly one of sidecar (tiered
     * replacement, placeholder Data.db) and dataFile (local replacement, moved into place) is non-null.
     */
    private static SSTableReader swap(ColumnFamilyStore cfs, LifecycleTransaction txn, SSTableReader orig, Descriptor desc,
                                      TieredSidecar sidecar, Path dataFile, BeforeOpen beforeOpen) throws IOException
    {
        Set<Component> components = new LinkedHashSet<>();
        try
        {
            for (Component c : orig.descriptor.discoverComponents())
            {
                if (c.equals(Components.DATA) || c.equals(Components.TOC) || c.name().equals(SIDECAR_NAME))
                    continue;
                Component target = Component.parse(c.name(), desc.version.format);
                Path from = orig.descriptor.fileFor(c).toPath(), to = desc.fileFor(target).toPath();
                if (c.equals(Components.STATS) || c.name().equals(BigFormat.Components.SUMMARY.name()))
                    Files.copy(from, to, StandardCopyOption.COPY_ATTRIBUTES);
                else
                    Files.createLink(to, from);
                components.add(target);
            }
            Path data = desc.fileFor(Components.DATA).toPath();
            if (sidecar != null)
            {
                Files.createFile(data); // the placeholder: keeps Data.db-based bookkeeping (creation time) working
                sidecar.write(sidecarPath(desc));
                components.add(sidecarComponent(desc));
            }
            else
            {
                Files.move(dataFile, data, StandardCopyOption.ATOMIC_MOVE);
            }
            components.add(Components.DATA);
            components.add(Components.TOC);
            TOCComponent.rewriteTOC(desc, components);
            if (beforeOpen != null)
                beforeOpen.accept(desc.id.toString(), data.toAbsolutePath());
        }
        catch (IOException | RuntimeException e)
        {
            deleteQuietly(desc, dataFile);
            throw e;
        }
        SSTableReader fresh;
        try
        {
            fresh = SSTableReader.open(cfs, desc);
        }
        catch (RuntimeException e)
        {
            deleteQuietly(desc, dataFile);
            throw new IOException("cannot open the replacement " + desc + " of " + orig, e);
        }
        txn.trackNew(fresh);
        txn.update(fresh, false);
        txn.obsoleteOriginals();
        txn.finish();
        return fresh;
    }

    private static void deleteQuietly(Descriptor desc, Path dataFile)
    {
        try
        {
            for (Component c : desc.discoverComponents())
                desc.fileFor(c).deleteIfExists();
            Files.deleteIfExists(sidecarPath(desc));
            if (dataFile != null)
                Files.deleteIfExists(dataFile);
        }
        catch (IOException | RuntimeException e)
        {
            logger.warn("Cannot clean up the partial replacement {}", desc, e);
        }
    }

    private static final String STREAM_MANAGER = "org.apache.cassandra.db.streaming.CassandraStreamManager";

    /**
     * Whether the current call comes from Cassandra's outgoing-stream planning ({@code CassandraStreamManager.
     * createOutgoingStreams}), which has no hook to leave an SSTable out: tiered readers then report no sections.
     * A stack walk, cheap next to planning a stream, and only done by tiered readers.
     */
    public static boolean askedByOutgoingStream()
    {
        return StackWalker.getInstance().walk(frames -> frames.limit(12).anyMatch(f -> f.getClassName().equals(STREAM_MANAGER)));
    }

    /** The live SSTable with this descriptor's id, if any (tests and tools). */
    public static Optional<SSTableReader> live(ColumnFamilyStore cfs, Descriptor desc)
    {
        for (SSTableReader r : cfs.getLiveSSTables())
            if (r.descriptor.equals(desc))
                return Optional.of(r);
        return Optional.empty();
    }

    static File dataFile(SSTableReader r)
    {
        return r.descriptor.fileFor(Components.DATA);
    }
}
