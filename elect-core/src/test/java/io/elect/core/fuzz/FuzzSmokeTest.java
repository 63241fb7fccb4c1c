package io.elect.core.fuzz;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import io.elect.core.config.Json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The short seeded run of every fuzz target in CI (issue 19): {@value #INPUTS} inputs each (the long runs are
 * {@code scripts/fuzz formats --inputs 100000} and {@code scripts/fuzz transport}). Seed from
 * {@code -Delect.test.seed}, printed; a violation prints its index and input, reproducible with the same seed.
 */
class FuzzSmokeTest
{
    static final long SEED = Long.getLong("elect.test.seed", 19L);
    static final int INPUTS = Integer.getInteger("elect.fuzz.inputs", 1000);
    static Path scratch;

    @BeforeAll
    static void scratch() throws Exception
    {
        scratch = FuzzMain.scratchDir();
        System.out.println("FuzzSmokeTest seed=" + SEED + " inputs=" + INPUTS + " (rerun with -Delect.test.seed=" + SEED + ")");
    }

    @AfterAll
    static void cleanup() throws Exception
    {
        FuzzMain.deleteTree(scratch);
    }

    @TestFactory
    Stream<DynamicTest> everyTargetKeepsTheContract() throws Exception
    {
        Map<String, FuzzTarget> all = Targets.all(scratch);
        List<DynamicTest> tests = new ArrayList<>();
        for (FuzzTarget t : all.values())
            tests.add(DynamicTest.dynamicTest(t.name(), () -> {
                FuzzRunner.Report r = assertTimeoutPreemptively(Duration.ofMinutes(2), () -> FuzzRunner.run(t, INPUTS, SEED, 5_000));
                assertEquals(INPUTS, r.accepted() + r.rejected() + r.violationCount());
                assertEquals(0, r.violationCount(), () -> Json.write(r.toMap()));
                assertTrue(r.rejected() > 0, "the mutator produced no rejected input for " + t.name());
                assertTrue(r.accepted() > 0, "no mutated input was accepted: the mutations never got past the first check");
            }));
        return tests.stream();
    }

    /** The harness itself catches what it claims to: a decoder that allocates from a length field, one that hangs. */
    @Test
    void harnessCatchesUnboundedAllocationCrashAndUnclearErrors()
    {
        FuzzTarget greedy = new Targets.Simple("greedy", List.of(new byte[]{ 0, 0, 0, 4, 1, 2, 3, 4 }), b -> {
            int n = java.nio.ByteBuffer.wrap(b).getInt(); // BufferUnderflow on short input: unclear
            return new byte[Math.max(0, Math.min(n, 64 << 20))];                      // allocation driven by the length field
        }, String::valueOf, false);
        FuzzRunner.Report r = FuzzRunner.run(greedy, 2000, SEED, 5_000);
        assertTrue(r.violations().stream().anyMatch(v -> v.kind().equals("unbounded-allocation")), Json.write(r.toMap()));
        assertTrue(r.violations().stream().anyMatch(v -> v.kind().equals("unclear-error")), Json.write(r.toMap()));
    }
}
