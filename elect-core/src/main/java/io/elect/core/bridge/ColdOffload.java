package io.elect.core.bridge;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.io.sstable.format.SSTableFormat.Components;
import org.apache.cassandra.io.sstable.format.SSTableReader;

import io.elect.core.config.ColdTierStores;
import io.elect.core.stripes.ParitySidecar;
import io.elect.core.stripes.RedirectTable;
import io.elect.core.tiered.ChunkChecksums;
import io.elect.core.tiered.LocatorMemberReader;
import io.elect.core.tiered.TieredSidecar;
import io.elect.core.transition.OffloadSelection;
import io.elect.core.transition.OffloadSelection.Item;
import io.elect.core.transition.wire.TransitionMessages.OffloadRequest;
import io.elect.core.transition.wire.TransitionMessages.OffloadResult;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.offload.ColdStore;

/**
 * Moving existing hot parity members and encoded primaries of this node to the cold tier (OFFLOAD_PARITY,
 * OFFLOAD_PRIMARY, docs/formats/verbs.md) without breaking the {@code node:} locators other nodes hold for them: the
 * READ_MEMBER fallback ({@link #read}) serves a moved file's old path from the cold tier.
 *
 * <ul>
 * <li>A parity member {@code parity/<ks>.<table>/<stripe>-p<j>.parity} moves to cold key
 * {@link LocalTransitionOps#coldParityKey}; its {@code .cold} marker (its length, written durably BEFORE the file is
 * deleted) is what tells the fallback, accounting and BUILD_PARITY/DROP_PARITY that it is in the cold tier.</li>
 * <li>An encoded primary (LOCAL, frozen with its stripe's tag) becomes a tiered COLD SSTable
 * ({@link TieredSSTables#toCold}); its old Data.db path is recorded in the node's {@link RedirectTable}
 * ({@code ElectStateDir.root()/redirects.txt}, docs/formats/redirects.md) before the switch.</li>
 * </ul>
 * Both handlers are idempotent and serialized (one offload at a time per node).
 */
final class ColdOffload
{
    private static final Logger logger = LoggerFactory.getLogger(ColdOffload.class);
    /** DO NOT CHANGE: the redirect table's file under {@link ElectStateDir#root()}. */
    static final String REDIRECTS_FILE = "redirects.txt";

    /** Held while a parity member changes tier or is dropped, so that a drop cannot interleave with an offload. */
    final Object parityLock = new Object();
    private final BiPredicate<TableRef, String> pinned;
    private RedirectTable redirects;

    /** @param pinned (table, SSTable id) -> whether the SSTable is pinned by an uncommitted stripe (not offloaded) */
    ColdOffload(BiPredicate<TableRef, String> pinned)
    {
        this.pinned = pinned;
    }

    /** The roots READ_MEMBER serves: every data directory and ELECT's state directory (parity members). */
    static List<Path> memberRoots()
    {
        List<Path> roots = new ArrayList<>();
        for (String dir : DatabaseDescriptor.getAllDataFileLocations())
            roots.add(Paths.get(dir).toAbsolutePath());
        roots.add(ElectStateDir.root());
        return roots;
    }

    /** Loaded on first use, so that a corrupt table fails the requests that need it rather than the node's start. */
    synchronized RedirectTable redirects() throws IOException
    {
        if (redirects == null)
            redirects = RedirectTable.open(ElectStateDir.root().resolve(REDIRECTS_FILE));
        return redirects;
    }

    private static ColdStore store() throws IOException
    {
        return TieredSSTables.store(ColdTierStores.DEFAULT_STORE)
                             .orElseThrow(() -> new IOException("offload needs the cold tier (elect.offload_enabled and elect.cold_tier): no store '"
                                                                + ColdTierStores.DEFAULT_STORE + "' registered"));
    }

    // ------------------------------------------------------------------ READ_MEMBER fallback

    /**
     * The {@link io.elect.core.stripes.MemberServer.Fallback}: a redirected path is read from its cold object; a
     * missing {@code parity/<ks>.<table>/<stripe>-p<j>.parity} whose {@code .cold} marker exists is read from its cold
     * key (range checked against the marker's length). Anything else: empty (refused as a missing file).
     */
    Optional<ByteBuffer> read(Path path, long offset, int length) throws IOException
    {
        Optional<String> target = redirects().lookup(path);
        // file: targets (a primary restored by a node rebuild under a new name) may themselves have moved on (to the
        // cold tier, by a later OFFLOAD_PRIMARY): follow a short chain.
        for (int hops = 0; target.isPresent() && target.get().startsWith("file:") && hops < 4; hops++)
        {
            Path local = Paths.get(target.get().substring("file:".length()));
            if (Files.exists(local))
                return Optional.of(readLocal(local, offset, length));
            target = redirects().lookup(local);
        }
        if (target.isPresent() && target.get().startsWith("file:"))
            throw new IOException(path + " is redirected to " + target.get() + ", which does not exist");
        if (target.isPresent())
        {
            String locator = target.get();
            String[] storeKey = RedirectTable.parseLocator(locator);
            ColdStore store = TieredSSTables.store(storeKey[0])
                                            .orElseThrow(() -> new IOException(path + " is redirected to " + locator
                                                                               + " but no such cold store is registered"));
            return Optional.of(store.read(storeKey[1], offset, length));
        }
        ParityName p = ParityName.parse(path);
        if (p == null || !Files.exists(p.marker()))
            return Optional.empty();
        long size = readColdMarker(p.marker());
        if (offset + length > size)
            throw new IOException("READ_MEMBER refused: range [" + offset + ", " + (offset + length) + ") is past the end of "
                                  + path + " (" + size + " bytes, in the cold tier)");
        return Optional.of(store().read(LocalTransitionOps.coldParityKey(p.table(), p.stripeId(), p.index()), offset, length));
    }

    /** Whether reads of path must go to its redirect even if a file exists there (see MemberServer.Fallback). */
    boolean overrides(Path path)
    {
        try
        {
            return redirects().lookup(path).isPresent();
        }
        catch (IOException e)
        {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static ByteBuffer readLocal(Path file, long offset, int length) throws IOException
    {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ))
        {
            if (offset + length > ch.size())
                throw new IOException("READ_MEMBER refused: range [" + offset + ", " + (offset + length) + ") is past the end of "
                                      + file + " (" + ch.size() + " bytes)");
            ByteBuffer out = ByteBuffer.allocate(length);
            while (out.hasRemaining())
                if (ch.read(out, offset + out.position()) < 0)
                    throw new IOException(file + " shrank while being read");
            return out.flip();
        }
    }

    /** A hot parity member file's identity, parsed from its path; null if the path is not one. */
    record ParityName(TableRef table, String stripeId, int index, Path file)
    {
        Path marker()
        {
            return coldMarker(file);
        }

        static ParityName parse(Path file)
        {
            Path dir = file.getParent();
            if (dir == null || dir.getParent() == null || !dir.getParent().equals(ElectStateDir.root().resolve("parity")))
                return null;
            String name = file.getFileName().toString(), table = dir.getFileName().toString();
            int dot = table.indexOf('.'), p = name.lastIndexOf("-p");
            if (!name.endsWith(".parity") || dot <= 0 || p <= 0)
                return null;
            try
            {
                int index = Integer.parseInt(name.substring(p + 2, name.length() - ".parity".length()));
                return new ParityName(new TableRef(table.substring(0, dot), table.substring(dot + 1)), name.substring(0, p), index, file);
            }
            catch (NumberFormatException e)
            {
                return null;
            }
        }
    }

    static Path coldMarker(Path parityFile)
    {
        String name = parityFile.getFileName().toString();
        return parityFile.resolveSibling(name.substring(0, name.length() - ".parity".length()) + ".cold");
    }

    static long readColdMarker(Path marker) throws IOException
    {
        return Long.parseLong(Files.readString(marker, StandardCharsets.US_ASCII).trim());
    }

    /** Writes the marker durably: temporary file, fsync, atomic rename (docs/design/transitioning.md). */
    static void writeColdMarker(Path marker, long length) throws IOException
    {
        Path tmp = marker.resolveSibling(marker.getFileName() + ".tmp");
        Files.writeString(tmp, length + "\n", StandardCharsets.US_ASCII);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE))
        {
            ch.force(true);
        }
        Files.move(tmp, marker, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel d = FileChannel.open(marker.getParent(), StandardOpenOption.READ))
        {
            d.force(true);
        }
        catch (IOException e)
        {
            // directory fsync unsupported here; the rename is still atomic
        }
    }

    // ------------------------------------------------------------------ OFFLOAD_PARITY

    /**
     * Moves this node's hot parity members of the table (at least minAge old), oldest first, until at least
     * {@code bytes} moved. Per member: verify it against its checksum sidecar (a mismatch is skipped with a WARN,
     * never uploaded), upload, write the {@code .cold} marker durably, delete the file and its sidecar. A crash
     * between any two steps is finished by the next request (the upload is of a write-once key with the same bytes;
     * a file whose marker exists is only deleted). Readers of the old path are served by the fallback once the file
     * is gone; a read that opened the file before keeps reading it.
     */
    synchronized OffloadResult offloadParity(OffloadRequest req) throws IOException
    {
        long start = System.nanoTime();
        Path dir = LocalTransitionOps.parityDir(req.table());
        List<Item> items = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.parity"))
        {
            for (Path f : ds)
                items.add(new Item(f.getFileName().toString(), Files.size(f), Files.getLastModifiedTime(f).toMillis()));
        }
        ColdStore store = store();
        long moved = 0;
        int n = 0;
        for (Item item : OffloadSelection.oldestFirst(items, req.bytes(), req.minAgeMillis(), System.currentTimeMillis()))
        {
            Path file = dir.resolve(item.id());
            ParityName p = ParityName.parse(file);
            if (p == null)
                continue;
            synchronized (parityLock)
            {
                if (!Files.exists(file))
                    continue; // dropped meanwhile
                String key = LocalTransitionOps.coldParityKey(p.table(), p.stripeId(), p.index());
                if (!Files.exists(p.marker()))
                {
                    if (!verified(file))
                        continue;
                    long stored = store.put(key, file).length();
                    if (stored != item.bytes())
                        throw new IOException("cold object " + key + " has " + stored + " bytes, expected " + item.bytes());
                    writeColdMarker(p.marker(), item.bytes());
                }
                Files.deleteIfExists(file);
                Files.deleteIfExists(ParitySidecar.of(file));
            }
            moved += item.bytes();
            n++;
        }
        logger.info("offloaded {} parity members of {} to the cold tier: {} bytes (asked {}, {} hot members) in {} ms", n,
                    req.table(), moved, req.bytes(), items.size(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        return new OffloadResult(moved, n);
    }

    /** True unless the file's checksum sidecar exists and disagrees with its bytes. */
    private static boolean verified(Path file) throws IOException
    {
        Path sidecar = ParitySidecar.of(file);
        if (!Files.exists(sidecar))
            return true;
        ChunkChecksums expected = ParitySidecar.read(sidecar).checksums();
        ChunkChecksums actual;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ))
        {
            actual = ChunkChecksums.compute(ch, expected.chunkSize());
        }
        if (actual.equals(expected))
            return true;
        logger.warn("parity member {} does not match its checksums {}: not offloaded", file, sidecar);
        return false;
    }

    // ------------------------------------------------------------------ OFFLOAD_PRIMARY

    /**
     * Converts this node's encoded primaries of the table (LOCAL SSTables frozen under a stripe's tag, not pinned by
     * an uncommitted stripe, Data.db at least minAge old), oldest first, until at least {@code bytes} moved, into
     * tiered COLD SSTables. The tiered SSTable is frozen by its format; it is also registered under the stripe's tag
     * so that the owner stays recorded (the old id's entry is garbage-collected by {@link FrozenSSTables}).
     *
     * <p>Write-ahead: the redirect old Data.db path -> cold object is made durable by toCold's hook after the upload
     * and BEFORE the swap, while the old Data.db still exists (the fallback is consulted only for missing files, so an
     * early redirect is never visible). Crash windows: (a) after the upload, before the redirect: an unreferenced
     * object is left behind (a leak, no harm to reads); (b) after the redirect, before the swap commits: the
     * SSTable stays LOCAL, the redirect names an object no live SSTable owns; the next request's {@link #gcRedirects}
     * deletes that object and the entry; (c) after the swap: the state is complete. No window leaves the old path
     * missing without a redirect.
     */
    synchronized OffloadResult offloadPrimary(OffloadRequest req) throws IOException
    {
        long start = System.nanoTime();
        ColumnFamilyStore cfs = LocalTransitionOps.cfs(req.table());
        store(); // fail early without a cold tier
        RedirectTable table = redirects();
        gcRedirects(cfs, table);
        Map<String, String> frozen = FrozenSSTables.frozen(cfs);
        Map<String, SSTableReader> byId = new LinkedHashMap<>();
        List<Item> items = new ArrayList<>();
        for (SSTableReader r : cfs.getLiveSSTables())
        {
            String id = r.descriptor.id.toString();
            if (TieredSSTables.isTiered(r) || !frozen.containsKey(id) || pinned.test(req.table(), id))
                continue;
            Path data = r.descriptor.fileFor(Components.DATA).toPath();
            try
            {
                items.add(new Item(id, Files.size(data), Files.getLastModifiedTime(data).toMillis()));
                byId.put(id, r);
            }
            catch (java.nio.file.NoSuchFileException e)
            {
                // obsoleted meanwhile
            }
        }
        long moved = 0;
        int n = 0;
        for (Item item : OffloadSelection.oldestFirst(items, req.bytes(), req.minAgeMillis(), System.currentTimeMillis()))
        {
            SSTableReader r = byId.get(item.id());
            String tag = frozen.get(item.id());
            long t0 = System.nanoTime();
            SSTableReader fresh = TieredSSTables.toCold(cfs, r, ColdTierStores.DEFAULT_STORE,
                                                        (old, store, key) -> table.put(old, LocatorMemberReader.cold(store, key)));
            FrozenSSTables.freeze(cfs, fresh, tag);
            moved += item.bytes();
            n++;
            logger.info("offloaded encoded primary {} of {} (stripe {}) to the cold tier as {}: {} bytes in {} ms", item.id(),
                        req.table(), tag, fresh.descriptor.id, item.bytes(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        }
        logger.info("offloaded {} encoded primaries of {}: {} bytes (asked {}, {} eligible) in {} ms", n, req.table(), moved,
                    req.bytes(), items.size(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        return new OffloadResult(moved, n);
    }

    /**
     * Drops the table's redirects to objects that no live tiered SSTable owns. If the old path still exists the
     * offload never switched (crash window (b)): the object is an orphan and is deleted. Otherwise the tiered SSTable
     * was rehydrated or deleted, and its object's fate is {@link TieredSSTables#beforeDelete}'s (a snapshot may
     * keep it): only the entry goes.
     */
    int gcRedirects(ColumnFamilyStore cfs, RedirectTable table) throws IOException
    {
        String prefix = LocatorMemberReader.cold(ColdTierStores.DEFAULT_STORE, "tiered/" + cfs.getKeyspaceName() + "/" + cfs.getTableName() + "/");
        Set<String> live = new HashSet<>();
        for (SSTableReader r : cfs.getLiveSSTables())
        {
            if (!TieredSSTables.isTiered(r))
                continue;
            TieredSidecar s = TieredSSTables.sidecar(r.descriptor);
            if (s.source() == TieredSidecar.Source.COLD)
                live.add(LocatorMemberReader.cold(s.coldStore(), s.coldKey()));
        }
        Set<Path> stale = new HashSet<>();
        for (Map.Entry<Path, String> e : table.entries().entrySet())
        {
            if (!e.getValue().startsWith(prefix) || live.contains(e.getValue()))
                continue;
            if (Files.exists(e.getKey()))
                store().delete(RedirectTable.parseLocator(e.getValue())[1]);
            stale.add(e.getKey());
        }
        int dropped = table.removeIf((path, target) -> stale.contains(path));
        if (dropped > 0)
            logger.info("redirects of {}.{}: dropped {} entries whose cold object no live SSTable owns", cfs.getKeyspaceName(),
                        cfs.getTableName(), dropped);
        return dropped;
    }
}
