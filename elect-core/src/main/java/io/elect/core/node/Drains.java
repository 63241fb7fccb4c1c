package io.elect.core.node;

import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.node.LocalTables.TableFile;
import io.elect.core.transition.wire.TransitionMessages.TableRef;

/**
 * Nodes drained before they leave the ring (issue 18; docs/design/topology.md "Draining before leaving"). An operator's
 * {@code electtool decommission} marks its node in the stripe store ({@code StripeStore#markDraining}); while marked,
 * the coordinator's rounds take the node's stripes through the departure repair with the node still up (its parity
 * moves to other nodes, its members leave their stripes with their stubs materialized first), place no new chunk on
 * it and encode none of its files; the node itself keeps the rows of a member leaving a stripe (unfrozen, recalled
 * first when offloaded) instead of deleting them, so that Cassandra's decommission streams them as ordinary rows. Only
 * then does the node call Cassandra's decommission: when it leaves, no stripe names it, so no stripe loses a chunk.
 *
 * <p>The mark is the only state: durable and cluster-wide (the store is replicated), so a restart of any node, the
 * drained one included, continues the drain. Thread-safe.
 */
final class Drains
{
    private static final Logger logger = LoggerFactory.getLogger(Drains.class);

    private final NodeContext node;
    /** The ring members marked draining as the last {@link #refresh} found them (the coordinator's view). */
    private volatile Set<String> current = Set.of();

    Drains(NodeContext node)
    {
        this.node = node;
    }

    /**
     * Reads the marks (a failed read keeps the last answer: the next round reads again) and removes the marks of nodes
     * that have left the ring (their drain is over); returns the ring members still marked. Called by the coordinator
     * once per round.
     */
    Set<String> refresh()
    {
        Map<String, Long> marks;
        try
        {
            marks = node.store().draining();
        }
        catch (RuntimeException e)
        {
            logger.debug("drain marks not read this round: {}", e.toString());
            return current;
        }
        Set<String> out = new TreeSet<>();
        for (String n : marks.keySet())
        {
            if (node.ring().hasLeft(n))
            {
                try
                {
                    node.store().unmarkDraining(n);
                    logger.info("node {} has left the ring: its drain mark is removed", n);
                }
                catch (RuntimeException e)
                {
                    logger.debug("drain mark of {} not removed this round: {}", n, e.toString());
                }
                continue;
            }
            if (node.ring().members().contains(n))
                out.add(n);
        }
        current = Set.copyOf(out);
        return current;
    }

    /**
     * Whether a stripe may now place chunks on {@code nodes}: none of them is marked draining, as the store says at
     * this moment (not at the round's start: a drain's end rule relies on this re-check, {@code NodeDecommission}).
     * A store that cannot answer admits nothing (the stripe waits for the next round).
     */
    boolean admits(java.util.Collection<String> nodes)
    {
        try
        {
            Map<String, Long> marks = node.store().draining();
            return nodes.stream().noneMatch(marks::containsKey);
        }
        catch (RuntimeException e)
        {
            logger.debug("drain marks not read before placing a stripe: {}", e.toString());
            return false;
        }
    }

    /** The ring members marked draining at the last {@link #refresh}. */
    Set<String> current()
    {
        return current;
    }

    /** Whether the store marks {@code n} draining now (a participant's check before acting for a drain). */
    static boolean marked(NodeContext node, String n)
    {
        return node.store().draining().containsKey(n);
    }

    /**
     * Keeps the rows of this node's member {@code f}, frozen under {@code tag}, that is leaving its stripe because this
     * node drains: an offloaded (COLD) member is first recalled to a LOCAL file (verified chunk by chunk), then the file
     * is unfrozen, an ordinary SSTable again that compaction and Cassandra's streaming treat as any other. Idempotent
     * through its callers (an unfrozen file is no longer found under the tag).
     */
    static void keepRows(NodeContext node, TableRef t, TableFile f, String tag) throws IOException
    {
        long start = node.clock().nanoTime();
        String id = f.id();
        if (f.source() == LocalTables.Source.COLD)
            id = node.tables().rehydrate(t, id, (fresh, data) -> {});
        node.tables().unfreeze(t, id, tag);
        logger.info("member {} of stripe {} ({}, {}) kept as an ordinary SSTable {}: {} data bytes, this node drains before leaving ({} ms)",
                    f.id(), tag, t, f.source(), id, f.dataBytes(), node.clock().millisSince(start));
    }
}
