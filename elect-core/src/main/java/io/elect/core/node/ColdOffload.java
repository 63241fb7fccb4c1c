package io.elect.core.node;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiPredicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.config.ColdTierStores;
import io.elect.core.node.LocalTables.TableFile;
import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.stripes.ParityFiles;
import io.elect.core.stripes.ParitySidecar;
import io.elect.core.stripes.RedirectTable;
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
 * <li>A parity member ({@link ParityFiles}) moves to its cold key; its {@code .cold} marker (its length, written
 * durably BEFORE the file is deleted) is what tells the fallback, accounting and BUILD_PARITY/DROP_PARITY that it is
 * in the cold tier.</li>
 * <li>An encoded primary (LOCAL, frozen with its stripe's tag) becomes a COLD file ({@link LocalTables#toCold}); its
 * old data path is recorded in the node's {@link RedirectTable} ({@code <state>/redirects.txt},
 * docs/formats/redirects.md) before the switch.</li>
 * </ul>
 * Both handlers are idempotent and serialized (one offload at a time per node).
 */
final class ColdOffload
{
    private static final Logger logger = LoggerFactory.getLogger(ColdOffload.class);
    /** DO NOT CHANGE: the redirect table's file under the node's state directory. */
    static final String REDIRECTS_FILE = "redirects.txt";

    /** Held while a parity member changes tier or is dropped, so that a drop cannot interleave with an offload. */
    final Object parityLock = new Object();
    private final NodeContext node;
    private final BiPredicate<TableRef, String> pinned;
    private final java.util.function.ToDoubleBiFunction<TableRef, String> readRate;
    private RedirectTable redirects;

    /**
     * @param pinned   (table, file id) -> whether the file is pinned by an uncommitted stripe (not offloaded)
     * @param readRate (table, file id) -> the file's decayed read rate in reads/s (offload goes coldest first)
     */
    ColdOffload(NodeContext node, BiPredicate<TableRef, String> pinned, java.util.function.ToDoubleBiFunction<TableRef, String> readRate)
    {
        this.node = node;
        this.pinned = pinned;
        this.readRate = readRate;
    }

    /** Loaded on first use, so that a corrupt table fails the requests that need it rather than the node's start. */
    synchronized RedirectTable redirects() throws IOException
    {
        if (redirects == null)
            redirects = RedirectTable.open(node.stateDir().resolve(REDIRECTS_FILE));
        return redirects;
    }

    private ColdStore store() throws IOException
    {
        return node.tiered().store(ColdTierStores.DEFAULT_STORE)
                   .orElseThrow(() -> new IOException("offload needs the cold tier (elect.offload_enabled and elect.cold_tier): no store '"
                                                      + ColdTierStores.DEFAULT_STORE + "' registered"));
    }

    // ------------------------------------------------------------------ READ_MEMBER fallback

    /**
     * The {@link io.elect.core.stripes.MemberServer.Fallback}: a redirected path is read from its target; a missing
     * hot parity file whose {@code .cold} marker exists is read from its cold key (range checked against the marker's
     * length). Anything else: empty (refused as a missing file).
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
            ColdStore store = node.tiered().store(storeKey[0])
                                  .orElseThrow(() -> new IOException(path + " is redirected to " + locator
                                                                     + " but no such cold store is registered"));
            return Optional.of(store.read(storeKey[1], offset, length));
        }
        ParityFiles.Name p = node.parity().parse(path);
        if (p == null || !Files.exists(p.marker()))
            return Optional.empty();
        long size = ParityFiles.readColdMarker(p.marker());
        if (offset + length > size)
            throw new IOException("READ_MEMBER refused: range [" + offset + ", " + (offset + length) + ") is past the end of "
                                  + path + " (" + size + " bytes, in the cold tier)");
        return Optional.of(store().read(p.coldKey(), offset, length));
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
        long start = node.clock().nanoTime();
        Path dir = node.parity().dir(req.table().keyspace(), req.table().table());
        List<Item> items = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.parity"))
        {
            for (Path f : ds)
                items.add(new Item(f.getFileName().toString(), Files.size(f), Files.getLastModifiedTime(f).toMillis()));
        }
        ColdStore store = store();
        long moved = 0;
        int n = 0;
        for (Item item : OffloadSelection.oldestFirst(items, req.bytes(), req.minAgeMillis(), node.clock().millis()))
        {
            Path file = dir.resolve(item.id());
            ParityFiles.Name p = node.parity().parse(file);
            if (p == null)
                continue;
            synchronized (parityLock)
            {
                if (!Files.exists(file))
                    continue; // dropped meanwhile
                String key = p.coldKey();
                if (!Files.exists(p.marker()))
                {
                    if (!verified(file))
                        continue;
                    long stored = store.put(key, file).length();
                    if (stored != item.bytes())
                        throw new IOException("cold object " + key + " has " + stored + " bytes, expected " + item.bytes());
                    ParityFiles.writeColdMarker(p.marker(), item.bytes());
                }
                ParityFiles.deleteHot(file);
            }
            moved += item.bytes();
            n++;
        }
        node.metrics().counter("Transitioning", "ParityBytesOffloaded", null).inc(moved);
        logger.info("offloaded {} parity members of {} to the cold tier: {} bytes (asked {}, {} hot members) in {} ms", n,
                    req.table(), moved, req.bytes(), items.size(), node.clock().millisSince(start));
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
     * Converts this node's encoded primaries of the table (LOCAL files frozen under a stripe's tag, not pinned by an
     * uncommitted stripe, data at least minAge old), oldest first, until at least {@code bytes} moved, into COLD
     * files; each keeps its stripe's tag.
     *
     * <p>Write-ahead: the redirect old data path -> cold object is made durable after the upload and BEFORE the swap,
     * while the old data file still exists (the fallback is consulted only for missing files, so an early redirect is
     * never visible). Crash windows: (a) after the upload, before the redirect: an unreferenced object is left behind
     * (a leak, no harm to reads); (b) after the redirect, before the swap commits: the file stays LOCAL, the redirect
     * names an object no live file owns; the next request's {@link #gcRedirects} deletes that object and the entry;
     * (c) after the swap: the state is complete. No window leaves the old path missing without a redirect.
     */
    synchronized OffloadResult offloadPrimary(OffloadRequest req) throws IOException
    {
        long start = node.clock().nanoTime();
        store(); // fail early without a cold tier
        RedirectTable table = redirects();
        List<TableFile> live = node.tables().files(req.table());
        gcRedirects(req.table(), live, table);
        gcColdObjects(req.table());
        Map<String, TableFile> byId = new LinkedHashMap<>();
        List<Item> items = new ArrayList<>();
        for (TableFile f : live)
        {
            if (f.source() != LocalTables.Source.LOCAL || f.frozenTag() == null || pinned.test(req.table(), f.id())
                || !committed(f.frozenTag()))
                continue;
            items.add(new Item(f.id(), f.dataBytes(), f.dataMillis(), readRate.applyAsDouble(req.table(), f.id())));
            byId.put(f.id(), f);
        }
        long moved = 0;
        int n = 0;
        // coldest first; files read more often than cold_read_rate stay hot (recallHot would bring them back)
        for (Item item : OffloadSelection.coldestFirst(items, req.bytes(), req.minAgeMillis(), node.config().coldReadRate,
                                                       node.clock().millis()))
        {
            TableFile f = byId.get(item.id());
            long t0 = node.clock().nanoTime();
            String fresh = node.tables().toCold(req.table(), f.id(), ColdTierStores.DEFAULT_STORE,
                                                (old, store, key) -> table.put(old, LocatorMemberReader.cold(store, key)));
            moved += item.bytes();
            n++;
            logger.info("offloaded encoded primary {} of {} (stripe {}) to the cold tier as {}: {} bytes in {} ms", item.id(),
                        req.table(), f.frozenTag(), fresh, item.bytes(), node.clock().millisSince(t0));
        }
        node.metrics().counter("Transitioning", "PrimaryBytesOffloaded", null).inc(moved);
        logger.info("offloaded {} encoded primaries of {}: {} bytes (asked {}, {} eligible) in {} ms", n, req.table(), moved,
                    req.bytes(), items.size(), node.clock().millisSince(start));
        return new OffloadResult(moved, n);
    }

    /**
     * Brings offloaded encoded primaries that turned hot back to the hot tier (COLD -> LOCAL): a COLD file read more
     * than {@code cold_read_rate x hotness_hysteresis} times per second is rehydrated, keeping its stripe's tag; the
     * redirects that led peers' locators to its cold object now lead to the new local file, written before the COLD
     * file (and its object) go. The planner sees the hot bytes next round and offloads colder files if alpha asks.
     * Returns the number of files recalled.
     */
    synchronized int recallHot(TableRef t) throws IOException
    {
        double threshold = node.config().coldReadRate * node.config().hotnessHysteresis;
        int recalled = 0;
        for (TableFile f : node.tables().files(t))
        {
            if (f.source() != LocalTables.Source.COLD || f.frozenTag() == null)
                continue;
            double rate = readRate.applyAsDouble(t, f.id());
            if (rate <= threshold)
                continue;
            long start = node.clock().nanoTime();
            String locator = LocatorMemberReader.cold(f.sidecar().coldStore(), f.sidecar().coldKey());
            RedirectTable table = redirects();
            List<Path> paths = new ArrayList<>();
            for (Map.Entry<Path, String> e : table.entries().entrySet())
                if (e.getValue().equals(locator))
                    paths.add(e.getKey());
            String fresh = node.tables().rehydrate(t, f.id(), (id, data) -> {
                for (Path p : paths)
                    table.put(p, "file:" + data.toAbsolutePath());
            });
            recalled++;
            node.metrics().counter("Transitioning", "PrimaryBytesRecalled", null).inc(f.dataBytes());
            logger.info("recalled hot encoded primary {} of {} (stripe {}, {} reads/s > {}) from the cold tier as {}: {} bytes in {} ms",
                        f.id(), t, f.frozenTag(), String.format("%.3f", rate), threshold, fresh, f.dataBytes(), node.clock().millisSince(start));
        }
        return recalled;
    }

    /**
     * Deletes this node's tiered objects of the table that nothing references any more (under its own key prefix, not
     * referenced by a live COLD file, a snapshot or a backup, nor by a redirect whose old path still exists): the
     * objects of COLD files a lost disk held (their members are restored LOCAL by the rebuild), or left by a crash
     * after an upload. Serialized with {@link #offloadPrimary} (an object just uploaded is not yet referenced).
     * Returns how many objects it deleted.
     */
    synchronized int gcColdObjects(TableRef t) throws IOException
    {
        ColdStore store = node.tiered().store(ColdTierStores.DEFAULT_STORE).orElse(null);
        if (store == null || !node.tables().exists(t))
            return 0;
        long start = node.clock().nanoTime();
        java.util.Set<String> referenced = node.tables().referencedColdKeys(t);
        for (Map.Entry<Path, String> e : redirects().entries().entrySet())
            if (Files.exists(e.getKey()) && e.getValue().startsWith(LocatorMemberReader.COLD))
                referenced.add(RedirectTable.parseLocator(e.getValue())[1]);
        int deleted = 0;
        long bytes = 0;
        for (io.elect.offload.ObjectInfo o : store.list(node.tables().coldKeyPrefix(t)))
        {
            if (referenced.contains(o.key()))
                continue;
            store.delete(o.key());
            deleted++;
            bytes += o.length();
        }
        if (deleted > 0)
            logger.info("cold-tier garbage of {} on {}: {} objects no file references deleted, {} bytes ({} ms)", t, node.self(),
                        deleted, bytes, node.clock().millisSince(start));
        return deleted;
    }

    /**
     * Whether the stripe a file is frozen for is COMMITTED: a member of a stripe still in flight stays LOCAL (recovery
     * may need to pin it again, and a restart forgets which members are pinned).
     */
    private boolean committed(String tag)
    {
        try
        {
            return node.store().get(io.elect.core.stripes.StripeId.parse(tag))
                       .map(r -> r.state() == io.elect.core.stripes.StripeState.COMMITTED).orElse(false);
        }
        catch (IllegalArgumentException e)
        {
            return false; // not a stripe's tag
        }
    }

    /**
     * Drops the table's redirects to objects that no live COLD file owns. If the old path still exists the offload
     * never switched (crash window (b)): the object is an orphan and is deleted. Otherwise the COLD file was
     * rehydrated or deleted, and its object's fate is the storage engine's (a snapshot may keep it): only the entry
     * goes.
     */
    int gcRedirects(TableRef t, List<TableFile> live, RedirectTable table) throws IOException
    {
        String prefix = LocatorMemberReader.cold(ColdTierStores.DEFAULT_STORE, "tiered/" + t.keyspace() + "/" + t.table() + "/");
        Set<String> owned = new HashSet<>();
        for (TableFile f : live)
            if (f.source() == LocalTables.Source.COLD)
                owned.add(LocatorMemberReader.cold(f.sidecar().coldStore(), f.sidecar().coldKey()));
        Set<Path> stale = new HashSet<>();
        for (Map.Entry<Path, String> e : table.entries().entrySet())
        {
            if (!e.getValue().startsWith(prefix) || owned.contains(e.getValue()))
                continue;
            if (Files.exists(e.getKey()))
                store().delete(RedirectTable.parseLocator(e.getValue())[1]);
            stale.add(e.getKey());
        }
        int dropped = table.removeIf((path, target) -> stale.contains(path));
        if (dropped > 0)
            logger.info("redirects of {}: dropped {} entries whose cold object no live SSTable owns", t, dropped);
        return dropped;
    }
}
