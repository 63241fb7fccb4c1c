package io.elect.tsue.engine;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * One TSUE log pool: a FIFO of data-log units, the newest one active. When the active unit reaches
 * {@code logUnitBytes} it is sealed and handed to recycling at once (under this pool's monitor, so recycling
 * receives the pool's units in seal order), and a new active unit is opened if the engine-wide unit budget allows;
 * otherwise appenders wait for a unit to be recycled. The budget ({@code logMemoryQuota / logUnitBytes} units, shared
 * by the pools, so a busy pool borrows what idle ones do not use) is the log pool's adaptive size: units exist only
 * while the load fills them. Without a pool ({@code logPool == false}) a pool has one unit: appends wait while it is
 * recycled, as with a single log.
 *
 * <p>Thread-safe. Units leave the FIFO when {@link #done} is called after their recycling.
 */
final class LogPool
{
    /** Budget shared by the pools of one engine: units alive (active or sealed) across all pools. */
    static final class Budget
    {
        final int maxUnits;
        final AtomicInteger units = new AtomicInteger();

        Budget(int maxUnits)
        {
            this.maxUnits = maxUnits;
        }
    }

    final int index;
    private final TsueConfig cfg;
    private final Budget budget;
    private final AtomicLong unitIds;
    private final LongSupplier clock;
    private final boolean inline;
    private final ArrayDeque<LogUnit> units = new ArrayDeque<>();   // FIFO: sealed units, then the active one
    private LogUnit active;
    private volatile Exception failure;

    LogPool(int index, TsueConfig cfg, Budget budget, AtomicLong unitIds, LongSupplier clock)
    {
        this.index = index;
        this.cfg = cfg;
        this.budget = budget;
        this.unitIds = unitIds;
        this.clock = clock;
        this.inline = cfg.recycleThreads == 0;
    }

    /**
     * The active unit with its append lock (read side) held and {@code size} bytes reserved in it. A unit that this
     * call fills is sealed and passed to {@code seal} under the pool's monitor.
     */
    LogUnit acquire(long size, Consumer<LogUnit> seal) throws IOException
    {
        synchronized (this)
        {
            while (true)
            {
                if (failure != null)
                    throw new IOException("recycling failed; restart and recover", failure);
                if (active != null && active.appended.get() >= cfg.logUnitBytes)
                {
                    sealActive(seal);
                    continue;
                }
                if (active == null && !open())
                {
                    await();
                    continue;
                }
                active.appended.addAndGet(size);
                active.appenders.readLock().lock();
                return active;
            }
        }
    }

    /** REQUIRES: this monitor. */
    private void sealActive(Consumer<LogUnit> seal)
    {
        LogUnit full = active;
        active = null;
        full.sealedNanos = clock.getAsLong();
        seal.accept(full);
    }

    /** REQUIRES: this monitor. Opens a new active unit if the budget (and, without a pool, the FIFO) allows. */
    private boolean open()
    {
        if (inline)
        {
            // recycling runs in the appending threads after their append: waiting here would never end
            budget.units.incrementAndGet();
        }
        else if (!cfg.logPool && !units.isEmpty())
            return false;
        while (!inline)
        {
            int n = budget.units.get();
            // every pool may always have one unit, so that no pool starves
            if (n >= budget.maxUnits && !units.isEmpty())
                return false;
            if (budget.units.compareAndSet(n, n + 1))
                break;
        }
        active = new LogUnit(unitIds.incrementAndGet(), index, cfg.dataLogMerge);
        units.addLast(active);
        return true;
    }

    private void await() throws IOException
    {
        try
        {
            wait(100);   // woken by done(); the timeout re-checks a budget freed by another pool
        }
        catch (InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for log-pool quota", e);
        }
    }

    /** Seals the active unit if it holds anything (drain). */
    synchronized void sealNow(Consumer<LogUnit> seal)
    {
        if (active != null && (active.appended.get() > 0 || !active.isEmpty()))
            sealActive(seal);
    }

    /** A unit's recycling finished: it leaves the FIFO and its budget is returned. */
    synchronized void done(LogUnit u)
    {
        if (units.remove(u))
        {
            if (u == active)
                active = null;
            budget.units.decrementAndGet();
        }
        notifyAll();
    }

    synchronized void fail(Exception e)
    {
        failure = e;
        notifyAll();
    }

    /** The units, oldest first (sealed ones, then the active one if any). */
    synchronized List<LogUnit> snapshot()
    {
        return new ArrayList<>(units);
    }

    /** True when no sealed unit waits for or is in recycling. */
    synchronized boolean idle()
    {
        return units.isEmpty() || (units.size() == 1 && units.peekFirst() == active);
    }

    /** Waits until {@link #idle()} or a recycling failure. */
    synchronized void awaitIdle() throws IOException
    {
        while (!idle())
        {
            if (failure != null)
                throw new IOException("recycling failed; restart and recover", failure);
            await();
        }
    }

    long memory()
    {
        long n = 0;
        for (LogUnit u : snapshot())
            n += u.memory();
        return n;
    }

    /** Recovery: installs rebuilt units (oldest first) before any append; they count against the budget. */
    synchronized void adopt(List<LogUnit> recovered)
    {
        for (LogUnit u : recovered)
        {
            units.addLast(u);
            budget.units.incrementAndGet();
        }
    }
}
