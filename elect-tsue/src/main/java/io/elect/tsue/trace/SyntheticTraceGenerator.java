package io.elect.tsue.trace;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Seeded synthetic block trace with the characteristics reported in the TSUE slides for the MSR-Cambridge, Ali-Cloud
 * and Tencent-Cloud traces. Parameters (defaults in brackets, all documented in {@code docs/design/tsue.md}):
 * <ul>
 *   <li>{@code updateFraction} [0.8]: writes among all requests (slides: 69-90%);</li>
 *   <li>{@code smallFraction} [0.6]: writes of at most 4 KiB (slides: 46-69%); small sizes are 512 B multiples in
 *       (0, 4 KiB], large ones powers of two from 8 KiB to {@code maxLarge} [64 KiB];</li>
 *   <li>spatial locality: the volume is cut into regions of {@code regionBytes} [1 MiB] whose popularity is Zipf with
 *       exponent {@code zipfS} [1.0] over a random permutation of regions; inside a region, with probability
 *       {@code sequentialFraction} [0.3] a request continues right after the previous request to that region,
 *       otherwise it starts at a 512 B-aligned offset that is Zipf-distributed over the region's 4 KiB pages;</li>
 *   <li>temporal locality: with probability {@code repeatFraction} [0.25] a write repeats the location of one of the
 *       last {@code recentWindow} [64] writes (same offset and size).</li>
 * </ul>
 * The same seed and parameters produce the same trace.
 */
public final class SyntheticTraceGenerator
{
    public double updateFraction = 0.8;
    public double smallFraction = 0.6;
    public int maxLarge = 64 << 10;
    public int regionBytes = 1 << 20;
    public double zipfS = 1.0;
    public double sequentialFraction = 0.3;
    public double repeatFraction = 0.25;
    public int recentWindow = 64;

    public List<TraceOp> generate(long seed, int ops, long volumeBytes)
    {
        if (ops < 0)
            throw new IllegalArgumentException("ops must be >= 0: " + ops);
        if (volumeBytes < regionBytes)
            throw new IllegalArgumentException("volumeBytes must be >= regionBytes " + regionBytes + ": " + volumeBytes);
        Random rnd = new Random(seed);
        int regions = (int) Math.min(Integer.MAX_VALUE, volumeBytes / regionBytes);
        int[] perm = new int[regions];
        for (int i = 0; i < regions; i++)
            perm[i] = i;
        for (int i = regions - 1; i > 0; i--)
        {
            int j = rnd.nextInt(i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        ZipfSampler region = new ZipfSampler(regions, zipfS);
        ZipfSampler page = new ZipfSampler(regionBytes / 4096, zipfS);
        long[] next = new long[regions];
        List<TraceOp> recent = new ArrayList<>();
        List<TraceOp> out = new ArrayList<>(ops);
        for (int i = 0; i < ops; i++)
        {
            boolean write = rnd.nextDouble() < updateFraction;
            if (write && !recent.isEmpty() && rnd.nextDouble() < repeatFraction)
            {
                out.add(recent.get(rnd.nextInt(recent.size())));
                continue;
            }
            int len = size(rnd);
            int r = perm[region.sample(rnd)];
            long base = (long) r * regionBytes;
            long off;
            if (next[r] > 0 && rnd.nextDouble() < sequentialFraction)
                off = next[r];
            else
                off = base + page.sample(rnd) * 4096L + 512L * rnd.nextInt(8);
            off = Math.min(off, base + regionBytes - len);
            next[r] = off + len >= base + regionBytes ? 0 : off + len;
            TraceOp op = new TraceOp(write, off, len);
            out.add(op);
            if (write)
            {
                recent.add(op);
                if (recent.size() > recentWindow)
                    recent.remove(0);
            }
        }
        return out;
    }

    private int size(Random rnd)
    {
        if (rnd.nextDouble() < smallFraction)
            return 512 * (1 + rnd.nextInt(8));
        int steps = Integer.numberOfTrailingZeros(maxLarge) - 13 + 1;   // 8 KiB .. maxLarge
        return 8192 << rnd.nextInt(Math.max(1, steps));
    }
}
