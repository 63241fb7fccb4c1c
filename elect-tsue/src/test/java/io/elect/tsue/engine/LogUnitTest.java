package io.elect.tsue.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.elect.tsue.log.TxRecord.Extent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Temporal merging of the data-log index against a byte model (newest wins, memory counts each byte once). */
class LogUnitTest
{
    @Test
    void mergedExtentsMatchModel()
    {
        long seed = System.nanoTime();
        System.out.println("LogUnitTest seed=" + seed);
        Random rnd = new Random(seed);
        int size = 1 << 14;
        byte[] model = new byte[size];
        boolean[] written = new boolean[size];
        LogUnit u = new LogUnit(1, 0, true);
        for (int i = 0; i < 500; i++)
        {
            int off = rnd.nextInt(size - 1), len = 1 + rnd.nextInt(Math.min(2000, size - off));
            byte[] b = new byte[len];
            rnd.nextBytes(b);
            u.insert(7, 2, List.of(new Extent(off, b)));
            System.arraycopy(b, 0, model, off, len);
            Arrays.fill(written, off, off + len, true);
        }
        byte[] view = new byte[size];
        u.overlay(7, 2, 0, view);
        for (int i = 0; i < size; i++)
            if (written[i])
                assertEquals(model[i], view[i], "byte " + i + " seed " + seed);
        long count = 0;
        for (boolean w : written)
            count += w ? 1 : 0;
        assertEquals(count, u.memory(), "memory counts each live byte once, seed " + seed);
        List<Extent> ext = u.extents(7).get(2);
        for (int i = 1; i < ext.size(); i++)
            assertTrue(ext.get(i - 1).end() <= ext.get(i).offset(), "extents disjoint and sorted");
        byte[] part = new byte[100];
        u.overlay(7, 2, 5000, part);
        assertArrayEquals(Arrays.copyOfRange(view, 5000, 5100), part);
        assertEquals(Map.of(), u.extents(8));
        assertEquals(new ArrayList<>(List.of(7L)), u.stripes());
    }
}
