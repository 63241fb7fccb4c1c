package io.elect.core.stripes;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * A {@link StripeMemberReader} that counts the bytes it returns by where they came from, judged by the member's
 * locator: another node ({@code node:} locators of other hosts and ports: bytes over the network), the cold tier
 * ({@code cold:}), or this node ({@code file:}, or a {@code node:} locator of this node's own address). Virtual
 * ({@code zero:}) members cost nothing and are not counted. What parity maintenance reports (docs/design/updates.md):
 * the bytes a parity change moved. Thread-safe.
 */
public final class CountingMemberReader implements StripeMemberReader
{
    private final StripeMemberReader delegate;
    private final String selfPrefix;
    public final LongAdder network = new LongAdder();
    public final LongAdder cold = new LongAdder();
    public final LongAdder local = new LongAdder();

    /** @param selfPrefix {@code node:<host>:<port>/} of this node: its own node locators count as local */
    public CountingMemberReader(StripeMemberReader delegate, String selfPrefix)
    {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.selfPrefix = Objects.requireNonNull(selfPrefix, "selfPrefix");
    }

    @Override
    public ByteBuffer read(StripeLayout stripe, int member, long offset, int length) throws IOException
    {
        ByteBuffer got = delegate.read(stripe, member, offset, length);
        String locator = stripe.locators().get(member);
        if (LocatorMemberReader.isZero(locator))
            return got;
        if (locator.startsWith(LocatorMemberReader.COLD))
            cold.add(got.remaining());
        else if (locator.startsWith(LocatorMemberReader.NODE) && !locator.startsWith(selfPrefix))
            network.add(got.remaining());
        else
            local.add(got.remaining());
        return got;
    }

    @Override
    public String toString()
    {
        return network.sum() + " bytes from other nodes, " + cold.sum() + " from the cold tier, " + local.sum() + " local";
    }
}
