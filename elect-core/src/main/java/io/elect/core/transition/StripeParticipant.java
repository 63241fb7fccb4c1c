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

    /** Replaces every secondary copy of the encoded rows by a stub. REQUIRES: the stripe is PARITY_DURABLE or later. */
    void stubSecondaries(StripeRecord stripe);

    /** Marks the primaries encoded (frozen) and deletes the shipped temporary chunks. */
    void commit(StripeRecord stripe);

    /**
     * Deletes everything the stripe created: shipped chunks, parity files, cold objects (orphans).
     * REQUIRES: no secondary was stubbed (the stripe never reached PARITY_DURABLE).
     */
    void rollback(StripeRecord stripe);
}
