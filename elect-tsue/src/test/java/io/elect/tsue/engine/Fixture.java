package io.elect.tsue.engine;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import io.elect.coding.ErasureCoders;
import io.elect.tsue.fs.FaultInjectingFileLayer;
import io.elect.tsue.fs.FileLayer;
import io.elect.tsue.fs.MemFileLayer;
import io.elect.tsue.log.TxRecord.Extent;

/** A small in-memory cluster and a byte-exact model of what has been acknowledged. */
final class Fixture
{
    final TsueConfig cfg;
    final List<MemFileLayer> mem = new ArrayList<>();
    final FaultInjectingFileLayer.CrashClock clock = new FaultInjectingFileLayer.CrashClock(Long.MAX_VALUE);
    final byte[][][] model;   // [stripe][chunk][byte]
    final int stripes;

    Fixture(TsueConfig cfg, int stripes)
    {
        this.cfg = cfg;
        this.stripes = stripes;
        for (int n = 0; n < cfg.nodes; n++)
            mem.add(new MemFileLayer());
        model = new byte[stripes][cfg.k][cfg.chunkSize];
    }

    static TsueConfig small(UpdatePolicy p, int threads)
    {
        return builder(p, threads).build();
    }

    private static TsueConfig.Builder builder(UpdatePolicy p, int threads)
    {
        return TsueConfig.builder().policy(p).code(4, 2).chunkSize(64 << 10).pageSize(4096).logUnitBytes(24 << 10)
                         .logMemoryQuota(96 << 10).recycleThreads(threads).parityApplyBytes(32 << 10)
                         .rotateBytes(128 << 10).plrReserveBytes(16 << 10).parixApplyBytes(64 << 10)
                         .deltaLogBytes(24 << 10).logPools(2).dpuRatio(0.05);
    }

    /**
     * The configurations the engine tests cover: every policy, and TSUE at every ablation level below full TSUE
     * (named TSUE_BASE .. TSUE_O4).
     */
    static java.util.stream.Stream<String> variants()
    {
        java.util.stream.Stream<String> policies = java.util.Arrays.stream(UpdatePolicy.values()).map(Enum::name);
        java.util.stream.Stream<String> levels = TsueConfig.ABLATION_LEVELS.stream().filter(l -> !l.equals("O5"))
                                                                        .map(l -> "TSUE_" + l);
        return java.util.stream.Stream.concat(policies, levels);
    }

    static TsueConfig small(String variant, int threads)
    {
        if (!variant.startsWith("TSUE_"))
            return small(UpdatePolicy.valueOf(variant), threads);
        return builder(UpdatePolicy.TSUE, threads).ablation(variant.substring(5)).build();
    }

    UpdateEngine engine(boolean faults)
    {
        List<FileLayer> files = new ArrayList<>();
        for (MemFileLayer m : mem)
            files.add(faults ? new FaultInjectingFileLayer(m, clock) : m);
        return Engines.create(cfg, ErasureCoders.create(cfg.k, cfg.m, ErasureCoders.JAVA), files);
    }

    void create(UpdateEngine e, Random rnd) throws IOException
    {
        for (int s = 0; s < stripes; s++)
        {
            for (int c = 0; c < cfg.k; c++)
                rnd.nextBytes(model[s][c]);
            byte[][] copy = new byte[cfg.k][];
            for (int c = 0; c < cfg.k; c++)
                copy[c] = model[s][c].clone();
            e.createStripe(s, copy);
        }
    }

    /** A random update: mostly small, sometimes multi-page or multi-extent (page-sparse), skewed to few pages. */
    Op randomOp(Random rnd)
    {
        int s = rnd.nextInt(stripes), c = rnd.nextInt(cfg.k);
        List<Extent> ext = new ArrayList<>();
        int kind = rnd.nextInt(10);
        if (kind < 7)
        {
            int len = 1 + rnd.nextInt(rnd.nextBoolean() ? 512 : 6000);
            int hot = rnd.nextInt(4) == 0 ? rnd.nextInt(cfg.chunkSize - len) : rnd.nextInt(3) * 4096 + rnd.nextInt(100);
            ext.add(new Extent(hot, bytes(rnd, len)));
        }
        else
        {
            int pages = cfg.chunkSize / cfg.pageSize;
            for (int p = rnd.nextInt(3); p < pages; p += 2 + rnd.nextInt(4))
                ext.add(new Extent(p * cfg.pageSize, bytes(rnd, cfg.pageSize)));
        }
        return new Op(s, c, ext);
    }

    private static byte[] bytes(Random rnd, int n)
    {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        return b;
    }

    void apply(Op op)
    {
        for (Extent e : op.extents)
            System.arraycopy(e.bytes(), 0, model[op.stripe][op.chunk], e.offset(), e.bytes().length);
    }

    void assertReads(UpdateEngine e, String what) throws IOException
    {
        for (int s = 0; s < stripes; s++)
            for (int c = 0; c < cfg.k; c++)
            {
                byte[] got = e.read(s, c, 0, cfg.chunkSize);
                if (!Arrays.equals(model[s][c], got))
                    throw new AssertionError(what + ": stripe " + s + " chunk " + c + " differs at byte "
                                             + Arrays.mismatch(model[s][c], got));
            }
    }

    record Op(int stripe, int chunk, List<Extent> extents)
    {
    }
}
