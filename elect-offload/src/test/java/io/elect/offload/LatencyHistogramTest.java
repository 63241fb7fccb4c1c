package io.elect.offload;

import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

public class LatencyHistogramTest
{
    @Test
    void quantilesAreWithinTheBucketResolution()
    {
        long seed = System.nanoTime();
        System.out.println("LatencyHistogramTest seed=" + seed);
        Random r = new Random(seed);
        LatencyHistogram h = new LatencyHistogram();
        long[] micros = new long[10_000];
        for (int i = 0; i < micros.length; i++)
        {
            micros[i] = 1 + (long) Math.exp(r.nextDouble() * 14); // 1 us .. ~1.2 s
            h.recordNanos(micros[i] * 1000);
        }
        Arrays.sort(micros);
        assertEquals(micros.length, h.count());
        for (double q : new double[]{ 0.5, 0.9, 0.99, 1.0 })
        {
            double exact = micros[(int) Math.ceil(q * micros.length) - 1] / 1000.0;
            double got = h.quantileMillis(q);
            assertTrue(got >= exact * 0.999 && got <= exact * 1.13, "q=" + q + " exact=" + exact + " got=" + got);
        }
        assertEquals(0, new LatencyHistogram().quantileMillis(0.5));
        assertThrows(IllegalArgumentException.class, () -> h.quantileMillis(0));
    }
}
