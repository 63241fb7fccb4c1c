package io.elect.core.fuzz;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.elect.core.config.Json;

/**
 * {@code scripts/fuzz formats [--inputs N] [--seed S] [--target NAME]...}: every (or the named) input surface of
 * {@link Targets} in this JVM, N mutated inputs each; prints one JSON document (per target: inputs, accepted,
 * rejected, violations with the first few inputs) and exits 1 if any target had a violation.
 * {@code scripts/fuzz transport ...} is {@link LiveFrameFuzzer} against a running node.
 */
public final class FuzzMain
{
    private FuzzMain()
    {
    }

    public static void main(String[] args) throws Exception
    {
        if (args.length > 0 && args[0].equals("transport"))
        {
            LiveFrameFuzzer.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        long inputs = 100_000, seed = 19;
        List<String> only = new ArrayList<>();
        for (int i = args.length > 0 && args[0].equals("formats") ? 1 : 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--inputs" -> inputs = Long.parseLong(args[++i]);
                case "--seed" -> seed = Long.parseLong(args[++i]);
                case "--target" -> only.add(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i] + "; usage: formats [--inputs N] [--seed S] [--target NAME]...");
            }
        }
        Path scratch = scratchDir();
        Map<String, FuzzTarget> targets = Targets.all(scratch);
        if (!only.isEmpty())
            targets.keySet().retainAll(only);
        // targets are independent (own files, own seeds; allocation is counted per thread): one per core at a time
        long n = inputs, s = seed;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors());
        List<java.util.concurrent.Future<FuzzRunner.Report>> runs = new ArrayList<>();
        for (FuzzTarget t : targets.values())
            runs.add(pool.submit(() -> {
                FuzzRunner.Report r = FuzzRunner.run(t, n, s, 5_000);
                System.err.printf("fuzz %-28s %9d inputs %9d accepted %9d rejected %6d violations %7d ms%n", t.name(), r.inputs(), r.accepted(),
                                  r.rejected(), r.violationCount(), r.elapsedMillis());
                return r;
            }));
        List<Object> reports = new ArrayList<>();
        long bad = 0;
        for (var f : runs)
        {
            FuzzRunner.Report r = f.get();
            bad += r.violationCount();
            reports.add(r.toMap());
        }
        pool.shutdown();
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("seed", seed);
        doc.put("inputs_per_target", inputs);
        doc.put("targets", reports);
        doc.put("violations", bad);
        System.out.println(Json.write(doc));
        deleteTree(scratch);
        System.exit(bad == 0 ? 0 : 1);
    }

    /** Scratch files of the file-format targets: in memory (/dev/shm) when there is one, else the temp directory. */
    static Path scratchDir() throws java.io.IOException
    {
        Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm) ? Files.createTempDirectory(shm, "elect-fuzz") : Files.createTempDirectory("elect-fuzz");
    }

    static void deleteTree(Path dir) throws java.io.IOException
    {
        try (var s = Files.walk(dir))
        {
            for (Path p : (Iterable<Path>) s.sorted(java.util.Comparator.reverseOrder())::iterator)
                Files.deleteIfExists(p);
        }
    }
}
