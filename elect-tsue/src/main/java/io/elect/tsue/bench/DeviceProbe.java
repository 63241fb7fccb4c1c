package io.elect.tsue.bench;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.elect.tsue.fs.LocalFileLayer;
import io.elect.tsue.log.RecordLog;

/**
 * The device costs that the policies pay, measured in the same run and on the same files: 4 KiB random reads with
 * O_DIRECT over the benchmark's chunk files (what an old-data or old-parity read costs), a 4 KiB synced append to
 * one log, and a 2-way synced append (two logs on two node directories in parallel: the replicated-log front end).
 * One thread, so these are service times, not throughput. Then the 2-way appends again while a background thread
 * writes as fast as it can (direct I/O, a sync every 4 MiB): how much a recycler's writes cost the front end's syncs.
 */
final class DeviceProbe
{
    record Result(double readP50, double readP99, double appendP50, double appendP99, double append2P50,
                  double append2P99, double bgP50, double bgP99, double bgMBps)
    {
        String json()
        {
            return String.format(java.util.Locale.ROOT, "\"rand_read_4k_p50_us\":%.1f,\"rand_read_4k_p99_us\":%.1f,"
                                                        + "\"synced_append_4k_p50_us\":%.1f,\"synced_append_4k_p99_us\":%.1f,"
                                                        + "\"synced_append_2way_p50_us\":%.1f,\"synced_append_2way_p99_us\":%.1f,"
                                                        + "\"synced_append_2way_bg_p50_us\":%.1f,\"synced_append_2way_bg_p99_us\":%.1f,"
                                                        + "\"bg_write_mb_per_s\":%.1f",
                                 readP50, readP99, appendP50, appendP99, append2P50, append2P99, bgP50, bgP99, bgMBps);
        }
    }

    private DeviceProbe()
    {
    }

    /**
     * @param chunks (node layer, chunk file) pairs to read from; every file at least chunkSize bytes
     * @param logA      directory of the first log of the append probes (on the same device as the chunks)
     * @param logB      directory of the second log
     */
    static Result measure(List<LocalFileLayer> nodes, List<String[]> chunks, int chunkSize, Path logA, Path logB,
                          int samples) throws Exception
    {
        Random rnd = new Random(11);
        byte[] page = new byte[4096];
        long[] reads = new long[samples];
        for (int i = 0; i < samples; i++)
        {
            String[] c = chunks.get(rnd.nextInt(chunks.size()));
            LocalFileLayer fs = nodes.get(Integer.parseInt(c[0]));
            long pos = 4096L * rnd.nextInt(chunkSize / 4096);
            long t0 = System.nanoTime();
            fs.read(c[1], pos, page, 0, 4096);
            reads[i] = System.nanoTime() - t0;
        }
        byte[] payload = new byte[4096];
        rnd.nextBytes(payload);
        long[] one = new long[samples], two = new long[samples];
        ExecutorService other = Executors.newSingleThreadExecutor();
        try (LocalFileLayer a = new LocalFileLayer(logA); LocalFileLayer b = new LocalFileLayer(logB))
        {
            RecordLog la = RecordLog.open(a, "probe"), lb = RecordLog.open(b, "probe");
            for (int i = 0; i < samples; i++)
            {
                long t0 = System.nanoTime();
                la.append(1, payload, true);
                one[i] = System.nanoTime() - t0;
            }
            for (int i = 0; i < samples; i++)
                two[i] = twoWay(la, lb, payload, other);
            // the same 2-way appends while another thread writes (direct, 256 KiB pieces, a sync every 4 MiB) as a
            // recycler does: a synced append's flush must also persist whatever the background wrote meanwhile
            long[] bg = new long[samples];
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong();
            try (LocalFileLayer scratch = new LocalFileLayer(logA.resolveSibling("probe-bg"), n -> true))
            {
                Thread writer = new Thread(() -> {
                    byte[] piece = new byte[256 << 10];
                    long pos = 0;
                    try
                    {
                        while (!stop.get())
                        {
                            scratch.write("bg", pos, piece, 0, piece.length);
                            pos = (pos + piece.length) % (64L << 20);
                            if (written.addAndGet(piece.length) % (4 << 20) == 0)
                                scratch.sync("bg");
                        }
                    }
                    catch (java.io.IOException e)
                    {
                        throw new java.io.UncheckedIOException(e);
                    }
                }, "probe-background-writer");
                writer.start();
                long t0 = System.nanoTime();
                for (int i = 0; i < samples; i++)
                    bg[i] = twoWay(la, lb, payload, other);
                double s = (System.nanoTime() - t0) / 1e9;
                stop.set(true);
                writer.join();
                scratch.delete("bg");
                a.delete("probe");
                b.delete("probe");
                return new Result(pct(reads, 0.5), pct(reads, 0.99), pct(one, 0.5), pct(one, 0.99), pct(two, 0.5),
                                  pct(two, 0.99), pct(bg, 0.5), pct(bg, 0.99), written.get() / s / 1e6);
            }
        }
        finally
        {
            other.shutdown();
        }
    }

    private static long twoWay(RecordLog la, RecordLog lb, byte[] payload, ExecutorService other) throws Exception
    {
        long t0 = System.nanoTime();
        Future<?> f = other.submit(() -> {
            lb.append(1, payload, true);
            return null;
        });
        la.append(1, payload, true);
        f.get();
        return System.nanoTime() - t0;
    }

    /** The q-quantile of nanosecond samples, in microseconds. */
    static double pct(long[] nanos, double q)
    {
        long[] s = nanos.clone();
        Arrays.sort(s);
        return s.length == 0 ? 0 : s[Math.min(s.length - 1, (int) (q * s.length))] / 1e3;
    }
}
