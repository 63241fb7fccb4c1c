package io.elect.tsue.trace;

import java.util.Arrays;
import java.util.Random;

/** Samples ranks 0..n-1 with probability proportional to 1/(rank+1)^s (inverse CDF, binary search). Immutable. */
public final class ZipfSampler
{
    private final double[] cdf;

    public ZipfSampler(int n, double s)
    {
        if (n <= 0)
            throw new IllegalArgumentException("n must be > 0: " + n);
        if (s < 0)
            throw new IllegalArgumentException("s must be >= 0: " + s);
        cdf = new double[n];
        double sum = 0;
        for (int i = 0; i < n; i++)
            cdf[i] = sum += 1.0 / Math.pow(i + 1, s);
        for (int i = 0; i < n; i++)
            cdf[i] /= sum;
    }

    public int sample(Random rnd)
    {
        int i = Arrays.binarySearch(cdf, rnd.nextDouble());
        return Math.min(cdf.length - 1, i >= 0 ? i : -i - 1);
    }
}
