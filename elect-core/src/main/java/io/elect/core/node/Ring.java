package io.elect.core.node;

import java.util.List;

/**
 * The cluster as the node sees it: ring members, their liveness and racks, and where a token's replicas are. Node
 * ids are broadcast addresses as strings (what stripe records store). The production implementation reads
 * Cassandra's token metadata, gossip and failure detector (the adapter's {@code CassandraRing}); the
 * simulation has its own. Thread-safe; answers are snapshots.
 */
public interface Ring
{
    /** This node's id. */
    String self();

    /** Every ring member (up or down), this node included, sorted by id. */
    List<String> members();

    /** Whether the node is up (this node always is). A node that is not a ring member is down. */
    boolean isAlive(String node);

    /** The node's rack (as the snitch says; one rack for all is fine). */
    String rack(String node);

    /** The natural replicas of a token of the keyspace, in the order reads try them (the primary first). */
    List<String> replicas(String keyspace, String token);

    /**
     * Every node that is a natural replica of some token in {@code [firstToken, lastToken]} of the keyspace (a file's
     * span), in first-seen order: with one token per node a primary file lies in one ring range, but with vnodes
     * ({@code num_tokens} > 1) adjacent ranges this node is primary of have different secondaries, and a file spanning
     * them has all of them as replicas. The default is exact when no ring token lies strictly inside the span.
     */
    default List<String> replicasOfSpan(String keyspace, String firstToken, String lastToken)
    {
        java.util.LinkedHashSet<String> out = new java.util.LinkedHashSet<>(replicas(keyspace, firstToken));
        out.addAll(replicas(keyspace, lastToken));
        return List.copyOf(out);
    }

    /**
     * Whether this node replicates some token in {@code [firstToken, lastToken]} of the keyspace now, or will once the
     * ring changes under way settle: a range it takes over (it is bootstrapping, or another node leaves or moves) is
     * pending for it. A joining node installs stubs for such spans before it serves reads (issue 18). The default
     * knows no pending changes.
     */
    default boolean willReplicate(String keyspace, String firstToken, String lastToken)
    {
        return replicasOfSpan(keyspace, firstToken, lastToken).contains(self());
    }

    /**
     * Changes whenever ring membership, tokens or pending changes (joining, leaving, moving nodes) change; equal
     * values mean nothing changed in between (a hash may repeat after many changes: a cache keyed on it is refreshed
     * by other means too). The default: the members.
     */
    default long version()
    {
        return members().hashCode();
    }

    /**
     * Whether a ring change is under way: a node is joining, leaving or moving (its ranges are pending somewhere).
     * Byte counts are transient meanwhile (streamed copies that stubs will shadow): transitioning does not plan on
     * them. The default: never.
     */
    default boolean changing()
    {
        return false;
    }

    /**
     * Whether a node (named by a stripe record) has left the ring: decommissioned or removed, so its files are gone
     * for good (issue 18). Never true for a member, up or down. The default: not a member.
     */
    default boolean hasLeft(String node)
    {
        return !members().contains(node);
    }

    /**
     * The owner ids under which nodes that have not left the ring may have written cold data objects (the node segment
     * of {@code LocalTables#coldKeyPrefix}): for every ring member, and every node gossip knows that has not left
     * (joining, being replaced, down), its host id and the address form a node uses before it has one. A prefix with
     * any other owner id belongs to a node gone for good ({@link DepartedColdObjects}). The default: the member ids.
     */
    default java.util.Set<String> coldOwners()
    {
        return java.util.Set.copyOf(members());
    }

    /** Every member that is up, sorted. */
    default List<String> liveMembers()
    {
        return members().stream().filter(this::isAlive).toList();
    }
}
