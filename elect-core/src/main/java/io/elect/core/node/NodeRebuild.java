package io.elect.core.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import com.google.common.util.concurrent.RateLimiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.config.Json;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.RemoteStripeParticipant;
import io.elect.core.stripes.Member;
import io.elect.core.transition.wire.TransitionMessages.StripeStatus;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.core.util.ChecksummedTextFile;

/**
 * Full-node recovery ({@code electtool rebuild}) of a replacement node: same address and token, empty disk
 * (Cassandra took over the old host id with {@code replace_address_first_boot}, without streaming). Phases, in order:
 * <ol>
 * <li><b>primaries</b>: every data member this node held in a stripe that secondaries may rely on (STUBS_INSTALLED and
 *     later, see {@link #restorable}) is rebuilt by decoding whole chunks
 *     from k surviving members ({@link MemberRestore}), {@code parallelism} members at a time, throttled to
 *     {@code throttle} MiB/s of decoded bytes;</li>
 * <li><b>parity</b>: every parity member it held is re-marked as cold if its cold object exists, else regenerated
 *     from the k data members;</li>
 * <li><b>stream</b>: the storage engine streams every keyspace's ranges from the other replicas (data that is not
 *     encoded; ranges of keyspaces with ELECT tables from secondaries, {@link LocalTables#streamKeyspace});</li>
 * <li><b>stubs</b>: for every member of another node whose range this node replicates, the stub is installed again
 *     (components from another secondary's stub) and purges the streamed copies it shadows;</li>
 * <li><b>purge</b>: streamed copies shadowed by the restored primaries are purged against them.</li>
 * </ol>
 * <p>The same steps without primaries, parity and streaming are a joining node's <b>catch-up</b> ({@code join} mode,
 * issue 18): Cassandra's bootstrap streamed it its ranges, but tiered SSTables (stubs, COLD members) are left out of
 * every outgoing stream, so the rows of encoded members reach it only as stubs. The node waits in write survey mode
 * (streamed, taking writes, serving no reads) until every member of another node whose span it will replicate
 * ({@link Ring#willReplicate}, pending ranges included) has its stub here and the streamed copies they shadow are
 * purged; then it joins the ring ({@link NodeRebuilds#startJoin}).
 * Resumable: each finished step is appended to {@code <state>/rebuild/progress.txt} (checksummed) and skipped
 * by a later run; a finished rebuild is recorded too, and the next {@code start} begins afresh. While a rebuild runs,
 * this node refuses SNAPSHOT, so no transitioning round plans against its partial data. Stripe records keep naming
 * this node by address: restored members get new file names and the old names are redirected to them
 * (docs/formats/redirects.md), so the layouts stored in stubs stay valid.
 */
final class NodeRebuild
{
    private static final Logger logger = LoggerFactory.getLogger(NodeRebuild.class);
    static final String MAGIC = "elect-rebuild-progress";
    static final int VERSION = 1;
    /** How a rebuilding node refuses SNAPSHOT (the coordinator recognizes it and logs one line). */
    static final String REFUSAL = "is being rebuilt (electtool rebuild); no snapshot until it ends";

    private final LocalTransitionOps ops;
    private final NodeContext node;
    private final int parallelism;
    private final RateLimiter throttle;
    private final boolean stream;
    /** Join catch-up (no primaries, parity or streaming; stubs for the spans this node will replicate). */
    private final boolean join;
    /** "rebuild" or "join catch-up", for log lines. */
    private final String what;
    /** Only this keyspace's stripes and streams; null: every keyspace. */
    private final String keyspace;
    private final String me;
    private final Path progressFile;
    private final Set<String> done = ConcurrentHashMap.newKeySet();
    private final long startedAt;
    /** node.clock().millis() when the rebuild ended (done or failed); -1 while it runs. */
    private volatile long endedAt = -1;
    private volatile String phase = "planning";
    private volatile String state = "running";
    private volatile String error;
    /** Counted down when run() ends, done or failed (after state is set). */
    private final CountDownLatch ended = new CountDownLatch(1);
    private final AtomicLong totalBytes = new AtomicLong(), doneBytes = new AtomicLong();
    private final AtomicInteger totalSteps = new AtomicInteger(), doneSteps = new AtomicInteger(), skipped = new AtomicInteger();
    private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

    NodeRebuild(LocalTransitionOps ops, int parallelism, double throttleMiBps, boolean stream, String keyspace) throws IOException
    {
        this(ops, parallelism, throttleMiBps, stream, keyspace, false);
    }

    NodeRebuild(LocalTransitionOps ops, int parallelism, double throttleMiBps, boolean stream, String keyspace, boolean join) throws IOException
    {
        this.join = join;
        this.what = join ? "join catch-up" : "rebuild";
        this.ops = ops;
        this.node = ops.node();
        if (keyspace != null && !node.tables().keyspaceExists(keyspace))
            throw new IllegalArgumentException("keyspace '" + keyspace + "' does not exist on this node");
        this.keyspace = keyspace;
        if (parallelism < 1 || parallelism > 64)
            throw new IllegalArgumentException("parallelism must be in [1, 64], got " + parallelism);
        if (!(throttleMiBps >= 0))
            throw new IllegalArgumentException("throttle must be >= 0 MiB/s (0: unthrottled), got " + throttleMiBps);
        this.parallelism = parallelism;
        this.throttle = throttleMiBps == 0 ? null : RateLimiter.create(throttleMiBps * (1 << 20));
        this.stream = stream;
        this.me = node.self();
        this.startedAt = node.clock().millis();
        this.progressFile = node.stateDir().resolve(join ? "join" : "rebuild").resolve("progress.txt");
        Files.createDirectories(progressFile.getParent());
        List<String> before = ChecksummedTextFile.read(progressFile, MAGIC, VERSION, NodeRebuild::corrupt).orElse(List.of());
        if (!before.contains("complete"))
            done.addAll(before);
        else
            Files.delete(progressFile);
    }

    boolean isRunning()
    {
        return state.equals("running");
    }

    /** Waits until the rebuild ends or maxWaitMillis pass. */
    void await(long maxWaitMillis) throws InterruptedException
    {
        ended.await(maxWaitMillis, TimeUnit.MILLISECONDS);
    }

    String statusJson()
    {
        Map<String, Object> doc = new LinkedHashMap<>();
        long end = endedAt;
        long elapsed = (end >= 0 ? end : node.clock().millis()) - startedAt;
        doc.put("state", state);
        doc.put("phase", phase);
        doc.put("done_bytes", doneBytes.get());
        doc.put("total_bytes", totalBytes.get());
        doc.put("done_steps", doneSteps.get());
        doc.put("total_steps", totalSteps.get());
        doc.put("resumed_steps", skipped.get());
        doc.put("elapsed_ms", elapsed);
        long d = doneBytes.get(), t = totalBytes.get();
        doc.put("eta_ms", d <= 0 || t <= d ? null : (long) ((double) elapsed * (t - d) / d));
        doc.put("counts", new LinkedHashMap<>(counts));
        doc.put("error", error);
        return Json.write(doc);
    }

    /** The counts of what happened so far (steps by outcome), for tests and the simulation. */
    Map<String, Integer> counts()
    {
        Map<String, Integer> out = new LinkedHashMap<>();
        counts.forEach((k, v) -> out.put(k, v.get()));
        return out;
    }

    String state()
    {
        return state;
    }

    void run()
    {
        try
        {
            logger.info("{} of {} started (keyspace {}, parallelism {}, throttle {}, streaming {}, {} steps already done)", what, me,
                        keyspace == null ? "(all)" : keyspace, parallelism,
                        throttle == null ? "off" : String.format("%.1f MiB/s", throttle.getRate() / (1 << 20)), stream, done.size());
            List<StripeRecord> stripes = new ArrayList<>();
            for (StripeRecord r : node.store().list())
            {
                if (keyspace != null && !RemoteStripeParticipant.tableOf(firstReal(r).sstable()).keyspace().equals(keyspace))
                    continue;
                if (restorable(r.state()))
                    stripes.add(r);
                else
                    count("stripes_not_restorable");
            }
            stripes.sort(java.util.Comparator.comparing(r -> r.id().toString()));
            List<Runnable> primaries = new ArrayList<>(), parities = new ArrayList<>(), stubs = new ArrayList<>();
            MemberRestore restore = new MemberRestore(ops, this::progressBytes, this::count);
            for (StripeRecord r : stripes)
            {
                for (int i = 0; i < r.k(); i++)
                {
                    Member mem = r.members().get(i);
                    if (mem.isVirtual())
                        continue;
                    int index = i;
                    TableRef table = RemoteStripeParticipant.tableOf(mem.sstable());
                    if (mem.node().equals(me) && join)
                        namedHere(r);
                    else if (mem.node().equals(me))
                        primaries.add(step("primary/" + r.id() + "/" + i, mem.realBytes(), () -> primary(table, r, index, restore)));
                    else
                        stubs.add(step("stub/" + r.id() + "/" + i, 0, () -> stub(table, r, index, restore)));
                }
                for (int j = 0; j < r.m(); j++)
                {
                    if (!r.parityNodes().get(j).equals(me))
                        continue;
                    if (join)
                    {
                        namedHere(r);
                        continue;
                    }
                    int index = j;
                    TableRef table = RemoteStripeParticipant.tableOf(firstReal(r).sstable());
                    parities.add(step("parity/" + r.id() + "/" + j, r.codeLength(), () -> restore.parity(table, r, index)));
                }
            }
            // Three independent lanes run at once, then the purge. Streaming needs nothing the others build (stubs,
            // which need the primaries of other nodes, are left out of streams); stubs need only other nodes (their
            // components and data); parity regeneration may read this node's restored primaries, so it follows them.
            // Compaction of the tables being rebuilt waits until the purge: it would rewrite streamed copies that the
            // purge is about to drop, and hold them busy.
            List<TableRef> tables = new ArrayList<>();
            for (TableRef t : node.tables().electTables())
                if (node.tables().exists(t) && (keyspace == null || keyspace.equals(t.keyspace())))
                    tables.add(t);
            try (AutoCloseable paused = node.tables().pauseCompaction(tables))
            {
                List<NodeExecutors.Task> lanes = new ArrayList<>();
                AtomicReference<Throwable> laneError = new AtomicReference<>();
                lanes.add(lane("primaries", laneError, rename -> {
                    node.executors().runAll("rebuild-primaries", primaries, parallelism);
                    rename.accept("parity");
                    node.executors().runAll("rebuild-parity", parities, parallelism);
                }));
                if (stream)
                {
                    Runnable streamStep = step("stream", 0, this::streamAll);
                    lanes.add(lane("stream", laneError, rename -> streamStep.run()));
                }
                lanes.add(lane("stubs", laneError, rename -> node.executors().runAll("rebuild-stubs", stubs, parallelism)));
                for (NodeExecutors.Task lane : lanes)
                    lane.join();
                if (laneError.get() != null)
                    throw laneError.get();
                phase = "purge";
                count("purge_passes", RebuildPurge.purge(ops, me, tables, restore.restored(), parallelism));
            }
            ChecksummedTextFile.write(progressFile, MAGIC, VERSION, List.of("complete"));
            phase = "done";
            endedAt = node.clock().millis();
            state = "done";
            logger.info("{} of {} done in {} ms: {}", what, me, node.clock().millis() - startedAt, statusJson());
        }
        catch (Throwable t)
        {
            error = t.toString();
            endedAt = node.clock().millis();
            state = "failed";
            logger.error("{} of {} failed in phase {} ({}): {}", what, me, phase,
                         join ? "retried; the node stays out of the ring until it succeeds" : "run electtool rebuild again to resume", t.toString(), t);
        }
        finally
        {
            ended.countDown();
        }
    }

    private Runnable step(String key, long bytes, IORunnable body)
    {
        totalSteps.incrementAndGet();
        totalBytes.addAndGet(bytes);
        return () -> {
            if (done.contains(key))
            {
                skipped.incrementAndGet();
                doneSteps.incrementAndGet();
                doneBytes.addAndGet(bytes);
                return;
            }
            try
            {
                body.run();
                synchronized (done)
                {
                    done.add(key);
                    ChecksummedTextFile.write(progressFile, MAGIC, VERSION, new ArrayList<>(new TreeSet<>(done)));
                }
                doneSteps.incrementAndGet();
            }
            catch (IOException e)
            {
                throw new java.io.UncheckedIOException(key + ": " + e.getMessage(), e);
            }
        };
    }

    /** The phases running now, in lane order (the status's "phase" joins them); guarded by lanePhase's monitor. */
    private final List<String> activePhases = new ArrayList<>();

    @FunctionalInterface
    private interface LaneBody
    {
        /** @param rename renames this lane's phase in the status */
        void run(Consumer<String> rename) throws Exception;
    }

    /** Starts one lane of the rebuild; its first failure is kept in error (the others run on). */
    private NodeExecutors.Task lane(String name, AtomicReference<Throwable> error, LaneBody body)
    {
        AtomicReference<String> current = new AtomicReference<>(name);
        lanePhase(null, name);
        return node.executors().start("rebuild-lane-" + name, () -> {
            try
            {
                body.run(to -> lanePhase(current.getAndSet(to), to));
            }
            catch (Throwable e)
            {
                error.compareAndSet(null, e);
            }
            finally
            {
                lanePhase(current.get(), null);
            }
        });
    }

    /** Lane phase 'from' became 'to' (from null: a lane started; to null: the lane ended). */
    private synchronized void lanePhase(String from, String to)
    {
        int i = from == null ? -1 : activePhases.indexOf(from);
        if (i >= 0 && to == null)
            activePhases.remove(i);
        else if (i >= 0)
            activePhases.set(i, to);
        else if (to != null)
            activePhases.add(to);
        // When the last lane ends, the phase it was in stays (a failure is reported with the phase it failed in).
        if (!activePhases.isEmpty())
            phase = String.join(", ", activePhases);
    }

    /** Throttles and accounts bytes of decoded or regenerated data. */
    private void progressBytes(long bytes)
    {
        if (throttle != null && bytes > 0)
            throttle.acquire((int) Math.min(Integer.MAX_VALUE, bytes));
        doneBytes.addAndGet(bytes);
    }

    void count(String what)
    {
        count(what, 1);
    }

    void count(String what, int n)
    {
        counts.computeIfAbsent(what, x -> new AtomicInteger()).addAndGet(n);
    }

    private void streamAll() throws IOException
    {
        long start = node.clock().nanoTime();
        java.util.Set<String> elect = new java.util.HashSet<>();
        for (TableRef t : node.tables().electTables())
            elect.add(t.keyspace());
        List<String> keyspaces = keyspace != null ? List.of(keyspace) : node.tables().keyspaces();
        for (String ks : keyspaces)
            node.tables().streamKeyspace(ks, elect.contains(ks));
        count("streamed");
        logger.info("rebuild of {}: streaming of every keyspace done ({} ms)", me, node.clock().millisSince(start));
    }

    /**
     * Whether a stripe's members, parity and stubs are restored: secondaries may rely on it (STUBS_INSTALLED and later;
     * every member has stubs then). Earlier stripes are rolled back by recovery if they cannot go forward; nothing was
     * purged against them, so their members' rows come back by streaming.
     */
    static boolean restorable(StripeState s)
    {
        return s.purgesMayHaveBegun();
    }

    /** Whether slot i of r is being filled (issue 18): its member may have no stubs yet. */
    private static boolean filling(StripeRecord r, int i)
    {
        return r.state() == StripeState.CHANGING && r.changeFills() && r.change().slot() == i;
    }

    /**
     * Restores this node's member i of r. A fill's member that no node holds a stub of (every node answered) was
     * lost before its stubs were installed: nothing was purged against it, its rows come back by streaming, and the
     * fill is abandoned when its PIN finds the file gone (StripeChanges). Not restored (it cannot be: its index
     * components exist nowhere).
     */
    private void primary(TableRef table, StripeRecord r, int i, MemberRestore restore) throws IOException
    {
        if (filling(r, i) && restore.findStub(table, r, i) == null && restore.noStubAnywhere(table, r, i))
        {
            count("fill_members_not_restored");
            logger.info("rebuild of {}: member {} of stripe {} ({}) was being filled in and has no stub anywhere: its rows come back by "
                        + "streaming, the fill is abandoned", me, i, r.id(), r.members().get(i).descriptor());
            return;
        }
        if (r.state() == StripeState.CHANGING && r.changeReplaces() && r.change().slot() == i && r.change().previous().node().equals(me)
            && restore.findStub(table, r, i) == null && restore.noStubAnywhere(table, r, i))
        {
            // A merge whose next version was lost before any stub of it existed: the change is abandoned (StripeChanges
            // finds the next version gone), and the slot's member is the previous version again, restored from its stubs.
            restore.primary(table, r, i, r.change().previous());
            count("previous_versions_restored");
            logger.info("rebuild of {}: member {} of stripe {} ({}): its next version {} has no stub anywhere; the previous version is "
                        + "restored and the merge is abandoned", me, i, r.id(), r.change().previous().descriptor(), r.members().get(i).descriptor());
            return;
        }
        restore.primary(table, r, i);
    }

    /** Installs the stub of another node's member i again if this node is a secondary of its range. */
    private void stub(TableRef table, StripeRecord r, int i, MemberRestore restore) throws IOException
    {
        StripeStatus status = restore.findStub(table, r, i);
        if (status == null && filling(r, i))
        {
            // A fill whose member's stubs are not installed yet (or only on nodes that are down): this node keeps its
            // streamed copy of the member's rows; the fill's STUB step, retried until the change is over, installs
            // the stub on every secondary, this one included, before anything is purged here.
            count("fill_stubs_not_installed");
            return;
        }
        if (status == null && r.state() == StripeState.CHANGING && r.change() != null && r.change().slot() == i
            && !r.change().previous().isVirtual())
        {
            // A replacement in progress (a merge) whose next version's stubs are not installed yet: the previous
            // version's stubs are still on the other secondaries. Copying one keeps this node like them; the change
            // installs the next version's stub here too (STUB is retried with the change) and STUB_RELAYOUT removes
            // the previous one, as everywhere.
            status = restore.findStub(table, r, i, r.change().previous());
            if (status != null)
                count("stubs_of_previous_versions");
        }
        String owner = r.members().get(i).node();
        if (status == null && (node.ring().hasLeft(owner) || Drains.marked(node, owner)))
        {
            // The member's node left the ring or drains: its stubs are being materialized (STUB_MATERIALIZE) before it
            // leaves its stripe, and those materialized already are ordinary SSTables, which the streaming phase copies
            // here. A full copy of the rows is where this node's stub was going anyway (simulation: a rebuild during a
            // drain found no stub of the member left to copy and failed for good).
            count("stubs_of_leaving_members_skipped");
            logger.info("rebuild of {}: no stub of member {} of stripe {} ({}) to copy: its node {} {}; its rows come back by streaming",
                        me, i, r.id(), table, owner, node.ring().hasLeft(owner) ? "left the ring" : "drains before leaving");
            return;
        }
        if (status == null)
        {
            // Every member of a restorable stripe has stubs on all its secondaries: the others are down or cut off.
            // Failing the step (the rebuild resumes it) rather than leaving this node without the stub, which would
            // keep the streamed copies of the member's rows here for good.
            count("stubs_without_source");
            throw new IOException("no live node holds a stub of member " + i + " of stripe " + r.id() + " (" + table
                                  + ") to copy: its other secondaries are down or unreachable; run the rebuild again");
        }
        // every ring range inside the member's span (vnodes): the same rule the stubbing used (LocalTransitionOps.stub),
        // plus the ranges this node takes over in a ring change under way (a joining node's pending ranges)
        if (!node.ring().willReplicate(table.keyspace(), status.firstToken(), status.lastToken()))
            return;
        ops.stubInstall(status.stub()); // purged against every stub at once in the purge phase
        count("stubs_installed");
    }

    /**
     * A joining node named by a stripe: its address was a member's or a parity node's before (a node that left and
     * came back with the same address, whose files are gone). Not restored here: the departure repair of the
     * coordinator does not see this address as gone any more, so such a stripe needs {@code electtool rebuild}.
     */
    private void namedHere(StripeRecord r)
    {
        count("stripes_naming_this_address");
        logger.warn("{} of {}: stripe {} names this node's address (a node that left and joined again?); not restored by the join, "
                    + "run electtool rebuild after it", what, me, r.id());
    }

    private static Member firstReal(StripeRecord r)
    {
        for (Member m : r.members())
            if (!m.isVirtual())
                return m;
        throw new IllegalStateException("stripe " + r.id() + " has no real member");
    }

    private static IOException corrupt(Path file, String problem)
    {
        return new IOException("corrupt rebuild progress file " + file + ": " + problem + " (delete it to rebuild from the start)");
    }

    @FunctionalInterface
    interface IORunnable
    {
        void run() throws IOException;
    }
}
