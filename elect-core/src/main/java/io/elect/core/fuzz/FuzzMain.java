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
        Path scratch = Files.createTempDirectory("elect-fuzz");
        Map<String, FuzzTarget> targets = Targets.all(scratch);
        if (!only.isEmpty())
            targets.keySet().retainAll(only);
        List<Object> reports = new ArrayList<>();
        long bad = 0;
        for (FuzzTarget t : targets.values())
        {
            FuzzRunner.Report r = FuzzRunner.run(t, inputs, seed, 5_000);
            bad += r.violationCount();
            reports.add(r.toMap());
            System.err.printf("fuzz %-28s %9d inputs %9d accepted %9d rejected %6d violations %7d ms%n", t.name(), r.inputs(), r.accepted(),
                              r.rejected(), r.violationCount(), r.elapsedMillis());
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("seed", seed);
        doc.put("inputs_per_target", inputs);
        doc.put("targets", reports);
        doc.put("violations", bad);
        System.out.println(Json.write(doc));
        deleteTree(scratch);
        System.exit(bad == 0 ? 0 : 1);
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
