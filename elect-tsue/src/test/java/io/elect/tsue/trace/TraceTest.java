package io.elect.tsue.trace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TraceTest
{
    @Test
    void syntheticTraceHasTheTsueCharacteristics()
    {
        long volume = 64L << 20;
        List<TraceOp> t = new SyntheticTraceGenerator().generate(42, 50_000, volume);
        assertEquals(t, new SyntheticTraceGenerator().generate(42, 50_000, volume), "same seed, same trace");
        long writes = t.stream().filter(TraceOp::write).count();
        long small = t.stream().filter(o -> o.write() && o.length() <= 4096).count();
        double wf = writes / (double) t.size(), sf = small / (double) writes;
        assertTrue(wf >= 0.70 && wf <= 0.90, "update fraction " + wf);
        assertTrue(sf >= 0.46 && sf <= 0.69, "small-update fraction " + sf);
        for (TraceOp o : t)
            assertTrue(o.offset() + o.length() <= volume, "inside the volume: " + o);
        // locality: the hottest 10% of 4 KiB pages receive most writes
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
    }

    @Test
    void msrCsvIsParsedAndFolded(@TempDir Path dir) throws IOException
    {
        Path csv = dir.resolve("t.csv");
        Files.writeString(csv, "128166372003061629,hm,0,Write,3154287616,4096,1331\n"
                               + "128166372016382155,hm,0,Read,3154296832,65536,2000\n\n");
        List<TraceOp> ops = MsrTraceReader.read(csv, 16L << 20, 32768, 10);
        assertEquals(2, ops.size());
        assertTrue(ops.get(0).write());
        assertEquals(4096, ops.get(0).length());
        assertEquals(32768, ops.get(1).length());
        assertEquals(0, ops.get(0).offset() % 512);
        Files.writeString(csv, "1,hm,0,Trim,0,4096,1\n");
        assertThrows(IOException.class, () -> MsrTraceReader.read(csv, 16L << 20, 32768, 10));
    }
}
