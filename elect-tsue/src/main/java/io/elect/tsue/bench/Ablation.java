package io.elect.tsue.bench;

import io.elect.tsue.engine.TsueConfig;

/**
 * The TSUE paper's breakdown as configurations of one engine, each level adding one optimization to the previous:
 * BASE = data log + parity log, every update recycled on its own, one log that appends wait for while it is
 * recycled, each data node sending its chunk's parity deltas; O1 + data-log locality (temporal and spatial merging);
 * O2 + parity-log locality (XOR-merge, coalesce); O3 + log pool (FIFO of units, appends and recycling in parallel);
 * O4 + several pools; O5 + delta log (a stripe's data deltas combined before the parity logs) = full TSUE.
 */
final class Ablation
{
    static final String[] LEVELS = { "BASE", "O1", "O2", "O3", "O4", "O5" };

    private Ablation()
    {
    }

    static void configure(String level, TsueConfig.Builder b)
    {
        int n = java.util.Arrays.asList(LEVELS).indexOf(level);
        if (n < 0)
            throw new IllegalArgumentException("ablation level must be one of " + String.join(",", LEVELS) + ": "
                                               + level);
        b.dataLogMerge(n >= 1).parityLogMerge(n >= 2).logPool(n >= 3).deltaLog(n >= 5);
        if (n < 4)
            b.logPools(1);
    }
}
