package io.elect.core.node;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.elect.core.transition.wire.TransitionMessages.TableRef;

/**
 * The next versions of members that MERGE_MEMBER wrote on this node and that no stripe record names yet (issue 16,
 * member merges), by stripe: which member each replaces and when it was written. They are the only files that the
 * merge handler hands out again (a retried MERGE_MEMBER), that offloading leaves alone (the change flow reads them by
 * id) and that maintenance deletes when no change recorded them ({@link NodeMaintenance}). In memory: after a restart
 * an unnamed next version is no longer known, and stays until its stripe is retired (a subset of its member's
 * versions: it costs space, never a read). Thread-safe.
 */
final class MergeMarkers
{
    record Marker(TableRef table, String stripe, String member, String next, long writtenMillis)
    {
    }

    private final Map<String, Marker> byStripe = new ConcurrentHashMap<>();

    void put(Marker m)
    {
        byStripe.put(m.stripe(), m);
    }

    /** The next version written for {@code member} of {@code stripe}, if any. */
    Optional<Marker> of(String stripe, TableRef table, String member)
    {
        Marker m = byStripe.get(stripe);
        return m != null && m.table().equals(table) && m.member().equals(member) ? Optional.of(m) : Optional.empty();
    }

    boolean isNextVersion(TableRef table, String id)
    {
        for (Marker m : byStripe.values())
            if (m.table().equals(table) && m.next().equals(id))
                return true;
        return false;
    }

    List<Marker> all()
    {
        return List.copyOf(byStripe.values());
    }

    void remove(Marker m)
    {
        byStripe.remove(m.stripe(), m);
    }
}
