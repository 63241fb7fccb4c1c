package io.elect.core.transition;

/**
 * Which way a parity node computes the next parity generation of a changed member under {@code update_policy: auto}
 * (docs/design/updates.md "Update policies and pushed deltas"): the one that brings fewer bytes to this node. A pure
 * function of lengths, tested with golden cases.
 *
 * <ul>
 * <li>DELTA reads the difference of the member's two versions (pushed by the member's node: the longer version's
 * length; otherwise both versions) plus the previous parity generation, which costs a download of the code length
 * when it has been offloaded to the cold tier (a hot one is read from this node's disk: no transfer).</li>
 * <li>REENCODE reads every real member of the new plan (the changed slot at its next length) and never the previous
 * parity. A parity node holds no data member of its stripe, so every member byte is a transfer.</li>
 * </ul>
 * Ties go to DELTA (it reads one stream, REENCODE k).
 */
public final class ParityUpdateCost
{
    public enum Way
    {
        DELTA, REENCODE
    }

    private ParityUpdateCost()
    {
    }

    /**
     * @param newPlanLengths    the data members' lengths under the new plan (0 = virtual or removed)
     * @param deltaBytes        what the delta way reads of the member: the pushed difference's length, or the sum of
     *                          the two versions' lengths when there is none
     * @param previousParityCold whether this node's previous generation is in the cold tier only
     * @param codeLength        the parity chunk's length (what a recall downloads)
     */
    public static Way choose(long[] newPlanLengths, long deltaBytes, boolean previousParityCold, long codeLength)
    {
        return delta(deltaBytes, previousParityCold, codeLength) <= reencode(newPlanLengths) ? Way.DELTA : Way.REENCODE;
    }

    public static long delta(long deltaBytes, boolean previousParityCold, long codeLength)
    {
        if (deltaBytes < 0 || codeLength < 0)
            throw new IllegalArgumentException("lengths must be >= 0: delta " + deltaBytes + ", code " + codeLength);
        return deltaBytes + (previousParityCold ? codeLength : 0);
    }

    public static long reencode(long[] newPlanLengths)
    {
        long sum = 0;
        for (long l : newPlanLengths)
        {
            if (l < 0)
                throw new IllegalArgumentException("member lengths must be >= 0, got " + l);
            sum += l;
        }
        return sum;
    }
}
