package io.elect.core.bridge;

import java.util.Objects;

import io.elect.core.node.ElectNode;

/**
 * The Cassandra side of one ELECT node: the node object and the adapter's per-node parts that Cassandra's
 * plug-in points (compaction strategy, SSTable format, JMX) use: the frozen-SSTable registry, the tiered-SSTable
 * switches over the node's tiered runtime, secondary stubs, the role map and the table registry; and the node's
 * view of its tables and the ring ({@link CassandraTables}, {@link CassandraRing}). One per process, reached by
 * Cassandra-instantiated classes through {@link NodeHandoff}. Thread-safe.
 */
public final class Bridge
{
    private final ElectNode node;
    private final FrozenSSTables frozen;
    private final TieredSSTables tiered;
    private final SecondaryStubs stubs;
    private final RoleRangesSource roles = new RoleRangesSource();
    private final ElectTables tables;
    private final CassandraTables localTables = new CassandraTables(this);
    private final CassandraRing ring = new CassandraRing();
    private final ObsoleteScan obsolete = new ObsoleteScan();
    private final ShadowScan shadows = new ShadowScan();

    public Bridge(ElectNode node)
    {
        this.node = Objects.requireNonNull(node, "node");
        this.frozen = new FrozenSSTables(node.clock());
        this.tiered = new TieredSSTables(node.tiered(), node.clock());
        this.stubs = new SecondaryStubs(node.clock());
        this.tables = new ElectTables(roles, frozen, node.clock());
    }

    public ElectNode node()
    {
        return node;
    }

    public FrozenSSTables frozen()
    {
        return frozen;
    }

    public TieredSSTables tiered()
    {
        return tiered;
    }

    public SecondaryStubs stubs()
    {
        return stubs;
    }

    public RoleRangesSource roles()
    {
        return roles;
    }

    public ElectTables tables()
    {
        return tables;
    }

    public CassandraTables localTables()
    {
        return localTables;
    }

    /** Obsolete shares of frozen SSTables (cached per SSTable). */
    ObsoleteScan obsolete()
    {
        return obsolete;
    }

    /** Which stripes' local files are fully shadowed (cached per SSTable). */
    ShadowScan shadows()
    {
        return shadows;
    }

    public CassandraRing ring()
    {
        return ring;
    }
}
