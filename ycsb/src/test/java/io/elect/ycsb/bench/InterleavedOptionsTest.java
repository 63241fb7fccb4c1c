package io.elect.ycsb.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Command-line parsing of {@link Interleaved}: defaults, the workload file under -p overrides, errors naming the flag. */
class InterleavedOptionsTest
{
    @TempDir
    Path dir;

    private String workload() throws Exception
    {
        Path f = dir.resolve("w");
        Files.writeString(f, "readproportion=0.5\nrecordcount=1000\n");
        return f.toString();
    }

    @Test
    void defaultsAndOverrides() throws Exception
    {
        Interleaved.Options o = Interleaved.Options.parse(new String[]{
            "--workload", workload(), "--tables", "plain,elect", "-p", "recordcount=42", "-p", "hosts=h1,h2" });
        assertEquals(List.of("plain", "elect"), o.tables);
        assertEquals(8, o.rounds);
        assertEquals(3, o.sliceSeconds);
        assertEquals(30, o.warmupSeconds);
        assertEquals(8, o.threads);
        assertEquals("0.5", o.properties.getProperty("readproportion"));
        assertEquals("42", o.properties.getProperty("recordcount"), "-p wins over the workload file");
        assertEquals("h1,h2", o.properties.getProperty("hosts"));
    }

    @Test
    void errorsNameTheFlag() throws Exception
    {
        String w = workload();
        assertError("--rounds", "--workload", w, "--tables", "a,b", "--rounds", "0");
        assertError("--slice-seconds", "--workload", w, "--tables", "a,b", "--slice-seconds", "x");
        assertError("--warmup-seconds", "--workload", w, "--tables", "a,b", "--warmup-seconds", "-1");
        assertError("--threads", "--workload", w, "--tables", "a,b", "--threads");
        assertError("--tables", "--workload", w, "--tables", "a");
        assertError("--tables", "--workload", w, "--tables", "a,a");
        assertError("--tables", "--workload", w, "--tables", "a,b-c");
        assertError("--tables", "--workload", w);
        assertError("--workload", "--tables", "a,b");
        assertError("--workload", "--workload", dir.resolve("missing").toString(), "--tables", "a,b");
        assertError("-p", "--workload", w, "--tables", "a,b", "-p", "novalue");
        assertError("--bogus", "--workload", w, "--tables", "a,b", "--bogus", "1");
        assertEquals(0, Interleaved.Options.parse(new String[]{ "--workload", w, "--tables", "a,b",
                                                                 "--warmup-seconds", "0" }).warmupSeconds);
    }

    @Test
    void warmUpEndsWhenThroughputSettlesOrTheBudgetIsSpent()
    {
        long round = 9_000; // three tables, 3 s slices
        // A cold read-only run measured on three identical tables: round totals rose 48%, 11%, 11%, then -2%.
        List<Double> cold = List.of(7900.0, 11700.0, 12990.0, 14390.0, 14100.0);
        for (int done = 0; done < 5; done++)
            assertEquals(null, Interleaved.warmUpEnd(cold.subList(0, done), round, 90_000), "after " + done);
        assertEquals("throughput changed -2.0% from the round before",
                     Interleaved.warmUpEnd(cold, round, 90_000));
        // Never fewer than two rounds, even if the budget allows only one more.
        assertEquals(null, Interleaved.warmUpEnd(List.of(1000.0), round, 18_000));
        assertEquals("throughput changed +1.0% from the round before",
                     Interleaved.warmUpEnd(List.of(1000.0, 1010.0), round, 18_000));
        // The budget caps a run that never settles; at least one round when it is positive but short.
        assertEquals("the --warmup-seconds budget is spent",
                     Interleaved.warmUpEnd(List.of(1000.0, 1500.0), round, 18_000));
        assertEquals(null, Interleaved.warmUpEnd(List.of(), round, 3_000));
        assertEquals("the --warmup-seconds budget is spent", Interleaved.warmUpEnd(List.of(1000.0), round, 3_000));
        assertEquals("--warmup-seconds 0", Interleaved.warmUpEnd(List.of(), round, 0));
    }

    private static void assertError(String flag, String... args)
    {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                                                  () -> Interleaved.Options.parse(args));
        assertTrue(e.getMessage().contains(flag), e.getMessage());
    }
}
