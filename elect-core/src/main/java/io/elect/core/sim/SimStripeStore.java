package io.elect.core.sim;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.InMemoryStripeStore;
import io.elect.core.transition.StripeStore;

/**
 * The simulation's stripe store: the in-memory, linearizable store (what Cassandra's Paxos table gives every node),
 * listing in stripe-id order so that every node iterates stripes the same way in every run.
 */
final class SimStripeStore implements StripeStore
{
    private final InMemoryStripeStore inner = new InMemoryStripeStore();

    @Override
    public Outcome create(StripeRecord planned)
    {
        return inner.create(planned);
    }

    @Override
    public Optional<StripeRecord> get(StripeId id)
    {
        return inner.get(id);
    }

    @Override
    public Outcome transition(StripeId id, StripeState from, StripeState to, long nowMillis)
    {
        return inner.transition(id, from, to, nowMillis);
    }

    @Override
    public Outcome replan(StripeRecord expected, StripeRecord next)
    {
        return inner.replan(expected, next);
    }

    @Override
    public List<StripeRecord> list()
    {
        List<StripeRecord> out = new ArrayList<>(inner.list());
        out.sort(Comparator.comparing(r -> r.id().toString()));
        return out;
    }

    @Override
    public boolean delete(StripeId id)
    {
        return inner.delete(id);
    }

    @Override
    public java.util.Map<String, Long> draining()
    {
        return inner.draining();
    }

    @Override
    public void markDraining(String node, long sinceMillis)
    {
        inner.markDraining(node, sinceMillis);
    }

    @Override
    public void unmarkDraining(String node)
    {
        inner.unmarkDraining(node);
    }
}
