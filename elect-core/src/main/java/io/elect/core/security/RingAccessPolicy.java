package io.elect.core.security;

import java.net.InetAddress;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.elect.core.transport.Caller;
import io.elect.core.transport.CallerPolicy;
import io.elect.core.transport.Verbs;

/**
 * The node's {@link CallerPolicy}: only ring members speak on the ELECT port, and only the parties of a stripe
 * change it (docs/security.md).
 * <ul>
 * <li>A caller is admitted when its address is that of a ring member known to gossip, live or down (this node
 *     included). The transport has already checked, with TLS, that the caller's certificate names that address.</li>
 * <li>{@link VerbScopes.Scope#STRIPE} verbs additionally need the caller to be a participant of the stripe the payload
 *     names: a node holding one of its data members or parity members, or the transitioning coordinator (which
 *     drives every stripe), or this node itself. Participants come from the stripe's durable record
 *     (docs/formats/stripe-metadata.md), written before any verb of the stripe is sent; a stripe without a record is
 *     refused. A record's participants never change, so found ones are cached.</li>
 * <li>{@link VerbScopes.Scope#COORDINATOR} verbs need the coordinator or this node.</li>
 * </ul>
 * Thread-safe. Lookups that fail (the record store unavailable) refuse: the sender's state machine retries later.
 */
public final class RingAccessPolicy implements CallerPolicy
{
    /** Cached participant sets before the cache is dropped and refilled (bounded memory). */
    static final int CACHE_LIMIT = 4096;

    /** The ring as gossip knows it. Must be cheap: asked for every request, on a network thread. */
    public interface Ring
    {
        /** Whether gossip knows a live or down member with this address. */
        boolean isMember(InetAddress address);

        boolean isSelf(InetAddress address);

        /** The transitioning coordinator's address (the ring member with the smallest address), if known. */
        Optional<String> coordinator();
    }

    /** The participants of a stripe from its durable record, as node ids (host addresses). */
    public interface Stripes
    {
        /** Empty if no record of that stripe exists. May block briefly (a read of the record). */
        Optional<Set<String>> participants(String stripeId) throws Exception;
    }

    private final Ring ring;
    private final Stripes stripes;
    private final Map<String, Set<String>> cache = new ConcurrentHashMap<>();

    public RingAccessPolicy(Ring ring, Stripes stripes)
    {
        this.ring = ring;
        this.stripes = stripes;
    }

    @Override
    public String refuseCaller(Caller caller)
    {
        if (ring.isMember(caller.address()))
            return null;
        return caller.address().getHostAddress() + " is not a ring member (gossip knows no live or down node with that address)";
    }

    @Override
    public String refuseRequest(Caller caller, int verb, byte[] payload)
    {
        VerbScopes.Scope scope = VerbScopes.scope(verb);
        if (scope == VerbScopes.Scope.READ_ONLY || ring.isSelf(caller.address()))
            return null;
        String node = caller.address().getHostAddress();
        boolean coordinator = ring.coordinator().map(node::equals).orElse(false);
        if (coordinator)
            return null;
        if (scope == VerbScopes.Scope.COORDINATOR)
            return Verbs.name(verb) + " is only accepted from the transitioning coordinator (" + ring.coordinator().orElse("unknown")
                   + "), not from " + node;
        String stripe;
        try
        {
            stripe = VerbScopes.stripeOf(verb, payload);
        }
        catch (RuntimeException e)
        {
            return "malformed " + Verbs.name(verb) + " payload: " + e.getMessage();
        }
        Set<String> parties = cache.get(stripe);
        if (parties == null)
        {
            Optional<Set<String>> found;
            try
            {
                found = stripes.participants(stripe);
            }
            catch (Exception e)
            {
                return "cannot check the participants of stripe " + stripe + " (" + e.getClass().getSimpleName() + "); retry later";
            }
            if (found.isEmpty())
                return Verbs.name(verb) + " names stripe " + stripe + ", of which this node has no record";
            parties = Set.copyOf(found.get());
            if (cache.size() >= CACHE_LIMIT)
                cache.clear();
            cache.put(stripe, parties);
        }
        if (parties.contains(node))
            return null;
        return node + " is not a participant of stripe " + stripe + " (data or parity node, or coordinator) and may not send " + Verbs.name(verb);
    }
}
