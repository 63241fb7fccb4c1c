package io.elect.core.node;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.core.config.ColdTierStores;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.offload.ColdStore;
import io.elect.offload.ObjectInfo;

/**
 * The coordinator's deletion of cold objects no node is left to delete (issue 18, docs/design/topology.md "Cold
 * objects of nodes that left"): every node deletes its own garbage ({@code ColdOffload.gcColdObjects} under its own
 * key prefix, DROP_PARITY for its parity chunks), but a node that left the ring without draining (plain
 * {@code nodetool decommission}, {@code removenode}) leaves its offloaded members' data objects and its offloaded
 * parity chunks behind, and DROP_PARITY skips it.
 *
 * <ul>
 * <li><b>Data objects</b> under {@code tiered/<ks>/<table>/<owner>/} whose owner is not one of {@link Ring#coldOwners}
 * (no ring member, no node gossip knows that has not left), once no stripe record names a node that is not a ring
 * member (the departure repair has removed the departed node's members from their stripes, so no stub decodes
 * through them any more).</li>
 * <li><b>Parity objects</b> {@code parity/<ks>.<table>/<stripe>/<j>[.g<gen>]} of a generation below their COMMITTED
 * stripe's (no change in flight), or of a stripe RETIRED, ROLLED_BACK or without a record.</li>
 * </ul>
 *
 * Each object must be found deletable in two sweeps at least {@link #CONFIRM_MILLIS} apart (a listing that raced a
 * node's first upload, or a record read mid-change, is not acted on); the caller sweeps only with every ring member
 * up and no ring change or drain under way. Not thread-safe: the coordinator's rounds only.
 */
final class DepartedColdObjects
{
    private static final Logger logger = LoggerFactory.getLogger(DepartedColdObjects.class);

    /** How long an object must stay deletable, seen in two sweeps, before it is deleted. */
    static final long CONFIRM_MILLIS = DepartureRepair.GRACE_MILLIS;
    /** How often a table's cold objects are listed. */
    static final long SWEEP_MILLIS = DepartureRepair.GRACE_MILLIS;

    private final NodeContext node;
    /** Key -> when it was first seen deletable (forgotten when a sweep no longer finds it so). */
    private final Map<String, Long> seen = new HashMap<>();
    private final Map<TableRef, Long> lastSweep = new HashMap<>();

    DepartedColdObjects(NodeContext node)
    {
        this.node = node;
    }

    /** The owner segment of a data object key under {@code tablePrefix} ({@code tiered/<ks>/<table>/}), or null. */
    static String owner(String key, String tablePrefix)
    {
        if (!key.startsWith(tablePrefix))
            return null;
        int slash = key.indexOf('/', tablePrefix.length());
        return slash <= tablePrefix.length() ? null : key.substring(tablePrefix.length(), slash);
    }

    /** Whether some record that still counts names a node outside {@code members} (a member, a parity node, a change's previous member). */
    static boolean namesNonMembers(Collection<StripeRecord> records, Collection<String> members)
    {
        Set<String> in = new HashSet<>(members);
        for (StripeRecord r : records)
        {
            if (r.state().rowRemovable())
                continue;
            for (Member m : r.members())
                if (!m.isVirtual() && !in.contains(m.node()))
                    return true;
            for (String p : r.parityNodes())
                if (!in.contains(p))
                    return true;
            if (r.change() != null && !r.change().previous().isVirtual() && !in.contains(r.change().previous().node()))
                return true;
        }
        return false;
    }

    /** Data objects of the table whose owner is not in {@code owners}. */
    static List<ObjectInfo> foreignData(List<ObjectInfo> objects, String tablePrefix, Set<String> owners)
    {
        List<ObjectInfo> out = new ArrayList<>();
        for (ObjectInfo o : objects)
        {
            String owner = owner(o.key(), tablePrefix);
            if (owner != null && !owners.contains(owner))
                out.add(o);
        }
        return out;
    }

    /**
     * Parity objects under {@code parityPrefix} ({@code parity/<ks>.<table>/}) that no record uses: a generation below
     * the record's while it is COMMITTED with no change in flight, any generation of a RETIRED or ROLLED_BACK stripe
     * or of one without a record. A key that does not parse is left alone.
     */
    static List<ObjectInfo> obsoleteParity(List<ObjectInfo> objects, String parityPrefix, Map<String, StripeRecord> byId)
    {
        List<ObjectInfo> out = new ArrayList<>();
        for (ObjectInfo o : objects)
        {
            if (!o.key().startsWith(parityPrefix))
                continue;
            String[] parts = o.key().substring(parityPrefix.length()).split("/");
            if (parts.length != 2)
                continue;
            long generation;
            try
            {
                int dot = parts[1].indexOf(".g");
                Integer.parseInt(dot < 0 ? parts[1] : parts[1].substring(0, dot));
                generation = dot < 0 ? 0 : Long.parseLong(parts[1].substring(dot + 2));
            }
            catch (NumberFormatException e)
            {
                continue;
            }
            StripeRecord r = byId.get(parts[0]);
            boolean obsolete = r == null || r.state() == StripeState.RETIRED || r.state() == StripeState.ROLLED_BACK
                               || r.state() == StripeState.COMMITTED && r.change() == null && generation < r.parityGeneration();
            if (obsolete)
                out.add(o);
        }
        return out;
    }

    /**
     * The keys of {@code deletable} found deletable since at least {@link #CONFIRM_MILLIS} ago (in an earlier sweep):
     * they leave {@code seen}; the others stay in it (first seen now if new), and keys of this sweep's scope that are
     * no longer deletable are forgotten (a later finding starts the wait again).
     */
    static Set<String> confirm(Map<String, Long> seen, List<ObjectInfo> deletable, long now, java.util.function.Predicate<String> scope)
    {
        Set<String> keys = new HashSet<>();
        for (ObjectInfo o : deletable)
            keys.add(o.key());
        seen.keySet().removeIf(k -> scope.test(k) && !keys.contains(k));
        Set<String> out = new HashSet<>();
        for (String k : keys)
        {
            Long first = seen.putIfAbsent(k, now);
            if (first != null && now - first >= CONFIRM_MILLIS)
            {
                out.add(k);
                seen.remove(k);
            }
        }
        return out;
    }

    /** One sweep of {@code table} if its last one is {@link #SWEEP_MILLIS} old; returns the objects deleted. */
    int sweep(TableRef table) throws IOException
    {
        long now = node.clock().millis();
        Long last = lastSweep.get(table);
        if (last != null && now - last < SWEEP_MILLIS)
            return 0;
        lastSweep.put(table, now);
        ColdStore store = node.tiered().store(ColdTierStores.DEFAULT_STORE).orElse(null);
        if (store == null)
            return 0;
        long start = node.clock().nanoTime();
        List<StripeRecord> records = node.store().list();
        Map<String, StripeRecord> byId = new HashMap<>();
        for (StripeRecord r : records)
            byId.put(r.id().toString(), r);
        List<ObjectInfo> deletable = new ArrayList<>();
        String own = node.tables().coldKeyPrefix(table);
        String tablePrefix = own.substring(0, own.lastIndexOf('/', own.length() - 2) + 1);
        if (!namesNonMembers(records, node.ring().members()))
            deletable.addAll(foreignData(store.list(tablePrefix), tablePrefix, node.ring().coldOwners()));
        String parityPrefix = "parity/" + table.keyspace() + "." + table.table() + "/";
        deletable.addAll(obsoleteParity(store.list(parityPrefix), parityPrefix, byId));

        Set<String> confirmed = confirm(seen, deletable, now, k -> k.startsWith(tablePrefix) || k.startsWith(parityPrefix));
        Map<String, long[]> deleted = new TreeMap<>(); // owner or "parity" -> objects, bytes
        for (ObjectInfo o : deletable)
        {
            if (!confirmed.contains(o.key()))
                continue;
            store.delete(o.key());
            String owner = owner(o.key(), tablePrefix);
            long[] c = deleted.computeIfAbsent(owner == null ? "parity" : "owner " + owner, x -> new long[2]);
            c[0]++;
            c[1] += o.length();
        }
        int total = 0;
        for (Map.Entry<String, long[]> e : deleted.entrySet())
        {
            total += (int) e.getValue()[0];
            node.metrics().counter("Topology", "ColdObjectsOfDepartedDeleted", null).inc(e.getValue()[0]);
            logger.info("cold objects of {} no node owns ({}): {} deleted, {} bytes ({} ms)", table, e.getKey(), e.getValue()[0],
                        e.getValue()[1], node.clock().millisSince(start));
        }
        return total;
    }
}
