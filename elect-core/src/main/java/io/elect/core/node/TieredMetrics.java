package io.elect.core.node;

import java.util.function.ToLongFunction;

import com.codahale.metrics.Gauge;

import io.elect.core.tiered.SourceCounters;
import io.elect.core.tiered.TieredRuntime;
import io.elect.offload.ColdStore;
import io.elect.offload.ColdStoreMetrics;

/**
 * Gauges of the tiered-data runtime: per source kind (type {@code TieredSources}, scope {@code cold} or
 * {@code decoded}) reads, direct and decoded runs, bytes and chunks fetched, cache hits, corrupt chunks and repairs;
 * per registered cold store (type {@code ColdStore}, scope the store's name) calls and errors per operation, bytes,
 * retries and latency quantiles. Read at each export, so they never go stale.
 */
final class TieredMetrics
{
    private TieredMetrics()
    {
    }

    static void register(NodeMetrics m, TieredRuntime tiered)
    {
        sources(m, "cold", tiered.coldCounters());
        sources(m, "decoded", tiered.decodedCounters());
        m.gauge("TieredSources", "CacheBytes", null, (Gauge<Long>) () -> tiered.cache().sizeBytes());
    }

    private static void sources(NodeMetrics m, String scope, SourceCounters c)
    {
        m.gauge("TieredSources", "Reads", scope, (Gauge<Long>) c.reads::sum);
        m.gauge("TieredSources", "Requests", scope, (Gauge<Long>) c.requests::sum);
        m.gauge("TieredSources", "BytesFetched", scope, (Gauge<Long>) c.bytesFetched::sum);
        m.gauge("TieredSources", "ChunksFetched", scope, (Gauge<Long>) c.chunksFetched::sum);
        m.gauge("TieredSources", "CacheHits", scope, (Gauge<Long>) c.cacheHits::sum);
        m.gauge("TieredSources", "CorruptChunks", scope, (Gauge<Long>) c.corruptChunks::sum);
        m.gauge("TieredSources", "Repairs", scope, (Gauge<Long>) c.repairs::sum);
        m.gauge("TieredSources", "DirectRuns", scope, (Gauge<Long>) c.directRuns::sum);
        m.gauge("TieredSources", "DecodedRuns", scope, (Gauge<Long>) c.decodedRuns::sum);
        m.gauge("TieredSources", "SlowSurvivorsAvoided", scope, (Gauge<Long>) c.slowAvoided::sum);
    }

    /** Registers the metrics of a cold store under its name (call once per registered store). */
    static void coldStore(NodeMetrics m, String name, ColdStore store)
    {
        ColdStoreMetrics c = store.metrics();
        for (ColdStoreMetrics.Op op : ColdStoreMetrics.Op.values())
        {
            String opName = op.name().toLowerCase();
            ColdStoreMetrics.OpMetrics o = c.op(op);
            m.gauge("ColdStore", "Calls." + opName, name, (Gauge<Long>) o.count::sum);
            m.gauge("ColdStore", "Errors." + opName, name, (Gauge<Long>) o.errors::sum);
            m.gauge("ColdStore", "LatencyP50Millis." + opName, name, (Gauge<Double>) () -> o.latency.quantileMillis(0.5));
            m.gauge("ColdStore", "LatencyP99Millis." + opName, name, (Gauge<Double>) () -> o.latency.quantileMillis(0.99));
        }
        counter(m, name, "BytesWritten", c, x -> x.bytesWritten.sum());
        counter(m, name, "BytesRead", c, x -> x.bytesRead.sum());
        counter(m, name, "Requests", c, x -> x.requests.sum());
        counter(m, name, "Retries", c, x -> x.retries.sum());
        counter(m, name, "Throttled", c, x -> x.throttled.sum());
        counter(m, name, "CorruptionDetected", c, x -> x.corruptionDetected.sum());
    }

    private static void counter(NodeMetrics m, String scope, String name, ColdStoreMetrics c, ToLongFunction<ColdStoreMetrics> f)
    {
        m.gauge("ColdStore", name, scope, (Gauge<Long>) () -> f.applyAsLong(c));
    }
}
