package io.elect.tsue.engine;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs independent tasks in parallel: all but the last on a shared cached pool of daemon threads, the last in the
 * calling thread; waits for all and rethrows the first failure as an IOException. Tasks may themselves call
 * {@link #run} (the pool grows instead of deadlocking).
 */
final class Parallel
{
    private static final ExecutorService POOL = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "tsue-io");
        t.setDaemon(true);
        return t;
    });

    private Parallel()
    {
    }

    static void run(List<Callable<Void>> tasks) throws IOException
    {
        run(POOL, tasks);
    }

    /** As {@link #run(List)}, all but the last task on {@code pool}. */
    static void run(ExecutorService pool, List<Callable<Void>> tasks) throws IOException
    {
        if (tasks.isEmpty())
            return;
        if (tasks.size() == 1)
        {
            call(tasks.get(0));
            return;
        }
        List<Future<Void>> fs = new ArrayList<>();
        for (Callable<Void> t : tasks.subList(0, tasks.size() - 1))
            fs.add(pool.submit(t));
        IOException first = null;
        try
        {
            call(tasks.get(tasks.size() - 1));
        }
        catch (IOException | RuntimeException e)
        {
            first = e instanceof IOException io ? io : new IOException(e);
        }
        for (Future<Void> f : fs)
        {
            try
            {
                f.get();
            }
            catch (InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            catch (ExecutionException e)
            {
                if (first == null)
                    first = e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
            }
        }
        if (first != null)
            throw first;
    }

    private static void call(Callable<Void> c) throws IOException
    {
        try
        {
            c.call();
        }
        catch (IOException | RuntimeException e)
        {
            throw e;
        }
        catch (Exception e)
        {
            throw new IOException(e);
        }
    }
}
