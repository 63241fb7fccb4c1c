package io.elect.core.bridge;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import com.google.common.util.concurrent.RateLimiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.dht.Token;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.locator.InetAddressAndPort;
import org.apache.cassandra.locator.Replica;
import org.apache.cassandra.service.StorageService;
import org.apache.cassandra.utils.FBUtilities;

import io.elect.core.config.Json;
import io.elect.core.stripes.ParityBuilder;
import io.elect.core.transition.RemoteStripeParticipant;
import io.elect.core.transition.StripeFormer.Member;
import io.elect.core.transition.StripeRecord;
import io.elect.core.transition.StripeState;
import io.elect.core.transition.wire.TransitionMessages.StripeStatus;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.core.util.ChecksummedTextFile;

/**
 * Full-node recovery ({@code electtool rebuild}) of a replacement node: same address and token, empty disk
 * (Cassandra took over the old host id with {@code replace_address_first_boot}, without streaming). Phases, in order:
 * <ol>
 * <li><b>primaries</b>: every data member this node held in a COMMITTED stripe is rebuilt by decoding whole chunks
 *     from k surviving members ({@link MemberRestore}), {@code parallelism} members at a time, throttled to
 *     {@code throttle} MiB/s of decoded bytes;</li>
 * <li><b>parity</b>: every parity member it held is re-marked as cold if its cold object exists, else regenerated
 *     from the k data members;</li>
 * <li><b>stream</b>: Cassandra's own rebuild streams every keyspace's ranges from the other replicas (data that is
 *     not encoded; the stubs of other nodes are read through the restored primaries);</li>
 * <li><b>stubs</b>: for every member of another node whose range this node replicates, the stub is installed again
 *     (components from another secondary's stub) and purges the streamed copies it shadows;</li>
 * <li><b>purge</b>: streamed copies shadowed by the restored primaries are purged against them.</li>
 * </ol>
 * Resumable: each finished step is appended to {@code ElectStateDir/rebuild/progress.txt} (checksummed) and skipped
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
    private static final AtomicReference<NodeRebuild> current = new AtomicReference<>();
    /** How long the purge phase retries SSTables held by a compaction or a maintenance purge. */
    static final long PURGE_BUSY_WAIT_MILLIS = 30_000;

    private final LocalTransitionOps ops;
    private final ElectStripeStore store;
    private final int parallelism;
    private final RateLimiter throttle;
    private final boolean stream;
    /** Only this keyspace's stripes and streams; null: every keyspace. */
    private final String keyspace;
    private final String me = FBUtilities.getBroadcastAddressAndPort().getAddress().getHostAddress();
    private final Path progressFile;
    private final Set<String> done = ConcurrentHashMap.newKeySet();
    private final long startedAt = System.currentTimeMillis();
    private volatile String phase = "planning";
    private volatile String state = "running";
    private volatile String error;
    /** Counted down when run() ends, done or failed (after state is set). */
    private final java.util.concurrent.CountDownLatch ended = new java.util.concurrent.CountDownLatch(1);
    private final AtomicLong totalBytes = new AtomicLong(), doneBytes = new AtomicLong();
    private final AtomicInteger totalSteps = new AtomicInteger(), doneSteps = new AtomicInteger(), skipped = new AtomicInteger();
    private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

    private NodeRebuild(LocalTransitionOps ops, ElectStripeStore store, int parallelism, double throttleMiBps, boolean stream,
                        String keyspace) throws IOException
    {
        if (keyspace != null && org.apache.cassandra.schema.Schema.instance.getKeyspaceMetadata(keyspace) == null)
            throw new IllegalArgumentException("keyspace '" + keyspace + "' does not exist on this node");
        this.keyspace = keyspace;
        if (parallelism < 1 || parallelism > 64)
            throw new IllegalArgumentException("parallelism must be in [1, 64], got " + parallelism);
        if (!(throttleMiBps >= 0))
            throw new IllegalArgumentException("throttle must be >= 0 MiB/s (0: unthrottled), got " + throttleMiBps);
        this.ops = ops;
        this.store = store;
        this.parallelism = parallelism;
        this.throttle = throttleMiBps == 0 ? null : RateLimiter.create(throttleMiBps * (1 << 20));
        this.stream = stream;
        this.progressFile = ElectStateDir.root().resolve("rebuild").resolve("progress.txt");
        Files.createDirectories(progressFile.getParent());
        List<String> before = ChecksummedTextFile.read(progressFile, MAGIC, VERSION, NodeRebuild::corrupt).orElse(List.of());
        if (!before.contains("complete"))
            done.addAll(before);
        else
            Files.delete(progressFile);
    }

    static boolean running()
    {
        NodeRebuild r = current.get();
        return r != null && r.state.equals("running");
    }

    /** Starts a rebuild in the background; IllegalStateException if one runs. Returns the first status document. */
    static synchronized String start(LocalTransitionOps ops, ElectStripeStore store, int parallelism, double throttleMiBps,
                                     boolean stream, String keyspace) throws IOException
    {
        if (running())
            throw new IllegalStateException("a rebuild is already running on this node: " + current.get().statusJson());
        NodeRebuild r = new NodeRebuild(ops, store, parallelism, throttleMiBps, stream, keyspace);
        current.set(r);
        Thread t = new Thread(r::run, "elect-rebuild");
        t.setDaemon(true);
        t.start();
        return r.statusJson();
    }

    /** Waits until the current rebuild (if any) ends or maxWaitMillis pass; returns {@link #status()}. */
    static String await(long maxWaitMillis) throws InterruptedException
    {
        NodeRebuild r = current.get();
        if (r != null)
            r.ended.await(maxWaitMillis, TimeUnit.MILLISECONDS);
        return status();
    }

    /** The status of the current or last rebuild of this process ({"state":"none"} if there was none). */
    static String status()
    {
        NodeRebuild r = current.get();
        return r == null ? Json.write(Map.of("state", "none")) : r.statusJson();
    }

    String statusJson()
    {
        Map<String, Object> doc = new LinkedHashMap<>();
        long elapsed = System.currentTimeMillis() - startedAt;
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

    private void run()
    {
        try
        {
            logger.info("rebuild of {} started (keyspace {}, parallelism {}, throttle {}, streaming {}, {} steps already done)", me,
                        keyspace == null ? "(all)" : keyspace, parallelism,
                        throttle == null ? "off" : String.format("%.1f MiB/s", throttle.getRate() / (1 << 20)), stream, done.size());
            List<StripeRecord> stripes = new ArrayList<>();
            for (StripeRecord r : store.list())
            {
                if (keyspace != null && !RemoteStripeParticipant.tableOf(firstReal(r).sstable()).keyspace().equals(keyspace))
                    continue;
                if (r.state() == StripeState.COMMITTED)
                    stripes.add(r);
                else
                    count("stripes_not_committed");
            }
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
                    if (mem.node().equals(me))
                        primaries.add(step("primary/" + r.id() + "/" + i, mem.realBytes(), () -> restore.primary(table, r, index)));
                    else
                        stubs.add(step("stub/" + r.id() + "/" + i, 0, () -> stub(table, r, index, restore)));
                }
                for (int j = 0; j < r.m(); j++)
                {
                    if (!r.parityNodes().get(j).equals(me))
                        continue;
                    int index = j;
                    TableRef table = RemoteStripeParticipant.tableOf(firstReal(r).sstable());
                    parities.add(step("parity/" + r.id() + "/" + j, r.codeLength(), () -> restore.parity(table, r, index)));
                }
            }
            // Streaming needs nothing the primaries phase builds (stubs, which need the restored primaries, are left
            // out of streams), so it runs beside primaries and parity. Compaction of the tables being rebuilt waits
            // until the purge: it would rewrite streamed copies that the purge is about to drop, and hold them busy.
            List<ColumnFamilyStore> tables = electTables();
            List<ColumnFamilyStore> paused = pauseCompaction(tables);
            try
            {
                Thread streamer = null;
                AtomicReference<Throwable> streamError = new AtomicReference<>();
                if (stream)
                {
                    Runnable streamStep = step("stream", 0, this::streamAll);
                    streamer = new Thread(() -> {
                        try
                        {
                            streamStep.run();
                        }
                        catch (Throwable t)
                        {
                            streamError.set(t);
                        }
                    }, "elect-rebuild-stream");
                    streamer.setDaemon(true);
                    streamer.start();
                }
                phase = stream ? "primaries, stream" : "primaries";
                runAll(primaries, parallelism);
                phase = stream ? "parity, stream" : "parity";
                runAll(parities, parallelism);
                if (streamer != null)
                {
                    phase = "stream";
                    streamer.join();
                    if (streamError.get() != null)
                        throw streamError.get();
                }
                phase = "stubs";
                runAll(stubs, parallelism);
                phase = "purge";
                purge(tables, restore.restored());
            }
            finally
            {
                for (ColumnFamilyStore cfs : paused)
                    cfs.enableAutoCompaction();
            }
            ChecksummedTextFile.write(progressFile, MAGIC, VERSION, List.of("complete"));
            phase = "done";
            state = "done";
            logger.info("rebuild of {} done in {} ms: {}", me, System.currentTimeMillis() - startedAt, statusJson());
        }
        catch (Throwable t)
        {
            error = t.toString();
            state = "failed";
            logger.error("rebuild of {} failed in phase {} (run electtool rebuild again to resume): {}", me, phase, t.toString(), t);
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
                    ChecksummedTextFile.write(progressFile, MAGIC, VERSION, new ArrayList<>(new java.util.TreeSet<>(done)));
                }
                doneSteps.incrementAndGet();
            }
            catch (IOException e)
            {
                throw new java.io.UncheckedIOException(key + ": " + e.getMessage(), e);
            }
        };
    }

    private void runAll(List<Runnable> steps, int threads) throws Exception
    {
        if (steps.isEmpty())
            return;
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(threads, steps.size()), r -> {
            Thread t = new Thread(r, "elect-rebuild-" + phase);
            t.setDaemon(true);
            return t;
        });
        try
        {
            List<Future<?>> fs = new ArrayList<>();
            for (Runnable s : steps)
                fs.add(pool.submit(s));
            Exception first = null;
            for (Future<?> f : fs)
            {
                try
                {
                    f.get();
                }
                catch (java.util.concurrent.ExecutionException e)
                {
                    if (first == null)
                        first = e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
                }
            }
            if (first != null)
                throw first;
        }
        finally
        {
            pool.shutdownNow();
        }
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

    private void count(String what, int n)
    {
        counts.computeIfAbsent(what, x -> new AtomicInteger()).addAndGet(n);
    }

    private void streamAll() throws IOException
    {
        long start = System.nanoTime();
        try
        {
            StorageService.instance.rebuild(null, keyspace, null, null);
        }
        catch (RuntimeException e)
        {
            throw new IOException("Cassandra's rebuild (streaming from the other replicas) failed: " + e.getMessage(), e);
        }
        count("streamed");
        logger.info("rebuild of {}: streaming of every keyspace done ({} ms)", me, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    /** Installs the stub of another node's member i again if this node is a secondary of its range. */
    private void stub(TableRef table, StripeRecord r, int i, MemberRestore restore) throws IOException
    {
        StripeStatus status = restore.findStub(table, r, i);
        if (status == null)
        {
            count("stubs_without_source");
            logger.warn("rebuild: no live node holds a stub of member {} of stripe {} ({}); its rows stay as streamed", i, r.id(), table);
            return;
        }
        ColumnFamilyStore cfs = LocalTransitionOps.cfs(table);
        Token token = cfs.getPartitioner().getTokenFactory().fromString(status.firstToken());
        InetAddressAndPort self = FBUtilities.getBroadcastAddressAndPort();
        boolean replica = false;
        for (Replica rep : Keyspace.open(table.keyspace()).getReplicationStrategy().getNaturalReplicasForToken(token))
            replica |= rep.endpoint().equals(self);
        if (!replica)
            return;
        ops.stubInstall(status.stub(), false); // purged against every stub at once in the purge phase
        count("stubs_installed");
    }

    /** The live ELECT tables this rebuild covers. */
    private List<ColumnFamilyStore> electTables()
    {
        List<ColumnFamilyStore> out = new ArrayList<>();
        for (List<String> t : ElectTables.registered())
        {
            ColumnFamilyStore cfs = ColumnFamilyStore.getIfExists(t.get(0), t.get(1));
            if (cfs != null && (keyspace == null || keyspace.equals(t.get(0))))
                out.add(cfs);
        }
        return out;
    }

    /** Disables autocompaction of the tables that have it on; returns those (to enable again). Not persisted. */
    private static List<ColumnFamilyStore> pauseCompaction(List<ColumnFamilyStore> tables)
    {
        List<ColumnFamilyStore> paused = new ArrayList<>();
        for (ColumnFamilyStore cfs : tables)
        {
            if (cfs.isAutoCompactionDisabled())
                continue;
            cfs.disableAutoCompaction();
            paused.add(cfs);
        }
        return paused;
    }

    /**
     * Purges, table by table, the streamed copies that the stubs and the restored primaries shadow, in one pass over
     * each SSTable against all of them (SecondaryStubs.purge), {@code parallelism} SSTables at a time. SSTables a compaction or a maintenance purge holds are
     * retried for up to {@link #PURGE_BUSY_WAIT_MILLIS}; what is still busy then is left to the periodic re-purge.
     */
    private void purge(List<ColumnFamilyStore> tables, List<SSTableReader> restoredPrimaries) throws IOException, InterruptedException
    {
        ExecutorService pool = Executors.newFixedThreadPool(parallelism, r -> {
            Thread t = new Thread(r, "elect-rebuild-purge");
            t.setDaemon(true);
            return t;
        });
        try
        {
            for (ColumnFamilyStore cfs : tables)
                purge(cfs, restoredPrimaries, pool);
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    private void purge(ColumnFamilyStore cfs, List<SSTableReader> restoredPrimaries, ExecutorService pool) throws IOException, InterruptedException
    {
        long start = System.nanoTime(), until = start + TimeUnit.MILLISECONDS.toNanos(PURGE_BUSY_WAIT_MILLIS);
        long before = 0, after = 0;
        int rewritten = 0, passes = 0;
        List<SSTableReader> busy;
        do
        {
            if (passes > 0)
                Thread.sleep(200);
            List<SSTableReader> shadows = new ArrayList<>();
            Set<SSTableReader> live = cfs.getLiveSSTables();
            for (SSTableReader r : live)
                if (LocalTransitionOps.isStub(r))
                    shadows.add(r);
            for (SSTableReader p : restoredPrimaries)
                if (live.contains(p))
                    shadows.add(p);
            // parallelism disjoint shares of the SSTables, purged at once (each holds only its own SSTables)
            List<Future<SecondaryStubs.PurgeStats>> shares = new ArrayList<>();
            for (int i = 0; i < parallelism; i++)
            {
                int share = i;
                shares.add(pool.submit(() -> SecondaryStubs.purge(cfs, shadows, x -> !FrozenSSTables.isFrozen(x)
                                                                                     && Math.floorMod(x.descriptor.id.hashCode(), parallelism) == share)));
            }
            passes++;
            busy = new ArrayList<>();
            for (Future<SecondaryStubs.PurgeStats> f : shares)
            {
                SecondaryStubs.PurgeStats st;
                try
                {
                    st = f.get();
                }
                catch (java.util.concurrent.ExecutionException e)
                {
                    throw e.getCause() instanceof IOException ? (IOException) e.getCause()
                                                              : new IOException("purge of " + cfs.metadata() + " failed: " + e.getCause(), e.getCause());
                }
                before += st.bytesBefore();
                after += st.bytesAfter();
                rewritten += st.rewritten();
                busy.addAll(st.busy());
            }
        }
        while (!busy.isEmpty() && System.nanoTime() - until < 0);
        count("purge_passes", passes);
        logger.info("rebuild of {}: purge of {} against its stubs and restored primaries: {} SSTables rewritten, {} -> {} bytes, "
                    + "{} still busy (left to the periodic re-purge), {} passes ({} ms)", me, cfs.metadata(), rewritten, before,
                    after, busy.size(), passes, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
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
