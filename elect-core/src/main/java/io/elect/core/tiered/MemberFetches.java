package io.elect.core.tiered;

import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The stripe member reads of one degraded run of a {@link DecodedRangeSource}: each read runs on a small pool shared
 * by all decoded sources of the process, so the k (or more) reads of a run proceed in parallel, and the owning
 * thread waits for them with a blocking, bounded wait (never a polling loop).
 *
 * <p>Pool: {@value #THREADS_PROPERTY} daemon threads (default max(8, 2 x cores); the reads mostly wait on the
 * network or the cold tier, and one run needs k of them at once), named {@code elect-degraded-fetch-N}, idle threads
 * exit after a minute; a queue of {@value #QUEUE} reads, beyond which the submitting thread runs the read itself
 * (back-pressure instead of unbounded growth; such a read is then not bounded by the run's deadline).
 *
 * <p>Not thread-safe: owned by the one thread running the run. {@link #close} cancels (interrupting) the reads still
 * running; their results are ignored.
 */
final class MemberFetches implements AutoCloseable
{
    /** Reads one member's bytes for the run; runs on a pool thread. */
    @FunctionalInterface
    interface Read
    {
        ByteBuffer read(int member) throws Exception;
    }

    private record Done(int member, ByteBuffer bytes, Throwable error, long finishedAt)
    {
    }

    private final Read read;
    private final CompletionService<Done> completions;
    private final io.elect.core.util.Clock clock;
    private final Future<?>[] running;
    private final long[] startedAt;
    /** When a read's result arrived (clock.nanoTime() on the fetching thread); -1 for bytes known without I/O. */
    private final long[] finishedAt;
    private final ByteBuffer[] fetched;
    private final Throwable[] errors;
    private final String[] reasons;

    MemberFetches(int members, Read read, DecodeContext context)
    {
        this.read = read;
        this.completions = new ExecutorCompletionService<>(context.fetches());
        this.clock = context.clock();
        this.running = new Future<?>[members];
        this.startedAt = new long[members];
        this.finishedAt = new long[members];
        this.fetched = new ByteBuffer[members];
        this.errors = new Throwable[members];
        this.reasons = new String[members];
    }

    /** Whether member was started (running, fetched or failed) in this run. */
    boolean started(int member)
    {
        return running[member] != null || fetched[member] != null || reasons[member] != null;
    }

    boolean running(int member)
    {
        return running[member] != null;
    }

    boolean fetched(int member)
    {
        return fetched[member] != null;
    }

    boolean failed(int member)
    {
        return reasons[member] != null;
    }

    /** Why member failed (or was abandoned), or null. */
    String reason(int member)
    {
        return reasons[member];
    }

    /** The exception of a failed read, or null (also null for an abandoned one). */
    Throwable error(int member)
    {
        return errors[member];
    }

    /** The fetched bytes (a duplicate: position 0, limit = the run length). */
    ByteBuffer bytes(int member)
    {
        return fetched[member].duplicate();
    }

    long startedAt(int member)
    {
        return startedAt[member];
    }

    /** How long a fetched member's read took, or -1 if its bytes were known without I/O. REQUIRES: fetched(member). */
    long elapsedNanos(int member)
    {
        return finishedAt[member] < 0 ? -1 : finishedAt[member] - startedAt[member];
    }

    /** Starts reading member on the pool. REQUIRES: !started(member). */
    void start(int member)
    {
        startedAt[member] = clock.nanoTime();
        running[member] = completions.submit(() -> {
            try
            {
                ByteBuffer b = read.read(member);
                return new Done(member, b, null, clock.nanoTime());
            }
            catch (Throwable t)
            {
                return new Done(member, null, t, clock.nanoTime());
            }
        });
    }

    /** Records bytes known without any I/O (e.g. zeros). */
    void complete(int member, ByteBuffer bytes)
    {
        startedAt[member] = clock.nanoTime();
        finishedAt[member] = -1;
        fetched[member] = bytes;
    }

    /** Gives up on a running read: it is cancelled (interrupted) and member counts as failed with reason. */
    void abandon(int member, String reason)
    {
        Future<?> f = running[member];
        if (f != null)
        {
            running[member] = null;
            f.cancel(true);
        }
        reasons[member] = reason;
    }

    /**
     * Blocks until the next running read finishes or until untilNanos (clock.nanoTime()), whichever is first.
     *
     * @return the member whose read finished (now fetched or failed), or -1 if none did in time
     */
    int awaitNext(long untilNanos) throws InterruptedIOException
    {
        while (true)
        {
            if (!anyRunning())
                return -1; // nothing can finish (e.g. a direct executor ran every read already): never block
            long wait = untilNanos - clock.nanoTime();
            Future<Done> f;
            try
            {
                f = wait <= 0 ? completions.poll() : completions.poll(wait, TimeUnit.NANOSECONDS);
            }
            catch (InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for stripe members");
            }
            if (f == null)
                return -1;
            Done d;
            try
            {
                d = f.get(); // already done; the task itself never throws
            }
            catch (CancellationException | ExecutionException | InterruptedException e)
            {
                continue; // an abandoned read: already accounted for
            }
            if (running[d.member] != f)
                continue;
            running[d.member] = null;
            if (d.error == null)
            {
                finishedAt[d.member] = d.finishedAt;
                fetched[d.member] = d.bytes;
            }
            else
            {
                errors[d.member] = d.error;
                reasons[d.member] = d.error.getMessage() == null ? d.error.toString() : d.error.getMessage();
            }
            return d.member;
        }
    }

    private boolean anyRunning()
    {
        for (Future<?> f : running)
            if (f != null)
                return true;
        return false;
    }

    /** Cancels (interrupting) every read still running; their results are ignored. */
    @Override
    public void close()
    {
        for (int i = 0; i < running.length; i++)
            if (running[i] != null)
            {
                running[i].cancel(true);
                running[i] = null;
            }
    }
}
