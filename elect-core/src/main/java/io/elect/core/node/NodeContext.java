package io.elect.core.node;

import java.nio.file.Path;
import java.util.Objects;

import io.elect.core.config.ElectConfig;
import io.elect.core.stripes.NodeMemberReader;
import io.elect.core.stripes.ParityFiles;
import io.elect.core.tiered.TieredRuntime;
import io.elect.core.transition.StripeStore;
import io.elect.core.transport.Peer;
import io.elect.core.transport.Transport;
import io.elect.core.util.Clock;

/**
 * What every service of one node shares, passed explicitly (built by {@link ElectNode#start}): configuration, time,
 * the local tables and the ring (the storage engine's seams), the transport, the tiered-data runtime (cold stores,
 * coders, cache), the stripe store, the node's state directory and the executor of long background tasks (a
 * rebuild). Immutable.
 *
 * @param executors runs long and parallel tasks: threads in production, inline in the simulation
 */
public record NodeContext(ElectConfig config, Clock clock, LocalTables tables, Ring ring, Transport transport,
                          TieredRuntime tiered, StripeStore store, Path stateDir, ParityFiles parity, NodeMemberReader nodes,
                          NodeExecutors executors, NodeMetrics metrics)
{
    public NodeContext
    {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(tables, "tables");
        Objects.requireNonNull(ring, "ring");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(tiered, "tiered");
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(stateDir, "stateDir");
        Objects.requireNonNull(parity, "parity");
        Objects.requireNonNull(nodes, "nodes");
        Objects.requireNonNull(executors, "executors");
        Objects.requireNonNull(metrics, "metrics");
    }

    /** This node's id (its broadcast address). */
    public String self()
    {
        return ring.self();
    }

    /** A node's ELECT transport endpoint (every node uses the same {@code transport_port}). */
    public Peer peer(String node)
    {
        return new Peer(node, config.transportPort);
    }

    /** This node's transport endpoint as peers reach it. */
    public Peer selfPeer()
    {
        return transport.localPeer();
    }
}
