package io.elect.core.transition;

import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives stripes through their states over a {@link StripeStore} and a {@link StripeParticipant}.
 *
 * <p>Write-ahead: a stripe's row is created (PLANNED) before any side effect, so every file or object a stripe ever
 * created belongs to a row that recovery will find. Each step runs the participant action, then records the new state
 * with a compare-and-set; a crash between the two leaves the old state, and redoing the idempotent action is safe.
 *
 * <p>{@link #run} takes a new stripe forward; if a step before STUBS_INSTALLED fails, it rolls the stripe back.
 * {@link #recover} takes a stripe found half-done (after a crash) to a terminal state: before PARITY_BUILT it rolls
 * back (the shipped chunks and any parity are orphans of a crash: cheaper to redo than to trust); in PARITY_BUILT it
 * tries to install the stubs and rolls back if that fails (nothing was purged yet; e.g. a member's node lost its
 * disk); from STUBS_INSTALLED on it rolls forward (secondaries may have purged). {@link #retire} takes a COMMITTED
 * stripe through RETIRING to RETIRED; recovery finishes a RETIRING one. {@link #change} takes a COMMITTED stripe
 * through CHANGING and CHANGED back to COMMITTED with one member removed or replaced, {@link #fill} one with a virtual
 * slot filled (or abandoned, the only change that goes back); recovery finishes it. See {@link StripeState}. Thread-safe if the store and participant are; one stripe should be driven by one thread.
 */
public final class StripeStateMachine
{
    private static final Logger logger = LoggerFactory.getLogger(StripeStateMachine.class);

    private final StripeStore store;
    private final StripeParticipant participant;
    private final LongSupplier clockMillis;

    public StripeStateMachine(StripeStore store, StripeParticipant participant, LongSupplier clockMillis)
    {
        this.store = Objects.requireNonNull(store, "store");
        this.participant = Objects.requireNonNull(participant, "participant");
        this.clockMillis = Objects.requireNonNull(clockMillis, "clockMillis");
    }

    /**
     * Plans and runs a new stripe. Returns its final state; throws if it could not reach a terminal state now (then
     * {@link #recover} finishes it later).
     */
    public StripeState run(StripeRecord planned)
    {
        StripeStore.Outcome created = store.create(planned);
        if (created == StripeStore.Outcome.CONFLICT)
            throw new IllegalStateException("stripe " + planned.id() + " exists with another plan");
        if (created == StripeStore.Outcome.APPLIED)
        {
            long real = planned.members().stream().mapToLong(Member::realBytes).sum();
            long virtual = planned.members().stream().filter(Member::isVirtual).count();
            logger.info("stripe {} planned: codec={} code_length={} real_bytes={} virtual_chunks={} parity={}", planned.id(),
                        planned.codecId(), planned.codeLength(), real, virtual, planned.parityNodes());
        }
        return drive(planned.id(), true);
    }

    /** Takes a half-done stripe to COMMITTED or ROLLED_BACK (see the class comment). */
    public StripeState recover(StripeId id)
    {
        return drive(id, false);
    }

    /**
     * Retires a COMMITTED stripe every file of which is fully shadowed (the caller decided that from every holder's
     * report): records RETIRING first, so a crash midway rolls forward, then deletes stubs, members and parity
     * ({@link StripeParticipant#retire}). Returns RETIRED, or the state found if the stripe was not COMMITTED (someone
     * else moved it: nothing is done); throws if the deletion cannot complete now (recovery finishes it later).
     */
    public StripeState retire(StripeId id)
    {
        StripeRecord r = current(id);
        if (r.state() == StripeState.COMMITTED)
            record(r, StripeState.RETIRING);
        StripeState now = current(id).state();
        return now == StripeState.RETIRING ? drive(id, false) : now;
    }

    /**
     * Changes member {@code slot} of a COMMITTED stripe to {@code replacement} (a virtual chunk: the member is
     * removed; a real member: its new version): records CHANGING with the target plan first (the recovery rolls it
     * forward), then the participant builds the next parity generation and switches every stub
     * ({@link StripeParticipant#change}), CHANGED, then the previous member and parity generation are deleted
     * ({@link StripeParticipant#finishChange}) and the stripe is COMMITTED again. Returns COMMITTED when the change
     * is done, or the state found if the stripe was not COMMITTED with {@code expected}'s version (someone else moved
     * it: nothing is done); throws if the change cannot complete now (recovery finishes it later).
     *
     * @param expected the record the caller decided on (its version is compared)
     */
    public StripeState change(StripeRecord expected, int slot, io.elect.core.stripes.Member replacement)
    {
        return change(expected, slot, replacement, expected.parityNodes());
    }

    /** {@link #change(StripeRecord, int, io.elect.core.stripes.Member)} that also moves parity to {@code parityNodes}. */
    public StripeState change(StripeRecord expected, int slot, io.elect.core.stripes.Member replacement, List<String> parityNodes)
    {
        if (expected.state() != StripeState.COMMITTED)
            return expected.state();
        StripeRecord next = expected.beginChange(slot, replacement, parityNodes, clockMillis.getAsLong());
        if (next.realMembers() == 0)
            throw new IllegalArgumentException("stripe " + expected.id() + ": removing its last real member is a retirement, not a change");
        StripeStore.Outcome o = store.replan(expected, next);
        if (o == StripeStore.Outcome.CONFLICT)
            return current(expected.id()).state();
        logger.info("stripe {} COMMITTED -> CHANGING ({}): slot {} {} -> {}, parity generation {} -> {}{}", expected.id(), o, slot,
                    next.change().previous().descriptor(), replacement.descriptor(), expected.parityGeneration(), next.parityGeneration(),
                    parityNodes.equals(expected.parityNodes()) ? "" : ", parity nodes " + expected.parityNodes() + " -> " + parityNodes);
        return drive(expected.id(), false);
    }

    /**
     * Fills virtual slot {@code slot} of a COMMITTED stripe with {@code member} ({@link StripeRecord#beginFill}):
     * records CHANGING with the target plan first, then drives it like any change. Returns true when the stripe is
     * COMMITTED with the member in the slot; false when nothing changed (the stripe was not COMMITTED with
     * {@code expected}'s version, or the member's node no longer had it: the fill was abandoned); throws if the fill
     * cannot complete now (recovery finishes it later).
     */
    public boolean fill(StripeRecord expected, int slot, Member member)
    {
        if (expected.state() != StripeState.COMMITTED)
            return false;
        if (!begin(expected, expected.beginFill(slot, member, clockMillis.getAsLong()), "virtual slot " + slot + " filled by " + member.descriptor())
            || drive(expected.id(), false) != StripeState.COMMITTED)
            return false;
        return current(expected.id()).members().get(slot).equals(member);
    }

    /**
     * Widens a COMMITTED stripe from k to {@code toK} data chunks ({@link StripeRecord#beginReshape}): records
     * CHANGING first, then drives it like any change (each parity node writes generation g + 1 with g's bytes under
     * the wider codec, every stub switches to the wider layout). Returns true when the stripe is COMMITTED with k =
     * {@code toK}; false when it was not COMMITTED with {@code expected}'s version (nothing done); throws if the
     * change cannot complete now (recovery finishes it later).
     */
    public boolean reshape(StripeRecord expected, int toK, String toCodecId)
    {
        if (expected.state() != StripeState.COMMITTED)
            return false;
        return begin(expected, expected.beginReshape(toK, toCodecId, clockMillis.getAsLong()),
                     "widened from k=" + expected.k() + " (" + expected.codecId() + ") to k=" + toK + " (" + toCodecId + ")")
               && drive(expected.id(), false) == StripeState.COMMITTED && current(expected.id()).k() == toK;
    }

    /** Records {@code next} (CHANGING) over {@code expected} (COMMITTED); false if someone else moved the stripe. */
    private boolean begin(StripeRecord expected, StripeRecord next, String what)
    {
        StripeStore.Outcome o = store.replan(expected, next);
        if (o == StripeStore.Outcome.CONFLICT)
            return false;
        logger.info("stripe {} COMMITTED -> CHANGING ({}): {}, parity generation {} -> {}", expected.id(), o, what,
                    expected.parityGeneration(), next.parityGeneration());
        return true;
    }

    private StripeState drive(StripeId id, boolean forwardEarly)
    {
        while (true)
        {
            StripeRecord r = current(id);
            switch (r.state())
            {
                case COMMITTED:
                case ROLLED_BACK:
                case RETIRED:
                    return r.state();
                case RETIRING:
                    step(r, StripeState.RETIRED, participant::retire);
                    break;
                case CHANGING:
                    try
                    {
                        step(r, StripeState.CHANGED, participant::change);
                    }
                    catch (StripeParticipant.NextMemberGone e)
                    {
                        StripeStore.Outcome back = store.replan(r, r.abandonChange(clockMillis.getAsLong()));
                        if (back != StripeStore.Outcome.CONFLICT)
                            logger.info("stripe {} CHANGING -> COMMITTED ({}): {} of slot {} by {} abandoned ({}), parity generation {} again",
                                        r.id(), back, r.changeFills() ? "fill" : "replacement", r.change().slot(),
                                        r.members().get(r.change().slot()).descriptor(), e.getMessage(), r.parityGeneration() - 1);
                    }
                    break;
                case CHANGED:
                    participant.finishChange(r);
                    StripeStore.Outcome o = store.replan(r, r.endChange(clockMillis.getAsLong()));
                    if (o != StripeStore.Outcome.CONFLICT)
                        logger.info("stripe {} CHANGED -> COMMITTED ({}) after {} ms in CHANGED", r.id(), o,
                                    clockMillis.getAsLong() - r.updatedAtMillis());
                    break;
                case PLANNED:
                    if (!forwardEarly || !tryStep(r, StripeState.CHUNKS_SHIPPED, participant::shipChunks))
                        store.transition(id, StripeState.PLANNED, StripeState.ROLLING_BACK, clockMillis.getAsLong());
                    break;
                case CHUNKS_SHIPPED:
                    if (!forwardEarly || !tryStep(r, StripeState.PARITY_BUILT, participant::writeParity))
                        store.transition(id, StripeState.CHUNKS_SHIPPED, StripeState.ROLLING_BACK, clockMillis.getAsLong());
                    break;
                case PARITY_BUILT:
                    if (!tryStep(r, StripeState.STUBS_INSTALLED, participant::installStubs))
                        store.transition(id, StripeState.PARITY_BUILT, StripeState.ROLLING_BACK, clockMillis.getAsLong());
                    break;
                case STUBS_INSTALLED:
                    step(r, StripeState.SECONDARIES_STUBBED, participant::purgeSecondaries);
                    break;
                case PARITY_DURABLE: // written by older versions: purges may have begun, forward only
                    step(r, StripeState.SECONDARIES_STUBBED, x -> {
                        participant.installStubs(x);
                        participant.purgeSecondaries(x);
                    });
                    break;
                case SECONDARIES_STUBBED:
                    step(r, StripeState.COMMITTED, participant::commit);
                    break;
                case ROLLING_BACK:
                    step(r, StripeState.ROLLED_BACK, participant::rollback);
                    break;
                default:
                    throw new AssertionError(r.state());
            }
        }
    }

    private StripeRecord current(StripeId id)
    {
        Optional<StripeRecord> r = store.get(id);
        return r.orElseThrow(() -> new IllegalStateException("stripe " + id + " has no row"));
    }

    /** Like {@link #step} but reports a failed participant action as false (the caller rolls back). */
    private boolean tryStep(StripeRecord r, StripeState next, Consumer<StripeRecord> action)
    {
        try
        {
            action.accept(r);
        }
        catch (RuntimeException e)
        {
            logger.info("stripe {} {} -> {} failed, rolling back: {}", r.id(), r.state(), next, e.toString());
            return false;
        }
        record(r, next);
        return true;
    }

    private void step(StripeRecord r, StripeState next, Consumer<StripeRecord> action)
    {
        action.accept(r);
        record(r, next);
    }

    private void record(StripeRecord r, StripeState next)
    {
        long start = clockMillis.getAsLong();
        StripeStore.Outcome o = store.transition(r.id(), r.state(), next, start);
        if (o == StripeStore.Outcome.CONFLICT)
            return; // someone else moved it: the loop re-reads the row
        logger.info("stripe {} {} -> {} ({}) after {} ms in {}", r.id(), r.state(), next, o, start - r.updatedAtMillis(), r.state());
    }
}
