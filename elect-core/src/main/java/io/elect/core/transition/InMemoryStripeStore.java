package io.elect.core.transition;

import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeRecordCodec;
import io.elect.core.stripes.StripeState;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link StripeStore} in memory. Records go through {@link StripeRecordCodec} on every write and read, so the
 * tests that use this store also exercise the persisted format. Atomic per stripe (ConcurrentHashMap.compute).
 */
public final class InMemoryStripeStore implements StripeStore
{
    private final ConcurrentHashMap<StripeId, byte[]> rows = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Long> drains = new ConcurrentHashMap<>();

    @Override
    public Outcome create(StripeRecord planned)
    {
        if (planned.state() != StripeState.PLANNED)
            throw new IllegalArgumentException("create: state must be PLANNED, was " + planned.state());
        Outcome[] out = new Outcome[1];
        rows.compute(planned.id(), (id, cur) -> {
            if (cur == null)
            {
                out[0] = Outcome.APPLIED;
                return StripeRecordCodec.encode(planned);
            }
            out[0] = StripeRecordCodec.decode(cur).samePlan(planned) ? Outcome.ALREADY : Outcome.CONFLICT;
            return cur;
        });
        return out[0];
    }

    @Override
    public Optional<StripeRecord> get(StripeId id)
    {
        byte[] b = rows.get(id);
        return b == null ? Optional.empty() : Optional.of(StripeRecordCodec.decode(b));
    }

    @Override
    public Outcome transition(StripeId id, StripeState from, StripeState to, long nowMillis)
    {
        StripeStore.checkSuccessor(from, to);
        Outcome[] out = { Outcome.CONFLICT };
        rows.computeIfPresent(id, (k, cur) -> {
            StripeRecord r = StripeRecordCodec.decode(cur);
            if (r.state() == to)
            {
                out[0] = Outcome.ALREADY;
                return cur;
            }
            if (r.state() != from)
                return cur;
            out[0] = Outcome.APPLIED;
            return StripeRecordCodec.encode(r.moveTo(to, nowMillis));
        });
        return out[0];
    }

    @Override
    public Outcome replan(StripeRecord expected, StripeRecord next)
    {
        StripeStore.checkReplan(expected, next);
        Outcome[] out = { Outcome.CONFLICT };
        rows.computeIfPresent(next.id(), (k, cur) -> {
            StripeRecord r = StripeRecordCodec.decode(cur);
            if (r.samePlan(next) && r.state() == next.state())
            {
                out[0] = Outcome.ALREADY;
                return cur;
            }
            if (r.version() != expected.version())
                return cur;
            out[0] = Outcome.APPLIED;
            return StripeRecordCodec.encode(next);
        });
        return out[0];
    }

    @Override
    public List<StripeRecord> list()
    {
        List<StripeRecord> out = new ArrayList<>();
        for (byte[] b : rows.values())
            out.add(StripeRecordCodec.decode(b));
        return out;
    }

    @Override
    public boolean delete(StripeId id)
    {
        boolean[] removed = new boolean[1];
        rows.computeIfPresent(id, (k, cur) -> {
            StripeRecord r = StripeRecordCodec.decode(cur);
            if (!r.state().rowRemovable())
                throw new IllegalStateException("delete: stripe " + id + " is " + r.state() + ", only ROLLED_BACK and RETIRED rows are removed");
            removed[0] = true;
            return null;
        });
        return removed[0];
    }

    @Override
    public java.util.Map<String, Long> draining()
    {
        return java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(drains)); // sorted: deterministic iteration
    }

    @Override
    public void markDraining(String node, long sinceMillis)
    {
        drains.putIfAbsent(node, sinceMillis);
    }

    @Override
    public void unmarkDraining(String node)
    {
        drains.remove(node);
    }
}
