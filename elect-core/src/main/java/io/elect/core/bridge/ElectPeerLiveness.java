package io.elect.core.bridge;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

import io.elect.core.transport.Peer;
import io.elect.core.transport.PeerLiveness;
import org.apache.cassandra.gms.FailureDetector;
import org.apache.cassandra.gms.Gossiper;
import org.apache.cassandra.locator.InetAddressAndPort;
import org.apache.cassandra.utils.FBUtilities;

/**
 * Peer liveness from Cassandra's gossip and phi-accrual failure detector. A transport peer is matched to a ring member
 * by IP address (the ELECT transport port differs from the storage port). A host that is not a ring member is
 * reported down: ELECT never sends stripe traffic outside the ring. Thread-safe; cheap (a scan of the gossip
 * membership, a few dozen entries).
 */
public final class ElectPeerLiveness implements PeerLiveness
{
    @Override
    public boolean isAlive(Peer peer)
    {
        InetAddress addr;
        try
        {
            addr = InetAddress.getByName(peer.host());
        }
        catch (UnknownHostException e)
        {
            return false;
        }
        if (FBUtilities.getBroadcastAddressAndPort().getAddress().equals(addr))
            return true;
        for (InetAddressAndPort ep : Gossiper.instance.getLiveMembers())
            if (ep.getAddress().equals(addr))
                return FailureDetector.instance.isAlive(ep);
        return false;
    }

    /** The ring members gossip currently sees up (this node included), as transport peers on {@code transportPort}. */
    public static List<Peer> livePeers(int transportPort)
    {
        List<Peer> out = new ArrayList<>();
        for (InetAddressAndPort ep : Gossiper.instance.getLiveMembers())
            if (FailureDetector.instance.isAlive(ep))
                out.add(new Peer(ep.getAddress().getHostAddress(), transportPort));
        return out;
    }
}
