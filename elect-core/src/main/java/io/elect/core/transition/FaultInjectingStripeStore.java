package io.elect.core.transition;

import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;

import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.Supplier;

/**
 * Wraps a {@link StripeStore} and injects faults drawn from one seeded {@link Random}: an operation fails before
 * reaching the store ({@code failBefore}), or reaches it and then fails (the write happened but the caller sees an
 * exception: an ambiguous outcome, as a timed-out write to a replicated keyspace may be). Also a hard crash point:
 * from the {@code crashAtOp}-th operation on, everything fails (the process "died"). Deterministic for a seed.
 */
public final class FaultInjectingStripeStore implements StripeStore
{
    /** Thrown for an injected fault. */
    public static final class InjectedFault extends RuntimeException
    {
        public InjectedFault(String message)
        {
            super(message);
        }
    }

    private final StripeStore inner;
    private final Random random;
    private final double failBefore;
    private final double failAfter;
    private final long crashAtOp;
    private long ops;

    /**
     * @param crashAtOp operation index (0-based) from which every call fails after applying nothing; -1 for never
     */
    public FaultInjectingStripeStore(StripeStore inner, long seed, double failBefore, double failAfter, long crashAtOp)
    {
        this.inner = inner;
        this.random = new Random(seed);
        this.failBefore = failBefore;
        this.failAfter = failAfter;
        this.crashAtOp = crashAtOp;
    }

    public synchronized long operations()
    {
        return ops;
    }

    private <T> T call(String what, Supplier<T> op)
    {
        boolean before, after;
        synchronized (this)
        {
            long n = ops++;
            if (crashAtOp >= 0 && n >= crashAtOp)
                throw new InjectedFault("crashed (op " + n + ", " + what + ")");
            before = random.nextDouble() < failBefore;
            after = random.nextDouble() < failAfter;
        }
        if (before)
            throw new InjectedFault("failed before " + what);
        T r = op.get();
        if (after)
            throw new InjectedFault("failed after " + what + " (applied)");
        return r;
    }

    @Override
    public Outcome create(StripeRecord planned)
    {
        return call("create", () -> inner.create(planned));
    }

    @Override
    public Optional<StripeRecord> get(StripeId id)
    {
        return call("get", () -> inner.get(id));
    }

    @Override
    public Outcome transition(StripeId id, StripeState from, StripeState to, long nowMillis)
    {
        return call("transition " + from + "->" + to, () -> inner.transition(id, from, to, nowMillis));
    }

    @Override
    public Outcome replan(StripeRecord expected, StripeRecord next)
    {
        return call("replan v" + expected.version() + "->v" + next.version(), () -> inner.replan(expected, next));
    }

    @Override
    public List<StripeRecord> list()
    {
        return call("list", inner::list);
    }

    @Override
    public boolean delete(StripeId id)
    {
        return call("delete", () -> inner.delete(id));
    }

    @Override
    public java.util.Map<String, Long> draining()
    {
        return call("draining", inner::draining);
    }

    @Override
    public void markDraining(String node, long sinceMillis)
    {
        call("markDraining", () -> {
            inner.markDraining(node, sinceMillis);
            return null;
        });
    }

    @Override
    public void unmarkDraining(String node)
    {
        call("unmarkDraining", () -> {
            inner.unmarkDraining(node);
            return null;
        });
    }
}
