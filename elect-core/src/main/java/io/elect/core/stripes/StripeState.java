package io.elect.core.stripes;



/**
 * The states of a stripe. Forward path: PLANNED -> CHUNKS_SHIPPED -> PARITY_DURABLE -> SECONDARIES_STUBBED ->
 * COMMITTED. Rollback: PLANNED or CHUNKS_SHIPPED -> ROLLING_BACK -> ROLLED_BACK.
 *
 * <p>Why no rollback from PARITY_DURABLE or later: stubbing a stripe's secondaries touches up to k x (r-1) nodes and
 * may stop half-way; a stubbed secondary no longer holds the rows, so the only safe direction once stubbing may have
 * begun is forward (the parity is durable, so forward is always possible).
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
    ROLLED_BACK(7);

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

    public boolean isTerminal()
    {
        return this == COMMITTED || this == ROLLED_BACK;
    }

    /** Whether {@code next} is a legal successor (a state is not its own successor; see StripeStore for no-ops). */
    public boolean canMoveTo(StripeState next)
    {
        switch (this)
        {
            case PLANNED: return next == CHUNKS_SHIPPED || next == ROLLING_BACK;
            case CHUNKS_SHIPPED: return next == PARITY_DURABLE || next == ROLLING_BACK;
            case PARITY_DURABLE: return next == SECONDARIES_STUBBED;
            case SECONDARIES_STUBBED: return next == COMMITTED;
            case ROLLING_BACK: return next == ROLLED_BACK;
            default: return false;
        }
    }
}
