package io.elect.tsue.trace;

/** One block-level request of a trace: a read or a write (update) of length bytes at a volume byte offset. */
public record TraceOp(boolean write, long offset, int length)
{
    public TraceOp
    {
        if (offset < 0)
            throw new IllegalArgumentException("offset must be >= 0: " + offset);
        if (length <= 0)
            throw new IllegalArgumentException("length must be > 0: " + length);
    }
}
