package io.elect.tsue.engine;

/**
 * Configuration of an update engine. Immutable; build with {@link #builder()}. Every setter validates its argument
 * and names it in the exception.
 */
public final class TsueConfig
{
    public final int k;
    public final int m;
    public final int chunkSize;
    public final int pageSize;
    public final int nodes;
    public final UpdatePolicy policy;
    /** TSUE: bytes of update payload per data-log unit before it is sealed and recycled. */
    public final int logUnitBytes;
    /** TSUE: memory quota of the log pool; units = quota / unit size (at least 2). */
    public final long logMemoryQuota;
    /** TSUE recycle workers and DPU merger threads; 0 = recycle inline in the updating thread (deterministic). */
    public final int recycleThreads;
    /** PL, TSUE: a node applies its parity log when the log holds more than this many bytes. */
    public final long parityApplyBytes;
    /** Parity-log generation rotation size. */
    public final long rotateBytes;
    /** PLR: bytes reserved beside each parity chunk for its deltas. */
    public final int plrReserveBytes;
    /** PARIX: bytes logged at the parity nodes before a recycle. */
    public final long parixApplyBytes;
    /** DPU: differential capacity ratio B, as a fraction of the EC data bytes. */
    public final double dpuRatio;
    /** TSUE: temporal and spatial merging of a data-log unit's updates before recycling (ablation O1). */
    public final boolean dataLogMerge;
    /** TSUE: XOR-merging and coalescing of parity deltas when a parity log is applied (ablation O2). */
    public final boolean parityLogMerge;
    /** TSUE: a FIFO pool of data-log units; false = one unit, appends wait while it is recycled (ablation O3). */
    public final boolean logPool;
    /** TSUE: independent log pools, stripes hashed onto them (ablation O4: several pools). */
    public final int logPools;
    /** TSUE: data deltas of a stripe combined at its delta log into m parity deltas (ablation O5). */
    public final boolean deltaLog;
    /** TSUE: a delta log forwards when it holds more than this many bytes (and at most this many per forward). */
    public final long deltaLogBytes;
    /** TSUE recycle workers and DPU merger: the fraction of one core each may use (duty cycle), in (0, 1]. */
    public final double recycleCpuShare;
    /**
     * TSUE, merged units: extents of a chunk less than this many bytes apart are recycled as one span (one read of
     * the old bytes, one write of the new, the unchanged bytes between them included); a gap below one page counts as one page.
     */
    public final int recycleSpanGap;
    /**
     * TSUE, parity-log merging: when a parity log is applied, delta ranges of a parity chunk less than this many bytes
     * apart are read and written as one range (whole pages; at least 1, at most 255 pages).
     */
    public final int parityCoalesceGap;

    private TsueConfig(Builder b)
    {
        k = b.k;
        m = b.m;
        chunkSize = b.chunkSize;
        pageSize = b.pageSize;
        nodes = b.nodes == 0 ? b.k + b.m : b.nodes;
        policy = b.policy;
        logUnitBytes = b.logUnitBytes;
        logMemoryQuota = b.logMemoryQuota;
        recycleThreads = b.recycleThreads;
        parityApplyBytes = b.parityApplyBytes;
        rotateBytes = b.rotateBytes;
        plrReserveBytes = b.plrReserveBytes;
        parixApplyBytes = b.parixApplyBytes;
        dpuRatio = b.dpuRatio;
        dataLogMerge = b.dataLogMerge;
        parityLogMerge = b.parityLogMerge;
        logPool = b.logPool;
        logPools = b.logPools;
        deltaLog = b.deltaLog;
        deltaLogBytes = b.deltaLogBytes;
        recycleCpuShare = b.recycleCpuShare;
        recycleSpanGap = b.recycleSpanGap;
        parityCoalesceGap = b.parityCoalesceGap;
        if (nodes < k + m)
            throw new IllegalArgumentException("nodes must be >= k+m (" + (k + m) + "): " + nodes);
        if (chunkSize % pageSize != 0)
            throw new IllegalArgumentException("chunkSize must be a multiple of pageSize " + pageSize + ": " + chunkSize);
    }

    /** The levels of {@link Builder#ablation}, in order. */
    public static final java.util.List<String> ABLATION_LEVELS = java.util.List.of("BASE", "O1", "O2", "O3", "O4", "O5");

    public static Builder builder()
    {
        return new Builder();
    }

    public Builder toBuilder()
    {
        Builder b = new Builder();
        b.k = k;
        b.m = m;
        b.chunkSize = chunkSize;
        b.pageSize = pageSize;
        b.nodes = nodes;
        b.policy = policy;
        b.logUnitBytes = logUnitBytes;
        b.logMemoryQuota = logMemoryQuota;
        b.recycleThreads = recycleThreads;
        b.parityApplyBytes = parityApplyBytes;
        b.rotateBytes = rotateBytes;
        b.plrReserveBytes = plrReserveBytes;
        b.parixApplyBytes = parixApplyBytes;
        b.dpuRatio = dpuRatio;
        b.dataLogMerge = dataLogMerge;
        b.parityLogMerge = parityLogMerge;
        b.logPool = logPool;
        b.logPools = logPools;
        b.deltaLog = deltaLog;
        b.deltaLogBytes = deltaLogBytes;
        b.recycleCpuShare = recycleCpuShare;
        b.recycleSpanGap = recycleSpanGap;
        b.parityCoalesceGap = parityCoalesceGap;
        return b;
    }

    @Override
    public String toString()
    {
        return policy + " RS(" + k + "," + m + ") chunk=" + chunkSize + " page=" + pageSize + " nodes=" + nodes;
    }

    public static final class Builder
    {
        private int k = 4, m = 2, chunkSize = 1 << 20, pageSize = 4096, nodes, logUnitBytes = 4 << 20;
        private long logMemoryQuota = 64 << 20, parityApplyBytes = 8 << 20, rotateBytes = 32 << 20,
            parixApplyBytes = 16 << 20, deltaLogBytes = 16 << 20;
        private int recycleThreads = 2, plrReserveBytes = 256 << 10, recycleSpanGap = 64 << 10,
            parityCoalesceGap = 64 << 10;
        private double dpuRatio = 0.005, recycleCpuShare = 1.0;
        private boolean dataLogMerge = true, parityLogMerge = true, logPool = true, deltaLog = true;
        private int logPools = 4;
        private UpdatePolicy policy = UpdatePolicy.TSUE;

        private static int positive(String name, long v)
        {
            if (v <= 0 || v > Integer.MAX_VALUE)
                throw new IllegalArgumentException(name + " must be in 1.." + Integer.MAX_VALUE + ": " + v);
            return (int) v;
        }

        public Builder code(int k, int m)
        {
            this.k = positive("k", k);
            this.m = positive("m", m);
            if (k + m > 255)
                throw new IllegalArgumentException("k+m must be <= 255: " + (k + m));
            return this;
        }

        public Builder chunkSize(int v)
        {
            chunkSize = positive("chunkSize", v);
            return this;
        }

        public Builder pageSize(int v)
        {
            pageSize = positive("pageSize", v);
            return this;
        }

        public Builder nodes(int v)
        {
            nodes = positive("nodes", v);
            return this;
        }

        public Builder policy(UpdatePolicy v)
        {
            if (v == null)
                throw new IllegalArgumentException("policy must not be null");
            policy = v;
            return this;
        }

        public Builder logUnitBytes(int v)
        {
            logUnitBytes = positive("logUnitBytes", v);
            return this;
        }

        public Builder logMemoryQuota(long v)
        {
            if (v <= 0)
                throw new IllegalArgumentException("logMemoryQuota must be > 0: " + v);
            logMemoryQuota = v;
            return this;
        }

        public Builder recycleThreads(int v)
        {
            if (v < 0 || v > 64)
                throw new IllegalArgumentException("recycleThreads must be 0..64: " + v);
            recycleThreads = v;
            return this;
        }

        public Builder parityApplyBytes(long v)
        {
            parityApplyBytes = positive("parityApplyBytes", v);
            return this;
        }

        public Builder rotateBytes(long v)
        {
            rotateBytes = positive("rotateBytes", v);
            return this;
        }

        public Builder plrReserveBytes(int v)
        {
            plrReserveBytes = positive("plrReserveBytes", v);
            return this;
        }

        public Builder parixApplyBytes(long v)
        {
            parixApplyBytes = positive("parixApplyBytes", v);
            return this;
        }

        public Builder dpuRatio(double v)
        {
            if (!(v > 0 && v < 1))
                throw new IllegalArgumentException("dpuRatio must be in (0,1): " + v);
            dpuRatio = v;
            return this;
        }

        public Builder dataLogMerge(boolean v)
        {
            dataLogMerge = v;
            return this;
        }

        public Builder parityLogMerge(boolean v)
        {
            parityLogMerge = v;
            return this;
        }

        public Builder logPool(boolean v)
        {
            logPool = v;
            return this;
        }

        public Builder logPools(int v)
        {
            if (v < 1 || v > 64)
                throw new IllegalArgumentException("logPools must be 1..64: " + v);
            logPools = v;
            return this;
        }

        public Builder deltaLog(boolean v)
        {
            deltaLog = v;
            return this;
        }

        public Builder deltaLogBytes(long v)
        {
            deltaLogBytes = positive("deltaLogBytes", v);
            return this;
        }

        /**
         * A level of the TSUE paper's breakdown (on top of the current settings): BASE = data log + parity log, every
         * update recycled on its own, one log per pool that appends wait for while it is recycled, one pool, each
         * data node sending its chunk's parity deltas; O1 + data-log merging; O2 + parity-log merging; O3 + log pool;
         * O4 + the configured number of pools; O5 + delta log (= all of TSUE).
         */
        public Builder ablation(String level)
        {
            int n = ABLATION_LEVELS.indexOf(level);
            if (n < 0)
                throw new IllegalArgumentException("ablation level must be one of " + ABLATION_LEVELS + ": " + level);
            dataLogMerge = n >= 1;
            parityLogMerge = n >= 2;
            logPool = n >= 3;
            if (n < 4)
                logPools = 1;
            deltaLog = n >= 5;
            return this;
        }

        public Builder recycleCpuShare(double v)
        {
            if (!(v > 0 && v <= 1))
                throw new IllegalArgumentException("recycleCpuShare must be in (0,1]: " + v);
            recycleCpuShare = v;
            return this;
        }

        public Builder recycleSpanGap(int v)
        {
            recycleSpanGap = positive("recycleSpanGap", v);
            return this;
        }

        public Builder parityCoalesceGap(int v)
        {
            parityCoalesceGap = positive("parityCoalesceGap", v);
            return this;
        }

        public TsueConfig build()
        {
            return new TsueConfig(this);
        }
    }
}
