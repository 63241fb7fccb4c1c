package io.elect.core.stripes;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Fetches a byte range of one member of a stripe, wherever it lives (a peer, the cold tier, a local file). The
 * stripe wiring of transitioning supplies the production implementation; {@link LocatorMemberReader} resolves the
 * locators of a {@link StripeLayout}. Thread-safe.
 */
public interface StripeMemberReader
{
    /**
     * Bytes [offset, offset + length) of member (position 0, exactly length bytes).
     * REQUIRES: offset + length <= the member's real length.
     *
     * @throws IOException if the member is unavailable; the caller then tries another member
     */
    ByteBuffer read(StripeLayout stripe, int member, long offset, int length) throws IOException;
}
