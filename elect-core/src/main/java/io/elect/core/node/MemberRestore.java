package io.elect.core.node;

import io.elect.core.stripes.Member;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.config.ColdTierStores;
import io.elect.core.node.LocalTables.TableFile;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.stripes.ParityBuilder;
import io.elect.core.stripes.ParityFiles;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.tiered.DecodedRangeSource;
import io.elect.core.tiered.SourceCounters;
import io.elect.core.tiered.TieredChunkCache;
import io.elect.core.transition.RemoteStripeParticipant;
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
 *     against the stub's checksums), installed as a LOCAL frozen file under a new name with the stub's non-data
 *     components, and its old data path redirected to the new file;</li>
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
    private final NodeContext node;
    private final LongConsumer progress;
    private final Consumer<String> count;
    private final List<String> restored = new CopyOnWriteArrayList<>();

    /** @param count told what happened per member ("primaries_restored", "parity_regenerated", ...) */
    MemberRestore(LocalTransitionOps ops, LongConsumer progress, Consumer<String> count)
    {
        this.ops = ops;
        this.node = ops.node();
        this.progress = progress;
        this.count = count;
    }

    // ------------------------------------------------------------------ STRIPE_STATUS (served on every node)

    static StripeStatus statusOf(NodeContext node, StripeStatusRequest req) throws IOException
    {
        if (!node.tables().exists(req.table()))
            return StripeStatus.none();
        String id = req.sstable().substring(req.sstable().indexOf('/') + 1);
        for (TableFile f : node.tables().files(req.table()))
        {
            if (f.source() != LocalTables.Source.DECODED || f.sidecar().self() != req.self())
                continue;
            String locator = f.sidecar().stripe().locators().get(f.sidecar().self());
            if (!locator.startsWith(LocatorMemberReader.NODE))
                continue;
            LocatorMemberReader.NodeLocator where = LocatorMemberReader.NodeLocator.parse(locator);
            if (!where.host().equals(req.dataNode()) || !Paths.get(where.path()).getFileName().toString().contains("-" + id + "-"))
                continue;
            List<ComponentRef> comps = new ArrayList<>();
            for (LocalTables.ComponentFile c : node.tables().components(req.table(), f.id()))
                comps.add(new ComponentRef(c.name(), RemoteStripeParticipant.nodeLocator(node.selfPeer(),
                                                                                         c.path().toAbsolutePath().toString()),
                                           c.length()));
            StubRequest stub = new StubRequest(req.table(), req.sstable(), req.stripeId(), f.sidecar().stripe(), f.sidecar().self(),
                                               f.sidecar().checksums(), comps);
            return new StripeStatus(stub, f.firstToken(), f.lastToken());
        }
        return StripeStatus.none();
    }

    /** The stub of member i of r held by some live node other than this one and the member's own node; null if none. */
    StripeStatus findStub(TableRef table, StripeRecord r, int i) throws IOException
    {
        return findStub(table, r, i, r.members().get(i));
    }

    /** A live node's stub of {@code member} in slot {@code i} of r (e.g. the previous version of a slot in a change). */
    StripeStatus findStub(TableRef table, StripeRecord r, int i, io.elect.core.stripes.Member member) throws IOException
    {
        String dataNode = member.node();
        StripeStatusRequest req = new StripeStatusRequest(table, r.id().toString(), dataNode, member.sstable(), i);
        IOException last = null;
        for (String peer : node.ring().liveMembers())
        {
            if (peer.equals(node.self()) || peer.equals(dataNode))
                continue;
            try
            {
                StripeStatus s = StripeStatus.decode(node.transport().request(node.peer(peer), Verbs.STRIPE_STATUS, req.encode()).get());
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

    /**
     * Whether no ring node (other than this one and the member's own) holds a stub of member i of r: every one of them
     * must answer, a node that does not is an IOException (it may hold one). For a fill under way whose member was
     * lost with its node's disk before any of its stubs was installed: nothing was purged against it.
     */
    boolean noStubAnywhere(TableRef table, StripeRecord r, int i) throws IOException
    {
        io.elect.core.stripes.Member member = r.members().get(i);
        StripeStatusRequest req = new StripeStatusRequest(table, r.id().toString(), member.node(), member.sstable(), i);
        for (String peer : node.ring().members())
        {
            if (peer.equals(node.self()) || peer.equals(member.node()))
                continue;
            try
            {
                if (StripeStatus.decode(node.transport().request(node.peer(peer), Verbs.STRIPE_STATUS, req.encode()).get()).stub() != null)
                    return false;
            }
            catch (InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            catch (ExecutionException e)
            {
                throw new IOException("STRIPE_STATUS to " + peer + " (it may hold a stub of member " + i + " of stripe " + r.id() + "): "
                                      + e.getCause(), e.getCause());
            }
        }
        return true;
    }

    // ------------------------------------------------------------------ primaries

    /** Rebuilds data member i of r (this node's) from k other members; idempotent through the redirect table. */
    void primary(TableRef table, StripeRecord r, int i) throws IOException
    {
        primary(table, r, i, r.members().get(i));
    }

    /**
     * Rebuilds {@code member} in slot i of r (the slot's member, or the previous version of a replacement under way
     * whose next version cannot be restored) from k other members, through the layout of a stub of it.
     */
    void primary(TableRef table, StripeRecord r, int i, io.elect.core.stripes.Member member) throws IOException
    {
        long start = node.clock().nanoTime();
        StripeStatus status = findStub(table, r, i, member);
        if (status == null)
            throw new IOException("no live secondary holds a stub of member " + i + " of stripe " + r.id() + " (" + table
                                  + "): its index components cannot be restored");
        StubRequest stub = status.stub();
        StripeLayout layout = stub.layout();
        Path oldData = Paths.get(LocatorMemberReader.NodeLocator.parse(layout.locators().get(i)).path());
        // the member itself is live here (formed on this disk after it was replaced, while its rebuild was not done:
        // rounds go on); decoding it again would leave a second copy frozen under the stripe
        for (TableFile live : node.tables().files(table))
            if (!live.isStub() && live.dataPath().toAbsolutePath().equals(oldData.toAbsolutePath()))
            {
                restored.add(live.id());
                progress.accept(layout.memberLength(i));
                count.accept("primaries_live");
                return;
            }
        Optional<String> already = ops.offload().redirects().lookup(oldData);
        if (already.isPresent() && already.get().startsWith("file:"))
            for (TableFile live : node.tables().files(table))
                if (live.dataPath().toAbsolutePath().toString().equals(already.get().substring(5)))
                {
                    restored.add(live.id());
                    progress.accept(layout.memberLength(i));
                    count.accept("primaries_already_restored");
                    return;
                }
        // ... or live here and offloaded since (its data path redirected to its cold object): simulation seed 307, a
        // resumed rebuild decoded a second copy of a member offloaded between its attempts, and the next change of the
        // stripe found two files frozen under it on the node and could not tell which was the member
        if (already.isPresent() && already.get().startsWith(LocatorMemberReader.COLD))
            for (TableFile live : node.tables().files(table))
                if (live.source() == LocalTables.Source.COLD && r.id().toString().equals(live.frozenTag())
                    && already.get().equals(LocatorMemberReader.cold(live.sidecar().coldStore(), live.sidecar().coldKey())))
                {
                    restored.add(live.id());
                    progress.accept(layout.memberLength(i));
                    count.accept("primaries_live");
                    return;
                }
        Path tmp = node.stateDir().resolve("rebuild").resolve("tmp-" + r.id() + "-" + i);
        Files.createDirectories(tmp);
        try
        {
            Map<String, Path> files = new LinkedHashMap<>();
            for (ComponentRef c : stub.components())
            {
                Path dest = tmp.resolve(c.name());
                LocalTransitionOps.fetch(node.nodes(), c.location(), c.length(), dest);
                files.put(c.name(), dest);
            }
            String version = Paths.get(LocatorMemberReader.NodeLocator.parse(stub.components().get(0).location()).path())
                                  .getFileName().toString().split("-")[0];
            Path data = tmp.resolve("restored-data");
            decode(layout, i, stub, data);
            String installed = node.tables().installRestored(table, files, version, data, r.id().toString(),
                                                             (id, newData) -> ops.offload().redirects().put(oldData, "file:" + newData.toAbsolutePath()));
            restored.add(installed);
            count.accept("primaries_restored");
            logger.info("rebuild: member {} of stripe {} ({}) decoded from k={} others and installed as {} ({} bytes, {} ms)",
                        i, r.id(), table, layout.k(), installed, layout.memberLength(i), node.clock().millisSince(start));
        }
        finally
        {
            Futures.deleteTree(tmp);
        }
    }

    /** A source reconstructing member i from k OTHER members (never reading i itself), verified chunk by chunk. */
    DecodedRangeSource reconstruction(StripeLayout layout, int i, io.elect.core.stripes.ChunkChecksums sums)
    {
        return new DecodedRangeSource(layout, i, node.tiered().coders().get(layout.k(), layout.m()), node.tiered().members(),
                                      sums, new TieredChunkCache(4L << 20), new SourceCounters(), false,
                                      WINDOW_DEADLINE_MILLIS, node.tiered().decodeContext());
    }

    /** Member i of layout, reconstructed window by window from k other members and verified, written to dest. */
    private void decode(StripeLayout layout, int i, StubRequest stub, Path dest) throws IOException
    {
        DecodedRangeSource source = reconstruction(layout, i, stub.checksums());
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

    /** The ids of the primaries restored (or found restored) by this run, still live or not. */
    List<String> restored()
    {
        return List.copyOf(restored);
    }

    // ------------------------------------------------------------------ parity

    /**
     * Parity member j of r on this node: kept if intact, re-marked cold if its object exists, else regenerated from
     * the layout of a live stub. While a member change is in flight (CHANGING) the stubs may still be on the previous
     * generation g - 1 (STUB_RELAYOUT has not reached them): the generation regenerated is the one the stub's layout
     * describes (told apart by the changed slot's length), so a file of generation g never holds g - 1's content
     * (PARITY_CHANGE computes g from a regenerated g - 1, or keeps a g that matches the target plan).
     */
    void parity(TableRef table, StripeRecord r, int j) throws IOException
    {
        long start = node.clock().nanoTime();
        boolean changing = r.state() == io.elect.core.stripes.StripeState.CHANGING && r.change() != null;
        for (long g = r.parityGeneration(); g >= (changing ? r.parityGeneration() - 1 : r.parityGeneration()); g--)
            if (ParityBuilder.verify(node.parity().hot(table.keyspace(), table.table(), r.id().toString(), j, g)).isPresent())
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
        long generation = r.parityGeneration();
        if (changing && layout.memberLength(r.change().slot()) != r.members().get(r.change().slot()).realBytes())
            generation--; // the stub is still on the previous plan
        Path file = node.parity().hot(table.keyspace(), table.table(), r.id().toString(), j, generation);
        String coldKey = ParityFiles.coldKey(table.keyspace(), table.table(), r.id().toString(), j, generation);
        Optional<ColdStore> store = node.tiered().store(ColdTierStores.DEFAULT_STORE);
        Optional<io.elect.offload.ObjectInfo> cold = store.isPresent() ? store.get().head(coldKey) : Optional.empty();
        if (cold.isPresent())
        {
            // the object's own data length: a stub's layout may state a longer code length (the record's, rounded up
            // to the alignment) than the parity as built, and the marker is what recalls read up to
            ParityFiles.writeColdMarker(ParityFiles.coldMarker(file), cold.get().length());
            progress.accept(r.codeLength());
            count.accept("parity_cold_marked");
            logger.info("rebuild: parity {} of stripe {} ({}) is in the cold tier ({}); marker restored", j, r.id(), table, coldKey);
            return;
        }
        ParityBuilder.ParityResult built = new ParityBuilder(node.tiered().coders(), node.clock())
            .build(layout, j, decodingWhatIsUnreadable(table, r), file.getParent(), file.getFileName().toString());
        progress.accept(r.codeLength());
        count.accept("parity_regenerated");
        logger.info("rebuild: parity {} of stripe {} ({}) generation {} regenerated from k={} data members: {} bytes ({} ms)", j, r.id(),
                    table, generation, layout.k(), built.length(), node.clock().millisSince(start));
    }

    /**
     * Reads data members directly; a member that cannot be read (its node down, or gone from the ring after a
     * decommission) is reconstructed from k other chunks of the stripe with the checksums of one of its stubs. A parity
     * chunk is thus regenerated whenever the stripe decodes, not only when all k data members answer: with m = 2, a
     * parity node rebuilt while a data member's node is away (the simulation: a node decommissioned, then another's
     * disk lost before the departure repair ran) no longer waits for that node.
     */
    private io.elect.core.stripes.StripeMemberReader decodingWhatIsUnreadable(TableRef table, StripeRecord r)
    {
        io.elect.core.stripes.StripeMemberReader direct = node.tiered().members();
        Map<Integer, DecodedRangeSource> decoders = new java.util.HashMap<>();
        return (layout, i, offset, length) -> {
            try
            {
                return direct.read(layout, i, offset, length);
            }
            catch (IOException unreadable)
            {
                DecodedRangeSource d = decoders.get(i);
                if (d == null)
                {
                    StripeStatus stub = findStub(table, r, i);
                    if (stub == null)
                        throw unreadable;
                    d = reconstruction(stub.stub().layout(), i, stub.stub().checksums());
                    decoders.put(i, d);
                    logger.info("rebuild: member {} of stripe {} ({}) unreadable ({}); decoding it from k={} other chunks to regenerate parity",
                                i, r.id(), table, unreadable.getMessage(), layout.k());
                }
                ByteBuffer buf = ByteBuffer.allocate(length);
                d.read(offset, buf);
                buf.flip();
                return buf;
            }
        };
    }

    /** The transport endpoint of a node (all nodes use the same port). */
    Peer peer(String host)
    {
        return node.peer(host);
    }
}
