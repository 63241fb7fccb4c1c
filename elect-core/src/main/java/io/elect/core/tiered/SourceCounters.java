package io.elect.core.tiered;

import java.util.concurrent.atomic.LongAdder;

/**
 * What a remote source fetched: requests to the store (or to stripe members), bytes fetched, chunks served from
 * the cache, corrupt chunks detected, reads repaired, and (decoded sources) which path served each run.
 * Thread-safe; shared by the sources of one node or kept per source, as the owner chooses.
 */
public final class SourceCounters
{
    public final LongAdder reads = new LongAdder();
    public final LongAdder requests = new LongAdder();
    public final LongAdder bytesFetched = new LongAdder();
    public final LongAdder chunksFetched = new LongAdder();
    public final LongAdder cacheHits = new LongAdder();
    public final LongAdder corruptChunks = new LongAdder();
    public final LongAdder repairs = new LongAdder();
    /** Runs of a decoded source served by reading its own member directly (no decoding). */
    public final LongAdder directRuns = new LongAdder();
    /** Runs of a decoded source served by reconstruction from k other members. */
    public final LongAdder decodedRuns = new LongAdder();
    /**
     * Survivors of a decoded source put last for a while because their read was much slower than the others' in the
     * same run (e.g. a member served from a far cold tier) while a spare could replace them.
     */
    public final LongAdder slowAvoided = new LongAdder();

    public record Snapshot(long reads, long requests, long bytesFetched, long chunksFetched, long cacheHits,
                           long corruptChunks, long repairs, long directRuns, long decodedRuns, long slowAvoided)
    {
        public Snapshot minus(Snapshot o)
        {
            return new Snapshot(reads - o.reads, requests - o.requests, bytesFetched - o.bytesFetched,
                                chunksFetched - o.chunksFetched, cacheHits - o.cacheHits, corruptChunks - o.corruptChunks,
                                repairs - o.repairs, directRuns - o.directRuns, decodedRuns - o.decodedRuns,
                                slowAvoided - o.slowAvoided);
        }
    }

    public Snapshot snapshot()
    {
        return new Snapshot(reads.sum(), requests.sum(), bytesFetched.sum(), chunksFetched.sum(), cacheHits.sum(),
                            corruptChunks.sum(), repairs.sum(), directRuns.sum(), decodedRuns.sum(), slowAvoided.sum());
    }
}
