package io.elect.core.stripes;



/**
 * The states of a stripe. Forward path: PLANNED -> CHUNKS_SHIPPED -> PARITY_BUILT -> STUBS_INSTALLED ->
 * SECONDARIES_STUBBED -> COMMITTED. Rollback: PLANNED, CHUNKS_SHIPPED or PARITY_BUILT -> ROLLING_BACK -> ROLLED_BACK.
 *
 * <p>Stubbing is two-phase, so that the point of no return is a recorded state: in PARITY_BUILT the parity is durable
 * and stubs may be installed on secondaries, but no secondary has purged anything: every row is still fully
 * replicated, so a stripe that cannot go forward (a member's node lost its disk before any stub of its member existed)
 * can still be rolled back, its stubs removed. STUBS_INSTALLED records that every secondary holds its stub; from then
 * on secondaries purge the rows their stub shadows, no longer hold them, and the only safe direction is forward (the
 * parity is durable and every member has stubs, so forward is always possible, also after a rebuild).
 *
 * <p>PARITY_DURABLE is the state older ELECT versions recorded at that point, when stubs were installed and purged
 * in one step: a stripe found in it may have purged secondaries, so it only goes forward (to SECONDARIES_STUBBED).
 *
 * <p>Retirement: COMMITTED -> RETIRING -> RETIRED, for a stripe every file of which (members and stubs, on every
 * node) is fully shadowed by newer versions: nothing of it can be returned by a read, so its stubs, members and
 * parity are deleted without any decode or parity update (docs/design/updates.md). RETIRING only goes forward; a
 * RETIRED row is removed like a ROLLED_BACK one.
 *
 * <p>Member change: COMMITTED -> CHANGING -> CHANGED -> COMMITTED, for one member of a stripe removed (it is fully
 * shadowed, or leaves) or replaced by a new version. CHANGING records the target plan with parity generation g + 1
 * and the slot's previous member ({@link StripeRecord.Change}); the parity nodes build generation g + 1 and every
 * stub holder switches to it. CHANGED records that no reader uses generation g or the previous member any more;
 * they are then deleted and the stripe is COMMITTED again. Both states only go forward, with one exception: a fill
 * of a virtual slot (issue 18) whose member's node answers that the SSTable is gone before anything of the fill was
 * built goes back from CHANGING to COMMITTED with the plan before it ({@link StripeRecord#abandonChange}).
 *
 * <p>DO NOT CHANGE the codes: they are persisted (docs/formats/stripe-metadata.md).
 */
public enum StripeState
{
    PLANNED(1),
    CHUNKS_SHIPPED(2),
    PARITY_DURABLE(3),
    SECONDARIES_STUBBED(4),
    COMMITTED(5),
    ROLLING_BACK(6),
    ROLLED_BACK(7),
    PARITY_BUILT(8),
    STUBS_INSTALLED(9),
    RETIRING(10),
    RETIRED(11),
    CHANGING(12),
    CHANGED(13);

    public final int code;

    StripeState(int code)
    {
        this.code = code;
    }

    public static StripeState ofCode(int code)
    {
        for (StripeState s : values())
            if (s.code == code)
                return s;
        throw new IllegalArgumentException("unknown stripe state code " + code);
    }

    /** Whether secondaries may have purged rows that only this stripe can give back (no rollback from here). */
    public boolean purgesMayHaveBegun()
    {
        return this == STUBS_INSTALLED || this == PARITY_DURABLE || this == SECONDARIES_STUBBED || this == COMMITTED
               || this == CHANGING || this == CHANGED;
    }

    public boolean isTerminal()
    {
        return this == COMMITTED || this == ROLLED_BACK || this == RETIRED;
    }

    /** Whether a stripe's row may be removed: nothing of it is left anywhere (rolled back or retired). */
    public boolean rowRemovable()
    {
        return this == ROLLED_BACK || this == RETIRED;
    }

    /** Whether {@code next} is a legal successor (a state is not its own successor; see StripeStore for no-ops). */
    public boolean canMoveTo(StripeState next)
    {
        switch (this)
        {
            case PLANNED: return next == CHUNKS_SHIPPED || next == ROLLING_BACK;
            case CHUNKS_SHIPPED: return next == PARITY_BUILT || next == ROLLING_BACK;
            case PARITY_BUILT: return next == STUBS_INSTALLED || next == ROLLING_BACK;
            case STUBS_INSTALLED: return next == SECONDARIES_STUBBED;
            case PARITY_DURABLE: return next == SECONDARIES_STUBBED;
            case SECONDARIES_STUBBED: return next == COMMITTED;
            case COMMITTED: return next == RETIRING || next == CHANGING;
            case CHANGING: return next == CHANGED || next == COMMITTED; // COMMITTED: an abandoned fill only (StripeStore.checkReplan)
            case CHANGED: return next == COMMITTED;
            case RETIRING: return next == RETIRED;
            case ROLLING_BACK: return next == ROLLED_BACK;
            default: return false;
        }
    }
}
