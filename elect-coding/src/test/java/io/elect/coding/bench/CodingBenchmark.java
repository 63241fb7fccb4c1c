package io.elect.coding.bench;

import java.io.FileWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.elect.coding.ErasureCoder;
import io.elect.coding.ErasureCoders;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * JMH benchmark of every backend (run by scripts/bench.d/coding, never by mvn verify: it is not a *Test).
 * Throughput in operations per second; the suite converts it to GB/s of data bytes: k * chunk for encode and
 * reconstruct (m data chunks erased, rebuilt from the other k), chunk for update (one delta applied to m parity).
 * Buffers are direct and 64-byte aligned ({@link ErasureCoders#allocateAligned}), allocated once; every call covers the whole chunk.
 *
 * <p>Besides JMH's wall-clock throughput, each measured iteration appends the benchmark thread's CPU time and
 * operation count to the file named by {@value #CPU_OUT} (JSON lines), when set: on a shared, overloaded VM
 * wall-clock numbers measure the neighbours, CPU time measures the code ("GB/s per core").
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CodingBenchmark
{
    @Param({ "isal", "jerasure", "java" })
    public String backend;

    /** "k:m" */
    @Param({ "4:2", "6:3", "10:4" })
    public String code;

    @Param({ "4096", "65536", "1048576" })
    public int chunkBytes;

    /**
     * Extra warm-up, once per JVM, before the first measured shape: the suite runs JMH in-process (-f 0), one
     * JVM per backend, and C2 needs seconds to compile the kernels on a loaded machine.
     */
    @Param({ "0" })
    public int warmupSeconds;

    private static boolean warmedUp;

    /** System property: file to append per-iteration CPU-time samples to. */
    public static final String CPU_OUT = "elect.bench.cpuOut";
    private static final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private long ops;
    private long cpuStart;

    private ErasureCoder coder;
    private ByteBuffer[] data;
    private ByteBuffer[] parity;
    private ByteBuffer[] chunks;
    private int[] erased;
    private ByteBuffer delta;

    @Setup
    public void setUp()
    {
        int k = Integer.parseInt(code.split(":")[0]);
        int m = Integer.parseInt(code.split(":")[1]);
        coder = ErasureCoders.create(k, m, backend);
        Random random = new Random(42);
        data = new ByteBuffer[k];
        parity = new ByteBuffer[m];
        for (int i = 0; i < k; i++)
            data[i] = randomDirect(random, chunkBytes);
        for (int j = 0; j < m; j++)
            parity[j] = ErasureCoders.allocateAligned(chunkBytes);
        coder.encode(data, parity, 0, chunkBytes);
        chunks = new ByteBuffer[k + m];
        System.arraycopy(data, 0, chunks, 0, k);
        System.arraycopy(parity, 0, chunks, k, m);
        // The m first data chunks are lost; they are rebuilt into buffers of their own.
        erased = new int[m];
        for (int e = 0; e < m; e++)
        {
            erased[e] = e;
            chunks[e] = ErasureCoders.allocateAligned(chunkBytes);
        }
        delta = randomDirect(random, chunkBytes);
        if (!warmedUp)
        {
            warmedUp = true;
            long end = System.nanoTime() + warmupSeconds * 1_000_000_000L;
            while (System.nanoTime() < end)
            {
                encode();
                reconstruct();
                update();
            }
        }
    }

    @Setup(Level.Iteration)
    public void startIteration()
    {
        ops = 0;
        cpuStart = threads.getCurrentThreadCpuTime();
    }

    @TearDown(Level.Iteration)
    public void endIteration(BenchmarkParams benchmark, IterationParams iteration)
    {
        long cpu = threads.getCurrentThreadCpuTime() - cpuStart;
        String file = System.getProperty(CPU_OUT);
        if (file == null || iteration.getType() != IterationType.MEASUREMENT || cpu <= 0)
            return;
        String op = benchmark.getBenchmark().substring(benchmark.getBenchmark().lastIndexOf('.') + 1);
        long bytesPerOp = op.equals("update") ? chunkBytes : (long) coder.dataChunks() * chunkBytes;
        String line = String.format("{\"backend\":\"%s\",\"op\":\"%s\",\"k\":%d,\"m\":%d,\"chunk_bytes\":%d,"
                                    + "\"gbps_cpu\":%.4f}%n", backend, op, coder.dataChunks(), coder.parityChunks(),
                                    chunkBytes, (double) ops * bytesPerOp / cpu);
        try (FileWriter out = new FileWriter(file, true))
        {
            out.write(line);
        }
        catch (IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    private static ByteBuffer randomDirect(Random random, int size)
    {
        byte[] bytes = new byte[size];
        random.nextBytes(bytes);
        return ErasureCoders.allocateAligned(size).put(bytes).clear();
    }

    @Benchmark
    public ByteBuffer[] encode()
    {
        coder.encode(data, parity, 0, chunkBytes);
        ops++;
        return parity;
    }

    @Benchmark
    public ByteBuffer[] reconstruct()
    {
        coder.reconstruct(chunks, erased, 0, chunkBytes);
        ops++;
        return chunks;
    }

    @Benchmark
    public ByteBuffer[] update()
    {
        coder.update(1 % coder.dataChunks(), delta, 0, parity, 0, chunkBytes);
        ops++;
        return parity;
    }
}
