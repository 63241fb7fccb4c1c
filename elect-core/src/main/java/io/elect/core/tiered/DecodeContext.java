package io.elect.core.tiered;

import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.elect.core.util.Clock;

/**
 * What a {@link DecodedRangeSource} runs on: the clock its deadlines, hedges and avoid-lists are measured with, and
 * the executor that reads stripe members in parallel. A node shares one context (one bounded pool) among all its
 * sources; the simulation uses a direct executor, so every member read runs inline and a run is deterministic.
 */
public record DecodeContext(Clock clock, Executor fetches)
{
    /** Threads of a node's shared member-fetch pool (property), default max(8, 2 x cores). */
    public static final String THREADS_PROPERTY = "elect.degraded.fetch_threads";
    /** Queued reads beyond which the caller runs the read itself (back-pressure instead of unbounded memory). */
    static final int QUEUE = 1024;

    public DecodeContext
    {
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(fetches, "fetches");
    }

    /** A context whose member reads run inline on the reading thread (simulation, single-threaded tools). */
    public static DecodeContext direct(Clock clock)
    {
        return new DecodeContext(clock, Runnable::run);
    }

    /**
     * A context with a bounded pool of daemon threads {@code <name>-N} (idle threads time out); when its queue is
     * full the caller runs the read itself.
     */
    public static DecodeContext pooled(Clock clock, String name)
    {
        int threads = Integer.getInteger(THREADS_PROPERTY, Math.max(8, 2 * Runtime.getRuntime().availableProcessors()));
        AtomicInteger ids = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUE),
                                                         r -> {
                                                             Thread t = new Thread(r, name + "-" + ids.incrementAndGet());
                                                             t.setDaemon(true);
                                                             return t;
                                                         },
                                                         new ThreadPoolExecutor.CallerRunsPolicy());
        pool.allowCoreThreadTimeOut(true);
        return new DecodeContext(clock, pool);
    }
}
