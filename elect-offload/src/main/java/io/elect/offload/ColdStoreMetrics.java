package io.elect.offload;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters and latency histograms of one ColdStore: per operation (count, errors, latency), data bytes
 * written and read, backend requests, retries, throttling and corruption detected. elect-core exports
 * these into Cassandra's metrics registry. Thread-safe.
 */
public final class ColdStoreMetrics
{
    public enum Op
    {
        PUT, READ_RANGE, READ_ALL, HEAD, DELETE, LIST
    }

    public static final class OpMetrics
    {
        public final LongAdder count = new LongAdder();
        public final LongAdder errors = new LongAdder();
        public final LatencyHistogram latency = new LatencyHistogram();
    }

    private final Map<Op, OpMetrics> ops = new EnumMap<>(Op.class);
    public final LongAdder bytesWritten = new LongAdder();
    public final LongAdder bytesRead = new LongAdder();
    public final LongAdder requests = new LongAdder();
    public final LongAdder retries = new LongAdder();
    public final LongAdder throttled = new LongAdder();
    public final LongAdder corruptionDetected = new LongAdder();

    public ColdStoreMetrics()
    {
        for (Op op : Op.values())
            ops.put(op, new OpMetrics());
    }

    public OpMetrics op(Op op)
    {
        return ops.get(op);
    }

    void record(Op op, long startNanos, boolean ok)
    {
        OpMetrics m = ops.get(op);
        m.count.increment();
        if (!ok)
            m.errors.increment();
        m.latency.recordNanos(System.nanoTime() - startNanos);
    }

    @Override
    public String toString()
    {
        StringBuilder sb = new StringBuilder("ColdStoreMetrics{");
        for (Op op : Op.values())
        {
            OpMetrics m = ops.get(op);
            sb.append(op).append('=').append(m.count.sum()).append('/').append(m.errors.sum()).append(' ');
        }
        return sb.append("written=").append(bytesWritten.sum()).append(" read=").append(bytesRead.sum())
                 .append(" requests=").append(requests.sum()).append(" retries=").append(retries.sum())
                 .append(" throttled=").append(throttled.sum()).append(" corrupt=").append(corruptionDetected.sum())
                 .append('}').toString();
    }
}
