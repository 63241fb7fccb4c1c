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
        assertEquals(6, o.warmupSeconds);
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

    private static void assertError(String flag, String... args)
    {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                                                  () -> Interleaved.Options.parse(args));
        assertTrue(e.getMessage().contains(flag), e.getMessage());
    }
}
