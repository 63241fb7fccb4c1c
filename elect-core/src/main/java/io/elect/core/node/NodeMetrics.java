package io.elect.core.node;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Metric;
import com.codahale.metrics.Timer;

/**
 * The node's metrics (Dropwizard), created here and handed to a {@link Registrar} that exports them: the Cassandra
 * adapter registers them in Cassandra's {@code CassandraMetricsRegistry} (group {@value #GROUP}, so JMX tools and
 * {@code nodetool sjk mx} see them as {@code io.elect.metrics:type=<type>,name=<name>[,scope=<scope>]}); the
 * simulation keeps them in memory. {@link #snapshot()} gives every value by name, for {@code electtool metrics}.
 * Thread-safe; registration of a name twice returns the first metric.
 */
public final class NodeMetrics
{
    /** DO NOT CHANGE: the JMX domain (metric group) of every ELECT metric. */
    public static final String GROUP = "io.elect.metrics";

    /** Exports a metric under (type, name, scope); scope may be null. Returns the metric to use. */
    @FunctionalInterface
    public interface Registrar
    {
        <T extends Metric> T register(String type, String name, String scope, T metric);
    }

    /** Keeps metrics only here (simulation, tests, tools). */
    public static final Registrar LOCAL = new Registrar()
    {
        @Override
        public <T extends Metric> T register(String type, String name, String scope, T metric)
        {
            return metric;
        }
    };

    private final Registrar registrar;
    private final Map<String, Metric> byName = new ConcurrentHashMap<>();

    public NodeMetrics(Registrar registrar)
    {
        this.registrar = Objects.requireNonNull(registrar, "registrar");
    }

    private static String key(String type, String name, String scope)
    {
        return type + "." + name + (scope == null ? "" : "." + scope);
    }

    @SuppressWarnings("unchecked")
    private <T extends Metric> T metric(String type, String name, String scope, T fresh)
    {
        String key = key(type, name, scope);
        Metric existing = byName.get(key);
        if (existing != null)
            return (T) existing;
        synchronized (this)
        {
            existing = byName.get(key);
            if (existing != null)
                return (T) existing;
            T registered = registrar.register(type, name, scope, fresh);
            byName.put(key, registered);
            return registered;
        }
    }

    public Counter counter(String type, String name, String scope)
    {
        return metric(type, name, scope, new Counter());
    }

    public Timer timer(String type, String name, String scope)
    {
        return metric(type, name, scope, new Timer());
    }

    /** Registers an existing metric (e.g. one a component keeps itself); the first registration of a name wins. */
    public <T extends Metric> T register(String type, String name, String scope, T metric)
    {
        return metric(type, name, scope, metric);
    }

    public <T> Gauge<T> gauge(String type, String name, String scope, Gauge<T> gauge)
    {
        return metric(type, name, scope, gauge);
    }

    /**
     * Every metric's current value by {@code type.name[.scope]}: counters and gauges as their value, timers as a map of
     * count and latency percentiles in microseconds.
     */
    public Map<String, Object> snapshot()
    {
        Map<String, Object> out = new TreeMap<>();
        for (Map.Entry<String, Metric> e : byName.entrySet())
        {
            Metric m = e.getValue();
            if (m instanceof Counter)
                out.put(e.getKey(), ((Counter) m).getCount());
            else if (m instanceof Gauge)
                out.put(e.getKey(), ((Gauge<?>) m).getValue());
            else if (m instanceof Timer)
            {
                Timer t = (Timer) m;
                var s = t.getSnapshot();
                Map<String, Object> v = new TreeMap<>();
                v.put("count", t.getCount());
                v.put("p50_us", s.getMedian() / 1000.0);
                v.put("p99_us", s.get99thPercentile() / 1000.0);
                v.put("max_us", s.getMax() / 1000.0);
                out.put(e.getKey(), v);
            }
        }
        return out;
    }
}
