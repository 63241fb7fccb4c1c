package io.elect.tsue.fs;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Wraps a {@link FileLayer} and simulates a crash at a chosen mutating operation (write, sync or delete), counted on
 * a {@link CrashClock} that several nodes share so that one seed picks one crash point in the whole cluster. The
 * operation at the crash point is not performed; it and every later operation throw
 * {@link SimulatedCrashException}. Combine with {@link MemFileLayer#crash()} to also lose unsynced bytes.
 */
public final class FaultInjectingFileLayer implements FileLayer
{
    /** A shared count of mutating operations and the index at which the simulated crash happens. */
    public static final class CrashClock
    {
        private final AtomicLong ops = new AtomicLong();
        private volatile long crashAt;
        private volatile boolean crashed;

        public CrashClock(long crashAt)
        {
            this.crashAt = crashAt;
        }

        /** Disarms the clock (never crash) and clears the crashed state: the cluster restarts. */
        public void restart()
        {
            crashAt = Long.MAX_VALUE;
            crashed = false;
        }

        public void arm(long crashAt)
        {
            this.crashAt = crashAt;
            ops.set(0);
        }

        public boolean crashed()
        {
            return crashed;
        }

        public long ops()
        {
            return ops.get();
        }

        void tick(String what) throws SimulatedCrashException
        {
            if (crashed)
                throw new SimulatedCrashException("node down after simulated crash (" + what + ")");
            if (ops.incrementAndGet() >= crashAt)
            {
                crashed = true;
                throw new SimulatedCrashException("simulated crash at operation " + crashAt + " (" + what + ")");
            }
        }

        void check(String what) throws SimulatedCrashException
        {
            if (crashed)
                throw new SimulatedCrashException("node down after simulated crash (" + what + ")");
        }
    }

    private final FileLayer delegate;
    private final CrashClock clock;

    public FaultInjectingFileLayer(FileLayer delegate, CrashClock clock)
    {
        this.delegate = delegate;
        this.clock = clock;
    }

    @Override
    public int read(String name, long pos, byte[] dst, int off, int len) throws IOException
    {
        clock.check("read " + name);
        return delegate.read(name, pos, dst, off, len);
    }

    @Override
    public void write(String name, long pos, byte[] src, int off, int len) throws IOException
    {
        clock.tick("write " + name);
        delegate.write(name, pos, src, off, len);
    }

    @Override
    public void sync(String name) throws IOException
    {
        clock.tick("sync " + name);
        delegate.sync(name);
    }

    @Override
    public long size(String name) throws IOException
    {
        clock.check("size " + name);
        return delegate.size(name);
    }

    @Override
    public void delete(String name) throws IOException
    {
        clock.tick("delete " + name);
        delegate.delete(name);
    }

    @Override
    public void rename(String from, String to) throws IOException
    {
        clock.tick("rename " + from);
        delegate.rename(from, to);
    }

    @Override
    public List<String> list() throws IOException
    {
        clock.check("list");
        return delegate.list();
    }
}
