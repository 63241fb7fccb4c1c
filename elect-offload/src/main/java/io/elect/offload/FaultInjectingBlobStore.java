package io.elect.offload;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A decorator that injects faults into another BlobStore, every decision drawn from one seeded Random so
 * that a failing run is replayable from its seed (single-threaded callers replay exactly; concurrent callers
 * replay the same fault rates).
 *
 * Faults: transient errors and throttling (thrown before or after the operation reaches the backend, so some
 * "failed" writes did happen), added latency, short reads, bit flips in transit (in the returned bytes) and
 * at rest (in the stored bytes), and lost puts (reported as success, never stored). Thread-safe.
 */
public final class FaultInjectingBlobStore implements BlobStore
{
    /**
     * Probabilities in [0, 1] per operation, and the added latency range.
     *
     * @param error        transient error (like a 500 or a reset connection)
     * @param throttle     throttling (like 503 SlowDown / 429)
     * @param shortRead    a read returns a prefix of the requested bytes
     * @param flipInFlight a read returns one bit flipped
     * @param flipAtRest   a put stores one bit flipped
     * @param lostPut      a put reports success but stores nothing
     * @param maxLatencyMillis latency added to every operation, uniform in [0, maxLatencyMillis]
     */
    public record Faults(double error, double throttle, double shortRead, double flipInFlight, double flipAtRest,
                         double lostPut, int maxLatencyMillis)
    {
        public static final Faults NONE = new Faults(0, 0, 0, 0, 0, 0, 0);

        public Faults
        {
            for (double p : new double[]{ error, throttle, shortRead, flipInFlight, flipAtRest, lostPut })
                if (!(p >= 0 && p <= 1))
                    throw new IllegalArgumentException("fault probabilities must be in [0, 1], got " + p);
            if (maxLatencyMillis < 0)
                throw new IllegalArgumentException("maxLatencyMillis must be >= 0, got " + maxLatencyMillis);
        }
    }

    private final BlobStore inner;
    private final Random random;
    private volatile Faults faults;
    public final AtomicLong injected = new AtomicLong();

    public FaultInjectingBlobStore(BlobStore inner, long seed, Faults faults)
    {
        this.inner = inner;
        this.random = new Random(seed);
        this.faults = faults;
    }

    /** Changes the fault rates from now on (e.g. Faults.NONE to read back what was written). */
    public void setFaults(Faults faults)
    {
        this.faults = faults;
    }

    private boolean roll(double p)
    {
        if (p <= 0)
            return false;
        boolean hit;
        synchronized (random)
        {
            hit = random.nextDouble() < p;
        }
        if (hit)
            injected.incrementAndGet();
        return hit;
    }

    private int nextInt(int bound)
    {
        synchronized (random)
        {
            return random.nextInt(bound);
        }
    }

    /** Latency, then maybe a transient error or throttling "before the request reached the server". */
    private void before(String op, String key) throws IOException
    {
        Faults f = faults;
        if (f.maxLatencyMillis() > 0)
        {
            try
            {
                TimeUnit.MILLISECONDS.sleep(nextInt(f.maxLatencyMillis() + 1));
            }
            catch (InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException(op + " " + key + " interrupted");
            }
        }
        if (roll(f.throttle()))
            throw new TransientColdStoreException("injected throttling (503 SlowDown) on " + op + " " + key, true, null);
        if (roll(f.error() / 2))
            throw new TransientColdStoreException("injected error (500) before " + op + " " + key, false, null);
    }

    /** Maybe a transient error "after the server did the work" (the response was lost). */
    private void after(String op, String key) throws IOException
    {
        if (roll(faults.error() / 2))
            throw new TransientColdStoreException("injected error (lost response) after " + op + " " + key, false, null);
    }

    private ByteBuffer maybeFlip(ByteBuffer data, double p)
    {
        if (!data.hasRemaining() || !roll(p))
            return data;
        ByteBuffer copy = ByteBuffer.allocate(data.remaining()).put(data.duplicate()).flip();
        int bit = nextInt(copy.remaining() * 8);
        copy.put(bit / 8, (byte) (copy.get(bit / 8) ^ (1 << (bit % 8))));
        return copy;
    }

    @Override
    public void put(String key, ByteBuffer data) throws IOException
    {
        before("put", key);
        if (!roll(faults.lostPut()))
            inner.put(key, maybeFlip(data, faults.flipAtRest()));
        after("put", key);
    }

    @Override
    public RangeResult get(String key, long offset, int length) throws IOException
    {
        before("get", key);
        RangeResult r = inner.get(key, offset, length);
        after("get", key);
        return damage(r);
    }

    @Override
    public RangeResult getAll(String key) throws IOException
    {
        before("get", key);
        RangeResult r = inner.getAll(key);
        after("get", key);
        return damage(r);
    }

    private RangeResult damage(RangeResult r)
    {
        ByteBuffer data = r.data();
        if (data.remaining() > 0 && roll(faults.shortRead()))
            data = data.duplicate().limit(data.position() + nextInt(data.remaining()));
        return new RangeResult(maybeFlip(data, faults.flipInFlight()), r.objectLength());
    }

    @Override
    public OptionalLong head(String key) throws IOException
    {
        before("head", key);
        OptionalLong r = inner.head(key);
        after("head", key);
        return r;
    }

    @Override
    public void delete(String key) throws IOException
    {
        before("delete", key);
        inner.delete(key);
        after("delete", key);
    }

    @Override
    public List<Entry> list(String prefix) throws IOException
    {
        before("list", prefix);
        List<Entry> r = inner.list(prefix);
        after("list", prefix);
        return r;
    }

    @Override
    public MultipartUpload startMultipart(String key) throws IOException
    {
        before("start multipart", key);
        MultipartUpload upload = inner.startMultipart(key);
        return new MultipartUpload()
        {
            public void uploadPart(int partNumber, ByteBuffer data) throws IOException
            {
                before("upload part", key);
                upload.uploadPart(partNumber, maybeFlip(data, faults.flipAtRest()));
                after("upload part", key);
            }

            public void complete(int partCount) throws IOException
            {
                before("complete", key);
                if (!roll(faults.lostPut()))
                    upload.complete(partCount);
                after("complete", key);
            }

            public void abort() throws IOException
            {
                upload.abort();
            }
        };
    }

    @Override
    public void close()
    {
        inner.close();
    }
}
