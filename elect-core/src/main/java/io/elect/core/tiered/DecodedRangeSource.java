package io.elect.core.tiered;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.coding.ErasureCoder;

/**
 * DECODED: the data component is member {@code self} of an erasure-coded stripe and is not stored on this node; a
 * read of chunks [a, b) fetches bytes [a, b) of k other members and reconstructs just that range (about k times the
 * bytes read, never k whole files). Reconstructed chunks are verified against the checksums recorded at encoding
 * time and cached like cold chunks.
 *
 * <p>Self first (the default): member {@code self} may still exist elsewhere, e.g. a secondary replica's stub whose
 * locator names the primary's data file ({@code node:} or {@code file:}). Each run is then first read directly from
 * self's locator (1x the bytes instead of kx) and verified against the same checksums; if that read fails or does not
 * verify, the run is reconstructed as above, and self is not tried again for {@value #SELF_RETRY_MILLIS} ms (so a
 * peer that is down costs one timeout per interval, not one per read). {@code zero:} members are never read.
 * {@link SourceCounters#directRuns} and {@link SourceCounters#decodedRuns} count which path served.
 *
 * <p>Survivor choice: data members first, then parity, in index order, skipping members that failed (unavailable)
 * during this read. If the reconstruction does not verify (a survivor returned wrong bytes) and spare members exist,
 * each survivor in turn is replaced by a spare until one set verifies; otherwise the read fails with
 * {@link TieredCorruptionException}. Wrong bytes are never returned. Thread-safe.
 */
public final class DecodedRangeSource extends ChunkedRemoteSource
{
    private static final Logger logger = LoggerFactory.getLogger(DecodedRangeSource.class);
    /** After a failed direct read of self, how long reads go straight to reconstruction. */
    static final long SELF_RETRY_MILLIS = 5_000;

    private final StripeLayout stripe;
    private final int self;
    private final ErasureCoder coder;
    private final StripeMemberReader members;
    private final boolean selfFirst;
    /** System.nanoTime() before which self is not read directly (after a failure). */
    private volatile long selfRetryAt;
    private volatile boolean selfFailing;

    /** A source that reads self directly first (see the class comment). */
    public DecodedRangeSource(StripeLayout stripe, int self, ErasureCoder coder, StripeMemberReader members,
                              ChunkChecksums checksums, TieredChunkCache cache, SourceCounters counters)
    {
        this(stripe, self, coder, members, checksums, cache, counters, true);
    }

    /** @param selfFirst whether to read self directly before reconstructing (false: always reconstruct, e.g. to measure decoding) */
    public DecodedRangeSource(StripeLayout stripe, int self, ErasureCoder coder, StripeMemberReader members,
                              ChunkChecksums checksums, TieredChunkCache cache, SourceCounters counters, boolean selfFirst)
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
        this.stripe = stripe;
        this.self = self;
        this.coder = coder;
        this.members = members;
        this.selfFirst = selfFirst && !LocatorMemberReader.isZero(stripe.locators().get(self));
        this.selfRetryAt = System.nanoTime();
    }

    public StripeLayout stripe()
    {
        return stripe;
    }

    public int self()
    {
        return self;
    }

    @Override
    public String describe()
    {
        return cacheId();
    }

    @Override
    protected ByteBuffer fetchRun(long firstChunk, int count) throws IOException
    {
        long offset = checksums.chunkStart(firstChunk);
        int len = (int) runLength(firstChunk, count);
        if (selfFirst && System.nanoTime() - selfRetryAt >= 0)
        {
            ByteBuffer direct = readSelf(offset, len, firstChunk, count);
            if (direct != null)
                return direct;
        }
        ByteBuffer out = reconstructRun(firstChunk, count, offset, len);
        counters.decodedRuns.increment();
        return out;
    }

    /** The verified run read from self's own locator, or null (failure logged, self skipped for a while). */
    private ByteBuffer readSelf(long offset, int len, long firstChunk, int count)
    {
        try
        {
            counters.requests.increment();
            ByteBuffer got = members.read(stripe, self, offset, len);
            if (got.remaining() != len)
                throw new IOException("returned " + got.remaining() + " of " + len + " bytes");
            counters.bytesFetched.add(len);
            ByteBuffer out = got.slice();
            verifyRun(out, firstChunk, count);
            counters.directRuns.increment();
            if (selfFailing)
            {
                selfFailing = false;
                logger.info("{}: member {} is readable directly again", describe(), self);
            }
            return out;
        }
        catch (IOException | RuntimeException e)
        {
            selfRetryAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SELF_RETRY_MILLIS);
            if (!selfFailing)
            {
                selfFailing = true;
                logger.info("{}: direct read of member {} at {}+{} failed ({}); reconstructing from k={} others for {} ms",
                            describe(), self, offset, len, e.toString(), stripe.k(), SELF_RETRY_MILLIS);
            }
            return null;
        }
    }

    private ByteBuffer reconstructRun(long firstChunk, int count, long offset, int len) throws IOException
    {
        Set<Integer> failed = new LinkedHashSet<>();
        ByteBuffer[] fetched = new ByteBuffer[stripe.k() + stripe.m()];
        List<Integer> survivors = pick(failed, -1, List.of());
        IOException lastError = null;
        TieredCorruptionException corruption = null;
        boolean expanded = false;
        // First the preferred set; then, if it does not verify, the sets replacing one survivor by a spare.
        List<List<Integer>> sets = new ArrayList<>();
        sets.add(survivors);
        for (int attempt = 0; attempt < sets.size(); attempt++)
        {
            List<Integer> set = sets.get(attempt);
            if (set == null)
                continue;
            try
            {
                ByteBuffer out = reconstruct(set, offset, len, fetched, failed);
                verifyRun(out, firstChunk, count);
                if (corruption != null)
                    counters.repairs.increment(); // a survivor returned wrong bytes; this set excludes it
                return out;
            }
            catch (TieredCorruptionException e)
            {
                corruption = e;
                if (!expanded)
                {
                    expanded = true;
                    for (int excluded : set)
                        sets.add(pick(failed, excluded, set));
                }
            }
            catch (MemberUnavailable e)
            {
                lastError = e.cause;
                // retry with a set avoiding every failed member
                List<Integer> next = pick(failed, -1, List.of());
                if (next != null)
                    sets.add(next);
            }
        }
        if (corruption != null)
            throw new TieredCorruptionException(describe() + ": no set of " + stripe.k() + " survivors reconstructs bytes "
                                                + offset + ".." + (offset + len) + " with matching checksums ("
                                                + corruption.getMessage() + ")");
        throw new IOException(describe() + ": fewer than k=" + stripe.k() + " stripe members are available for bytes "
                              + offset + ".." + (offset + len) + "; failed members " + failed, lastError);
    }

    /** k survivors avoiding self, failed members and excluded (data first), or null if there are not enough. */
    private List<Integer> pick(Set<Integer> failed, int excluded, List<Integer> previous)
    {
        List<Integer> out = new ArrayList<>();
        // keep the previous set minus the excluded member, then fill with spares
        for (int p : previous)
            if (p != excluded && !failed.contains(p))
                out.add(p);
        for (int i = 0; i < stripe.k() + stripe.m() && out.size() < stripe.k(); i++)
            if (i != self && i != excluded && !failed.contains(i) && !out.contains(i))
                out.add(i);
        return out.size() == stripe.k() ? out : null;
    }

    private static final class MemberUnavailable extends Exception
    {
        final IOException cause;

        MemberUnavailable(IOException cause)
        {
            super(cause);
            this.cause = cause;
        }
    }

    private ByteBuffer reconstruct(List<Integer> set, long offset, int len, ByteBuffer[] fetched, Set<Integer> failed)
    throws MemberUnavailable
    {
        ByteBuffer[] chunks = new ByteBuffer[stripe.k() + stripe.m()];
        for (int member : set)
        {
            if (fetched[member] == null)
            {
                try
                {
                    fetched[member] = fetchMember(member, offset, len);
                }
                catch (IOException e)
                {
                    failed.add(member);
                    throw new MemberUnavailable(e);
                }
            }
            chunks[member] = fetched[member];
        }
        ByteBuffer out = ByteBuffer.allocate(len);
        chunks[self] = out;
        coder.reconstruct(chunks, new int[]{ self }, 0, len);
        return out;
    }

    /** Bytes [offset, offset+len) of member, zero-padded past its real length; exactly len bytes, position 0. */
    private ByteBuffer fetchMember(int member, long offset, int len) throws IOException
    {
        long real = stripe.memberLength(member);
        int avail = (int) Math.max(0, Math.min(len, real - offset));
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
}
