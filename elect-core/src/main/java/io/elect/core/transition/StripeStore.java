package io.elect.core.transition;

import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;

import java.util.List;
import java.util.Optional;

/**
 * Durable stripe metadata. Implementations: {@link InMemoryStripeStore} (tests), {@link FaultInjectingStripeStore}
 * (a decorator for crash tests) and the adapter's {@code ElectStripeStore} (rows in the replicated
 * {@code elect_system} keyspace).
 *
 * <p>Contract: every operation is idempotent, so a caller that saw an exception (the outcome is then unknown: the
 * write may or may not have happened) simply retries it. Thread-safe.
 */
public interface StripeStore
{
    enum Outcome
    {
        /** The change was made now. */
        APPLIED,
        /** The stripe already was in the requested state (or the identical plan already existed): nothing to do. */
        ALREADY,
        /** The stripe is in another state (or another plan has the same id): the caller must re-read. */
        CONFLICT
    }

    /** Stores a new PLANNED stripe unless one with this id exists. */
    Outcome create(StripeRecord planned);

    Optional<StripeRecord> get(StripeId id);

    /**
     * Moves the stripe from {@code from} to {@code to} (a legal successor) atomically: APPLIED if it was in
     * {@code from}, ALREADY if it is in {@code to}, CONFLICT otherwise (including a missing stripe).
     *
     * @throws IllegalArgumentException if {@code to} is not a legal successor of {@code from}
     */
    Outcome transition(StripeId id, StripeState from, StripeState to, long nowMillis);

    /** Every stripe (any order). */
    List<StripeRecord> list();

    /** Removes a ROLLED_BACK or RETIRED stripe's row (garbage collection); false if absent. Refuses other states. */
    boolean delete(StripeId id);

    /**
     * Creates whatever the store needs (a table, a keyspace) if absent, or adapts it to the cluster (e.g. a larger
     * replication factor once the ring has grown). Idempotent; the default does nothing.
     */
    default void ensureReady()
    {
    }

    /** Whether the store exists yet (before {@link #ensureReady} ran somewhere, listing would fail). */
    default boolean ready()
    {
        return true;
    }

    static void checkSuccessor(StripeState from, StripeState to)
    {
        if (!from.canMoveTo(to))
            throw new IllegalArgumentException("illegal stripe transition " + from + " -> " + to);
    }
}
