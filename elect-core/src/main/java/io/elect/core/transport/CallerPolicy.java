package io.elect.core.transport;

/**
 * Which callers may make which verbs run on this node. Asked by the server side of a transport before any handler
 * runs; a refusal is answered with one ERROR frame whose message is the refusal, and counted in
 * {@link TransportMetrics}. Implementations must be thread-safe and must not throw (an exception counts as a
 * refusal). {@code io.elect.core.security.RingAccessPolicy} is the node's policy (ring members only, stripe
 * participants for verbs that destroy or replace data).
 */
public interface CallerPolicy
{
    /** Everyone may run everything: tests, tools and the in-memory transport. */
    CallerPolicy ALLOW_ALL = new CallerPolicy()
    {
        @Override
        public String refuseCaller(Caller caller)
        {
            return null;
        }

        @Override
        public String refuseRequest(Caller caller, int verb, byte[] payload)
        {
            return null;
        }
    };

    /**
     * Whether this caller may send requests at all; asked for every request on the network thread, so it must be
     * cheap (in-memory state only). Non-null: the reason; the request gets one ERROR and the connection is closed
     * (nothing more is read from it).
     */
    String refuseCaller(Caller caller);

    /**
     * Whether this (admitted) caller may run {@code verb} with this payload; asked on a handler thread before the
     * handler, so it may block briefly (e.g. read the stripe's record). Non-null: the reason; the request gets an
     * ERROR, the connection stays open.
     */
    String refuseRequest(Caller caller, int verb, byte[] payload);
}
