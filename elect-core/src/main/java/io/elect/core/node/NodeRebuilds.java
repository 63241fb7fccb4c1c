package io.elect.core.node;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import io.elect.core.config.Json;

/**
 * The rebuild of this node ({@code electtool rebuild}): at most one at a time; the last one's status is kept for
 * {@code electtool rebuild} to poll. One instance per node (held by {@link ElectNode}). Thread-safe.
 */
public final class NodeRebuilds
{
    private static final org.slf4j.Logger logger = org.slf4j.LoggerFactory.getLogger(NodeRebuilds.class);
    private final AtomicReference<NodeRebuild> current = new AtomicReference<>();
    private LocalTransitionOps ops;

    void attach(LocalTransitionOps ops)
    {
        this.ops = ops;
    }

    /** Whether a rebuild is running now (then this node refuses SNAPSHOT). */
    public boolean running()
    {
        NodeRebuild r = current.get();
        return r != null && r.isRunning();
    }

    /**
     * Starts a rebuild on the node's executors (in the background in production); IllegalStateException if one
     * runs. Returns the first status document.
     */
    public synchronized String start(int parallelism, double throttleMiBps, boolean stream, String keyspace) throws IOException
    {
        if (ops == null)
            throw new IllegalStateException("ELECT services are not running on this node (see its log)");
        if (running())
            throw new IllegalStateException("a rebuild is already running on this node: " + current.get().statusJson());
        NodeRebuild r = new NodeRebuild(ops, parallelism, throttleMiBps, stream, keyspace);
        current.set(r);
        String first = r.statusJson();
        ops.node().executors().start("rebuild", r::run);
        return first;
    }

    /**
     * A joining node's catch-up (issue 18; {@link NodeRebuild} in join mode) on the node's executors, retried until it
     * succeeds ({@link #retryDelay}: {@code firstRetryMillis}, doubling up to {@code maxRetryMillis}), then
     * {@code joinRing} (Cassandra leaves write survey mode and the node joins the ring). Its status is the rebuild
     * status ({@code electtool rebuild --status}).
     */
    public synchronized void startJoin(int parallelism, long firstRetryMillis, long maxRetryMillis, Runnable joinRing)
    {
        if (ops == null)
            throw new IllegalStateException("ELECT services are not running on this node (see its log)");
        ops.node().executors().start("join-catch-up", () -> {
            long start = ops.node().clock().millis();
            for (int attempt = 1; ; attempt++)
            {
                long retryMillis = retryDelay(attempt, firstRetryMillis, maxRetryMillis);
                NodeRebuild r;
                try
                {
                    r = new NodeRebuild(ops, parallelism, 0, false, null, true);
                }
                catch (IOException | RuntimeException e)
                {
                    // e.g. a corrupt join/progress.txt (the message names it); the node stays out of the ring meanwhile
                    logger.warn("{}: the join catch-up cannot start (retried in {} ms): {}", ops.node().self(), retryMillis, e.toString());
                    if (!sleep(retryMillis))
                        return;
                    continue;
                }
                current.set(r);
                r.run();
                if (r.state().equals("done"))
                {
                    try
                    {
                        joinRing.run();
                    }
                    catch (RuntimeException e)
                    {
                        logger.warn("{} caught up but could not join the ring (retried in {} ms): {}", ops.node().self(), retryMillis, e.getMessage());
                        if (!sleep(retryMillis))
                            return;
                        continue;
                    }
                    logger.info("{} joined the ring after its catch-up ({} attempt(s), {} ms): {}", ops.node().self(), attempt,
                                ops.node().clock().millis() - start, r.counts());
                    return;
                }
                if (!sleep(retryMillis))
                    return;
            }
        });
    }

    /**
     * The wait after failed attempt {@code attempt} (1-based): {@code first}, doubled per attempt, at most {@code max}.
     * A first failure is often a moment's refusal (the other nodes' transports refuse a joiner gossip dropped after a
     * restart, BootstrapIT's kill run): retrying after the fixed 30 s it used to wait cost the join those 30 s.
     */
    static long retryDelay(int attempt, long first, long max)
    {
        if (attempt < 1 || first <= 0 || max < first)
            throw new IllegalArgumentException("retryDelay(" + attempt + ", " + first + ", " + max + ")");
        long d = first;
        for (int i = 1; i < attempt && d < max; i++)
            d *= 2;
        return Math.min(d, max);
    }

    private boolean sleep(long millis)
    {
        try
        {
            ops.node().clock().sleep(millis);
            return true;
        }
        catch (InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Waits until the current rebuild (if any) ends or maxWaitMillis pass; returns {@link #status()}. */
    public String await(long maxWaitMillis) throws InterruptedException
    {
        NodeRebuild r = current.get();
        if (r != null)
            r.await(maxWaitMillis);
        return status();
    }

    /** The status of the current or last rebuild of this process ({"state":"none"} if there was none). */
    public String status()
    {
        NodeRebuild r = current.get();
        return r == null ? Json.write(Map.of("state", "none")) : r.statusJson();
    }

    /** The last rebuild's counts by outcome and its state ("running", "done", "failed"); for tests and the simulation. */
    public Map<String, Integer> lastCounts()
    {
        NodeRebuild r = current.get();
        return r == null ? Map.of() : r.counts();
    }

    public String lastState()
    {
        NodeRebuild r = current.get();
        return r == null ? "none" : r.state();
    }
}
