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
 *     refused. Found participants are cached; a caller missing from a cached set makes the record be read again
 *     (at most once per {@link #REFRESH_MILLIS} per stripe), since a replan (a member removed, parity regenerated
 *     elsewhere) changes them.</li>
 * <li>{@link VerbScopes.Scope#COORDINATOR} verbs need the coordinator or this node.</li>
 * </ul>
 * Thread-safe; runs on the transport's handler threads, never on a network thread, so a lookup may block. A lookup
 * that fails is retried {@link #READ_ATTEMPTS} times with a short back-off (a timeout under load must not roll back a
 * stripe the sender is building); if all fail the request is refused and the sender's state machine retries later.
 */
public final class RingAccessPolicy implements CallerPolicy
{
    /** Cached participant sets before the cache is dropped and refilled (bounded memory). */
    static final int CACHE_LIMIT = 4096;
    /** Reads of a stripe's record per check before refusing. */
    static final int READ_ATTEMPTS = 3;
    /** A cached participant set that does not name the caller is re-read if it is older than this. */
    static final long REFRESH_MILLIS = 1000;

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

    /** How the policy waits between attempts (a seam for tests). */
    public interface Sleeper
    {
        void sleep(long millis) throws InterruptedException;
    }

    private record Parties(Set<String> nodes, long readAtNanos)
    {
    }

    private final Ring ring;
    private final Stripes stripes;
    private final Sleeper sleeper;
    private final java.util.function.LongSupplier nanoClock;
    private final Map<String, Parties> cache = new ConcurrentHashMap<>();

    public RingAccessPolicy(Ring ring, Stripes stripes, io.elect.core.util.Clock clock)
    {
        this(ring, stripes, clock::sleep, clock::nanoTime);
    }

    RingAccessPolicy(Ring ring, Stripes stripes, Sleeper sleeper, java.util.function.LongSupplier nanoClock)
    {
        this.ring = ring;
        this.stripes = stripes;
        this.sleeper = sleeper;
        this.nanoClock = nanoClock;
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
        Parties parties = cache.get(stripe);
        boolean stale = parties != null && !parties.nodes().contains(node)
                        && nanoClock.getAsLong() - parties.readAtNanos() > REFRESH_MILLIS * 1_000_000L;
        if (parties == null || stale)
        {
            Optional<Set<String>> found;
            try
            {
                found = read(stripe);
            }
            catch (Exception e)
            {
                if (e instanceof InterruptedException)
                    Thread.currentThread().interrupt();
                return "cannot check the participants of stripe " + stripe + " (" + READ_ATTEMPTS + " reads failed, the last with "
                       + e.getClass().getSimpleName() + "); retry later";
            }
            if (found.isEmpty())
            {
                cache.remove(stripe);
                return Verbs.name(verb) + " names stripe " + stripe + ", of which this node has no record";
            }
            parties = new Parties(Set.copyOf(found.get()), nanoClock.getAsLong());
            if (cache.size() >= CACHE_LIMIT)
                cache.clear();
            cache.put(stripe, parties);
        }
        if (parties.nodes().contains(node))
            return null;
        return node + " is not a participant of stripe " + stripe + " (data or parity node, or coordinator) and may not send " + Verbs.name(verb);
    }

    private Optional<Set<String>> read(String stripe) throws Exception
    {
        for (int attempt = 1; ; attempt++)
        {
            try
            {
                return stripes.participants(stripe);
            }
            catch (Exception e)
            {
                if (attempt >= READ_ATTEMPTS || e instanceof InterruptedException)
                    throw e;
                sleeper.sleep(50L * attempt * attempt);
            }
        }
    }
}
