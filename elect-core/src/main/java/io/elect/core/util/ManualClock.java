package io.elect.core.util;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Clock} that moves only when told to: {@link #advance} by tests and the simulation's scheduler, and
 * {@link #sleep} (which advances it by the time asked instead of blocking, so code that waits makes progress in a
 * single-threaded simulation). The wall clock and the monotonic clock move together. Thread-safe.
 */
public final class ManualClock implements Clock
{
    private final long wallAtZero;
    private final AtomicLong nanos = new AtomicLong();

    /** A clock whose wall time starts at {@code startMillis} and whose monotonic time starts at 0. */
    public ManualClock(long startMillis)
    {
        this.wallAtZero = startMillis;
    }

    @Override
    public long millis()
    {
        return wallAtZero + TimeUnit.NANOSECONDS.toMillis(nanos.get());
    }

    @Override
    public long nanoTime()
    {
        return nanos.get();
    }

    @Override
    public void sleep(long millis)
    {
        advance(millis, TimeUnit.MILLISECONDS);
    }

    /** Moves both clocks forward; {@code amount} must be >= 0. */
    public void advance(long amount, TimeUnit unit)
    {
        if (amount < 0)
            throw new IllegalArgumentException("amount must be >= 0, got " + amount);
        nanos.addAndGet(unit.toNanos(amount));
    }

    @Override
    public String toString()
    {
        return "manual clock at " + millis() + " ms";
    }
}
