package io.elect.core.transition;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Read rate per key (an SSTable id, or a key-range id) with exponential decay.
 *
 * <p>Each key holds a decayed count {@code c} and the time {@code t} it was last brought up to date. A read at
 * time {@code now} sets {@code c = c * 2^(-(now - t) / halfLife) + n}. The rate reported is {@code c * ln2 / halfLife}
 * (reads per second): for a steady stream of {@code q} reads per second, {@code c} converges to
 * {@code q * halfLife / ln2}, so the reported rate converges to {@code q}. A key never read has rate 0.
 *
 * <p>Time comes only from the injected clock (milliseconds, monotonic), so tests control it exactly.
 * Thread-safe: one lock-free update per key (compute on a concurrent map).
 */
public final class HotnessTracker<K extends Comparable<K>>
{
    private static final double LN2 = Math.log(2);

    private final LongSupplier clockMillis;
    private final double halfLifeMillis;
    private final ConcurrentHashMap<K, double[]> counts = new ConcurrentHashMap<>();

    /**
     * @param clockMillis    monotonic milliseconds (e.g. {@code System::nanoTime / 1e6} in production)
     * @param halfLifeMillis half-life of the decay; > 0
     */
    public HotnessTracker(LongSupplier clockMillis, long halfLifeMillis)
    {
        this.clockMillis = Objects.requireNonNull(clockMillis, "clockMillis");
        if (halfLifeMillis <= 0)
            throw new IllegalArgumentException("halfLifeMillis must be > 0, was " + halfLifeMillis);
        this.halfLifeMillis = halfLifeMillis;
    }

    /** Records {@code reads} (>= 0) reads of {@code key} now. */
    public void record(K key, long reads)
    {
        Objects.requireNonNull(key, "key");
        if (reads < 0)
            throw new IllegalArgumentException("reads must be >= 0, was " + reads);
        long now = clockMillis.getAsLong();
        counts.compute(key, (k, cur) -> {
            if (cur == null)
                return new double[]{ reads, now };
            cur[0] = decayed(cur, now) + reads;
            cur[1] = Math.max(cur[1], now);
            return cur;
        });
    }

    /** The decayed read rate of {@code key} now, in reads per second (0 if never read or forgotten). */
    public double rate(K key)
    {
        long now = clockMillis.getAsLong();
        double[] r = new double[1];
        counts.computeIfPresent(key, (k, cur) -> {
            r[0] = decayed(cur, now);
            return cur;
        });
        return toRate(r[0]);
    }

    /** Rates of every tracked key at one instant, ordered by key (a snapshot for the pure selection functions). */
    public Map<K, Double> snapshot()
    {
        long now = clockMillis.getAsLong();
        Map<K, Double> out = java.util.Collections.synchronizedMap(new TreeMap<>());
        for (K key : counts.keySet())
        {
            // computeIfPresent holds the key's bin lock, so the (count, time) pair is read consistently.
            counts.computeIfPresent(key, (k, cur) -> {
                out.put(k, toRate(decayed(cur, now)));
                return cur;
            });
        }
        return out;
    }

    /** Stops tracking {@code key} (its SSTable was compacted away or transitioned). */
    public void forget(K key)
    {
        counts.remove(key);
    }

    public int size()
    {
        return counts.size();
    }

    private double decayed(double[] cur, long now)
    {
        long dt = Math.max(0, now - (long) cur[1]);
        return cur[0] * Math.pow(2, -dt / halfLifeMillis);
    }

    private double toRate(double count)
    {
        return count * LN2 / (halfLifeMillis / 1000.0);
    }
}
