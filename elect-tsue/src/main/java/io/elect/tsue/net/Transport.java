package io.elect.tsue.net;

/**
 * Reaches storage nodes. {@code node(from, to)} returns the service of node {@code to} as seen by code running on
 * node {@code from}; calls with {@code from != to} cross the network and are counted.
 */
public interface Transport
{
    NodeService node(int from, int to);

    int nodes();

    /**
     * Accounts a one-way message of payloadBytes from one node to another for a protocol step whose receiving side
     * is computed by the caller (the TSUE delta log combines data deltas in the recycling thread). A network
     * transport sends such messages for real; this method only counts them.
     */
    void deliver(int from, int to, long payloadBytes);

    /** Bytes of arguments and results that crossed node boundaries so far. */
    long networkBytes();

    long messages();

    void resetCounters();
}
