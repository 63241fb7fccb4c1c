package io.elect.core.tiered;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.Coders;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.stripes.StripeMemberReader;
import io.elect.offload.ColdStore;

/**
 * What tiered data files read through on one node: the cold stores by name, the coders, the shared chunk cache, the
 * source counters, the member reader of DECODED sources and the decode context (clock, member-fetch pool). One
 * instance per node, owned by the node object and passed to whatever opens tiered sources (the SSTable format's
 * hook in the Cassandra adapter, the node's services, the simulation).
 *
 * <p>Stores must be registered ({@link #registerStore}) before a COLD source is READ; opening does not need them.
 * {@code node:} members (peers' files) are unavailable until {@link #setNodeReader} is called (the transport starts
 * after Cassandra has opened its SSTables): sources opened before read through the CURRENT reader at each read.
 * Thread-safe.
 */
public final class TieredRuntime
{
    /** Default size of the chunk cache (property {@value #CACHE_BYTES_PROPERTY}). */
    public static final String CACHE_BYTES_PROPERTY = "elect.tiered.cache_bytes";

    private final Map<String, ColdStore> stores = new ConcurrentHashMap<>();
    private final Coders coders;
    private final TieredChunkCache cache;
    private final DecodeContext decode;
    private final SourceCounters coldCounters = new SourceCounters();
    private final SourceCounters decodedCounters = new SourceCounters();
    private volatile LocatorMemberReader members;
    /** Reads through the reader current at each read (see the class comment). */
    private final StripeMemberReader currentMembers = (stripe, member, offset, length) -> members.read(stripe, member, offset, length);
    private volatile int chunkSize = ChunkChecksums.DEFAULT_CHUNK_SIZE;
    /** The DECODED sources opened and not forgotten, by cache id (weakly: a closed file's source may be collected). */
    private final Map<String, WeakReference<DecodedRangeSource>> decodedSources = new ConcurrentHashMap<>();
    /** Every DECODED source opened per member (a file may be opened more than once), for {@link #relayout}. */
    private final Map<String, java.util.List<WeakReference<DecodedRangeSource>>> everyDecoded = new ConcurrentHashMap<>();

    public TieredRuntime(Coders coders, TieredChunkCache cache, DecodeContext decode)
    {
        this.coders = Objects.requireNonNull(coders, "coders");
        this.cache = Objects.requireNonNull(cache, "cache");
        this.decode = Objects.requireNonNull(decode, "decode");
        this.members = new LocatorMemberReader(stores::get);
    }

    /** A node's runtime with a chunk cache of the default size and a pooled decode context. */
    public static TieredRuntime standard(Coders coders, io.elect.core.util.Clock clock)
    {
        return new TieredRuntime(coders, new TieredChunkCache(Long.getLong(CACHE_BYTES_PROPERTY, 64L << 20)),
                                 DecodeContext.pooled(clock, "elect-degraded-fetch"));
    }

    public void registerStore(String name, ColdStore store)
    {
        if (name == null || !name.matches("[A-Za-z0-9_.-]+"))
            throw new IllegalArgumentException("store name must match [A-Za-z0-9_.-]+, got '" + name + "'");
        stores.put(name, Objects.requireNonNull(store, "store"));
    }

    public Optional<ColdStore> store(String name)
    {
        return Optional.ofNullable(stores.get(name));
    }

    /** Lets DECODED sources read {@code node:} members (peers' files over the ELECT transport). */
    public void setNodeReader(LocatorMemberReader.NodeReader nodes)
    {
        members = new LocatorMemberReader(stores::get, nodes);
    }

    /** Reads stripe members by locator (cold, file, node, zero) through the current node reader. */
    public StripeMemberReader members()
    {
        return currentMembers;
    }

    public Coders coders()
    {
        return coders;
    }

    public TieredChunkCache cache()
    {
        return cache;
    }

    public DecodeContext decodeContext()
    {
        return decode;
    }

    public SourceCounters coldCounters()
    {
        return coldCounters;
    }

    public SourceCounters decodedCounters()
    {
        return decodedCounters;
    }

    /** Chunk size of checksums (and of cold/decoded fetches) for data tiered from now on; a power of two. */
    public void setChunkSize(int bytes)
    {
        new ChunkChecksums(bytes, 0, new int[0]); // validates
        chunkSize = bytes;
    }

    public int chunkSize()
    {
        return chunkSize;
    }

    /**
     * The source of a tiered data component described by its sidecar.
     *
     * @param what names the file in errors (e.g. the SSTable descriptor)
     */
    public ByteRangeSource openSource(TieredSidecar s, String what)
    {
        if (s.source() == TieredSidecar.Source.COLD)
        {
            String name = s.coldStore();
            return new ColdRangeSource(() -> {
                ColdStore store = stores.get(name);
                if (store == null)
                    throw new IOException("no cold store named '" + name + "' is registered; cannot read " + what);
                return store;
            }, name, s.coldKey(), s.checksums(), cache, coldCounters);
        }
        StripeLayout stripe = s.stripe();
        DecodedRangeSource src = new DecodedRangeSource(stripe, s.self(), coders.get(stripe.k(), stripe.m()), currentMembers,
                                                        s.checksums(), cache, decodedCounters, decode);
        decodedSources.put(src.cacheId(), new WeakReference<>(src));
        everyDecoded.computeIfAbsent(src.cacheId(), x -> new java.util.concurrent.CopyOnWriteArrayList<>()).add(new WeakReference<>(src));
        return src;
    }

    /**
     * Switches every open DECODED source of member {@code self} of a stripe (old and new openings of its file) to
     * {@code next} (a member change: {@link DecodedRangeSource#relayout}); returns how many were switched. The caller
     * has written the file's sidecar with {@code next} first, so that later openings read it.
     */
    public int relayout(TieredSidecar before, StripeLayout next)
    {
        String id = "decoded:" + before.stripe().locators().get(before.self());
        java.util.List<WeakReference<DecodedRangeSource>> refs = everyDecoded.get(id);
        int n = 0;
        if (refs == null)
            return 0;
        for (WeakReference<DecodedRangeSource> ref : refs)
        {
            DecodedRangeSource src = ref.get();
            if (src == null)
                refs.remove(ref);
            else
            {
                src.relayout(next);
                n++;
            }
        }
        return n;
    }

    /** The DECODED sources open on this node (the latest of each member), e.g. to warm those of a peer that went down. */
    public List<DecodedRangeSource> decodedSources()
    {
        List<DecodedRangeSource> out = new ArrayList<>();
        decodedSources.forEach((id, ref) -> {
            DecodedRangeSource src = ref.get();
            if (src == null)
                decodedSources.remove(id, ref);
            else
                out.add(src);
        });
        out.sort(java.util.Comparator.comparing(DecodedRangeSource::cacheId));
        return out;
    }

    /** Drops the cached chunks of a tiered data component (it is being deleted). */
    public void forget(TieredSidecar s)
    {
        if (s.source() == TieredSidecar.Source.COLD)
            cache.invalidate("cold:" + s.coldStore() + "/" + s.coldKey());
        else
        {
            String id = "decoded:" + s.stripe().locators().get(s.self());
            decodedSources.remove(id);
            everyDecoded.remove(id);
            cache.invalidate(id);
        }
    }
}
