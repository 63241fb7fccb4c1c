package io.elect.core.tiered;

import java.io.IOException;
import java.util.Arrays;

/**
 * A range of a stripe member cannot be reconstructed because more than m members of its stripe are unavailable:
 * the member being reconstructed itself plus the other members whose reads failed. Distinct from other IOExceptions
 * (a deadline, a corruption) so that callers can tell "too many members down" apart; retrying helps only once
 * members come back.
 */
public class StripeUnavailableException extends IOException
{
    private final int[] unavailable;

    /**
     * @param unavailable the indexes of the unavailable members (including the one being reconstructed)
     * @param cause       the failure of one of them (may be null)
     */
    public StripeUnavailableException(String message, int[] unavailable, Throwable cause)
    {
        super(message, cause);
        this.unavailable = unavailable.clone();
        Arrays.sort(this.unavailable);
    }

    /** The indexes of the unavailable members, ascending; more than m of them. */
    public int[] unavailableMembers()
    {
        return unavailable.clone();
    }
}
