package io.elect.offload;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs backend requests for FramedColdStore: under a semaphore that bounds the requests in flight over all
 * callers, retrying transient failures with exponential backoff and full jitter, counting requests, retries,
 * throttling and corruption in the store's metrics. Thread-safe.
 */
final class Retrier
{
    private static final Logger logger = LoggerFactory.getLogger(Retrier.class);
    private static final int MAX_CORRUPT_ATTEMPTS = 3;

    private final String name;
    private final ColdStoreOptions options;
    private final ColdStoreMetrics metrics;
    private final Semaphore inFlight;

    Retrier(String name, ColdStoreOptions options, ColdStoreMetrics metrics)
    {
        this.name = name;
        this.options = options;
        this.metrics = metrics;
        this.inFlight = new Semaphore(options.maxConcurrency());
    }


    interface Attempt<T>
    {
        T run() throws IOException;
    }

    /**
     * Runs attempt under a concurrency permit, retrying transient failures (and, for reads, corruption: a bit
     * flipped in transit passes on retry, corruption at rest does not) up to maxAttempts with exponential
     * backoff and full jitter. Not-found, bad arguments and other errors are not retried.
     */
    <T> T retry(String what, boolean retryCorrupt, Attempt<T> attempt) throws IOException
    {
        int corruptions = 0;
        for (int n = 1; ; n++)
        {
            try
            {
                inFlight.acquire();
            }
            catch (InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted: " + what);
            }
            try
            {
                metrics.requests.increment();
                return attempt.run();
            }
            catch (TransientColdStoreException | CorruptObjectException e)
            {
                boolean corrupt = e instanceof CorruptObjectException;
                if (corrupt)
                    metrics.corruptionDetected.increment();
                if (e instanceof TransientColdStoreException t && t.throttled())
                    metrics.throttled.increment();
                if (corrupt && !retryCorrupt)
                    throw e;
                // Corruption in transit passes on a retry or two; corruption at rest never does. Corrupt answers are
                // counted on their own: transient errors before them must not use up their budget (simulation seed
                // 1697: two injected 500s, then one bit flipped in transit, and a healthy object was given up on).
                if (corrupt)
                    corruptions++;
                if (n >= options.maxAttempts() || corruptions >= Math.min(options.maxAttempts(), MAX_CORRUPT_ATTEMPTS))
                {
                    logger.warn("Cold store {}: {} failed after {} attempts: {}", name, what, n, e.getMessage());
                    if (corrupt)
                        throw e;
                    throw new ColdStoreException(what + " failed after " + n + " attempts: " + e.getMessage(), e);
                }
                metrics.retries.increment();
                logger.debug("Cold store {}: retrying {} (attempt {}): {}", name, what, n, e.getMessage());
            }
            finally
            {
                inFlight.release();
            }
            backoff(what, n);
        }
    }

    private void backoff(String what, int attempt) throws InterruptedIOException
    {
        long cap = Math.min(options.maxBackoff().toNanos(), options.baseBackoff().toNanos() << Math.min(20, attempt - 1));
        long nanos = cap <= 0 ? 0 : ThreadLocalRandom.current().nextLong(cap + 1);
        try
        {
            TimeUnit.NANOSECONDS.sleep(nanos);
        }
        catch (InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while retrying " + what);
        }
    }
}
