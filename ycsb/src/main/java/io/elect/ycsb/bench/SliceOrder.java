package io.elect.ycsb.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The order in which {@link Interleaved} runs its tables' slices: a Williams design (balanced Latin square) whose rows
 * run in an order with no table twice in a row and equal waits. Pure; golden rows and properties in
 * {@code SliceOrderTest}.
 */
final class SliceOrder
{
    private SliceOrder()
    {
    }

    /**
     * The order of the tables (indexes 0..n-1) in round r (1-based): a row of a Williams design, i.e. a Latin square
     * whose first row is 0, 1, n-1, 2, n-2, ... and whose row i adds i mod n; for odd n the rows reversed follow, since
     * one square cannot balance carry-over then. Over {@link #designLength}(n) rounds every table runs equally often
     * in every position and equally often right after each other table (n = 2: 0,1 then 1,0, the ABBA order). The
     * rows run in the order of {@link #rowOrder}, so that (for n >= 3) no table runs two slices in a row across a
     * round boundary and every table waits equally long between its slices. All three matter on this VM: the slice
     * in a given position and the slice right after a switch measured up to +-10% apart whatever the table, and in
     * write-heavy workloads (YCSB A, F) a table's second slice in a row ran 10-17% slower than its others (its own
     * flushes and compactions from the slice before), which the plain row order gave some tables and not others.
     */
    static int[] of(int round, int n)
    {
        if (round < 1 || n < 1)
            throw new IllegalArgumentException("round " + round + ", tables " + n);
        return williamsRow(rowOrder(n)[(round - 1) % designLength(n)], n);
    }

    /** Row {@code row} (0-based, < designLength(n)) of the Williams design described at {@link #of}. */
    static int[] williamsRow(int row, int n)
    {
        int[] first = new int[n];
        for (int j = 0, lo = 1, hi = n - 1; j < n; j++)
            first[j] = j == 0 ? 0 : (j % 2 == 1 ? lo++ : hi--);
        int[] order = new int[n];
        for (int j = 0; j < n; j++)
            order[j] = (first[j] + row % n) % n;
        if (row >= n) // odd n, second half: the rows of the square reversed
            for (int j = 0; j < n / 2; j++)
            {
                int t = order[j];
                order[j] = order[n - 1 - j];
                order[n - 1 - j] = t;
            }
        return order;
    }

    private static final Map<Integer, int[]> ROW_ORDERS = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * The order in which the design's rows run, starting with row 0: the first found (depth-first, rows in increasing
     * order) such that, over the design repeated, no round starts with the table that ended the round before and every
     * table has the same multiset of gaps (slices between two of its own); failing that within a search budget, the
     * first without a repeat (n = 7: none with equal gaps within the budget); failing that (n = 2, where every
     * balanced order repeats one table at a round boundary), the rows in order. Deterministic, computed once per n.
     */
    static int[] rowOrder(int n)
    {
        return ROW_ORDERS.computeIfAbsent(n, SliceOrder::searchRowOrder).clone();
    }

    private static int[] searchRowOrder(int n)
    {
        int rows = designLength(n);
        int[][] design = new int[rows][];
        for (int r = 0; r < rows; r++)
            design[r] = williamsRow(r, n);
        for (boolean equalGaps : new boolean[]{ true, false })
        {
            int[] order = new int[rows];
            boolean[] used = new boolean[rows];
            used[0] = true;
            if (extend(design, order, used, 1, equalGaps, new long[]{ 2_000_000 }))
                return order;
        }
        int[] identity = new int[rows];
        for (int r = 0; r < rows; r++)
            identity[r] = r;
        return identity;
    }

    private static boolean extend(int[][] design, int[] order, boolean[] used, int depth, boolean equalGaps, long[] budget)
    {
        int rows = design.length, n = design[0].length;
        if (depth == rows)
        {
            if (rows > 1 && design[order[rows - 1]][n - 1] == design[order[0]][0])
                return false;
            return !equalGaps || equalGaps(design, order);
        }
        for (int r = 1; r < rows; r++)
        {
            if (used[r] || design[order[depth - 1]][n - 1] == design[r][0] || --budget[0] < 0)
                continue;
            used[r] = true;
            order[depth] = r;
            if (extend(design, order, used, depth + 1, equalGaps, budget))
                return true;
            used[r] = false;
        }
        return false;
    }

    /** Whether, over the rows in this order repeated, every table has the same sorted list of gaps. */
    static boolean equalGaps(int[][] design, int[] order)
    {
        int n = design[0].length, length = order.length * n;
        int[] sequence = new int[length];
        for (int i = 0; i < order.length; i++)
            System.arraycopy(design[order[i]], 0, sequence, i * n, n);
        List<int[]> gaps = new ArrayList<>();
        for (int t = 0; t < n; t++)
        {
            List<Integer> at = new ArrayList<>();
            for (int i = 0; i < length; i++)
                if (sequence[i] == t)
                    at.add(i);
            int[] g = new int[at.size()];
            for (int i = 0; i < at.size(); i++)
                g[i] = (i + 1 < at.size() ? at.get(i + 1) : at.get(0) + length) - at.get(i);
            java.util.Arrays.sort(g);
            gaps.add(g);
        }
        for (int[] g : gaps)
            if (!java.util.Arrays.equals(g, gaps.get(0)))
                return false;
        return true;
    }

    /** Rounds after which {@link #of} repeats: n for even n (and 1), 2n for odd n > 1. */
    static int designLength(int n)
    {
        return n % 2 == 0 || n == 1 ? n : 2 * n;
    }
}
