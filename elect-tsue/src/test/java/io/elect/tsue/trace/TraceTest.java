package io.elect.tsue.trace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.elect.tsue.trace.BlockTraceReader.Format;
import io.elect.tsue.trace.CloudTraceGenerator.Profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TraceTest
{
    /** The generated trace shows the profile's published statistics within sampling error, and locality. */
    @ParameterizedTest
    @EnumSource(Profile.class)
    void cloudTraceFollowsItsProfile(Profile p)
    {
        long volume = 256L << 20;
        List<TraceOp> t = new CloudTraceGenerator(p).generate(42, 100_000, volume);
        assertEquals(t, new CloudTraceGenerator(p).generate(42, 100_000, volume), "same seed, same trace");
        long writes = t.stream().filter(TraceOp::write).count();
        double wf = writes / (double) t.size();
        double le4k = t.stream().filter(o -> o.write() && o.length() <= 4096).count() / (double) writes;
        double le16k = t.stream().filter(o -> o.write() && o.length() <= 16384).count() / (double) writes;
        // repeats copy earlier writes, so the shares drift by sampling only: 0.02 is > 5 standard errors here
        assertEquals(p.updateFraction, wf, 0.02, "update share");
        assertEquals(p.le4k, le4k, 0.02, "writes <= 4 KiB");
        assertEquals(p.le16k, le16k, 0.02, "writes <= 16 KiB");
        for (TraceOp o : t)
            assertTrue(o.offset() + o.length() <= volume, "inside the volume: " + o);
        // spatial locality: the hottest 10% of the volume's 4 KiB pages receive most writes
        Map<Long, Integer> hits = new HashMap<>();
        for (TraceOp o : t)
            if (o.write())
                hits.merge(o.offset() / 4096, 1, Integer::sum);
        int[] counts = hits.values().stream().mapToInt(Integer::intValue).sorted().toArray();
        long top = 0;
        int tenth = (int) (volume / 4096 / 10);
        for (int i = counts.length - 1; i >= Math.max(0, counts.length - tenth); i--)
            top += counts[i];
        assertTrue(top > 0.5 * writes, "top 10% of pages get " + top + " of " + writes + " writes");
        // temporal locality: a good share of writes hit a page written within the last 1,000 writes
        Map<Long, Integer> lastWrite = new HashMap<>();
        int n = 0, rewrites = 0;
        for (TraceOp o : t)
            if (o.write())
            {
                Integer last = lastWrite.put(o.offset() / 4096, n);
                if (last != null && n - last <= 1000)
                    rewrites++;
                n++;
            }
        assertTrue(rewrites > 0.3 * writes, "rewrites within 1000 writes: " + rewrites + " of " + writes);
    }

    @Test
    void publicTraceFormatsAreParsedAndFolded(@TempDir Path dir) throws IOException
    {
        Path csv = dir.resolve("t.csv");
        Files.writeString(csv, "128166372003061629,hm,0,Write,3154287616,4096,1331\n"
                               + "128166372016382155,hm,0,Read,3154296832,65536,2000\n\n");
        List<TraceOp> ops = BlockTraceReader.read(Format.MSR, csv, 16L << 20, 32768, 10);
        assertEquals(2, ops.size());
        assertTrue(ops.get(0).write());
        assertEquals(4096, ops.get(0).length());
        assertEquals(32768, ops.get(1).length());
        assertEquals(0, ops.get(0).offset() % 512);
        Files.writeString(csv, "1,hm,0,Trim,0,4096,1\n");
        assertThrows(IOException.class, () -> BlockTraceReader.read(Format.MSR, csv, 16L << 20, 32768, 10));

        Files.writeString(csv, "3,W,126703644672,4096,1577808000000067\n3,R,8192,512,1577808000000100\n");
        ops = BlockTraceReader.read(Format.ALI, csv, 16L << 20, 32768, 10);
        assertEquals(List.of(new TraceOp(true, 126703644672L % ((16L << 20) - 4096) & ~511L, 4096),
                             new TraceOp(false, 8192, 512)), ops);

        Files.writeString(csv, "1538323200,1040,8,1,1283\n1538323201,16,1,0,1283\n1538323201,16,0,1,1283\n");
        ops = BlockTraceReader.read(Format.TENCENT, csv, 16L << 20, 32768, 10);
        assertEquals(List.of(new TraceOp(true, 1040 * 512, 4096), new TraceOp(false, 8192, 512)), ops,
                     "sectors are 512 bytes; zero-length requests are skipped");
        Files.writeString(csv, "1538323200,1040,8,2,1283\n");
        assertThrows(IOException.class, () -> BlockTraceReader.read(Format.TENCENT, csv, 16L << 20, 32768, 10));
    }
}
