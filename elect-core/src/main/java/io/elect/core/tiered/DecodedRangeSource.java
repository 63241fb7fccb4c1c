package io.elect.core.tiered;

import io.elect.core.stripes.ChunkCorruptionException;

import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.stripes.StripeMemberReader;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.coding.ErasureCoder;

/**
 * DECODED: the data component is member {@code self} of an erasure-coded stripe and is not stored on this node; a
 * read of chunks [a, b) fetches bytes [a, b) of k other members and reconstructs just that range (about k times the
 * bytes read, never k whole files). Reconstructed chunks are verified against the checksums recorded at encoding
 * time and cached like cold chunks (concurrent readers of a chunk share one fetch, see {@link ChunkedRemoteSource}).
 *
 * <p>Self first (the default): member {@code self} may still exist elsewhere, e.g. a secondary replica's stub whose
 * locator names the primary's data file ({@code node:} or {@code file:}). Each run is then first read directly from
 * self's locator (1x the bytes instead of kx) and verified against the same checksums; if that read fails, does not
 * verify or has not answered within the hedge delay (below), the run is reconstructed as above, and self is not
 * tried again for {@value #SELF_RETRY_MILLIS} ms (so a peer that is down costs one failure per interval, not one per
 * read). {@code zero:} members are never read. {@link SourceCounters#directRuns} and
 * {@link SourceCounters#decodedRuns} count which path served.
 *
 * <p>Parallel fetch: the member reads of a run run at once on a small pool shared by all decoded sources (daemon
 * threads {@code elect-degraded-fetch-N}, see {@link MemberFetches}); the calling thread only blocks, with a bounded
 * wait, on their results (no polling, no sleeping). Survivor choice: data members first, then parity, in index order,
 * skipping members that failed during this run; members whose read failed or was slow are put last for
 * {@value #MEMBER_AVOID_MILLIS} ms, so later reads go straight to members that answer. "Slow" includes a survivor
 * that answered, but more than {@value #SLOW_FACTOR}x later than the fastest survivor of the same run and by more
 * than {@value #SLOW_FLOOR_MILLIS} ms, when a spare could have replaced it: typically a member served from a far
 * cold tier (an offloaded parity behind its node's locator) next to members on local disks, so that a stripe with k
 * hot survivors alive stops paying a cold-tier round trip per read ({@link SourceCounters#slowAvoided}); after
 * {@value #MEMBER_AVOID_MILLIS} ms it is tried again in its place (it may have been recalled). When a read fails, the read of
 * the next member starts at once. Nothing here waits for a member the failure detector marks down: the transport
 * refuses such a peer immediately, which is a failure like any other. Hedging: if the k reads have not all arrived
 * after the hedge delay (a quarter of the deadline), one more member's read is started per read still outstanding,
 * and the first k to arrive are used.
 *
 * <p>Deadline: one run (direct read, reconstruction, corruption retries) takes at most {@link #deadlineMillis()}
 * (default 10 000 ms, or {@code -D}{@value #DEADLINE_PROPERTY}); past it the read fails
 * with an IOException naming the stripe, the byte range, the time waited and the slow and unavailable members, and
 * the reads still running are cancelled (their results ignored). A reader waiting for another reader's fetch of the
 * same chunk is bounded by that fetch's deadline.
 *
 * <p>Errors: more than m members unavailable (self counts as one) is a {@link StripeUnavailableException} naming
 * each of them and why. If a reconstruction does not verify (a survivor returned wrong bytes) and a spare member can
 * be read, each survivor in turn is replaced by the spare until one set verifies ({@link SourceCounters#repairs});
 * otherwise the read fails with {@link ChunkCorruptionException}. Unchecked exceptions of the member reader (e.g. a
 * malformed locator) propagate. Wrong bytes are never returned. Thread-safe: this class holds the state that
 * concurrent runs share (layout, self's retry time, the members put last); each run's own bookkeeping (its fetches,
 * survivor choice and reconstruction) is a {@link DecodedRun}.
 */
public final class DecodedRangeSource extends ChunkedRemoteSource
{
    private static final Logger logger = LoggerFactory.getLogger(DecodedRangeSource.class);
    /** After a failed direct read of self, how long reads go straight to reconstruction. */
    static final long SELF_RETRY_MILLIS = 5_000;
    /** How long a member whose read failed or was slow is tried after the others. */
    static final long MEMBER_AVOID_MILLIS = 5_000;
    /** A survivor is slow when it answered more than this factor later than the run's fastest survivor ... */
    static final int SLOW_FACTOR = 4;
    /** ... and by more than this (scheduling noise on a busy node is not slowness). */
    static final long SLOW_FLOOR_MILLIS = 5;
    public static final String DEADLINE_PROPERTY = "elect.degraded.deadline_ms";
    /** The deadline of the constructors without one. */
    public static final long DEFAULT_DEADLINE_MILLIS = Long.getLong(DEADLINE_PROPERTY, 10_000);
    /** Largest run {@link #warm} fetches at once (bounds its buffers). */
    static final int WARM_RUN_CHUNKS = 64;

    // package-private: read (and the volatile ones updated) by the runs (DecodedRun)
    final DecodeContext context;
    final io.elect.core.util.Clock clock;
    /** The layout runs start with; replaced whole by {@link #relayout} (a run keeps the one it started with). */
    private volatile StripeLayout stripe;
    private final int self;
    final ErasureCoder coder;
    private final StripeMemberReader members;
    final boolean selfFirst;
    final long deadlineNanos;
    final long hedgeNanos;
    /** clock.nanoTime() before which self is not read directly (after a failure). */
    volatile long selfRetryAt;
    volatile boolean selfFailing;
    /** Per member: clock.nanoTime() before which it is tried after the others. */
    final AtomicLongArray avoidUntil;

    /** A source that reads self directly first (see the class comment), with the default deadline. */
    public DecodedRangeSource(StripeLayout stripe, int self, ErasureCoder coder, StripeMemberReader members,
                              ChunkChecksums checksums, TieredChunkCache cache, SourceCounters counters, DecodeContext context)
    {
        this(stripe, self, coder, members, checksums, cache, counters, true, DEFAULT_DEADLINE_MILLIS, context);
    }

    /**
     * @param selfFirst      whether to read self directly before reconstructing (false: always reconstruct, e.g. to
     *                       measure decoding or to verify that the stripe decodes)
     * @param deadlineMillis the most one run may take (>= 1); reads are hedged after a quarter of it
     * @param context        the clock and the member-fetch executor
     */
    public DecodedRangeSource(StripeLayout stripe, int self, ErasureCoder coder, StripeMemberReader members,
                              ChunkChecksums checksums, TieredChunkCache cache, SourceCounters counters, boolean selfFirst,
                              long deadlineMillis, DecodeContext context)
    {
        super(checksums, cache, counters, "decoded:" + stripe.locators().get(self));
        if (self < 0 || self >= stripe.k())
            throw new IllegalArgumentException("self must be a data member in [0, " + stripe.k() + "), got " + self);
        if (coder.dataChunks() != stripe.k() || coder.parityChunks() != stripe.m() || !coder.codecId().equals(stripe.codecId()))
            throw new IllegalArgumentException("coder " + coder.codecId() + " does not match the stripe's codec "
                                               + stripe.codecId() + " (k=" + stripe.k() + ", m=" + stripe.m() + ")");
        if (checksums.length() != stripe.memberLength(self))
            throw new IllegalArgumentException("checksums cover " + checksums.length() + " bytes but member " + self
                                               + " has " + stripe.memberLength(self));
        if (deadlineMillis < 1)
            throw new IllegalArgumentException("deadlineMillis must be >= 1, got " + deadlineMillis);
        this.context = java.util.Objects.requireNonNull(context, "context");
        this.clock = context.clock();
        this.stripe = stripe;
        this.self = self;
        this.coder = coder;
        this.members = members;
        this.selfFirst = selfFirst && !LocatorMemberReader.isZero(stripe.locators().get(self));
        this.deadlineNanos = TimeUnit.MILLISECONDS.toNanos(deadlineMillis);
        this.hedgeNanos = Math.max(1, deadlineNanos / 4);
        long now = clock.nanoTime();
        this.selfRetryAt = now;
        this.avoidUntil = new AtomicLongArray(stripe.k() + stripe.m());
        for (int i = 0; i < avoidUntil.length(); i++)
            avoidUntil.set(i, now);
    }

    public StripeLayout stripe()
    {
        return stripe;
    }

    /**
     * Switches the layout later runs decode with (a stripe's member change, docs/design/updates.md): the new layout
     * must describe the same member self (codec, k, m, code length, self's locator and length; a widening may widen k
     * within the Cauchy family and a longer new member may grow the code length, issue 18); the others' locators
     * and lengths and the parity locators change. Runs under way finish with the layout they started with, whose
     * files are deleted only after every holder has switched.
     */
    public void relayout(StripeLayout next)
    {
        StripeLayout cur = stripe;
        boolean sameShape = next.codecId().equals(cur.codecId()) && next.k() == cur.k();
        // a widening (issue 18): k grows within the Cauchy family, whose coefficients for the existing slots stay
        boolean widened = next.k() > cur.k() && cur.codecId().equals(io.elect.coding.CauchyMatrix.codecId(cur.k(), cur.m()))
                          && next.k() + next.m() <= 256 && next.codecId().equals(io.elect.coding.CauchyMatrix.codecId(next.k(), cur.m()));
        if (!(sameShape || widened) || next.m() != cur.m()
            || next.stripeLength() < cur.stripeLength() || !next.locators().get(self).equals(cur.locators().get(self))
            || next.memberLength(self) != cur.memberLength(self))
            throw new IllegalArgumentException(cacheId() + ": relayout must keep codec, k (or widen them), m, code length (or grow it) and member " + self
                                               + " (was " + cur.locators() + ", given " + next.locators() + ")");
        stripe = next;
    }

    public int self()
    {
        return self;
    }

    public long deadlineMillis()
    {
        return TimeUnit.NANOSECONDS.toMillis(deadlineNanos);
    }

    @Override
    public String describe()
    {
        return cacheId();
    }

    /**
     * Warming, e.g. when the failure detector marks the primary down: reads the given chunks through the normal path
     * (direct or reconstructed, verified, single-flight) so that they are cached and later reads of them are cache
     * hits. Callers pick the chunks (hottest first, e.g. from {@link #heat()}) and should keep their
     * total under the cache's capacity, or the last ones warmed evict the first. Consecutive indexes are fetched as
     * one run. Warming reads do not count as reads in {@link #heat()}. Blocks the calling thread (run it off the
     * request path).
     *
     * @param chunkIndexesHottestFirst chunk indexes of this member, each in [0, chunk count)
     * @param maxChunks                at most this many entries of the array are warmed (>= 0)
     * @return how many chunks were read and cached; 0 without a cache; stops at the first failing run (logged)
     */
    public int warm(long[] chunkIndexesHottestFirst, int maxChunks)
    {
        if (maxChunks < 0)
            throw new IllegalArgumentException("maxChunks must be >= 0, got " + maxChunks);
        int n = Math.min(maxChunks, chunkIndexesHottestFirst.length);
        for (int i = 0; i < n; i++)
            if (chunkIndexesHottestFirst[i] < 0 || chunkIndexesHottestFirst[i] >= checksums.chunkCount())
                throw new IllegalArgumentException("chunk " + chunkIndexesHottestFirst[i] + " is not in [0, "
                                                   + checksums.chunkCount() + ") of " + describe());
        if (cache == null)
            return 0;
        int warmed = 0;
        for (int i = 0; i < n; )
        {
            int j = i + 1;
            while (j < n && j - i < WARM_RUN_CHUNKS && chunkIndexesHottestFirst[j] == chunkIndexesHottestFirst[j - 1] + 1)
                j++;
            long first = chunkIndexesHottestFirst[i];
            try
            {
                read(checksums.chunkStart(first), ByteBuffer.allocate((int) runLength(first, j - i)), false);
            }
            catch (IOException e)
            {
                logger.info("{}: warming stopped after {} of {} chunks: {}", describe(), warmed, n, e.getMessage());
                return warmed;
            }
            warmed += j - i;
            i = j;
        }
        return warmed;
    }

    @Override
    protected ByteBuffer fetchRun(long firstChunk, int count) throws IOException
    {
        long offset = checksums.chunkStart(firstChunk);
        int len = (int) runLength(firstChunk, count);
        try (DecodedRun run = new DecodedRun(this, offset, len))
        {
            if (selfFirst && clock.nanoTime() - selfRetryAt >= 0)
            {
                ByteBuffer direct = run.readSelf(firstChunk, count);
                if (direct != null)
                    return direct;
            }
            ByteBuffer out = run.reconstruct(firstChunk, count);
            counters.decodedRuns.increment();
            return out;
        }
    }

    /** Bytes [offset, offset+len) of member, zero-padded past its real length; exactly len bytes, position 0. */
    ByteBuffer readMember(StripeLayout stripe, int member, long offset, int len) throws IOException
    {
        int avail = available(stripe, member, offset, len);
        ByteBuffer buf = ByteBuffer.allocate(len);
        if (avail > 0 && !LocatorMemberReader.isZero(stripe.locators().get(member)))
        {
            counters.requests.increment();
            ByteBuffer got = members.read(stripe, member, offset, avail);
            if (got.remaining() != avail)
                throw new IOException("stripe member " + member + " returned " + got.remaining() + " of " + avail + " bytes");
            counters.bytesFetched.add(avail);
            buf.put(got);
        }
        buf.clear(); // position 0, limit len: bytes past the real length stay zero
        return buf;
    }

    /** How many of bytes [offset, offset+len) of member lie below its real length. */
    static int available(StripeLayout stripe, int member, long offset, int len)
    {
        return (int) Math.max(0, Math.min(len, stripe.memberLength(member) - offset));
    }

    /** Puts member last in the runs' preference order for {@value #MEMBER_AVOID_MILLIS} ms. */
    void avoid(int member)
    {
        avoidUntil.set(member, clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MEMBER_AVOID_MILLIS));
    }
}
