package io.elect.tsue.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

import io.elect.coding.ErasureCoder;
import io.elect.coding.ErasureCoders;
import io.elect.tsue.engine.TsueConfig;
import io.elect.tsue.engine.UpdatePolicy;
import io.elect.tsue.trace.BlockTraceReader;
import io.elect.tsue.trace.CloudTraceGenerator;
import io.elect.tsue.trace.TraceOp;

/**
 * Replays one trace through every update policy, the TSUE ablation levels and a 2-way replicated log append (the
 * latency yardstick) on real files (chunk files O_DIRECT, logs buffered with fdatasync), per code, repetitions
 * interleaved in shuffled order; measures the device in the same run. Prints one JSON object per row and writes
 * them all to {@code --out}.
 *
 * <p>Usage: {@code TsueBench --dir DIR --out FILE.json [--quick] [--reps N] [--reps-other N] [--updates N]
 * [--seconds S] [--latency-seconds S]
 * [--threads N] [--codes 6,4/4,2/12,4] [--volume-mib N] [--trace ten|ali|msr:FILE|alibaba:FILE|tencent:FILE]
 * [--rows P1,P2,..] [--no-ablation] [--no-direct] [--recycle-threads N] [--recycle-cpu-share X] [--log-pools N]
 * [--span-gap-kib N] [--coalesce-gap-kib N] [--warmup-seconds S]}
 */
public final class TsueBench
{
    public static void main(String[] args) throws Exception
    {
        Path dir = Path.of("run/tsue-bench"), out = null;
        boolean quick = false, ablation = true, direct = true;
        int logPools = 4, reps = 3, repsOther = -1, updates = 200_000, threads = 8, volumeMiB = 1536, recycleThreads = 2;
        int spanGapKiB = 64, coalesceGapKiB = 64;
        double seconds = 15, latencySeconds = 5, cpuShare = 1.0, warmupSeconds = 3;
        String codes = "6,4/4,2/12,4", traceSpec = "ten", rowsSpec = null;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--dir" -> dir = Path.of(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--quick" -> quick = true;
                case "--reps" -> reps = Integer.parseInt(args[++i]);
                case "--reps-other" -> repsOther = Integer.parseInt(args[++i]);
                case "--updates" -> updates = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                case "--latency-seconds" -> latencySeconds = Double.parseDouble(args[++i]);
                case "--threads" -> threads = Integer.parseInt(args[++i]);
                case "--codes" -> codes = args[++i];
                case "--volume-mib" -> volumeMiB = Integer.parseInt(args[++i]);
                case "--trace" -> traceSpec = args[++i];
                case "--rows" -> rowsSpec = args[++i];
                case "--no-ablation" -> ablation = false;
                case "--no-direct" -> direct = false;
                case "--recycle-threads" -> recycleThreads = Integer.parseInt(args[++i]);
                case "--log-pools" -> logPools = Integer.parseInt(args[++i]);
                case "--recycle-cpu-share" -> cpuShare = Double.parseDouble(args[++i]);
                case "--warmup-seconds" -> warmupSeconds = Double.parseDouble(args[++i]);
                case "--span-gap-kib" -> spanGapKiB = Integer.parseInt(args[++i]);
                case "--coalesce-gap-kib" -> coalesceGapKiB = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument: " + args[i]);
            }
        }
        if (repsOther < 0)
            repsOther = reps;
        if (quick)
        {
            reps = Math.min(reps, 2);
            repsOther = Math.min(repsOther, 2);
            updates = Math.min(updates, 120_000);   // more than the fastest row (the yardstick) replays in both phases
            seconds = Math.min(seconds, 8);
            latencySeconds = Math.min(latencySeconds, 3);
            volumeMiB = Math.min(volumeMiB, 768);
            warmupSeconds = Math.min(warmupSeconds, 2);
        }
        List<String> lines = new ArrayList<>();
        boolean warmedUp = false;
        for (String code : codes.split("/"))
        {
            int k = Integer.parseInt(code.split(",")[0]), m = Integer.parseInt(code.split(",")[1]);
            TsueConfig base = TsueConfig.builder().code(k, m).chunkSize(1 << 20).pageSize(4096)
                                        .logUnitBytes(16 << 20).logMemoryQuota(128 << 20).deltaLogBytes(16 << 20).logPools(logPools)
                                        .recycleThreads(recycleThreads).recycleCpuShare(cpuShare)
                                        .recycleSpanGap(spanGapKiB << 10).parityCoalesceGap(coalesceGapKiB << 10)
                                        .parityApplyBytes(8 << 20).plrReserveBytes(256 << 10)
                                        .parixApplyBytes(16 << 20).dpuRatio(0.005).build();
            int stripes = (int) Math.max(1, ((long) volumeMiB << 20) / ((long) k * base.chunkSize));
            ErasureCoder coder = ErasureCoders.create(k, m);
            try (Volume vol = new Volume(dir.resolve("rs-" + k + "-" + m), base, stripes, direct))
            {
                long t0 = System.nanoTime();
                vol.create(coder);
                System.err.printf(Locale.ROOT, "tsue: RS(%d,%d) volume of %d stripes (%d MiB data) in %.1f s%n", k, m,
                                  stripes, vol.dataBytes() >> 20, (System.nanoTime() - t0) / 1e9);
                List<TraceOp> trace = trace(traceSpec, updates, vol.dataBytes());
                String traceName = traceSpec.contains(":") ? traceSpec.substring(0, traceSpec.indexOf(':')) : traceSpec;
                DeviceProbe.Result dev = DeviceProbe.measure(vol.layers(), vol.chunkFiles(), base.chunkSize,
                                                             vol.dir.resolve("probe-a"), vol.dir.resolve("probe-b"),
                                                             quick ? 500 : 2000);
                String devLine = String.format(Locale.ROOT, "{\"policy\":\"DEVICE\",\"ablation\":null,\"k\":%d,\"m\":%d,"
                                                            + "\"direct_io\":%b,%s}", k, m, direct, dev.json());
                System.out.println(devLine);
                lines.add(devLine);
                List<Row> rows = rows(rowsSpec, ablation && k == 6 && m == 4);
                if (warmupSeconds > 0 && !warmedUp)
                {
                    // JIT compilation took about a fifth of the CPU in the first seconds of a fresh JVM (measured per
                    // thread group): every row runs once, unrecorded, so that no repetition's first row pays it
                    long w0 = System.nanoTime();
                    for (Row row : rows)
                        RowRun.run(row, base, vol, coder, trace, threads, warmupSeconds, 1, -1, traceName);
                    warmedUp = true;
                    System.err.printf(Locale.ROOT, "tsue: warm-up of %d rows in %.1f s (not recorded)%n", rows.size(),
                                      (System.nanoTime() - w0) / 1e9);
                }
                int codeReps = k == 6 && m == 4 ? reps : repsOther;
                for (int rep = 0; rep < codeReps; rep++)
                {
                    List<Row> order = new ArrayList<>(rows);
                    Collections.shuffle(order, new Random(rep * 31L + k));
                    for (Row row : order)
                    {
                        Map<String, Object> r = RowRun.run(row, base, vol, coder, trace, threads, seconds,
                                                           latencySeconds, rep, traceName);
                        String line = RowRun.json(r);
                        System.out.println(line);
                        lines.add(line);
                    }
                }
            }
        }
        if (out != null)
            Files.write(out, List.of("[\n" + String.join(",\n", lines) + "\n]"));
    }

    static List<Row> rows(String spec, boolean ablation)
    {
        List<Row> rows = new ArrayList<>();
        if (spec == null || spec.contains(Row.REPLICATED))
            rows.add(Row.replicated());
        for (UpdatePolicy p : UpdatePolicy.values())
            if (spec == null || List.of(spec.split(",")).contains(p.name()))
                rows.add(Row.policy(p));
        if (ablation)
            for (String level : TsueConfig.ABLATION_LEVELS)
                if (!level.equals("O5") && (spec == null || List.of(spec.split(",")).contains(level)))   // O5 is the TSUE row
                    rows.add(new Row("TSUE_" + level, UpdatePolicy.TSUE, level));
        return rows;
    }

    /** The first {@code updates} updates of the trace (and the reads between them). */
    static List<TraceOp> trace(String spec, int updates, long volume) throws Exception
    {
        List<TraceOp> all;
        if (spec.equals("ten") || spec.equals("ali"))
        {
            CloudTraceGenerator g = new CloudTraceGenerator(spec.equals("ten") ? CloudTraceGenerator.Profile.TEN_CLOUD
                                                                                : CloudTraceGenerator.Profile.ALI_CLOUD);
            all = g.generate(42, (int) (updates / g.profile.updateFraction * 1.05) + 100, volume);
        }
        else
        {
            String format = spec.substring(0, spec.indexOf(':'));
            BlockTraceReader.Format f = switch (format)
            {
                case "msr" -> BlockTraceReader.Format.MSR;
                case "alibaba" -> BlockTraceReader.Format.ALI;
                case "tencent" -> BlockTraceReader.Format.TENCENT;
                default -> throw new IllegalArgumentException("--trace: unknown format " + format);
            };
            all = BlockTraceReader.read(f, Path.of(spec.substring(spec.indexOf(':') + 1)), volume, 256 << 10,
                                        Integer.MAX_VALUE);
        }
        List<TraceOp> out = new ArrayList<>();
        int n = 0;
        for (TraceOp op : all)
        {
            if (n >= updates)
                break;
            out.add(op);
            if (op.write())
                n++;
        }
        return out;
    }
}
