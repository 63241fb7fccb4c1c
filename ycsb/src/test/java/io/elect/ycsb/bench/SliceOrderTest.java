package io.elect.ycsb.bench;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@link Interleaved#sliceOrder}: golden rows, and the two balance properties over one design for n = 1..7. */
class SliceOrderTest
{
    @Test
    void twoTablesAlternateAbba()
    {
        for (int r = 1; r <= 9; r++)
            assertArrayEquals(r % 2 == 1 ? new int[]{ 0, 1 } : new int[]{ 1, 0 }, Interleaved.sliceOrder(r, 2), "round " + r);
    }

    @Test
    void goldenRowsForThreeAndFourTables()
    {
        int[][] three = { { 0, 1, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 }, { 0, 2, 1 }, { 1, 0, 2 } };
        for (int r = 1; r <= 12; r++)
            assertArrayEquals(three[(r - 1) % 6], Interleaved.sliceOrder(r, 3), "round " + r);
        int[][] four = { { 0, 1, 3, 2 }, { 1, 2, 0, 3 }, { 2, 3, 1, 0 }, { 3, 0, 2, 1 } };
        for (int r = 1; r <= 8; r++)
            assertArrayEquals(four[(r - 1) % 4], Interleaved.sliceOrder(r, 4), "round " + r);
        assertArrayEquals(new int[]{ 0 }, Interleaved.sliceOrder(5, 1));
    }

    @Test
    void everyTableEquallyOftenInEveryPositionAndAfterEveryOther()
    {
        for (int n = 1; n <= 7; n++)
        {
            int rounds = Interleaved.designLength(n);
            int[][] position = new int[n][n];
            int[][] after = new int[n][n];
            for (int r = 1; r <= rounds; r++)
            {
                int[] o = Interleaved.sliceOrder(r, n);
                int[] sorted = o.clone();
                Arrays.sort(sorted);
                for (int j = 0; j < n; j++)
                    assertEquals(j, sorted[j], "round " + r + " of n=" + n + " is a permutation");
                for (int j = 0; j < n; j++)
                {
                    position[o[j]][j]++;
                    if (j > 0)
                        after[o[j - 1]][o[j]]++;
                }
            }
            for (int t = 0; t < n; t++)
                for (int j = 0; j < n; j++)
                {
                    assertEquals(rounds / n, position[t][j], "n=" + n + ": table " + t + " in position " + j);
                    if (t != j)
                        assertEquals((n - 1) * rounds / (n * (n - 1)), after[t][j], "n=" + n + ": " + j + " right after " + t);
                }
        }
    }

    @Test
    void refusesNonsense()
    {
        assertThrows(IllegalArgumentException.class, () -> Interleaved.sliceOrder(0, 2));
        assertThrows(IllegalArgumentException.class, () -> Interleaved.sliceOrder(1, 0));
    }
}
