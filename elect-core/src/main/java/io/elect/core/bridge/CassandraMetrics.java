package io.elect.core.bridge;

import com.codahale.metrics.Metric;

import org.apache.cassandra.metrics.CassandraMetricsRegistry;

import io.elect.core.node.NodeMetrics;

/**
 * Exports the node's metrics into Cassandra's metrics registry, group {@value NodeMetrics#GROUP}: JMX names
 * {@code io.elect.metrics:type=<type>,name=<name>[,scope=<scope>]}, seen by JMX tools and {@code nodetool sjk mx}.
 * A name registered already (a second node object in one JVM, e.g. a test) keeps its first metric.
 */
final class CassandraMetrics
{
    static final NodeMetrics.Registrar REGISTRAR = new NodeMetrics.Registrar()
    {
        @Override
        public <T extends Metric> T register(String type, String name, String scope, T metric)
        {
            CassandraMetricsRegistry.MetricName mn = scope == null
                                                     ? new CassandraMetricsRegistry.MetricName(NodeMetrics.GROUP, type, name)
                                                     : new CassandraMetricsRegistry.MetricName(NodeMetrics.GROUP, type, name, scope);
            try
            {
                return CassandraMetricsRegistry.Metrics.register(mn, metric);
            }
            catch (IllegalArgumentException e)
            {
                return metric; // registered already under this name: keep ours unexported
            }
        }
    };

    private CassandraMetrics()
    {
    }
}
