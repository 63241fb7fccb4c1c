package io.elect.core.transport;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.slf4j.Logger;

/**
 * A WARN that is logged at most once per interval; the occurrences in between are counted and reported with the next
 * line ("... (37 more since the last report)"). So a host hammering the port with refused requests or failed TLS
 * handshakes costs a line every few seconds, not one per attempt. Thread-safe, lock-free.
 */
public final class RateLimitedLog
{
    private final Logger logger;
    private final long intervalNanos;
    private final LongSupplier nanoTime;
    private final AtomicLong nextAt;
    private final AtomicLong suppressed = new AtomicLong();

    public RateLimitedLog(Logger logger, long intervalMillis, LongSupplier nanoTime)
    {
        this.logger = logger;
        this.intervalNanos = intervalMillis * 1_000_000L;
        this.nanoTime = nanoTime;
        this.nextAt = new AtomicLong(nanoTime.getAsLong());
    }

    public RateLimitedLog(Logger logger, long intervalMillis)
    {
        this(logger, intervalMillis, io.elect.core.util.Clock.SYSTEM::nanoTime);
    }

    /** Logs {@code format} with {@code args} at WARN unless a line was logged less than one interval ago. */
    public boolean warn(String format, Object... args)
    {
        long now = nanoTime.getAsLong();
        long at = nextAt.get();
        if (now - at < 0 || !nextAt.compareAndSet(at, now + intervalNanos))
        {
            suppressed.incrementAndGet();
            return false;
        }
        long more = suppressed.getAndSet(0);
        if (more > 0)
            logger.warn(format + " (" + more + " more since the last report)", args);
        else
            logger.warn(format, args);
        return true;
    }
}
