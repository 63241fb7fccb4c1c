package io.elect.core.transition;

import io.elect.core.stripes.StripeRecord;

/**
 * The cluster-side steps of a stripe, as seen by the state machine. Implemented over the transport by the
 * end-to-end wiring, and by a model in tests. Every method is idempotent (a retry after an unknown outcome is safe)
 * and throws a RuntimeException when it cannot complete now (peer down, timeout); the caller retries later.
 */
public interface StripeParticipant
{
    /** Copies the stripe's real data chunks to the encoding node. */
    void shipChunks(StripeRecord stripe);

    /** Encodes and writes the m parity chunks, with checksums, durably on the parity nodes. */
    void writeParity(StripeRecord stripe);

    /**
     * Installs on every secondary of every real member its stub (index components, data decoded from the stripe),
     * tagged with the stripe's id, purging nothing. REQUIRES: the stripe is PARITY_BUILT or later.
     */
    void installStubs(StripeRecord stripe);

    /**
     * Has every secondary drop the row versions its stubs of this stripe shadow. REQUIRES: the stripe is
     * STUBS_INSTALLED or later (or the older PARITY_DURABLE).
     */
    void purgeSecondaries(StripeRecord stripe);

    /** Marks the primaries encoded (frozen) and deletes the shipped temporary chunks. */
    void commit(StripeRecord stripe);

    /**
     * Deletes everything the stripe created: shipped chunks, parity files, cold objects (orphans), stubs on any node;
     * members are unfrozen. REQUIRES: no secondary purged against the stripe (it never reached STUBS_INSTALLED).
     */
    void rollback(StripeRecord stripe);

    /**
     * Deletes a retired stripe: first every stub of it on every node (the only readers that decode), then its members
     * on their nodes (local or cold), then its parity (local or cold). REQUIRES: the stripe is RETIRING, decided
     * because every file of it is fully shadowed by newer versions on its node, so no read can return anything it
     * holds. Every node must answer: a node that cannot is retried (the stripe stays RETIRING).
     */
    void retire(StripeRecord stripe);

    /**
     * Carries out a member change recorded in CHANGING ({@link StripeRecord#change()}): each parity node builds
     * parity generation {@code stripe.parityGeneration()} from the previous one and the slot's two versions (as new
     * files; the previous generation stays), then every node holding a stub of the stripe switches it to the new
     * plan (stubs of the changed slot itself are removed, or replaced by the new version's). Every node must answer:
     * a stub left on the previous plan would decode with parity that is deleted next. A fill
     * ({@link StripeRecord#changeFills()}) first takes the new member on its node (frozen under the stripe) and, once
     * the new generation and the member's stubs exist, has its secondaries purge their copies. REQUIRES: CHANGING.
     *
     * @throws NextMemberGone the slot's new member (a fill's, or a merge's next version) is gone from its node and no
     *                         stub of it exists anywhere: the parity of the next generation is dropped and the state
     *                         machine abandons the change
     */
    void change(StripeRecord stripe);

    /**
     * The new member of a fill or a replacement is gone from its node (a fill's compacted away before it was taken,
     * or either lost with its node's disk) and no node holds a stub of it: nothing was purged against it and no stub
     * switched to the next generation, whose parity the participant dropped. The change is abandoned.
     */
    final class NextMemberGone extends RuntimeException
    {
        public NextMemberGone(String message)
        {
            super(message);
        }
    }

    /**
     * Deletes what the change left behind once no reader uses it: the slot's previous member on its node (local
     * file or cold object) and the previous parity generation. REQUIRES: CHANGED.
     */
    void finishChange(StripeRecord stripe);
}
