package io.elect.tsue.engine;

import java.util.List;

import io.elect.coding.ErasureCoder;
import io.elect.tsue.fs.FileLayer;

/** Creates the update engine of the configured policy over one FileLayer per node. */
public final class Engines
{
    private Engines()
    {
    }

    public static UpdateEngine create(TsueConfig cfg, ErasureCoder coder, List<? extends FileLayer> nodeFiles)
    {
        return create(new Cluster(cfg, coder, nodeFiles));
    }

    public static UpdateEngine create(Cluster cluster)
    {
        return switch (cluster.config().policy)
        {
            case IN_PLACE -> new InPlaceEngine(cluster);
            case PARITY_LOGGING -> new ParityLoggingEngine(cluster, false);
            case PLR -> new ParityLoggingEngine(cluster, true);
            case PARIX -> new ParixEngine(cluster);
            case DPU -> new DpuEngine(cluster);
            case TSUE -> new TsueEngine(cluster);
        };
    }
}
