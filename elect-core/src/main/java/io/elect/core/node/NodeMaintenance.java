package io.elect.core.node;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.node.LocalTables.TableFile;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.wire.TransitionMessages.TableRef;

/**
 * The node's periodic maintenance, one pass per transition interval on the maintenance thread
 * ({@link LocalTransitionOps#maintain}): installs stubs a ring change made this node need ({@link StubCoverage}),
 * re-purges new files against the stubs, removes stubs whose stripe rolled back
 * or is gone, runs the retire step's exact shadow checks, recalls offloaded primaries that turned hot, and collects
 * the cold tier's garbage (at most every {@value #COLD_GC_INTERVAL_MILLIS} ms per table). Each part logs and skips a
 * table it cannot handle now; the next pass retries. Not thread-safe: one pass at a time (the maintenance thread).
 */
final class NodeMaintenance
{
    private static final Logger logger = LoggerFactory.getLogger(NodeMaintenance.class);

    private final NodeContext node;
    private final LocalTransitionOps ops;
    private final ColdOffload offload;
    private final MergeMarkers merges;
    /** Per stub (table/id): files already purged against it (in memory: a restart re-examines each once). */
    private final Map<String, Set<String>> examined = new ConcurrentHashMap<>();

    NodeMaintenance(NodeContext node, LocalTransitionOps ops, ColdOffload offload, MergeMarkers merges)
    {
        this.node = node;
        this.ops = ops;
        this.offload = offload;
        this.merges = merges;
    }

    /**
     * Purges, against every stub of every ELECT table, the files that appeared since its last purge (flushes and
     * compactions after the stub was installed may hold row versions the stub shadows: writes that were still in a
     * memtable at install time, or compaction outputs mixing purged and unpurged data). Each file is examined once per
     * stub; files busy in a compaction are retried next time.
     */
    void run()
    {
        ops.coverStubs(); // before the re-purge: a stub it installs purges the copies it shadows in this pass
        Set<String> liveStubs = new HashSet<>();
        java.util.Map<String, StripeState> states = new java.util.HashMap<>();
        for (TableRef t : node.tables().electTables())
        {
            if (!node.tables().exists(t))
                continue;
            List<TableFile> live;
            try
            {
                live = node.tables().files(t);
            }
            catch (IOException | RuntimeException e)
            {
                logger.warn("re-purge of {}: cannot list its files (retried next time): {}", t, e.toString());
                continue;
            }
            for (TableFile stub : live)
            {
                if (!stub.isStub())
                    continue;
                if (stub.frozenTag() != null && (danglingStub(t, stub, states) || strayStub(t, stub, states)))
                    continue;
                if (!ops.purgeAllowed(stub, states))
                    continue;
                String key = t + "/" + stub.id();
                liveStubs.add(key);
                Set<String> seen = examined.computeIfAbsent(key, x -> ConcurrentHashMap.newKeySet());
                boolean anyNew = false;
                for (TableFile f : live)
                    anyNew |= !f.frozen() && !seen.contains(f.id());
                if (!anyNew)
                    continue;
                try
                {
                    LocalTables.PurgeResult st = node.tables().purge(t, List.of(stub.id()), id -> !seen.contains(id));
                    Set<String> busy = new HashSet<>(st.busy());
                    for (TableFile f : live)
                        if (!f.frozen() && !busy.contains(f.id()))
                            seen.add(f.id());
                    if (st.rewritten() > 0)
                        logger.info("re-purge of {} against stub {}: {} SSTables rewritten, {} -> {} bytes ({} ms)", t,
                                    stub.id(), st.rewritten(), st.bytesBefore(), st.bytesAfter(), st.millis());
                }
                catch (IOException | RuntimeException e)
                {
                    logger.warn("re-purge of {} against stub {} failed (retried next time): {}", t, stub.id(), e.toString());
                }
            }
        }
        examined.keySet().retainAll(liveStubs);
        dropUnusedMerges();
        dropStaleDeltas();
        dropMovedParity();
        scanShadows();
        recallHot();
        collectColdGarbage();
    }

    /**
     * Settles the next versions MERGE_MEMBER wrote ({@link MergeMarkers}): forgotten once a record names it (the
     * change went through) or it is gone; deleted when its stripe is COMMITTED without naming it and it was written
     * more than {@value #UNUSED_MERGE_MILLIS} ms ago (the coordinator records the change right after the answer; a
     * younger one may be about to be named; an older one never will be: the member it replaces is what the record
     * names). It holds a subset of its member's versions, so deleting it changes no read.
     */
    private void dropUnusedMerges()
    {
        for (MergeMarkers.Marker m : merges.all())
        {
            try
            {
                StripeState state = ops.stripeStateOrGone(m.stripe());
                io.elect.core.stripes.StripeRecord r = state == null ? null
                                                     : node.store().get(io.elect.core.stripes.StripeId.parse(m.stripe())).orElse(null);
                String name = io.elect.core.transition.RemoteStripeParticipant.memberName(m.table(), m.next());
                boolean live = node.tables().exists(m.table()) && node.tables().files(m.table()).stream().anyMatch(f -> f.id().equals(m.next()));
                if (!live || r == null || r.members().stream().anyMatch(x -> name.equals(x.sstable()) && node.self().equals(x.node())))
                {
                    merges.remove(m); // gone, its stripe gone (retired: every file of it deleted), or named
                    continue;
                }
                if (state != StripeState.COMMITTED || node.clock().millis() - m.writtenMillis() < UNUSED_MERGE_MILLIS)
                    continue;
                node.tables().retire(m.table(), m.next(), m.stripe());
                merges.remove(m);
                logger.info("unused next version {} of member {} of stripe {} ({}) deleted: no change recorded it", m.next(), m.member(),
                            m.stripe(), m.table());
            }
            catch (IOException | RuntimeException e)
            {
                logger.warn("cleanup of the unused next version {} of stripe {} failed (retried next time): {}", m.next(), m.stripe(), e.toString());
            }
        }
    }

    /**
     * Parity files (hot, or the marker of an offloaded one) of COMMITTED stripes that the record no longer places here:
     * an older generation, or this generation at an index another node holds. A parity move takes a chunk to another
     * node (a drain before leaving, docs/design/topology.md), and the change's end drops the previous generation only
     * on the stripe's current parity nodes; the moved-from node keeps its file otherwise (the simulation flagged them as
     * orphans on a drained node). Only COMMITTED records count: while a change runs, the previous generation is still
     * read (a move copies it), and a record lists a new generation before any file of it exists. The cold object of a
     * moved generation was dropped by the change's end (cold keys name the stripe, index and generation, not the node).
     */
    private void dropMovedParity()
    {
        if (!node.store().ready())
            return;
        Map<String, io.elect.core.stripes.StripeRecord> records = null;
        for (TableRef t : node.tables().electTables())
        {
            java.nio.file.Path dir;
            List<java.nio.file.Path> files;
            try
            {
                dir = node.parity().dir(t.keyspace(), t.table());
                if (!java.nio.file.Files.isDirectory(dir))
                    continue;
                try (java.util.stream.Stream<java.nio.file.Path> list = java.nio.file.Files.list(dir))
                {
                    files = list.toList();
                }
            }
            catch (IOException e)
            {
                logger.warn("parity files of {} not listed for cleanup (retried next time): {}", t, e.toString());
                continue;
            }
            for (java.nio.file.Path f : files)
            {
                String name = f.getFileName().toString();
                java.nio.file.Path hot = name.endsWith(".cold") ? f.resolveSibling(name.substring(0, name.length() - ".cold".length()) + ".parity") : f;
                io.elect.core.stripes.ParityFiles.Name pn = node.parity().parse(hot);
                if (pn == null)
                    continue;
                try
                {
                    if (records == null)
                    {
                        // one listing per pass, only once a parity file is there (not a linearizable read per file)
                        records = new java.util.HashMap<>();
                        for (io.elect.core.stripes.StripeRecord x : node.store().list())
                            records.put(x.id().toString(), x);
                    }
                    io.elect.core.stripes.StripeRecord r = records.get(pn.stripeId());
                    if (r == null || r.state() != StripeState.COMMITTED)
                        continue;
                    boolean placedHere = pn.index() < r.m() && node.self().equals(r.parityNodes().get(pn.index()));
                    if (pn.generation() > r.parityGeneration() || (pn.generation() == r.parityGeneration() && placedHere))
                        continue;
                    synchronized (offload.parityLock) // not interleaved with an OFFLOAD_PARITY of the same file
                    {
                        io.elect.core.stripes.ParityFiles.deleteHot(hot);
                        java.nio.file.Files.deleteIfExists(io.elect.core.stripes.ParityFiles.coldMarker(hot));
                    }
                    logger.info("parity {} of stripe {} ({}) at generation {} deleted: the stripe is COMMITTED at generation {} with parity {} on {}",
                                pn.index(), pn.stripeId(), t, pn.generation(), r.parityGeneration(), pn.index(),
                                pn.index() < r.m() ? r.parityNodes().get(pn.index()) : "no node");
                }
                catch (IOException | RuntimeException e)
                {
                    logger.warn("cleanup of parity file {} failed (retried next time): {}", f, e.toString());
                }
            }
        }
    }

    /** Member deltas (MEMBER_DELTA) whose stripe is no longer CHANGING to their generation, and crash leftovers. */
    private void dropStaleDeltas()
    {
        try
        {
            int n = MemberDeltas.cleanup(node, STALE_DELTA_MILLIS);
            if (n > 0)
                logger.info("{} member deltas of changes that are over deleted ({}/{})", n, node.stateDir(), MemberDeltas.DIR);
        }
        catch (IOException | RuntimeException e)
        {
            logger.warn("cleanup of member deltas failed (retried next time): {}", e.toString());
        }
    }

    /** How old a member delta must be before {@link #dropStaleDeltas} looks at it. */
    static final long STALE_DELTA_MILLIS = 600_000L;

    /** How old an unnamed next version must be before {@link #dropUnusedMerges} deletes it. */
    static final long UNUSED_MERGE_MILLIS = 3_600_000L;

    /**
     * Runs the retire step's exact shadow checks that are due (they read whole files; SNAPSHOT only reports their
     * cached answers, so that no snapshot waits for them).
     */
    private void scanShadows()
    {
        for (TableRef t : node.tables().electTables())
        {
            try
            {
                if (node.tables().exists(t))
                    node.tables().shadowedStripes(t, true);
            }
            catch (IOException | RuntimeException e)
            {
                logger.warn("shadow checks of {} failed (retried next time): {}", t, e.toString());
            }
        }
    }

    /** Offloaded primaries that turned hot come back to the hot tier (see ColdOffload.recallHot). */
    private void recallHot()
    {
        if (!node.config().offloadEnabled)
            return;
        for (TableRef t : node.tables().electTables())
        {
            try
            {
                if (node.tables().exists(t))
                    offload.recallHot(t);
            }
            catch (IOException | RuntimeException e)
            {
                logger.warn("recall of hot offloaded primaries of {} failed (retried next time): {}", t, e.toString());
            }
        }
    }

    /** Clock millis of the last cold-tier garbage collection per table (at most one per GC_INTERVAL). */
    private final Map<TableRef, Long> lastColdGc = new ConcurrentHashMap<>();
    static final long COLD_GC_INTERVAL_MILLIS = 10 * 60_000L;

    private void collectColdGarbage()
    {
        if (!node.config().offloadEnabled)
            return;
        long now = node.clock().millis();
        for (TableRef t : node.tables().electTables())
        {
            Long last = lastColdGc.get(t);
            if (last != null && now - last < COLD_GC_INTERVAL_MILLIS)
                continue;
            lastColdGc.put(t, now);
            try
            {
                offload.gcColdObjects(t);
            }
            catch (IOException | RuntimeException e)
            {
                logger.warn("cold-tier garbage collection of {} failed (retried later): {}", t, e.toString());
            }
        }
    }

    /**
     * Removes a stub of a COMMITTED stripe (no change under way) none of whose partitions lie in ranges this node
     * replicates or is about to replicate (a ring change gave its span to other nodes, issue 18): it serves no read
     * here, and every node that replicates the span holds its own stub (a joiner installs them before it joins). Its
     * data is the member's, on the member's node: nothing is lost. Returns whether it did.
     */
    private boolean strayStub(TableRef t, TableFile stub, java.util.Map<String, StripeState> states)
    {
        try
        {
            if (stub.firstToken() == null || stub.lastToken() == null || !node.store().ready()
                || states.computeIfAbsent(stub.frozenTag(), ops::stripeStateOrGone) != StripeState.COMMITTED
                || node.tables().replicatedShare(t, stub) > 0 || node.ring().willReplicate(t.keyspace(), stub.firstToken(), stub.lastToken()))
                return false;
            node.tables().removeStub(t, stub.id());
            logger.info("stub {} of {} (stripe {}) removed: this node no longer replicates any of its span [{}, {}]", stub.id(), t,
                        stub.frozenTag(), stub.firstToken(), stub.lastToken());
            return true;
        }
        catch (IOException | RuntimeException e)
        {
            logger.warn("cannot remove the stray stub {} of {} (retried next time): {}", stub.id(), t, e.toString());
            return false;
        }
    }

    /**
     * Removes a stub whose stripe is rolled back or gone (a STUB_INSTALL that raced with the rollback); returns whether
     * it did. A store that cannot answer now leaves the stub for the next pass.
     */
    private boolean danglingStub(TableRef t, TableFile stub, java.util.Map<String, StripeState> states)
    {
        StripeState s;
        try
        {
            if (!node.store().ready())
                return false;
            s = states.computeIfAbsent(stub.frozenTag(), ops::stripeStateOrGone);
        }
        catch (RuntimeException e)
        {
            return false;
        }
        if (s != null && !LocalTransitionOps.removesStubs(s))
            return false;
        try
        {
            node.tables().removeStub(t, stub.id());
            logger.info("stub {} of {} removed: its stripe {} is {}", stub.id(), t, stub.frozenTag(), s == null ? "gone" : s);
            return true;
        }
        catch (IOException | RuntimeException e)
        {
            logger.warn("cannot remove the dangling stub {} of {} (retried next time): {}", stub.id(), t, e.toString());
            return false;
        }
    }
}
