package io.elect.core.node;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.coding.ErasureCoder;
import io.elect.core.config.ColdTierStores;
import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.CountingMemberReader;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.stripes.ParityBuilder;
import io.elect.core.stripes.ParityDeltaApplier;
import io.elect.core.stripes.ParityFiles;
import io.elect.core.stripes.ParitySidecar;
import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.stripes.StripeMemberReader;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.ParityUpdateCost;
import io.elect.core.transition.RemoteStripeParticipant;
import io.elect.core.transition.wire.ChangeMessages.ParityChangeRequest;
import io.elect.core.transition.wire.TransitionMessages.ParityInfo;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.offload.ColdStore;

/**
 * PARITY_CHANGE on a parity node (docs/design/updates.md item 4 and "Update policies and pushed deltas"; verb in
 * docs/formats/verbs.md): generation g + 1 of this node's parity chunk of a stripe whose one member changed, by the
 * member's difference (pushed by its node, or both versions) applied to generation g, or encoded afresh from the new
 * plan's members, per {@code elect.update_policy}; each way counted in the ParityMaintenance metrics. Idempotent: a
 * complete next generation already there is returned.
 */
final class ParityChanges
{
    private static final Logger logger = LoggerFactory.getLogger(ParityChanges.class);
    /** Suffix of a previous parity generation recalled from the cold tier to compute the next one (never offloaded). */
    static final String RECALLED_SUFFIX = ".recalled";

    private final NodeContext node;

    ParityChanges(NodeContext node)
    {
        this.node = node;
    }

    private StripeRecord record(String stripeId)
    {
        return node.store().get(StripeId.parse(stripeId))
                   .orElseThrow(() -> new IllegalStateException("stripe " + stripeId + " has no record"));
    }

    /**
     * PARITY_CHANGE: generation g + 1 of this node's parity member from generation g (local, or recalled from the
     * cold tier into a temporary file) and the changed member's two versions, as a new local file (offloading picks it
     * up later). Refused unless the stripe is CHANGING to exactly that generation; a complete file already there (a
     * retry) is returned as it is.
     */
    ParityInfo parityChange(ParityChangeRequest req) throws IOException
    {
        TableRef t = req.table();
        StripeRecord r = record(req.stripeId());
        long gen = req.toGeneration();
        Path file = node.parity().hot(t.keyspace(), t.table(), req.stripeId(), req.index(), gen);
        if (r.parityGeneration() == gen && r.state() != StripeState.CHANGING)
        {
            var done = ParityBuilder.verify(file);
            if (done.isPresent() || Files.exists(ParityFiles.coldMarker(file)))
                return new ParityInfo(RemoteStripeParticipant.nodeLocator(node.selfPeer(), file.toAbsolutePath().toString()), r.codeLength());
        }
        if (r.state() != StripeState.CHANGING || r.parityGeneration() != gen)
            throw new IllegalStateException("stripe " + req.stripeId() + " is " + r.state() + " at parity generation " + r.parityGeneration()
                                            + ": no parity generation " + gen + " built");
        // Already there: a retry, or a rebuild of this node regenerated it from the record's (target) plan.
        long[] target = req.previous().dataLengths();
        target[req.slot()] = req.removal() ? 0 : req.afterChecksums().length();
        var present = ParityBuilder.verify(file);
        if (present.isPresent() && java.util.Arrays.equals(ParitySidecar.read(ParitySidecar.of(file)).dataLengths(), target))
            return new ParityInfo(RemoteStripeParticipant.nodeLocator(node.selfPeer(), file.toAbsolutePath().toString()), present.get().length());
        long start = node.clock().nanoTime();
        CountingMemberReader reader = new CountingMemberReader(node.tiered().members(), RemoteStripeParticipant.nodeLocator(node.selfPeer(), "/"));
        Path old = node.parity().hot(t.keyspace(), t.table(), req.stripeId(), req.index(), gen - 1);
        if (r.changeReshapes())
            return reshape(req, r, old, file, start);
        // No previous version sent although the slot held a real one: it is unreadable (its node lost it). Applying the
        // next version alone would keep the previous one's contribution in the parity, so encode afresh. A fill (the
        // slot was virtual) sends none either, and there the difference is exactly the next version.
        if (req.beforeChecksums().length() == 0 && r.change().previous().realBytes() > 0)
            return reencode(req, old, start, reader, "encoded from the members other than " + req.slot() + " (its previous version is unreadable)");
        if (!Files.exists(old) && !Files.exists(ParityFiles.coldMarker(old)))
            return reencode(req, old, start, reader, "built here from its members (this node takes over the chunk)");
        // A parity move (a departure repair: another parity chunk goes to a new node, every member stays): the
        // members' difference is zero, so generation g + 1 is generation g's bytes; no member byte is read (DepartureIT
        // saw a 386 KB member read twice to compute an all-zero difference).
        if (r.changeKeepsMember())
            return copyPrevious(req, old, file, start, r.codecId(), r.k(), "Copied", "copied (its members are unchanged: a parity move)");
        String policy = node.config().updatePolicy;
        int gone = goneMember(req);
        if (gone >= 0 && !"delta".equals(policy))
            logger.info("parity {} of stripe {} ({}) generation {}: by delta whatever update_policy {} prefers (member {} is on a node that left the ring)",
                        req.index(), req.stripeId(), t, gen, policy, gone);
        else if ("reencode".equals(policy) || "auto".equals(policy) && autoReencodes(req, old))
            return reencode(req, old, start, reader, "encoded afresh from the members of the new plan (update_policy " + policy + ")");
        Path recalled = null;
        if (!Files.exists(old))
        {
            recalled = recall(t, req, old);
            old = recalled;
        }
        try
        {
            StripeLayout prev = req.previous();
            ErasureCoder coder = node.tiered().coders().get(prev.k(), prev.m());
            if (req.hasDelta() && !req.removal())
                return applyPushedDelta(req, coder, old, file, recalled, reader, start);
            ParityDeltaApplier.Version before = new ParityDeltaApplier.Version(
                verified(reader, prev, req.slot(), req.beforeChecksums()), req.beforeChecksums().length());
            ParityDeltaApplier.Version after = ParityDeltaApplier.Version.absent();
            if (!req.removal())
            {
                java.util.List<String> locators = new java.util.ArrayList<>(prev.locators());
                locators.set(req.slot(), req.afterLocator());
                long[] lengths = prev.dataLengths();
                lengths[req.slot()] = req.afterChecksums().length();
                StripeLayout next = new StripeLayout(prev.codecId(), prev.k(), prev.m(), lengths, prev.stripeLength(), locators);
                after = new ParityDeltaApplier.Version(verified(reader, next, req.slot(), req.afterChecksums()), req.afterChecksums().length());
            }
            long recalledBytes = recalled == null ? 0 : Files.size(recalled);
            long oldStored = Files.size(old);
            ParityBuilder.ParityResult built = new ParityDeltaApplier(node.clock()).apply(coder, req.slot(), old, before, after, file);
            account("ByTwoVersions", reader, oldStored, recalledBytes, built.stored(), changedBytes(req));
            logger.info("parity {} of stripe {} ({}) generation {} -> {} by delta: member {} {} ({} -> {} bytes), {} bytes written; "
                        + "member bytes read: {}; previous parity read: {} bytes ({} ms)",
                        req.index(), req.stripeId(), t, gen - 1, gen, req.slot(), req.removal() ? "removed" : "replaced",
                        before.length(), after.length(), built.stored(), reader, oldStored, node.clock().millisSince(start));
            return new ParityInfo(RemoteStripeParticipant.nodeLocator(node.selfPeer(), built.path().toAbsolutePath().toString()),
                                  built.length());
        }
        finally
        {
            if (recalled != null)
                ParityFiles.deleteHot(recalled);
        }
    }

    /**
     * A widening (issue 18): generation g + 1 is generation g's bytes under the record's wider codec and k (no member
     * byte is read). The previous generation is recalled first if it is offloaded; a node that never held it (it
     * replaces a parity node) encodes it from the members.
     */
    private ParityInfo reshape(ParityChangeRequest req, StripeRecord r, Path old, Path file, long start) throws IOException
    {
        if (!r.codecId().equals(io.elect.coding.CauchyMatrix.codecId(r.k(), r.m())))
            throw new IllegalStateException("stripe " + req.stripeId() + " widens to codec " + r.codecId() + ": only the Cauchy family widens by copying parity");
        if (!Files.exists(old) && !Files.exists(ParityFiles.coldMarker(old)))
            return reencode(req, old, start, new CountingMemberReader(node.tiered().members(), RemoteStripeParticipant.nodeLocator(node.selfPeer(), "/")),
                            "built here from its members (this node takes over the chunk)");
        return copyPrevious(req, old, file, start, r.codecId(), r.k(), "Widened", "widened to k=" + r.k() + " (" + r.codecId() + ")");
    }

    /**
     * Generation g + 1 as a verified copy of generation g (recalled first if offloaded) under {@code codecId} and
     * {@code k}: a widening (wider codec) or a parity move (same codec). Counted in ParityMaintenance.{@code counter}.
     */
    private ParityInfo copyPrevious(ParityChangeRequest req, Path old, Path file, long start, String codecId, int k, String counter,
                                    String what) throws IOException
    {
        Path recalled = Files.exists(old) ? null : recall(req.table(), req, old);
        try
        {
            ParityBuilder.ParityResult built = new ParityDeltaApplier(node.clock()).reshape(recalled != null ? recalled : old, codecId, k, file);
            account(counter, new CountingMemberReader(node.tiered().members(), "/"), built.stored(), recalled == null ? 0 : built.stored(), built.stored(), 0);
            logger.info("parity {} of stripe {} ({}) generation {} -> {}: {}, {} bytes copied ({} ms)", req.index(), req.stripeId(),
                        req.table(), req.toGeneration() - 1, req.toGeneration(), what, built.stored(), node.clock().millisSince(start));
            return new ParityInfo(RemoteStripeParticipant.nodeLocator(node.selfPeer(), built.path().toAbsolutePath().toString()), built.length());
        }
        finally
        {
            if (recalled != null)
                ParityFiles.deleteHot(recalled);
        }
    }

    /** update_policy auto: whether re-encoding brings fewer bytes to this node than the delta ({@link ParityUpdateCost}). */
    private static boolean autoReencodes(ParityChangeRequest req, Path old) throws IOException
    {
        long[] next = req.previous().dataLengths();
        next[req.slot()] = req.removal() ? 0 : req.afterChecksums().length();
        long deltaBytes = req.hasDelta() ? req.deltaChecksums().length()
                                         : req.beforeChecksums().length() + (req.removal() ? 0 : req.afterChecksums().length());
        boolean cold = !Files.exists(old); // the caller checked that it is here or in the cold tier
        long code = cold ? ParityFiles.readColdMarker(ParityFiles.coldMarker(old)) : 0;
        return ParityUpdateCost.choose(next, deltaBytes, cold, code) == ParityUpdateCost.Way.REENCODE;
    }

    /**
     * The next generation from the member node's difference of the two versions (MEMBER_DELTA): one stream read,
     * each chunk verified against the difference's checksums.
     */
    private ParityInfo applyPushedDelta(ParityChangeRequest req, ErasureCoder coder, Path old, Path file, Path recalled,
                                        CountingMemberReader reader, long start) throws IOException
    {
        StripeLayout prev = req.previous();
        java.util.List<String> locators = new java.util.ArrayList<>(prev.locators());
        locators.set(req.slot(), req.deltaLocator());
        long[] lengths = prev.dataLengths();
        lengths[req.slot()] = req.deltaChecksums().length();
        StripeLayout viaDelta = new StripeLayout(prev.codecId(), prev.k(), prev.m(), lengths, prev.stripeLength(), locators);
        ParityDeltaApplier.Version delta = new ParityDeltaApplier.Version(verified(reader, viaDelta, req.slot(), req.deltaChecksums()),
                                                                          req.deltaChecksums().length());
        long recalledBytes = recalled == null ? 0 : Files.size(recalled);
        long oldStored = Files.size(old);
        ParityBuilder.ParityResult built = new ParityDeltaApplier(node.clock())
            .applyDelta(coder, req.slot(), old, req.beforeChecksums().length(), req.afterChecksums().length(), delta, file);
        account("ByPushedDelta", reader, oldStored, recalledBytes, built.stored(), changedBytes(req));
        logger.info("parity {} of stripe {} ({}) generation {} -> {} by the member node's delta: member {} replaced ({} -> {} bytes), "
                    + "{} bytes written; member bytes read: {}; previous parity read: {} bytes ({} ms)", req.index(), req.stripeId(), req.table(),
                    req.toGeneration() - 1, req.toGeneration(), req.slot(), req.beforeChecksums().length(), req.afterChecksums().length(),
                    built.stored(), reader, oldStored, node.clock().millisSince(start));
        return new ParityInfo(RemoteStripeParticipant.nodeLocator(node.selfPeer(), built.path().toAbsolutePath().toString()), built.length());
    }

    /**
     * The next generation encoded from the members of the new plan (the request's layout with the slot's next version,
     * or a zero chunk for a removal) at the previous generation's length (the code length the stubs' layouts keep):
     * update_policy reencode (or auto's choice), a removal whose previous member cannot be read (its node lost it), and
     * a chunk this node never held (it replaces a parity node that left the ring, issue 18: then at the record's code
     * length, which may exceed the other chunks' by its rounding: space, not correctness).
     */
    /** The first member other than the changed slot whose node left the ring ({@code gone:} locator), or -1. */
    static int goneMember(ParityChangeRequest req)
    {
        java.util.List<String> locators = req.previous().locators();
        for (int i = 0; i < req.previous().k(); i++)
            if (i != req.slot() && LocatorMemberReader.isGone(locators.get(i)))
                return i;
        return -1;
    }

    private ParityInfo reencode(ParityChangeRequest req, Path old, long start, CountingMemberReader reader, String how) throws IOException
    {
        int gone = goneMember(req);
        if (gone >= 0)
            throw new IllegalStateException("parity " + req.index() + " generation " + req.toGeneration() + " of stripe " + req.stripeId() + " would be "
                                            + how + ", but member " + gone + " is on a node that left the ring ("
                                            + req.previous().locators().get(gone) + "): it waits for a readable previous generation");
        long length;
        if (Files.exists(old))
            length = ParitySidecar.read(ParitySidecar.of(old)).codeLength();
        else if (Files.exists(ParityFiles.coldMarker(old))) // the object holds its stored bytes; the layout the code length
            length = Math.max(ParityFiles.readColdMarker(ParityFiles.coldMarker(old)), req.previous().stripeLength());
        else // this node replaces a parity node that left the ring: the layout's code length is what the stubs keep
            length = req.previous().stripeLength();
        if (!req.removal())
            length = Math.max(length, req.afterChecksums().length()); // a longer new member grows the code (issue 18)
        StripeLayout prev = req.previous();
        java.util.List<String> locators = new java.util.ArrayList<>(prev.locators());
        locators.set(req.slot(), req.removal() ? LocatorMemberReader.zero() : req.afterLocator());
        long[] lengths = prev.dataLengths();
        lengths[req.slot()] = req.removal() ? 0 : req.afterChecksums().length();
        StripeLayout target = new StripeLayout(prev.codecId(), prev.k(), prev.m(), lengths, length, locators);
        Path file = node.parity().hot(req.table().keyspace(), req.table().table(), req.stripeId(), req.index(), req.toGeneration());
        ParityBuilder.ParityResult built = new ParityBuilder(node.tiered().coders(), node.clock())
            .build(target, req.index(), reader, file.getParent(), file.getFileName().toString());
        account("Reencoded", reader, 0, 0, built.stored(), changedBytes(req));
        logger.info("parity {} of stripe {} ({}) generation {} {}: {} bytes written (code length {}); member bytes read: {} ({} ms)", req.index(),
                    req.stripeId(), req.table(), req.toGeneration(), how, built.stored(), built.length(), reader, node.clock().millisSince(start));
        return new ParityInfo(RemoteStripeParticipant.nodeLocator(node.selfPeer(), built.path().toAbsolutePath().toString()), built.length());
    }

    /** Downloads an offloaded previous generation beside its hot path, with a sidecar that checks it while it is read. */
    private Path recall(TableRef t, ParityChangeRequest req, Path hot) throws IOException
    {
        if (!Files.exists(ParityFiles.coldMarker(hot)))
            throw new IllegalStateException("parity " + req.index() + " generation " + (req.toGeneration() - 1) + " of stripe "
                                            + req.stripeId() + " is neither on " + node.self() + " nor in the cold tier");
        ColdStore store = node.tiered().store(ColdTierStores.DEFAULT_STORE)
                              .orElseThrow(() -> new IllegalStateException("parity " + hot + " is offloaded but no cold store is registered"));
        String key = ParityFiles.coldKey(t.keyspace(), t.table(), req.stripeId(), req.index(), req.toGeneration() - 1);
        long length = ParityFiles.readColdMarker(ParityFiles.coldMarker(hot));
        Path out = hot.resolveSibling(hot.getFileName() + RECALLED_SUFFIX);
        try (FileChannel ch = FileChannel.open(out, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE))
        {
            int window = 1 << 20;
            for (long off = 0; off < length; off += window)
            {
                ByteBuffer b = store.read(key, off, (int) Math.min(window, length - off));
                while (b.hasRemaining())
                    ch.write(b);
            }
            ch.force(true);
        }
        ChunkChecksums sums;
        try (FileChannel ch = FileChannel.open(out, StandardOpenOption.READ))
        {
            sums = ChunkChecksums.compute(ch, ChunkChecksums.DEFAULT_CHUNK_SIZE);
        }
        StripeLayout prev = req.previous();
        // the object holds the stored bytes (zeros past them): the code length is the layout's
        new ParitySidecar(prev.codecId(), prev.k(), prev.m(), req.index(), prev.dataLengths(), sums,
                          Math.max(sums.length(), prev.stripeLength())).write(out);
        logger.info("parity {} generation {} of stripe {} recalled from the cold tier ({} bytes) to compute generation {}",
                    req.index(), req.toGeneration() - 1, req.stripeId(), length, req.toGeneration());
        return out;
    }

    /**
     * Parity maintenance's cost in the node's metrics (group ParityMaintenance; what scripts/bench updates reports):
     * member bytes fetched from other nodes, from the cold tier and locally, previous-generation parity bytes read
     * ({@code parityRead}; {@code parityRecalled} of them were first downloaded from the cold tier: ParityBytesRecalled)
     * and parity bytes written; and how
     * the generation was computed ({@code how}: ByTwoVersions, ByPushedDelta, Reencoded, Widened or Copied, one count
     * each). {@code changed} (ChangedMemberBytes) is the size of the member change the generation absorbs: the longer of
     * the changed member's two versions (0 when no member changed: a widening or a parity move), so that runs whose
     * merges differ compare per changed byte, not per change.
     */
    private void account(String how, CountingMemberReader reader, long parityRead, long parityRecalled, long written, long changed)
    {
        node.metrics().counter("ParityMaintenance", "ChangedMemberBytes", null).inc(changed);
        node.metrics().counter("ParityMaintenance", how, null).inc();
        node.metrics().counter("ParityMaintenance", "MemberBytesFromNodes", null).inc(reader.network.sum());
        node.metrics().counter("ParityMaintenance", "MemberBytesFromColdTier", null).inc(reader.cold.sum());
        node.metrics().counter("ParityMaintenance", "ParityBytesRecalled", null).inc(parityRecalled);
        node.metrics().counter("ParityMaintenance", "MemberBytesLocal", null).inc(reader.local.sum());
        node.metrics().counter("ParityMaintenance", "ParityBytesRead", null).inc(parityRead);
        node.metrics().counter("ParityMaintenance", "ParityBytesWritten", null).inc(written);
        node.metrics().counter("ParityMaintenance", "Changes", null).inc();
    }

    /**
     * The longer of the changed member's two versions (a removal's next version is empty); 0 when the member did not
     * change (the same bytes before and after: a parity node taking over a chunk or a reshape that re-encodes).
     */
    private static long changedBytes(ParityChangeRequest req)
    {
        if (!req.removal() && req.beforeChecksums().equals(req.afterChecksums()))
            return 0;
        return Math.max(req.beforeChecksums().length(), req.removal() ? 0 : req.afterChecksums().length());
    }

    /** Member {@code slot}'s bytes through its locator, each covering chunk verified against {@code sums}. */
    private ParityDeltaApplier.Bytes verified(StripeMemberReader reader, StripeLayout layout, int slot, ChunkChecksums sums)
    {
        String what = "member " + slot + " (" + layout.locators().get(slot) + ")";
        return (offset, length) -> {
            int cs = sums.chunkSize();
            long from = offset / cs * cs;
            long to = Math.min(sums.length(), (offset + length + cs - 1) / cs * cs);
            ByteBuffer got = reader.read(layout, slot, from, (int) (to - from));
            if (got.remaining() != to - from)
                throw new IOException(what + " returned " + got.remaining() + " of " + (to - from) + " bytes");
            for (long c = from; c < to; c += cs)
                sums.verify(what, (int) (c / cs), got.duplicate().position((int) (c - from)).limit((int) Math.min(to - from, c - from + cs)));
            return got.duplicate().position((int) (offset - from)).limit((int) (offset - from + length)).slice();
        };
    }
}
