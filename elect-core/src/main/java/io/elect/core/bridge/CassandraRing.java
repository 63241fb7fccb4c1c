package io.elect.core.bridge;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.dht.Token;
import org.apache.cassandra.gms.FailureDetector;
import org.apache.cassandra.gms.Gossiper;
import org.apache.cassandra.locator.InetAddressAndPort;
import org.apache.cassandra.locator.Replica;
import org.apache.cassandra.service.StorageService;
import org.apache.cassandra.utils.FBUtilities;

import io.elect.core.node.Ring;
import io.elect.core.transport.Peer;
import io.elect.core.transport.PeerLiveness;

/**
 * The ring from Cassandra's token metadata, gossip and phi-accrual failure detector; also the transport's
 * {@link PeerLiveness}. A node id or transport peer is matched to a ring member by IP address (the ELECT transport
 * port differs from the storage port). A host that is not a ring member is reported down: ELECT never sends stripe
 * traffic outside the ring. Thread-safe; cheap (scans of a few dozen entries).
 */
public final class CassandraRing implements Ring, PeerLiveness
{
    @Override
    public String self()
    {
        return FBUtilities.getBroadcastAddressAndPort().getAddress().getHostAddress();
    }

    @Override
    public List<String> members()
    {
        List<String> out = new ArrayList<>();
        for (InetAddressAndPort ep : StorageService.instance.getTokenMetadata().getAllEndpoints())
            out.add(ep.getAddress().getHostAddress());
        out.sort(String::compareTo);
        return out;
    }

    private static InetAddressAndPort endpoint(String node)
    {
        for (InetAddressAndPort ep : StorageService.instance.getTokenMetadata().getAllEndpoints())
            if (ep.getAddress().getHostAddress().equals(node))
                return ep;
        return null;
    }

    @Override
    public boolean isAlive(String node)
    {
        if (node.equals(self()))
            return true;
        InetAddressAndPort ep = endpoint(node);
        return ep != null && FailureDetector.instance.isAlive(ep);
    }

    /**
     * Not in the token metadata, and gossip either has no state for the address or says LEFT (decommissioned) or
     * removed (removenode): a node merely starting up, or being replaced, is not taken for gone.
     */
    @Override
    public boolean hasLeft(String node)
    {
        if (endpoint(node) != null || node.equals(self()))
            return false;
        for (InetAddressAndPort ep : org.apache.cassandra.gms.Gossiper.instance.getEndpoints())
        {
            if (!ep.getAddress().getHostAddress().equals(node))
                continue;
            return leftOrRemoved(ep);
        }
        return true;
    }

    /**
     * Host ids and address forms ({@code TieredSSTables.coldKeyPrefix}: {@code ip_port}) of the token metadata's
     * endpoints and of every endpoint gossip knows whose status is not LEFT or removed.
     */
    @Override
    public java.util.Set<String> coldOwners()
    {
        java.util.Set<String> out = new java.util.HashSet<>();
        org.apache.cassandra.locator.TokenMetadata tm = StorageService.instance.getTokenMetadata();
        java.util.Set<InetAddressAndPort> eps = new java.util.HashSet<>(tm.getAllEndpoints());
        for (InetAddressAndPort ep : Gossiper.instance.getEndpoints())
            if (!leftOrRemoved(ep))
                eps.add(ep);
        eps.add(FBUtilities.getBroadcastAddressAndPort());
        for (InetAddressAndPort ep : eps)
        {
            out.add(ep.getHostAddressAndPort().replace(':', '_'));
            java.util.UUID id = tm.getHostId(ep);
            if (id != null)
                out.add(id.toString());
            String gossiped = Gossiper.instance.getApplicationState(ep, org.apache.cassandra.gms.ApplicationState.HOST_ID);
            if (gossiped != null)
                out.add(gossiped);
        }
        java.util.UUID self = StorageService.instance.getLocalHostUUID();
        if (self != null)
            out.add(self.toString());
        return out;
    }

    /** Whether gossip says the endpoint LEFT (decommissioned) or was removed (removenode). */
    private static boolean leftOrRemoved(InetAddressAndPort ep)
    {
        String status = Gossiper.getGossipStatus(Gossiper.instance.getEndpointStateForEndpoint(ep));
        return org.apache.cassandra.gms.VersionedValue.STATUS_LEFT.equals(status)
               || org.apache.cassandra.gms.VersionedValue.REMOVED_TOKEN.equals(status);
    }

    @Override
    public String rack(String node)
    {
        InetAddressAndPort ep = endpoint(node);
        return ep == null ? "unknown" : DatabaseDescriptor.getEndpointSnitch().getRack(ep);
    }

    @Override
    public List<String> replicas(String keyspace, String token)
    {
        Token t = StorageService.instance.getTokenFactory().fromString(token);
        List<String> out = new ArrayList<>();
        for (Replica r : Keyspace.open(keyspace).getReplicationStrategy().getNaturalReplicasForToken(t))
            out.add(r.endpoint().getAddress().getHostAddress());
        return out;
    }

    /** The replicas of first and last and of every ring token between them (each ring range the span touches). */
    @Override
    public List<String> replicasOfSpan(String keyspace, String firstToken, String lastToken)
    {
        Token first = StorageService.instance.getTokenFactory().fromString(firstToken);
        Token last = StorageService.instance.getTokenFactory().fromString(lastToken);
        java.util.LinkedHashSet<String> out = new java.util.LinkedHashSet<>(replicas(keyspace, firstToken));
        for (Token t : StorageService.instance.getTokenMetadata().sortedTokens())
            if (t.compareTo(first) > 0 && t.compareTo(last) < 0)
                for (Replica r : Keyspace.open(keyspace).getReplicationStrategy().getNaturalReplicasForToken(t))
                    out.add(r.endpoint().getAddress().getHostAddress());
        out.addAll(replicas(keyspace, lastToken));
        return List.copyOf(out);
    }

    /** Token metadata's ring version with its pending changes (joining, leaving and moving nodes). */
    @Override
    public long version()
    {
        org.apache.cassandra.locator.TokenMetadata tm = StorageService.instance.getTokenMetadata();
        return ((tm.getRingVersion() * 31 + tm.getLeavingEndpoints().hashCode()) * 31 + tm.getBootstrapTokens().size()) * 31
               + tm.getMovingEndpoints().size();
    }

    @Override
    public boolean changing()
    {
        org.apache.cassandra.locator.TokenMetadata tm = StorageService.instance.getTokenMetadata();
        return !tm.getLeavingEndpoints().isEmpty() || !tm.getBootstrapTokens().isEmpty() || !tm.getMovingEndpoints().isEmpty();
    }

    /** Natural replicas of the span, then this node's pending ranges (TokenMetadata.getPendingRanges) against it. */
    @Override
    public boolean willReplicate(String keyspace, String firstToken, String lastToken)
    {
        if (replicasOfSpan(keyspace, firstToken, lastToken).contains(self()))
            return true;
        Token first = StorageService.instance.getTokenFactory().fromString(firstToken);
        Token last = StorageService.instance.getTokenFactory().fromString(lastToken);
        org.apache.cassandra.dht.Bounds<Token> span = new org.apache.cassandra.dht.Bounds<>(first, last);
        for (Replica r : StorageService.instance.getTokenMetadata().getPendingRanges(keyspace, FBUtilities.getBroadcastAddressAndPort()))
            if (r.range().intersects(span))
                return true;
        return false;
    }

    /** Transport liveness: this node, or a ring member gossip sees up. */
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
}
