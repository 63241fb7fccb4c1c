package io.elect.offload;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Lock-free latency histogram with log-scale buckets: 8 buckets per power of two of microseconds, so a
 * reported percentile is within ~9% above the true value. Covers 1 us .. ~2^40 us. Thread-safe.
 */
public final class LatencyHistogram
{
    private static final int SUB_BUCKETS = 8;
    private static final int BUCKETS = 41 * SUB_BUCKETS;
    private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);

    public void recordNanos(long nanos)
    {
        counts.incrementAndGet(bucket(Math.max(1, nanos / 1000)));
    }

    static int bucket(long micros)
    {
        int log = 63 - Long.numberOfLeadingZeros(micros);
        int sub = log < 3 ? (int) (micros << (3 - log)) & (SUB_BUCKETS - 1)
                          : (int) (micros >>> (log - 3)) & (SUB_BUCKETS - 1);
        return Math.min(BUCKETS - 1, log * SUB_BUCKETS + sub);
    }

    /** Upper bound in microseconds of the values falling into bucket b. */
    static double upperMicros(int b)
    {
        int log = b / SUB_BUCKETS;
        int sub = b % SUB_BUCKETS;
        return Math.pow(2, log) * (1 + (sub + 1) / (double) SUB_BUCKETS);
    }

    public long count()
    {
        long n = 0;
        for (int i = 0; i < BUCKETS; i++)
            n += counts.get(i);
        return n;
    }

    /** The q-quantile (0 < q <= 1) in milliseconds, or 0 if nothing was recorded. */
    public double quantileMillis(double q)
    {
        if (!(q > 0 && q <= 1))
            throw new IllegalArgumentException("q must be in (0, 1], got " + q);
        long total = count();
        if (total == 0)
            return 0;
        long rank = (long) Math.ceil(q * total);
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++)
        {
            seen += counts.get(i);
            if (seen >= rank)
                return upperMicros(i) / 1000.0;
        }
        return upperMicros(BUCKETS - 1) / 1000.0;
    }
}
