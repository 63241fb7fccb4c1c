package io.elect.core.transport;

import io.elect.core.security.TestPki;

/**
 * The whole transport contract over mutual TLS (TLS 1.3, certificates of a throw-away CA naming 127.0.0.1), so that
 * framing, retries, malformed-frame rejection and overload behave the same encrypted as in the clear.
 */
class NettyTlsTransportTest extends TransportContract
{
    @Override
    long timeScale()
    {
        return 10;
    }

    @Override
    Transport newTransport(TransportOptions options, PeerLiveness liveness)
    {
        try
        {
            return new NettyTransport("127.0.0.1", 0, options, liveness, TestPki.security("n1", CallerPolicy.ALLOW_ALL));
        }
        catch (Exception e)
        {
            throw new AssertionError(e);
        }
    }
}
