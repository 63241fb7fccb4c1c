package io.elect.core.node;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.tiered.ChunkHeat;
import io.elect.core.tiered.DecodedRangeSource;
import io.elect.core.tiered.TieredRuntime;
import io.elect.core.transport.Peer;
import io.elect.core.transport.PeerLiveness;
import io.elect.core.util.Clock;

/**
 * Warms the hot ranges of a down node's stripe members. This node's DECODED sources whose member lives on a peer
 * ({@code node:} locator) are read directly from that peer while it is up; once the failure detector marks it down,
 * every read of a chunk not in the chunk cache is a reconstruction from k other members. Each {@link #poll} finds the
 * peers that went down since the previous poll and decodes, ahead of the readers, the chunks this node's readers read
 * most often ({@link ChunkHeat}: at least {@code minReads} reads), hottest first across all of that peer's members,
 * up to {@code budgetBytes} (a share of the chunk cache, so that warming does not evict what it warmed). Chunks
 * already cached cost nothing. Periodically ({@link #DECAY_MILLIS}) all counts are halved so that a hot set that
 * moved is forgotten.
 *
 * <p>Only this node's own reads count: a range read only through its primary was never read here and is not warmed
 * (its first degraded read decodes). Not thread-safe: one poller (the node's warm thread) calls {@link #poll}.
 */
public final class DegradedWarmer
{
    private static final Logger logger = LoggerFactory.getLogger(DegradedWarmer.class);
    /** How often the read counts are halved. */
    static final long DECAY_MILLIS = 10 * 60_000;
    public static final String BUDGET_FRACTION_PROPERTY = "elect.warm.cache_fraction";
    public static final String MIN_READS_PROPERTY = "elect.warm.min_reads";

    private final TieredRuntime tiered;
    private final PeerLiveness liveness;
    private final Clock clock;
    private final NodeMetrics metrics;
    private final long budgetBytes;
    private final int minReads;
    private Set<Peer> downAtLastPoll = Set.of();
    private long lastDecay;

    /**
     * @param budgetBytes the most bytes warmed per peer that goes down (>= 0; 0 disables warming)
     * @param minReads    chunks read fewer times are not warmed (>= 1)
     */
    public DegradedWarmer(TieredRuntime tiered, PeerLiveness liveness, Clock clock, NodeMetrics metrics, long budgetBytes, int minReads)
    {
        if (budgetBytes < 0)
            throw new IllegalArgumentException("budgetBytes must be >= 0, got " + budgetBytes);
        if (minReads < 1)
            throw new IllegalArgumentException("minReads must be >= 1, got " + minReads);
        this.tiered = tiered;
        this.liveness = liveness;
        this.clock = clock;
        this.metrics = metrics;
        this.budgetBytes = budgetBytes;
        this.minReads = minReads;
        this.lastDecay = clock.millis();
    }

    /**
     * The node's warmer: budget {@code -D}{@value #BUDGET_FRACTION_PROPERTY} (default 0.5) of the chunk cache, chunks
     * read at least {@code -D}{@value #MIN_READS_PROPERTY} (default 2) times.
     */
    public static DegradedWarmer standard(TieredRuntime tiered, PeerLiveness liveness, Clock clock, NodeMetrics metrics)
    {
        double fraction = Double.parseDouble(System.getProperty(BUDGET_FRACTION_PROPERTY, "0.5"));
        if (!(fraction >= 0 && fraction <= 1))
            throw new IllegalArgumentException("-D" + BUDGET_FRACTION_PROPERTY + " must be in [0, 1], got " + fraction);
        int minReads = Integer.getInteger(MIN_READS_PROPERTY, 2);
        if (minReads < 1)
            throw new IllegalArgumentException("-D" + MIN_READS_PROPERTY + " must be >= 1, got " + minReads);
        return new DegradedWarmer(tiered, liveness, clock, metrics, (long) (tiered.cache().capacityBytes() * fraction), minReads);
    }

    /** One chunk that could be warmed: source index (into the poll's list), chunk, its reads and length. */
    record Candidate(int source, long chunk, int reads, int bytes) {}

    /**
     * Pure selection: the hottest candidates (reads descending, then source, then chunk) whose lengths fit in
     * {@code budgetBytes} (a chunk that does not fit is skipped; smaller ones after it may still fit). Returns, per
     * source index in ascending order, its chosen chunks hottest first.
     */
    static Map<Integer, long[]> plan(List<Candidate> candidates, long budgetBytes)
    {
        List<Candidate> sorted = new ArrayList<>(candidates);
        sorted.sort(Comparator.comparingInt(Candidate::reads).reversed()
                              .thenComparingInt(Candidate::source)
                              .thenComparingLong(Candidate::chunk));
        Map<Integer, List<Long>> chosen = new java.util.TreeMap<>();
        long left = budgetBytes;
        for (Candidate c : sorted)
        {
            if (c.bytes() > left)
                continue;
            left -= c.bytes();
            chosen.computeIfAbsent(c.source(), s -> new ArrayList<>()).add(c.chunk());
        }
        Map<Integer, long[]> out = new LinkedHashMap<>();
        chosen.forEach((s, chunks) -> out.put(s, chunks.stream().mapToLong(Long::longValue).toArray()));
        return out;
    }

    /** The peer holding the source's own member, if it is a {@code node:} member. */
    static Optional<Peer> peerOf(DecodedRangeSource src)
    {
        String locator = src.stripe().locators().get(src.self());
        if (!locator.startsWith(LocatorMemberReader.NODE))
            return Optional.empty();
        LocatorMemberReader.NodeLocator where = LocatorMemberReader.NodeLocator.parse(locator);
        return Optional.of(new Peer(where.host(), where.port()));
    }

    /**
     * Warms the members of every peer that is down now and was not at the previous poll (the first poll treats all
     * peers as previously up). Returns the number of chunks warmed.
     */
    public int poll()
    {
        long now = clock.millis();
        List<DecodedRangeSource> sources = tiered.decodedSources();
        if (now - lastDecay >= DECAY_MILLIS)
        {
            sources.forEach(s -> s.heat().decay());
            lastDecay = now;
        }
        Map<Peer, List<DecodedRangeSource>> byPeer = new LinkedHashMap<>();
        for (DecodedRangeSource s : sources)
            peerOf(s).ifPresent(p -> byPeer.computeIfAbsent(p, x -> new ArrayList<>()).add(s));
        Set<Peer> down = new HashSet<>();
        int warmed = 0;
        for (Map.Entry<Peer, List<DecodedRangeSource>> e : byPeer.entrySet())
        {
            if (liveness.isAlive(e.getKey()))
                continue;
            down.add(e.getKey());
            if (!downAtLastPoll.contains(e.getKey()))
                warmed += warm(e.getKey(), e.getValue());
        }
        downAtLastPoll = down;
        return warmed;
    }

    private int warm(Peer peer, List<DecodedRangeSource> members)
    {
        long start = clock.nanoTime();
        List<Candidate> candidates = new ArrayList<>();
        for (int i = 0; i < members.size(); i++)
        {
            DecodedRangeSource src = members.get(i);
            for (ChunkHeat.Hot h : src.heat().hottest(Integer.MAX_VALUE, minReads))
                candidates.add(new Candidate(i, h.chunk(), h.reads(), src.checksums().chunkLength(h.chunk())));
        }
        Map<Integer, long[]> plan = plan(candidates, budgetBytes);
        int chunks = 0;
        long bytes = 0;
        for (Map.Entry<Integer, long[]> e : plan.entrySet())
        {
            DecodedRangeSource src = members.get(e.getKey());
            int n = src.warm(e.getValue(), e.getValue().length);
            chunks += n;
            for (int j = 0; j < n; j++)
                bytes += src.checksums().chunkLength(e.getValue()[j]);
        }
        metrics.counter("Tiered", "WarmedChunks", null).inc(chunks);
        metrics.counter("Tiered", "WarmedBytes", null).inc(bytes);
        logger.info("peer {} is down: warmed {} hot chunks ({} bytes) of {} of its {} members here in {} ms ({} candidates, budget {} bytes)",
                    peer, chunks, bytes, plan.size(), members.size(), (clock.nanoTime() - start) / 1_000_000,
                    candidates.size(), budgetBytes);
        return chunks;
    }
}
