package io.elect.core.transport;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** Retries of {@link Transport#request}, and the shared timer of the transports. */
final class Retrier
{
    /** One daemon thread for timeouts and back-offs of every transport in the JVM; tasks are tiny. */
    static final ScheduledExecutorService TIMER;

    static
    {
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
            Thread th = new Thread(r, "elect-transport-timer");
            th.setDaemon(true);
            return th;
        });
        t.setRemoveOnCancelPolicy(true);
        TIMER = t;
    }

    private Retrier()
    {
    }

    static CompletableFuture<byte[]> request(Transport t, Peer peer, int verb, byte[] payload)
    {
        CompletableFuture<byte[]> result = new CompletableFuture<>();
        attempt(t, peer, verb, payload, 0, result);
        return result;
    }

    private static void attempt(Transport t, Peer peer, int verb, byte[] payload, int n, CompletableFuture<byte[]> result)
    {
        if (!t.liveness().isAlive(peer))
        {
            result.completeExceptionally(new TransportException(TransportException.Reason.PEER_DOWN, peer + " is down"));
            return;
        }
        CompletableFuture<byte[]> once;
        try
        {
            once = t.requestOnce(peer, verb, payload, t.options().requestTimeoutMillis());
        }
        catch (RuntimeException e)
        {
            result.completeExceptionally(e); // bad arguments (e.g. payload too large): not retried
            return;
        }
        once.whenComplete((r, e) -> {
            if (e == null)
            {
                result.complete(r);
                return;
            }
            Throwable c = unwrap(e);
            if (c instanceof TransportException && ((TransportException) c).retriable() && n < t.options().retries())
            {
                t.metrics().retries.incrementAndGet();
                TIMER.schedule(() -> attempt(t, peer, verb, payload, n + 1, result),
                               t.options().retryBackoffMillis() * (n + 1), TimeUnit.MILLISECONDS);
            }
            else
            {
                result.completeExceptionally(c);
            }
        });
    }

    static Throwable unwrap(Throwable e)
    {
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null)
            e = e.getCause();
        return e;
    }
}
