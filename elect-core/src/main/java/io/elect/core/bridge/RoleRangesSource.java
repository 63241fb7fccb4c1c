package io.elect.core.bridge;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.trees.RoleRanges;
import org.apache.cassandra.dht.Token;
import org.apache.cassandra.locator.AbstractReplicationStrategy;
import org.apache.cassandra.locator.EndpointsForRange;
import org.apache.cassandra.locator.InetAddressAndPort;
import org.apache.cassandra.locator.TokenMetadata;
import org.apache.cassandra.schema.KeyspaceMetadata;
import org.apache.cassandra.schema.ReplicationParams;
import org.apache.cassandra.schema.Schema;
import org.apache.cassandra.service.StorageService;
import org.apache.cassandra.utils.FBUtilities;

/**
 * This node's role for every token of a keyspace, computed from the ring and the keyspace's replication strategy:
 * role of range {@code (t_{i-1}, t_i]} = index of this node in {@code calculateNaturalReplicas(t_i)} (the order in
 * which SimpleStrategy and NetworkTopologyStrategy walk the ring, which is also the order in which a coordinator
 * with {@code SimpleSnitch} and no dynamic snitch tries replicas), or {@link RoleRanges#NOT_A_REPLICA}.
 *
 * <p>Results are cached per keyspace and recomputed when the token metadata's ring version, the keyspace's
 * replication parameters or a test override change; callers compare the returned instance (cheap) to detect a
 * topology change. Never opens the {@code Keyspace} (it may be called while the keyspace is being constructed,
 * e.g. when a table loads its SSTables): the replication strategy is built from the schema metadata.
 *
 * <p>Thread-safe.
 */
public final class RoleRangesSource
{
    private static final Logger logger = LoggerFactory.getLogger(RoleRangesSource.class);

    private final Map<String, RoleRanges<Token>> overrides = new ConcurrentHashMap<>();
    private final AtomicLong overrideVersion = new AtomicLong();
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();

    /** One per node (the adapter's {@link Bridge}); strategies reach it through {@link NodeHandoff}. */
    public RoleRangesSource()
    {
    }

    private static final class Cached
    {
        final long ringVersion;
        final long overrideVersion;
        final ReplicationParams replication;
        final RoleRanges<Token> ranges;

        Cached(long ringVersion, long overrideVersion, ReplicationParams replication, RoleRanges<Token> ranges)
        {
            this.ringVersion = ringVersion;
            this.overrideVersion = overrideVersion;
            this.replication = replication;
            this.ranges = ranges;
        }
    }

    /** The current role map of {@code keyspace} on this node (never null). */
    public RoleRanges<Token> forKeyspace(String keyspace)
    {
        Objects.requireNonNull(keyspace, "keyspace");
        TokenMetadata tm = StorageService.instance.getTokenMetadata();
        long ringVersion = tm.getRingVersion();
        long ov = overrideVersion.get();
        KeyspaceMetadata ksm = Schema.instance.getKeyspaceMetadata(keyspace);
        ReplicationParams replication = ksm == null ? null : ksm.params.replication;
        Cached c = cache.get(keyspace);
        if (c != null && c.ringVersion == ringVersion && c.overrideVersion == ov && Objects.equals(c.replication, replication))
            return c.ranges;

        RoleRanges<Token> computed;
        RoleRanges<Token> override = overrides.get(keyspace);
        if (override != null)
            computed = override;
        else
            computed = compute(keyspace, ksm, tm);
        // keep the previous instance when nothing changed, so that callers see no spurious topology change
        if (c != null && c.ranges.equals(computed))
            computed = c.ranges;
        else
            logger.info("ELECT role ranges of keyspace {} (ring version {}): {} segments, roles {}",
                        keyspace, ringVersion, computed.segmentCount(), computed.distinctRoles());
        cache.put(keyspace, new Cached(ringVersion, ov, replication, computed));
        return computed;
    }

    private static RoleRanges<Token> compute(String keyspace, KeyspaceMetadata ksm, TokenMetadata liveTm)
    {
        TokenMetadata tm = liveTm.cachedOnlyTokenMap();
        List<Token> ring = tm.sortedTokens();
        if (ksm == null || ring.isEmpty())
            return RoleRanges.uniform(0); // unknown ring (not joined yet) or dropped keyspace: one tree
        AbstractReplicationStrategy strategy = ksm.createReplicationStrategy();
        InetAddressAndPort self = FBUtilities.getBroadcastAddressAndPort();
        List<Integer> roles = new ArrayList<>(ring.size());
        for (Token t : ring)
        {
            EndpointsForRange replicas = strategy.calculateNaturalReplicas(t, tm);
            int role = RoleRanges.NOT_A_REPLICA;
            for (int i = 0; i < replicas.size(); i++)
            {
                if (replicas.get(i).endpoint().equals(self))
                {
                    role = i;
                    break;
                }
            }
            roles.add(role);
        }
        return RoleRanges.fromRing(ring, roles);
    }

    /**
     * Test seam: makes {@code keyspace} use {@code ranges} instead of the ring (e.g. three fixed ranges with roles
     * 0, 1, 2 on a single node). Strategies pick the change up like a topology change.
     */
    public void setOverrideForTesting(String keyspace, RoleRanges<Token> ranges)
    {
        overrides.put(Objects.requireNonNull(keyspace, "keyspace"), Objects.requireNonNull(ranges, "ranges"));
        overrideVersion.incrementAndGet();
    }

    public void clearOverrideForTesting(String keyspace)
    {
        overrides.remove(keyspace);
        overrideVersion.incrementAndGet();
    }
}
