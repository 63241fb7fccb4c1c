package io.elect.core.node;

import java.util.Map;

import com.codahale.metrics.Gauge;

import io.elect.core.transport.Transport;

/**
 * Gauges of the ELECT transport (type {@code Transport}): requests sent and served, responses, remote and handler
 * errors, timeouts, retries, malformed frames, and per verb (scope = the verb's name) requests served, errors, bytes
 * in and out and latency quantiles, as {@link io.elect.core.transport.TransportMetrics} counts them.
 */
final class TransportMetricsExport
{
    private TransportMetricsExport()
    {
    }

    static void register(NodeMetrics m, Transport transport)
    {
        for (Map.Entry<String, Long> e : transport.metrics().toMap().entrySet())
        {
            String key = e.getKey();
            m.gauge("Transport", camel(key), null, (Gauge<Long>) () -> transport.metrics().toMap().getOrDefault(key, 0L));
        }
        transport.metrics().onVerb((verb, v) -> {
            m.gauge("Transport", "Served", verb, (Gauge<Long>) v.served::sum);
            m.gauge("Transport", "Errors", verb, (Gauge<Long>) v.errors::sum);
            m.gauge("Transport", "BytesIn", verb, (Gauge<Long>) v.bytesIn::sum);
            m.gauge("Transport", "BytesOut", verb, (Gauge<Long>) v.bytesOut::sum);
            m.register("Transport", "Latency", verb, v.latency);
        });
    }

    private static String camel(String snake)
    {
        StringBuilder sb = new StringBuilder();
        for (String part : snake.split("_"))
            if (!part.isEmpty())
                sb.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
        return sb.toString();
    }
}
