package io.elect.core.bridge;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

import io.elect.coding.ErasureCoder;
import io.elect.coding.ErasureCoders;
import io.elect.core.config.ColdTierStores;
import io.elect.core.stripes.ParityBuilder;
import io.elect.core.tiered.DecodedRangeSource;
import io.elect.core.tiered.LocatorMemberReader;
import io.elect.core.tiered.SourceCounters;
import io.elect.core.tiered.StripeLayout;
import io.elect.core.tiered.TieredChunkCache;
import io.elect.core.tiered.TieredSidecar;
import io.elect.core.transition.RemoteStripeParticipant;
import io.elect.core.transition.StripeRecord;
import io.elect.core.transition.wire.TransitionMessages.ComponentRef;
import io.elect.core.transition.wire.TransitionMessages.StripeStatus;
import io.elect.core.transition.wire.TransitionMessages.StripeStatusRequest;
import io.elect.core.transition.wire.TransitionMessages.StubRequest;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.core.transport.Peer;
import io.elect.core.transport.Verbs;
import io.elect.offload.ColdStore;

/**
 * The member-level work of a node rebuild and of {@code electtool verify}, and the STRIPE_STATUS verb that serves
 * it (docs/formats/verbs.md):
 * <ul>
 * <li>{@link #statusOf}: on any node, the stub it holds of a stripe member (layout, checksums, component files);</li>
 * <li>{@link #primary}: a data member this node held is decoded whole from k other members (verified chunk by chunk
 *     against the stub's checksums), installed as a LOCAL frozen SSTable under a new name with the stub's non-data
 *     components, and its old Data.db path redirected to the new file;</li>
 * <li>{@link #parity}: a parity member is re-marked cold if its object is in the cold tier, else regenerated.</li>
 * </ul>
 */
final class MemberRestore
{
    private static final Logger logger = LoggerFactory.getLogger(MemberRestore.class);
    /** Decoding window: whole checksum chunks, one reconstruction request per member per window. */
    static final int WINDOW = 1 << 20;
    /**
     * Deadline of one window's reconstruction during a rebuild or a verify: longer than a degraded read's
     * (a request waits on those), because a rebuild runs beside throttled streams and its peers may be busy.
     */
    static final long WINDOW_DEADLINE_MILLIS = 120_000;

    private final LocalTransitionOps ops;
    private final LongConsumer progress;
    private final java.util.function.Consumer<String> count;
    private final List<SSTableReader> restored = new CopyOnWriteArrayList<>();

    /** @param count told what happened per member ("primaries_restored", "parity_regenerated", ...) */
    MemberRestore(LocalTransitionOps ops, LongConsumer progress, java.util.function.Consumer<String> count)
    {
        this.ops = ops;
        this.progress = progress;
        this.count = count;
    }

    // ------------------------------------------------------------------ STRIPE_STATUS (served on every node)

    static StripeStatus statusOf(LocalTransitionOps ops, StripeStatusRequest req) throws IOException
    {
        ColumnFamilyStore cfs = ColumnFamilyStore.getIfExists(req.table().keyspace(), req.table().table());
        if (cfs == null)
            return new StripeStatus(null, null);
        String id = req.sstable().substring(req.sstable().indexOf('/') + 1);
        for (SSTableReader r : cfs.getLiveSSTables())
        {
            if (!TieredSSTables.isTiered(r) || !TieredSSTables.hasSidecar(r.descriptor))
                continue;
            TieredSidecar s = TieredSSTables.sidecar(r.descriptor);
            if (s.source() != TieredSidecar.Source.DECODED || s.self() != req.self())
                continue;
            String locator = s.stripe().locators().get(s.self());
            if (!locator.startsWith("node:"))
                continue;
            LocatorMemberReader.NodeLocator where = LocatorMemberReader.NodeLocator.parse(locator);
            if (!where.host().equals(req.dataNode()) || !Paths.get(where.path()).getFileName().toString().contains("-" + id + "-"))
                continue;
            List<ComponentRef> comps = new ArrayList<>();
            for (Component c : r.descriptor.discoverComponents())
            {
                if (c.equals(Components.DATA) || c.equals(Components.TOC) || c.name().equals(TieredSSTables.SIDECAR_NAME))
                    continue;
                Path p = r.descriptor.fileFor(c).toPath().toAbsolutePath();
                if (Files.exists(p))
                    comps.add(new ComponentRef(c.name(), RemoteStripeParticipant.nodeLocator(ops.self(), p.toString()), Files.size(p)));
            }
            StubRequest stub = new StubRequest(req.table(), req.sstable(), req.stripeId(), s.stripe(), s.self(), s.checksums(), comps);
            return new StripeStatus(stub, r.getFirst().getToken().toString());
        }
        return new StripeStatus(null, null);
    }

    /** The stub of member i of r held by some live node other than this one and the member's own node; null if none. */
    StripeStatus findStub(TableRef table, StripeRecord r, int i) throws IOException
    {
        String dataNode = r.members().get(i).node();
        StripeStatusRequest req = new StripeStatusRequest(table, r.id().toString(), dataNode, r.members().get(i).sstable(), i);
        IOException last = null;
        for (Peer peer : ElectPeerLiveness.livePeers(ops.self().port()))
        {
            if (peer.host().equals(ops.self().host()) || peer.host().equals(dataNode))
                continue;
            try
            {
                StripeStatus s = StripeStatus.decode(ops.transport().request(peer, Verbs.STRIPE_STATUS, req.encode()).get());
                if (s.stub() != null)
                    return s;
            }
            catch (InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            catch (ExecutionException e)
            {
                last = new IOException("STRIPE_STATUS to " + peer + ": " + e.getCause(), e.getCause());
            }
        }
        if (last != null)
            logger.warn("no stub of member {} of stripe {} found; last error: {}", i, r.id(), last.getMessage());
        return null;
    }

    // ------------------------------------------------------------------ primaries

    /** Rebuilds data member i of r (this node's) from k other members; idempotent through the redirect table. */
    void primary(TableRef table, StripeRecord r, int i) throws IOException
    {
        long start = System.nanoTime();
        StripeStatus status = findStub(table, r, i);
        if (status == null)
            throw new IOException("no live secondary holds a stub of member " + i + " of stripe " + r.id() + " (" + table
                                  + "): its index components cannot be restored");
        StubRequest stub = status.stub();
        StripeLayout layout = stub.layout();
        Path oldData = Paths.get(LocatorMemberReader.NodeLocator.parse(layout.locators().get(i)).path());
        ColumnFamilyStore cfs = LocalTransitionOps.cfs(table);
        Optional<String> already = ops.offload().redirects().lookup(oldData);
        if (already.isPresent() && already.get().startsWith("file:"))
            for (SSTableReader live : cfs.getLiveSSTables())
                if (live.descriptor.fileFor(Components.DATA).toPath().toAbsolutePath().toString().equals(already.get().substring(5)))
                {
                    restored.add(live);
                    progress.accept(layout.memberLength(i));
                    count.accept("primaries_already_restored");
                    return;
                }
        Path tmp = ElectStateDir.root().resolve("rebuild").resolve("tmp-" + r.id() + "-" + i);
        Files.createDirectories(tmp);
        try
        {
            Map<String, Path> files = new LinkedHashMap<>();
            for (ComponentRef c : stub.components())
            {
                Path dest = tmp.resolve(c.name());
                LocalTransitionOps.fetch(ops.nodes(), c.location(), c.length(), dest);
                files.put(c.name(), dest);
            }
            String version = Paths.get(LocatorMemberReader.NodeLocator.parse(stub.components().get(0).location()).path())
                                  .getFileName().toString().split("-")[0];
            Path data = tmp.resolve(Components.DATA.name());
            decode(layout, i, stub, data);
            SSTableReader installed = install(cfs, files, version, data, r.id().toString(), oldData);
            restored.add(installed);
            count.accept("primaries_restored");
            logger.info("rebuild: member {} of stripe {} ({}) decoded from k={} others and installed as {} ({} bytes, {} ms)",
                        i, r.id(), table, layout.k(), installed.descriptor, layout.memberLength(i),
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        }
        finally
        {
            LocalTransitionOps.deleteTree(tmp);
        }
    }

    /** Member i of layout, reconstructed window by window from k other members and verified, written to dest. */
    private void decode(StripeLayout layout, int i, StubRequest stub, Path dest) throws IOException
    {
        ErasureCoder coder = ErasureCoders.create(layout.k(), layout.m());
        DecodedRangeSource source = new DecodedRangeSource(layout, i, coder, ops.members(), stub.checksums(),
                                                           new TieredChunkCache(4L << 20), new SourceCounters(), false,
                                                           WINDOW_DEADLINE_MILLIS);
        long length = layout.memberLength(i);
        try (FileChannel out = FileChannel.open(dest, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE))
        {
            ByteBuffer buf = ByteBuffer.allocate(WINDOW);
            for (long pos = 0; pos < length; pos += WINDOW)
            {
                buf.clear().limit((int) Math.min(WINDOW, length - pos));
                source.read(pos, buf);
                buf.flip();
                while (buf.hasRemaining())
                    out.write(buf);
                progress.accept(Math.min(WINDOW, length - pos));
            }
            out.force(true);
        }
    }

    /**
     * Installs data + components as a new frozen LOCAL SSTable of cfs (big format), crash-safe the way stubs are
     * (registered NEW in a lifecycle transaction before its first file), frozen under the stripe's tag before it is
     * opened, with oldData redirected to its Data.db before it becomes live.
     */
    private SSTableReader install(ColumnFamilyStore cfs, Map<String, Path> files, String version, Path data, String stripeId,
                                  Path oldData) throws IOException
    {
        SSTableFormat<?, ?> big = DatabaseDescriptor.getSSTableFormats().get("big");
        Version v = big.getVersion(version);
        Descriptor desc = cfs.newSSTableDescriptor(cfs.getDirectories().getDirectoryForNewSSTables(), v);
        Map<Component, Path> sources = new LinkedHashMap<>();
        for (Map.Entry<String, Path> e : files.entrySet())
            sources.put(Component.parse(e.getKey(), big), e.getValue());
        sources.put(Components.DATA, data);
        Set<Component> all = new LinkedHashSet<>(sources.keySet());
        all.add(Components.TOC);
        LifecycleTransaction txn = cfs.getTracker().tryModify(Collections.emptyList(), OperationType.UNKNOWN);
        SSTableReader fresh = null;
        try
        {
            txn.trackNew(new SecondaryStubs.PendingSSTable(desc, all, cfs));
            for (Map.Entry<Component, Path> e : sources.entrySet())
                SecondaryStubs.copyDurably(e.getValue(), desc.fileFor(e.getKey()).toPath());
            TOCComponent.updateTOC(desc, all);
            SecondaryStubs.fsyncDirectory(desc.directory.toPath());
            FrozenSSTables.registerBeforeLoad(cfs, desc.id.toString(), stripeId);
            ops.offload().redirects().put(oldData, "file:" + desc.fileFor(Components.DATA).toPath().toAbsolutePath());
            fresh = SSTableReader.open(cfs, desc);
            txn.update(fresh, false);
            fresh = null;
            txn.finish();
        }
        catch (IOException | RuntimeException e)
        {
            if (fresh != null)
                fresh.selfRef().release();
            try
            {
                txn.abort();
            }
            catch (RuntimeException suppressed)
            {
                e.addSuppressed(suppressed);
            }
            throw e instanceof IOException ? (IOException) e : new IOException("cannot install the restored member as " + desc, e);
        }
        finally
        {
            txn.close();
        }
        return TieredSSTables.live(cfs, desc).orElseThrow(() -> new IOException(desc + " was installed but is not live"));
    }

    /** The primaries restored (or found restored) by this run, still live or not. */
    List<SSTableReader> restored()
    {
        return List.copyOf(restored);
    }

    // ------------------------------------------------------------------ parity

    /** Parity member j of r on this node: kept if intact, re-marked cold if its object exists, else regenerated. */
    void parity(TableRef table, StripeRecord r, int j) throws IOException
    {
        long start = System.nanoTime();
        Path dir = LocalTransitionOps.parityDir(table);
        String name = LocalTransitionOps.parityName(r.id().toString(), j);
        Path file = dir.resolve(name);
        if (ParityBuilder.verify(file).isPresent())
        {
            progress.accept(r.codeLength());
            count.accept("parity_intact");
            return;
        }
        StripeStatus status = null;
        for (int i = 0; i < r.k() && status == null; i++)
            if (!r.members().get(i).isVirtual())
                status = findStub(table, r, i);
        if (status == null)
            throw new IOException("no live node holds a stub of any member of stripe " + r.id() + " (" + table
                                  + "): its layout is unknown, parity " + j + " cannot be rebuilt");
        StripeLayout layout = status.stub().layout();
        String coldKey = LocalTransitionOps.coldParityKey(table, r.id().toString(), j);
        Optional<ColdStore> store = TieredSSTables.store(ColdTierStores.DEFAULT_STORE);
        if (store.isPresent() && store.get().exists(coldKey))
        {
            ColdOffload.writeColdMarker(ColdOffload.coldMarker(file), layout.stripeLength());
            progress.accept(r.codeLength());
            count.accept("parity_cold_marked");
            logger.info("rebuild: parity {} of stripe {} ({}) is in the cold tier ({}); marker restored", j, r.id(), table, coldKey);
            return;
        }
        ParityBuilder.ParityResult built = new ParityBuilder().build(layout, j, ops.members(), dir, name);
        progress.accept(r.codeLength());
        count.accept("parity_regenerated");
        logger.info("rebuild: parity {} of stripe {} ({}) regenerated from k={} data members: {} bytes ({} ms)", j, r.id(), table,
                    layout.k(), built.length(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }
}
