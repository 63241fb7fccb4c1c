package io.elect.core.tiered;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.stripes.ChunkCorruptionException;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.util.Clock;

/**
 * One run [offset, offset+len) of a {@link DecodedRangeSource}: its member reads and its deadline, the direct read of
 * self, the choice of survivors (preference order, hedging, slow-survivor avoidance), the reconstruction with its
 * corruption retries, and the errors that name the stripe, the range and the members. Used by one thread.
 *
 * <p>Separate from {@link DecodedRangeSource} because a run is per-read bookkeeping (its fetches, the layout it
 * started with, why self is not its source), while the source holds what outlives a run and is shared by concurrent
 * runs: the layout, the coder, the member reader, the deadline, when self is next read directly and until when each
 * member is tried last. A run reads and updates that shared state through its source; the source's class comment
 * describes the behaviour as a whole.
 */
final class DecodedRun implements AutoCloseable
{
    /** A run logs under its source's name. */
    private static final Logger logger = LoggerFactory.getLogger(DecodedRangeSource.class);

    private final DecodedRangeSource source;
    private final Clock clock;
    private final int self;
    final long offset;
    final int len;
    final long start;
    final long deadline;
    final MemberFetches fetches;
    /** The layout this run decodes with, whatever {@link DecodedRangeSource#relayout} does meanwhile. */
    final StripeLayout layout;
    /** Why self is not the source of this run (for error messages). */
    String selfState;

    DecodedRun(DecodedRangeSource source, long offset, int len)
    {
        this.source = source;
        this.clock = source.clock;
        this.self = source.self();
        this.layout = source.stripe();
        this.offset = offset;
        this.len = len;
        this.start = clock.nanoTime();
        this.deadline = start + source.deadlineNanos;
        this.fetches = new MemberFetches(layout.k() + layout.m(), m -> source.readMember(layout, m, offset, len),
                                         source.context);
        this.selfState = source.selfFirst ? "being reconstructed (its direct read failed within the last "
                                            + DecodedRangeSource.SELF_RETRY_MILLIS + " ms)"
                                          : "being reconstructed (not read directly)";
    }

    String range()
    {
        return "bytes " + offset + ".." + (offset + len);
    }

    /** The verified run read from self's own locator, or null (failure logged, self skipped for a while). */
    ByteBuffer readSelf(long firstChunk, int count) throws IOException
    {
        fetches.start(self);
        long until = start + Math.min(source.hedgeNanos, source.deadlineNanos);
        String failure;
        if (fetches.awaitNext(until) == self && fetches.fetched(self))
        {
            ByteBuffer out = fetches.bytes(self);
            try
            {
                source.verifyRun(out, firstChunk, count);
                source.counters.directRuns.increment();
                if (source.selfFailing)
                {
                    source.selfFailing = false;
                    logger.info("{}: member {} is readable directly again", source.describe(), self);
                }
                return out;
            }
            catch (ChunkCorruptionException e)
            {
                failure = e.getMessage();
            }
        }
        else if (fetches.failed(self))
        {
            failure = fetches.reason(self);
        }
        else
        {
            failure = "no answer within " + millis(clock.nanoTime() - start) + " ms";
            fetches.abandon(self, failure);
        }
        selfState = "being reconstructed (direct read failed: " + failure + ")";
        source.selfRetryAt = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DecodedRangeSource.SELF_RETRY_MILLIS);
        if (!source.selfFailing)
        {
            source.selfFailing = true;
            logger.info("{}: direct read of member {} at {}+{} failed ({}); reconstructing from k={} others for {} ms",
                        source.describe(), self, offset, len, failure, layout.k(), DecodedRangeSource.SELF_RETRY_MILLIS);
        }
        return null;
    }

    ByteBuffer reconstruct(long firstChunk, int count) throws IOException
    {
        List<Integer> used = gather(layout.k(), List.of());
        if (used == null)
            throw unavailable();
        avoidSlow(used);
        ByteBuffer out = decode(used);
        ChunkCorruptionException corruption;
        try
        {
            source.verifyRun(out, firstChunk, count);
            return out;
        }
        catch (ChunkCorruptionException e)
        {
            corruption = e;
        }
        // A survivor returned wrong bytes, we do not know which: with a spare, try each set that replaces one
        // survivor by it.
        List<Integer> spare = gather(1, used);
        if (spare != null)
        {
            for (int excluded : used)
            {
                List<Integer> set = new ArrayList<>(used);
                set.remove(Integer.valueOf(excluded));
                set.add(spare.get(0));
                out = decode(set);
                try
                {
                    source.verifyRun(out, firstChunk, count);
                    source.counters.repairs.increment(); // this set excludes the survivor that returned wrong bytes
                    return out;
                }
                catch (ChunkCorruptionException e)
                {
                    corruption = e;
                }
            }
        }
        throw new ChunkCorruptionException(source.describe() + ": no set of " + layout.k() + " survivors reconstructs "
                                            + range() + " with matching checksums (" + corruption.getMessage() + ")");
    }

    /**
     * The first {@code need} members (in preference order, outside exclude) whose reads succeeded, starting reads
     * as needed; null if fewer than need can succeed. Throws the deadline error when the run's time is up.
     */
    List<Integer> gather(int need, List<Integer> exclude) throws IOException
    {
        long hedgeAt = clock.nanoTime() + source.hedgeNanos;
        boolean hedged = false;
        while (true)
        {
            List<Integer> order = order(exclude);
            int ok = 0, running = 0;
            for (int m : order)
                if (fetches.fetched(m))
                    ok++;
                else if (fetches.running(m))
                    running++;
            // keep enough reads going to reach need (right after a failure, the next member starts)
            for (int m : order)
            {
                if (ok + running >= need)
                    break;
                if (!fetches.started(m))
                {
                    if (start(m))
                        ok++;
                    else
                        running++;
                }
            }
            if (ok >= need)
            {
                List<Integer> out = new ArrayList<>(need);
                for (int m : order)
                    if (out.size() < need && fetches.fetched(m))
                        out.add(m);
                return out;
            }
            if (ok + running < need)
                return null;
            long now = clock.nanoTime();
            if (now - deadline >= 0)
                throw deadlineExceeded(need, ok);
            if (!hedged && now - hedgeAt >= 0)
            {
                // reads outstanding this long are probably stuck: race one more member against each of them
                hedged = true;
                int extra = 0;
                for (int m : order)
                    if (fetches.running(m))
                    {
                        source.avoid(m); // tried last by the next runs too
                        extra++;
                    }
                for (int m : order)
                    if (extra > 0 && !fetches.started(m))
                    {
                        start(m);
                        extra--;
                    }
                continue;
            }
            int done = fetches.awaitNext(hedged || deadline - hedgeAt < 0 ? deadline : hedgeAt);
            if (done >= 0)
                settle(done);
        }
    }

    /**
     * Puts last (for {@value DecodedRangeSource#MEMBER_AVOID_MILLIS} ms) each survivor of {@code used} that answered
     * much later than the fastest one (see the class comment of {@link DecodedRangeSource}), as long as a member
     * outside {@code used} that is not put last itself could take its place.
     */
    private void avoidSlow(List<Integer> used)
    {
        long fastest = Long.MAX_VALUE;
        for (int m : used)
            if (fetches.elapsedNanos(m) >= 0)
                fastest = Math.min(fastest, fetches.elapsedNanos(m));
        if (fastest == Long.MAX_VALUE)
            return;
        long limit = Math.max(DecodedRangeSource.SLOW_FACTOR * fastest,
                              fastest + TimeUnit.MILLISECONDS.toNanos(DecodedRangeSource.SLOW_FLOOR_MILLIS));
        // a spare is a member outside used that is not itself put last (replacing a slow member by another
        // known-slow one gains nothing: with every spare slow, the current set stays)
        long now = clock.nanoTime();
        int spares = 0;
        for (int m : order(used))
            if (now - source.avoidUntil.get(m) >= 0)
                spares++;
        for (int m : used)
            if (spares > 0 && fetches.elapsedNanos(m) > limit)
            {
                source.avoid(m);
                source.counters.slowAvoided.increment();
                spares--;
            }
    }

    /** Starts reading member m; true if its bytes are known without I/O (zero: member, or past its length). */
    private boolean start(int m)
    {
        if (DecodedRangeSource.available(layout, m, offset, len) == 0 || LocatorMemberReader.isZero(layout.locators().get(m)))
        {
            fetches.complete(m, ByteBuffer.allocate(len));
            return true;
        }
        fetches.start(m);
        return false;
    }

    /** Bookkeeping after member m's read finished. */
    private void settle(int m)
    {
        if (fetches.fetched(m))
        {
            source.avoidUntil.set(m, clock.nanoTime()); // answers again: back in preference order
            return;
        }
        Throwable e = fetches.error(m);
        if (e instanceof RuntimeException re)
            throw re; // a bug or a malformed locator, not an unavailable member
        if (e instanceof Error err)
            throw err;
        source.avoid(m);
    }

    /** Members other than self and exclude that have not failed in this run: data first, avoided ones last. */
    private List<Integer> order(List<Integer> exclude)
    {
        List<Integer> out = new ArrayList<>(), later = new ArrayList<>();
        long now = clock.nanoTime();
        for (int i = 0; i < layout.k() + layout.m(); i++)
            if (i != self && !exclude.contains(i) && !fetches.failed(i))
                (now - source.avoidUntil.get(i) < 0 ? later : out).add(i);
        out.addAll(later);
        return out;
    }

    private ByteBuffer decode(List<Integer> set)
    {
        ByteBuffer[] chunks = new ByteBuffer[layout.k() + layout.m()];
        for (int m : set)
            chunks[m] = fetches.bytes(m);
        ByteBuffer out = ByteBuffer.allocate(len);
        chunks[self] = out;
        source.coder.reconstruct(chunks, new int[]{ self }, 0, len);
        return out;
    }

    private StripeUnavailableException unavailable()
    {
        List<Integer> down = new ArrayList<>();
        StringBuilder why = new StringBuilder(member(layout, self)).append(": ").append(selfState);
        down.add(self);
        Throwable cause = null;
        for (int i = 0; i < layout.k() + layout.m(); i++)
            if (i != self && fetches.failed(i))
            {
                down.add(i);
                why.append("; ").append(member(layout, i)).append(": ").append(fetches.reason(i));
                cause = fetches.error(i) == null ? cause : fetches.error(i);
            }
        return new StripeUnavailableException(source.describe() + ": cannot reconstruct " + range() + ": " + down.size() + " of "
                                              + (layout.k() + layout.m()) + " stripe members unavailable (more than m="
                                              + layout.m() + "): " + why,
                                              down.stream().mapToInt(Integer::intValue).toArray(), cause);
    }

    private IOException deadlineExceeded(int need, int got)
    {
        long now = clock.nanoTime();
        List<String> slow = new ArrayList<>(), failed = new ArrayList<>();
        for (int i = 0; i < layout.k() + layout.m(); i++)
            if (fetches.running(i))
            {
                source.avoid(i);
                slow.add(member(layout, i) + " (no answer after " + millis(now - fetches.startedAt(i)) + " ms)");
            }
            else if (fetches.failed(i))
                failed.add(member(layout, i) + ": " + fetches.reason(i));
        return new IOException(source.describe() + ": degraded read of " + range() + " gave up after " + millis(now - start)
                               + " ms (deadline " + source.deadlineMillis() + " ms) with " + got + " of the " + need
                               + " member reads it needed; slow: " + (slow.isEmpty() ? "none" : String.join(", ", slow))
                               + "; unavailable: " + (failed.isEmpty() ? "none" : String.join("; ", failed)));
    }

    @Override
    public void close()
    {
        fetches.close();
    }

    private static String member(StripeLayout stripe, int i)
    {
        return "member " + i + " (" + stripe.locators().get(i) + ")";
    }

    private static long millis(long nanos)
    {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
