package io.elect.tsue.log;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * How long data bytes spend in each log, TSUE's Table II view: per log, the byte-weighted mean time of the append
 * (until durable), of the buffering (durable until its recycling starts) and of the recycling (the duration of the
 * recycling pass that carries the byte on). A byte of a 4 KiB update that waited 2 s adds 4096 x 2 s to the buffer
 * sum. Thread-safe; nanosecond inputs, microsecond outputs.
 */
public final class LogTimes
{
    /** The three logs of TSUE (parity logs of the other policies count as PARITY). */
    public enum Log
    {
        DATA, DELTA, PARITY
    }

    private final LongAdder[] bytes = new LongAdder[3];
    private final DoubleAdder[][] sums = new DoubleAdder[3][3];

    public LogTimes()
    {
        for (int l = 0; l < 3; l++)
        {
            bytes[l] = new LongAdder();
            for (int s = 0; s < 3; s++)
                sums[l][s] = new DoubleAdder();
        }
    }

    /** n bytes took nanos to become durable in log l (counts the bytes once). */
    public void append(Log l, long n, long nanos)
    {
        bytes[l.ordinal()].add(n);
        sums[l.ordinal()][0].add((double) n * nanos);
    }

    /** n bytes waited nanos between being durable and their recycling starting. */
    public void buffer(Log l, long n, long nanos)
    {
        sums[l.ordinal()][1].add((double) n * Math.max(0, nanos));
    }

    /** n bytes were carried on by a recycling pass of nanos. */
    public void recycle(Log l, long n, long nanos)
    {
        sums[l.ordinal()][2].add((double) n * nanos);
    }

    /** {log}_{append,buffer,recycle}_us and {log}_bytes for every log that saw bytes. */
    public Map<String, Object> snapshot()
    {
        Map<String, Object> out = new LinkedHashMap<>();
        String[] stage = { "append", "buffer", "recycle" };
        for (Log l : Log.values())
        {
            long n = bytes[l.ordinal()].sum();
            if (n == 0)
                continue;
            String name = l.name().toLowerCase(Locale.ROOT) + "_log";
            out.put(name + "_bytes", n);
            for (int s = 0; s < 3; s++)
                out.put(name + "_" + stage[s] + "_us", Math.round(sums[l.ordinal()][s].sum() / n / 100.0) / 10.0);
        }
        return out;
    }

    public void reset()
    {
        for (int l = 0; l < 3; l++)
        {
            bytes[l].reset();
            for (int s = 0; s < 3; s++)
                sums[l][s].reset();
        }
    }
}
