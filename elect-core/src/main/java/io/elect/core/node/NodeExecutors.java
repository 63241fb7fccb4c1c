package io.elect.core.node;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * How the node's services run long or parallel work: {@link #THREADS} in production (daemon threads and bounded
 * pools), {@link #INLINE} in the simulation (everything on the caller's thread, in order, so a run is a
 * deterministic function of its seed).
 */
public interface NodeExecutors
{
    /** A started task; {@link #join} waits for its end. */
    interface Task
    {
        void join() throws InterruptedException;
    }

    /** Starts a task (a rebuild, one lane of it) named {@code name}. */
    Task start(String name, Runnable task);

    /**
     * Runs every step, at most {@code threads} at a time, and returns when all have ended; the first failure (in
     * step order) is rethrown after all have ended.
     */
    void runAll(String name, List<? extends Runnable> steps, int threads) throws Exception;

    /** Daemon threads {@code elect-<name>}; pools created per call and shut down after it. */
    NodeExecutors THREADS = new NodeExecutors()
    {
        @Override
        public Task start(String name, Runnable task)
        {
            Thread t = new Thread(task, "elect-" + name);
            t.setDaemon(true);
            t.start();
            return t::join;
        }

        @Override
        public void runAll(String name, List<? extends Runnable> steps, int threads) throws Exception
        {
            if (steps.isEmpty())
                return;
            ExecutorService pool = Executors.newFixedThreadPool(Math.min(threads, steps.size()), r -> {
                Thread t = new Thread(r, "elect-" + name);
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
                    catch (ExecutionException e)
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
    };

    /** Everything on the caller's thread, in order. */
    NodeExecutors INLINE = new NodeExecutors()
    {
        @Override
        public Task start(String name, Runnable task)
        {
            task.run();
            return () -> {};
        }

        @Override
        public void runAll(String name, List<? extends Runnable> steps, int threads) throws Exception
        {
            Exception first = null;
            for (Runnable s : steps)
            {
                try
                {
                    s.run();
                }
                catch (RuntimeException e)
                {
                    if (first == null)
                        first = e;
                }
            }
            if (first != null)
                throw first;
        }
    };
}
