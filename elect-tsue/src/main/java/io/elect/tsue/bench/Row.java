package io.elect.tsue.bench;

import io.elect.tsue.engine.TsueConfig;
import io.elect.tsue.engine.UpdatePolicy;

/**
 * One configuration of the benchmark: a policy (null: the 2-way replicated log append, the latency yardstick), and
 * for TSUE ablation rows the label of the optimization level (BASE, O1..O5 as in the TSUE paper's breakdown).
 */
record Row(String name, UpdatePolicy policy, String ablation)
{
    static final String REPLICATED = "REPLICATED_LOG_2WAY";

    static Row policy(UpdatePolicy p)
    {
        return new Row(p.name(), p, null);
    }

    static Row replicated()
    {
        return new Row(REPLICATED, null, null);
    }

    TsueConfig configure(TsueConfig base)
    {
        TsueConfig.Builder b = base.toBuilder().policy(policy == null ? UpdatePolicy.IN_PLACE : policy);
        if (ablation != null)
            b.ablation(ablation);
        return b.build();
    }
}
