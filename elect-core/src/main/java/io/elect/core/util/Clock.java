package io.elect.core.util;

import java.util.concurrent.TimeUnit;

/**
 * The node's time: wall-clock milliseconds (for ages, timestamps, status documents) and a monotonic nanosecond
 * counter (for deadlines, timeouts, durations). Every piece of ELECT's main code reads time through one of these, so
 * that tests and the whole-node simulation ({@code io.elect.core.sim}) control it: {@link #SYSTEM} in production,
 * {@link ManualClock} in tests and simulations.
 *
 * <p>Contract: {@link #nanoTime()} never goes backwards (differences of two readings are elapsed time, as with
 * {@link System#nanoTime()}); {@link #millis()} is the wall clock and may jump. {@link #sleep} waits for at least the
 * given time as this clock measures it (a manual clock advances itself instead of blocking). Thread-safe.
 */
public interface Clock
{
    /** Wall-clock time in milliseconds since the epoch. */
    long millis();

    /** Monotonic time in nanoseconds, for elapsed times and deadlines only. */
    long nanoTime();

    /** Waits at least {@code millis} milliseconds of this clock's time. */
    void sleep(long millis) throws InterruptedException;

    /** Milliseconds elapsed since {@code startNanos}, a reading of {@link #nanoTime()}. */
    default long millisSince(long startNanos)
    {
        return TimeUnit.NANOSECONDS.toMillis(nanoTime() - startNanos);
    }

    /** The JVM's clocks. */
    Clock SYSTEM = new Clock()
    {
        @Override
        public long millis()
        {
            return System.currentTimeMillis();
        }

        @Override
        public long nanoTime()
        {
            return System.nanoTime();
        }

        @Override
        public void sleep(long millis) throws InterruptedException
        {
            Thread.sleep(millis);
        }

        @Override
        public String toString()
        {
            return "system clock";
        }
    };
}
