package io.elect.core.security;

import io.elect.core.transition.wire.TransitionMessages.BuildParityRequest;
import io.elect.core.transition.wire.TransitionMessages.DropParityRequest;
import io.elect.core.transition.wire.TransitionMessages.MemberRequest;
import io.elect.core.transition.wire.TransitionMessages.StubRequest;
import io.elect.core.transport.Verbs;

/**
 * What each verb may change, for {@link RingAccessPolicy}: read-only verbs need only a ring member; verbs that
 * change, destroy or replace stripe state need a participant of the stripe their payload names; verbs that move a
 * node's data to the cold tier (whole-table offload, decided by the coordinator's plan) need the coordinator. A pure
 * function of the verb and its payload (decoded with the same decoders as the handlers, so a payload the scope cannot
 * decode is one the handler would refuse too). Verbs not listed (unknown numbers) are {@link Scope#READ_ONLY}: the
 * dispatcher answers them "unknown verb" without running anything.
 */
public final class VerbScopes
{
    public enum Scope
    {
        /** READ_MEMBER, SNAPSHOT, STRIPE_STATUS: reveal data, change nothing. */
        READ_ONLY,
        /** PIN, BUILD_PARITY, STUB, COMMIT, ROLLBACK, DROP_PARITY, STUB_INSTALL: change one stripe's members. */
        STRIPE,
        /**
         * OFFLOAD_PARITY, OFFLOAD_PRIMARY: move this node's data of a table to the cold tier; RETIRE_MEMBERS: delete
         * it; STUB_PURGE, STUB_REMOVE: purge against or remove this node's stubs of a stripe (sent to every ring node,
         * not only participants, so only the coordinator that drives stripes may send them); PARITY_CHANGE,
         * STUB_RELAYOUT, REMOVE_MEMBER, MERGE_MEMBER: a member change, driven by the coordinator like a retirement;
         * STUB_MATERIALIZE: rewrite and remove this node's stubs of a member whose node left the ring; MEMBER_DELTA: write
         * the difference of a merged member's two versions for the parity nodes.
         */
        COORDINATOR
    }

    private VerbScopes()
    {
    }

    public static Scope scope(int verb)
    {
        return switch (verb)
        {
            case Verbs.PIN, Verbs.BUILD_PARITY, Verbs.STUB, Verbs.COMMIT, Verbs.ROLLBACK, Verbs.DROP_PARITY, Verbs.STUB_INSTALL -> Scope.STRIPE;
            case Verbs.OFFLOAD_PARITY, Verbs.OFFLOAD_PRIMARY, Verbs.RETIRE_MEMBERS, Verbs.STUB_PURGE, Verbs.STUB_REMOVE,
                 Verbs.PARITY_CHANGE, Verbs.STUB_RELAYOUT, Verbs.REMOVE_MEMBER, Verbs.MERGE_MEMBER, Verbs.STUB_MATERIALIZE,
                 Verbs.MEMBER_DELTA -> Scope.COORDINATOR;
            default -> Scope.READ_ONLY;
        };
    }

    /**
     * The stripe id a {@link Scope#STRIPE} verb's payload names.
     *
     * @throws IllegalArgumentException if the payload does not decode (the handler would refuse it too)
     */
    public static String stripeOf(int verb, byte[] payload)
    {
        return switch (verb)
        {
            case Verbs.PIN, Verbs.COMMIT, Verbs.ROLLBACK -> MemberRequest.decode(payload).stripeId();
            case Verbs.BUILD_PARITY -> BuildParityRequest.decode(payload).stripeId();
            case Verbs.STUB, Verbs.STUB_INSTALL -> StubRequest.decode(payload).stripeId();
            case Verbs.DROP_PARITY -> DropParityRequest.decode(payload).stripeId();
            default -> throw new IllegalArgumentException(Verbs.name(verb) + " is not a stripe verb");
        };
    }
}
