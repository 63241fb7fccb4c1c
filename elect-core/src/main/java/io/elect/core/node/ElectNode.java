package io.elect.core.node;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.config.ElectConfig;
import io.elect.core.stripes.Coders;
import io.elect.core.stripes.NodeMemberReader;
import io.elect.core.stripes.ParityFiles;
import io.elect.core.tiered.TieredRuntime;
import io.elect.core.transition.StripeStore;
import io.elect.core.transport.Transport;
import io.elect.core.transport.TransportException;
import io.elect.core.util.Clock;

/**
 * One ELECT node: its configuration, clock, coders, tiered-data runtime (cold stores, chunk cache), metrics, and,
 * once {@link #start started} over the storage engine's seams, its transport, stripe store and services
 * (transitioning rounds and verbs, offload, rebuild, verify, stub maintenance). Built once per process: by the
 * Cassandra adapter's daemon in production (before Cassandra opens its SSTables, which need the tiered runtime;
 * started after Cassandra has joined the ring), by the simulation once per simulated node.
 *
 * <p>Everything the node's logic uses is reached from this object or passed in; nothing is static.
 */
public final class ElectNode implements AutoCloseable
{
    private static final Logger logger = LoggerFactory.getLogger(ElectNode.class);

    private final ElectConfig config;
    private final Clock clock;
    private final TieredRuntime tiered;
    private final NodeMetrics metrics;
    private final NodeRebuilds rebuilds = new NodeRebuilds();
    private final NodeDecommission decommission = new NodeDecommission();
    private volatile Started started;
    private ScheduledExecutorService scheduler;
    private ScheduledExecutorService warmScheduler;
    private ScheduledExecutorService coverageScheduler;

    /** The storage engine's and the cluster's seams a node starts over. */
    public record Seams(LocalTables tables, Ring ring, StripeStore store, Path stateDir, Transport transport, NodeExecutors executors)
    {
        public Seams
        {
            Objects.requireNonNull(tables, "tables");
            Objects.requireNonNull(ring, "ring");
            Objects.requireNonNull(store, "store");
            Objects.requireNonNull(stateDir, "stateDir");
            Objects.requireNonNull(transport, "transport");
            Objects.requireNonNull(executors, "executors");
        }
    }

    private record Started(NodeContext context, LocalTransitionOps ops, TransitionService transitions)
    {
    }

    public ElectNode(ElectConfig config, Clock clock, TieredRuntime tiered, NodeMetrics metrics)
    {
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.tiered = Objects.requireNonNull(tiered, "tiered");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        TieredMetrics.register(metrics, tiered);
    }

    /**
     * A production node: the system clock and a standard tiered runtime with the configured coder. No cold store is
     * registered yet ({@link #registerColdStore}).
     */
    public static ElectNode create(ElectConfig config, NodeMetrics.Registrar registrar)
    {
        TieredRuntime tiered = TieredRuntime.standard(new Coders(config.coder), Clock.SYSTEM);
        return new ElectNode(config, Clock.SYSTEM, tiered, new NodeMetrics(registrar));
    }

    /** Makes a cold store available to tiered data and offload under {@code name}, with its metrics exported. */
    public void registerColdStore(String name, io.elect.offload.ColdStore store)
    {
        tiered.registerStore(name, store);
        TieredMetrics.coldStore(metrics, name, store);
    }

    public ElectConfig config()
    {
        return config;
    }

    public Clock clock()
    {
        return clock;
    }

    public TieredRuntime tiered()
    {
        return tiered;
    }

    public NodeMetrics metrics()
    {
        return metrics;
    }

    public NodeRebuilds rebuilds()
    {
        return rebuilds;
    }

    /**
     * Starts the services over the seams: the transport's verbs (transitioning, stripe members, offload, status),
     * the tiered runtime's reader of peers' members. Idempotent (a second call is ignored).
     */
    public synchronized void start(Seams seams) throws IOException
    {
        if (started != null)
            return;
        NodeMemberReader nodes = new NodeMemberReader(seams.transport());
        tiered.setNodeReader(nodes);
        NodeContext context = new NodeContext(config, clock, seams.tables(), seams.ring(), seams.transport(), tiered, seams.store(),
                                              seams.stateDir(), new ParityFiles(seams.stateDir()), nodes, seams.executors(), metrics);
        LocalTransitionOps ops = new LocalTransitionOps(context, rebuilds);
        ops.register();
        rebuilds.attach(ops);
        decommission.attach(context);
        TransitionService transitions = new TransitionService(context);
        TransportMetricsExport.register(metrics, seams.transport());
        started = new Started(context, ops, transitions);
        logger.info("ELECT node {} started: transport {} codec {} (k={}, m={}, coder {}), alpha {}", context.self(),
                    seams.transport().localPeer(), transitions.codecId(), config.dataChunks, config.parityChunks,
                    tiered.coders(), config.storageSavingTarget);
    }

    /**
     * Production scheduling: stub maintenance and (with erasure coding enabled) transitioning rounds every
     * {@code transition_interval_seconds}, on one daemon thread; warming of down peers' hot chunks
     * ({@link DegradedWarmer}) every second on another; stub coverage ({@link StubCoverage}) every 5 s on a third.
     */
    public synchronized void scheduleRounds()
    {
        Started s = requireStarted();
        if (scheduler != null)
            return;
        scheduler = daemonScheduler("elect-transition");
        long every = config.transitionIntervalSeconds;
        scheduler.scheduleWithFixedDelay(this::maintainSafely, every, every, TimeUnit.SECONDS);
        // Warming polls liveness every second on its own thread (a round may run for minutes).
        DegradedWarmer warmer = DegradedWarmer.standard(tiered, s.context().transport().liveness(), clock, metrics);
        warmScheduler = daemonScheduler("elect-warm");
        warmScheduler.scheduleWithFixedDelay(() -> logged("warming", warmer::poll), 1, 1, TimeUnit.SECONDS);
        // Stub coverage (StubCoverage) every 5 s on its own thread: a ring change must not wait for a round.
        coverageScheduler = daemonScheduler("elect-stub-coverage");
        coverageScheduler.scheduleWithFixedDelay(() -> logged("stub coverage", () -> requireStarted().ops().coverStubs()),
                                                 5, 5, TimeUnit.SECONDS);
        if (config.erasureCodingEnabled)
            scheduler.scheduleWithFixedDelay(this::roundSafely, every, every, TimeUnit.SECONDS);
        logger.info("ELECT transitioning scheduled every {} s{}", every,
                    config.erasureCodingEnabled ? "" : " (erasure coding disabled: stub maintenance only, no rounds)");
    }

    private static ScheduledExecutorService daemonScheduler(String threadName)
    {
        return Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
    }

    /** Runs a periodic task; a failure is logged (the next period runs it again). */
    private static void logged(String what, Runnable task)
    {
        try
        {
            task.run();
        }
        catch (Throwable t)
        {
            logger.warn("ELECT {} failed: {}", what, t.toString(), t);
        }
    }

    private void maintainSafely()
    {
        try
        {
            requireStarted().ops().maintain();
        }
        catch (Throwable t)
        {
            logger.warn("ELECT stub maintenance failed: {}", t.toString(), t);
        }
    }

    private void roundSafely()
    {
        try
        {
            requireStarted().transitions().round();
        }
        catch (Throwable t)
        {
            if (refusedByRebuild(t))
                logger.info("ELECT transition round skipped: {}", t.getMessage()); // expected while a node rebuilds
            else
                logger.warn("ELECT transition round failed: {}", t.toString(), t);
            metrics.counter("Transitioning", "RoundFailures", null).inc();
        }
    }

    /** Whether a round failed because a node refused its SNAPSHOT while being rebuilt (an expected, transient state). */
    static boolean refusedByRebuild(Throwable t)
    {
        for (Throwable c = t; c != null; c = c.getCause())
            if (c instanceof TransportException && ((TransportException) c).reason == TransportException.Reason.REMOTE_ERROR
                && String.valueOf(c.getMessage()).contains(NodeRebuild.REFUSAL))
                return true;
        return false;
    }

    private Started requireStarted()
    {
        Started s = started;
        if (s == null)
            throw new IllegalStateException("ELECT services are not running on this node (see its log)");
        return s;
    }

    public boolean isStarted()
    {
        return started != null;
    }

    /** The transitioning rounds (the simulation and tests call {@link TransitionService#round()} directly). */
    public TransitionService transitions()
    {
        return requireStarted().transitions();
    }

    /** The verbs' handlers and stub maintenance. */
    public LocalTransitionOps ops()
    {
        return requireStarted().ops();
    }

    public NodeContext context()
    {
        return requireStarted().context();
    }

    /** alpha in effect (see {@link TransitionService#savingTarget}); cassandra.yaml's until the node has started. */
    public double savingTarget()
    {
        Started s = started;
        return s == null ? config.storageSavingTarget : s.transitions().savingTarget();
    }

    /** {@code electtool alpha VALUE}: see {@link TransitionService#setSavingTarget}. */
    public void setSavingTarget(double alpha)
    {
        requireStarted().transitions().setSavingTarget(alpha);
    }

    /** {@code electtool storage}: see {@link StorageReport}. */
    public String storageJson()
    {
        Started s = requireStarted();
        return StorageReport.json(s.context(), s.transitions());
    }

    /**
     * {@code electtool widen --to K --dry-run}: the Scale-RS widening plan of the cluster's stripes to k' = targetK
     * (see {@link WideningReport}); plans only, nothing is sent or changed.
     */
    public String widenPlanJson(int targetK)
    {
        Started s = requireStarted();
        return WideningReport.json(s.context(), s.transitions(), targetK);
    }

    /** {@code electtool widen --to K}: carries out the widening plan (see {@link WideningRun}); on the coordinator only. */
    public String widenJson(int targetK)
    {
        return requireStarted().transitions().widen(targetK);
    }

    /** {@code electtool decommission}: drains this node, then leaves the ring through {@code leave} (see {@link NodeDecommission}). */
    public NodeDecommission decommission()
    {
        requireStarted();
        return decommission;
    }

    /** {@code electtool reads}: see {@link ReadSources}. */
    public String readsJson() throws IOException
    {
        return ReadSources.json(requireStarted().context());
    }

    /** {@code electtool rebuild}: starts a rebuild of this node (see {@link NodeRebuild}); returns its first status. */
    public String startRebuild(int parallelism, double throttleMiBps, boolean stream, String keyspace) throws IOException
    {
        requireStarted();
        return rebuilds.start(parallelism, throttleMiBps, stream, keyspace);
    }

    /**
     * This node bootstrapped in write survey mode (a join with encoded data in the cluster, issue 18): installs the
     * stubs of the spans it will replicate, purges what they shadow, then runs {@code joinRing}; retried every 30 s
     * until it succeeds. Progress: {@code electtool rebuild --status}.
     */
    public void completeJoin(Runnable joinRing)
    {
        rebuilds.startJoin(4, 2_000, 30_000, joinRing);
    }

    /** {@code electtool verify} on this node (see {@link StripeVerifier}). */
    public String verify() throws IOException
    {
        return StripeVerifier.verify(requireStarted().ops());
    }

    /** {@code electtool metrics}: every metric's value by name. */
    public java.util.Map<String, Object> metricsSnapshot()
    {
        return metrics.snapshot();
    }

    /** Stops the rounds and closes the transport. Idempotent. */
    @Override
    public synchronized void close()
    {
        if (scheduler != null)
            scheduler.shutdownNow();
        scheduler = null;
        if (warmScheduler != null)
            warmScheduler.shutdownNow();
        warmScheduler = null;
        if (coverageScheduler != null)
            coverageScheduler.shutdownNow();
        coverageScheduler = null;
        Started s = started;
        if (s != null)
            s.context().transport().close();
    }
}
