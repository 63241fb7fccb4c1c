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
 * One thread, so these are service times, not throughput.
 */
final class DeviceProbe
{
    record Result(double readP50, double readP99, double appendP50, double appendP99, double append2P50,
                  double append2P99)
    {
        String json()
        {
            return String.format(java.util.Locale.ROOT, "\"rand_read_4k_p50_us\":%.1f,\"rand_read_4k_p99_us\":%.1f,"
                                                        + "\"synced_append_4k_p50_us\":%.1f,\"synced_append_4k_p99_us\":%.1f,"
                                                        + "\"synced_append_2way_p50_us\":%.1f,\"synced_append_2way_p99_us\":%.1f",
                                 readP50, readP99, appendP50, appendP99, append2P50, append2P99);
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
            {
                long t0 = System.nanoTime();
                Future<?> f = other.submit(() -> {
                    lb.append(1, payload, true);
                    return null;
                });
                la.append(1, payload, true);
                f.get();
                two[i] = System.nanoTime() - t0;
            }
            a.delete("probe");
            b.delete("probe");
        }
        finally
        {
            other.shutdown();
        }
        return new Result(pct(reads, 0.5), pct(reads, 0.99), pct(one, 0.5), pct(one, 0.99), pct(two, 0.5),
                          pct(two, 0.99));
    }

    /** The q-quantile of nanosecond samples, in microseconds. */
    static double pct(long[] nanos, double q)
    {
        long[] s = nanos.clone();
        Arrays.sort(s);
        return s.length == 0 ? 0 : s[Math.min(s.length - 1, (int) (q * s.length))] / 1e3;
    }
}
