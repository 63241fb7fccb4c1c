package io.elect.tsue.trace;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Seeded synthetic block trace whose statistics follow the published characteristics of the cloud block traces that
 * the TSUE paper replays (sources and numbers: {@code docs/design/tsue.md}, "Trace"). A {@link Profile} fixes the
 * update share and the write-size distribution; the locality model is shared:
 * <ul>
 *   <li>sizes: a write is at most 4 KiB with probability {@code le4k}, at most 16 KiB with {@code le16k}; inside
 *       (0, 4 KiB] it is 4 KiB except for a fraction {@code subBlock} of 512 B multiples below 4 KiB; inside
 *       (4, 16 KiB] 8, 12 or 16 KiB; above, 32, 64 or 128 KiB, equally likely;</li>
 *   <li>spatial locality: the volume is cut into regions of {@code regionBytes} [1 MiB] whose popularity is Zipf with
 *       exponent {@code zipfS} [1.0] over a random permutation of regions; inside a region, with probability
 *       {@code sequentialFraction} [0.3] a request continues right after the previous request to that region,
 *       otherwise it starts at a 512 B-aligned offset (4 KiB-aligned for 4 KiB multiples) that is Zipf-distributed
 *       over the region's 4 KiB pages;</li>
 *   <li>temporal locality: with probability {@code repeatFraction} [0.25] a write repeats the location of one of the
 *       last {@code recentWindow} [64] writes (same offset and size).</li>
 * </ul>
 * Reads follow the same locality. The same seed, profile and parameters produce the same trace.
 */
public final class CloudTraceGenerator
{
    /** Update share and write-size distribution of a published trace (TSUE slides, "Analysis of access"). */
    public enum Profile
    {
        /** Tencent CBS (Ten-Cloud): 69% of requests are updates, 69% of them <= 4 KiB, 88% <= 16 KiB. */
        TEN_CLOUD(0.69, 0.69, 0.88),
        /** Alibaba Cloud block traces (Ali-Cloud): 75% updates, 46% <= 4 KiB, 60% <= 16 KiB. */
        ALI_CLOUD(0.75, 0.46, 0.60);

        public final double updateFraction, le4k, le16k;

        Profile(double updateFraction, double le4k, double le16k)
        {
            this.updateFraction = updateFraction;
            this.le4k = le4k;
            this.le16k = le16k;
        }
    }

    public final Profile profile;
    public double subBlock = 0.1;
    public int regionBytes = 1 << 20;
    public double zipfS = 1.0;
    public double sequentialFraction = 0.3;
    public double repeatFraction = 0.25;
    public int recentWindow = 64;

    public CloudTraceGenerator(Profile profile)
    {
        this.profile = profile;
    }

    /** A trace of {@code ops} requests (updates and reads) inside a volume of {@code volumeBytes}. */
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
            boolean write = rnd.nextDouble() < profile.updateFraction;
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
                off = base + page.sample(rnd) * 4096L + (len % 4096 == 0 ? 0 : 512L * rnd.nextInt(8));
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
        double u = rnd.nextDouble();
        if (u < profile.le4k)
            return rnd.nextDouble() < subBlock ? 512 * (1 + rnd.nextInt(7)) : 4096;
        if (u < profile.le16k)
            return 4096 * (2 + rnd.nextInt(3));
        return 32768 << rnd.nextInt(3);
    }
}
