package io.elect.core.transition;

import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;

import java.util.List;
import java.util.Map;
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
     * A read of the stripe's record that needs no consensus round: it sees every completed write but may miss one in
     * flight (not linearizable). For checks that tolerate that (the transport's participant check: a stripe's record
     * is written, and its write completed, before any verb naming it is sent) and must not fail when many
     * transactions contend for the same rows. The default is {@link #get}.
     */
    default Optional<StripeRecord> getCommitted(StripeId id)
    {
        return get(id);
    }

    /**
     * Moves the stripe from {@code from} to {@code to} (a legal successor) atomically: APPLIED if it was in
     * {@code from}, ALREADY if it is in {@code to}, CONFLICT otherwise (including a missing stripe).
     *
     * @throws IllegalArgumentException if {@code to} is not a legal successor of {@code from}
     */
    Outcome transition(StripeId id, StripeState from, StripeState to, long nowMillis);

    /**
     * Changes a stripe's plan (members, parity nodes, parity generation) and possibly its state, in one
     * compare-and-set on the version: {@code next} must be {@code expected.replan(...)} (same id, version + 1, its
     * state equal to or a legal successor of the expected one). APPLIED if the stored record still had
     * {@code expected}'s version; ALREADY if it already has {@code next}'s plan and state (a retry after an unknown
     * outcome); CONFLICT otherwise (including a missing stripe): the caller must re-read.
     *
     * @throws IllegalArgumentException if next is not a successor of expected as described
     */
    Outcome replan(StripeRecord expected, StripeRecord next);

    /** Every stripe (any order). */
    List<StripeRecord> list();

    /** Removes a ROLLED_BACK or RETIRED stripe's row (garbage collection); false if absent. Refuses other states. */
    boolean delete(StripeId id);

    /**
     * The nodes an operator is draining before they leave the ring ({@code electtool decommission}, issue 18;
     * docs/design/topology.md "Draining before leaving"), each with the epoch millisecond the drain began. While a
     * node is marked, rounds place no new chunk on it and move its stripe chunks away; the mark is durable, so a
     * restart of any node (the drained one included) continues the drain.
     */
    Map<String, Long> draining();

    /** Marks {@code node} as draining since {@code sinceMillis} (an existing mark keeps its time); idempotent. */
    void markDraining(String node, long sinceMillis);

    /** Removes the node's drain mark (cancelled, or the node has left); idempotent. */
    void unmarkDraining(String node);

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

    static void checkReplan(StripeRecord expected, StripeRecord next)
    {
        if (!expected.id().equals(next.id()))
            throw new IllegalArgumentException("replan: ids differ (" + expected.id() + ", " + next.id() + ")");
        if (next.version() != expected.version() + 1)
            throw new IllegalArgumentException("replan: next version " + next.version() + " is not " + (expected.version() + 1));
        if (next.state() != expected.state())
            checkSuccessor(expected.state(), next.state());
        if (expected.state() == StripeState.CHANGING && next.state() == StripeState.COMMITTED && !expected.changeFills() && !expected.changeReplaces())
            throw new IllegalArgumentException("replan: only a fill or a replacement goes back from CHANGING to COMMITTED, not the change of slot "
                                               + expected.change().slot());
        if ((!next.codecId().equals(expected.codecId()) || next.k() != expected.k() || next.m() != expected.m()
             || next.codeLength() != expected.codeLength()) && !expected.reshapedInto(next))
            throw new IllegalArgumentException("replan: codec, k, m and code length of a stripe change only by a widening (StripeRecord.beginReshape)");
    }

    static void checkSuccessor(StripeState from, StripeState to)
    {
        if (!from.canMoveTo(to))
            throw new IllegalArgumentException("illegal stripe transition " + from + " -> " + to);
    }
}
