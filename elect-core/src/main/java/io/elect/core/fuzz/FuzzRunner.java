package io.elect.core.fuzz;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Runs one {@link FuzzTarget} over {@code n} mutated inputs and checks the contract on each: the decode returns or
 * throws a clean exception; it never throws an Error (OutOfMemoryError, StackOverflowError: a crash of the node's
 * thread) or a raw JDK runtime exception; it allocates at most {@link FuzzTarget#allocationLimit} (measured with the
 * thread's allocation counter, so a length field that drives a big allocation is caught even when the heap could
 * take it); it finishes within {@code hangMillis}; and a mutation of a checksummed encoding that is accepted without
 * its checksum being recomputed decodes to the value of one of the seeds (the only valid inputs the mutator has).
 *
 * <p>Input {@code i} is derived from {@code (seed, i)} alone, so a violation is reproduced by its index. Single
 * threaded; one runner per target.
 */
public final class FuzzRunner
{
    public record Violation(String kind, long index, String detail, String inputHex)
    {
    }

    public record Report(String target, long seed, long inputs, long accepted, long rejected, long violationCount,
                         List<Violation> violations, long maxAllocatedBytes, long maxMillis, long elapsedMillis)
    {
        public Map<String, Object> toMap()
        {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("target", target);
            m.put("seed", seed);
            m.put("inputs", inputs);
            m.put("accepted", accepted);
            m.put("rejected", rejected);
            m.put("violations", violationCount);
            m.put("max_allocated_bytes", maxAllocatedBytes);
            m.put("max_millis", maxMillis);
            m.put("elapsed_ms", elapsedMillis);
            List<Object> first = new ArrayList<>();
            for (Violation v : violations)
                first.add(Map.of("kind", v.kind(), "index", v.index(), "detail", v.detail(), "input_hex", v.inputHex()));
            m.put("first_violations", first);
            return m;
        }
    }

    static final int KEEP = 10;

    private FuzzRunner()
    {
    }

    public static Report run(FuzzTarget t, long n, long seed, long hangMillis)
    {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        List<byte[]> seeds = t.seeds();
        Map<Integer, String> seedValues = new HashMap<>();
        List<Violation> kept = new ArrayList<>();
        for (int s = 0; s < seeds.size(); s++) // warm-up: class loading and static initializers are not the decoder's allocation
            seedValues.put(s, canonicalOfSeed(t, seeds.get(s)));
        long accepted = 0, rejected = 0, violations = 0, maxAlloc = 0, maxMillis = 0;
        long start = io.elect.core.util.Clock.SYSTEM.nanoTime();
        for (long i = 0; i < n; i++)
        {
            Random r = new Random(seed * 0x9E3779B97F4A7C15L + i);
            int s = r.nextInt(seeds.size());
            byte[] input = Mutator.mutate(seeds.get(s), seeds, t.text(), r);
            boolean fixed = false;
            if (r.nextBoolean())
            {
                byte[] f = t.fixChecksum(input);
                if (f != null)
                {
                    input = f;
                    fixed = true;
                }
            }
            String problem = null, kind = null;
            long a0 = threads.getCurrentThreadAllocatedBytes(), t0 = io.elect.core.util.Clock.SYSTEM.nanoTime();
            Object value = null;
            try
            {
                value = t.decode(input);
                accepted++;
            }
            catch (Throwable e)
            {
                if (e instanceof Error)
                {
                    kind = "crash";
                    problem = e.toString();
                }
                else if (!t.clean(e))
                {
                    kind = "unclear-error";
                    problem = e.toString() + " at " + (e.getStackTrace().length > 0 ? e.getStackTrace()[0] : "?");
                }
                else
                {
                    rejected++;
                }
            }
            long millis = (io.elect.core.util.Clock.SYSTEM.nanoTime() - t0) / 1_000_000, alloc = threads.getCurrentThreadAllocatedBytes() - a0;
            maxMillis = Math.max(maxMillis, millis);
            maxAlloc = Math.max(maxAlloc, alloc);
            if (problem == null && alloc > t.allocationLimit(input.length))
            {
                kind = "unbounded-allocation";
                problem = alloc + " bytes allocated for a " + input.length + "-byte input (limit " + t.allocationLimit(input.length) + ")";
            }
            if (problem == null && millis > hangMillis)
            {
                kind = "hang";
                problem = millis + " ms for one input (limit " + hangMillis + ")";
            }
            if (problem == null && value != null && t.checksummed() && !fixed && !Arrays.equals(input, seeds.get(s)))
            {
                // splicing can rebuild another seed whole: any seed's value is a legitimate outcome, nothing else is
                String got = t.canonical(value);
                if (!seedValues.containsValue(got))
                {
                    kind = "silent-acceptance";
                    problem = "changed bytes accepted as a different value: " + abbreviate(got);
                }
            }
            if (problem != null)
            {
                violations++;
                if (kept.size() < KEEP)
                    kept.add(new Violation(kind, i, abbreviate(problem), HexFormat.of().formatHex(input, 0, Math.min(input.length, 512))));
            }
        }
        return new Report(t.name(), seed, n, accepted, rejected, violations, kept, maxAlloc, maxMillis, (io.elect.core.util.Clock.SYSTEM.nanoTime() - start) / 1_000_000);
    }

    private static String canonicalOfSeed(FuzzTarget t, byte[] seed)
    {
        try
        {
            return t.canonical(t.decode(seed));
        }
        catch (Exception e)
        {
            throw new IllegalStateException("seed of " + t.name() + " does not decode: " + e, e);
        }
    }

    private static String abbreviate(String s)
    {
        return s.length() <= 300 ? s : s.substring(0, 300) + "...";
    }
}
