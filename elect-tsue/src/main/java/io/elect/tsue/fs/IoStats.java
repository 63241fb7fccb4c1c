package io.elect.tsue.fs;

import java.util.concurrent.atomic.LongAdder;

/**
 * Storage operation counters, as in TSUE's Table I: read and write operations (count, bytes) and, among the writes,
 * overwrites (writes into bytes that already existed: in-place updates of chunks and reserved areas, the
 * "write penalty"), plus syncs. Thread-safe.
 */
public final class IoStats
{
    public final LongAdder reads = new LongAdder();
    public final LongAdder readBytes = new LongAdder();
    public final LongAdder writes = new LongAdder();
    public final LongAdder writeBytes = new LongAdder();
    public final LongAdder overwrites = new LongAdder();
    public final LongAdder overwriteBytes = new LongAdder();
    public final LongAdder syncs = new LongAdder();
    /** Per kind of file (see {@link #kind}): {reads, read bytes, writes, write bytes, syncs}. */
    public final java.util.concurrent.ConcurrentHashMap<String, LongAdder[]> byKind =
        new java.util.concurrent.ConcurrentHashMap<>();

    /** The kind of a file: its name up to the first '-' or '.' (c, dlog, tdelta, tdrep, tplog, plog, plr, dpu ...). */
    public static String kind(String name)
    {
        int i = 0;
        while (i < name.length() && name.charAt(i) != '-' && name.charAt(i) != '.')
            i++;
        return name.substring(0, i);
    }

    LongAdder[] of(String name)
    {
        return byKind.computeIfAbsent(kind(name), k -> new LongAdder[]{ new LongAdder(), new LongAdder(),
                                                                         new LongAdder(), new LongAdder(),
                                                                         new LongAdder() });
    }

    public long ops()
    {
        return reads.sum() + writes.sum();
    }

    public long bytes()
    {
        return readBytes.sum() + writeBytes.sum();
    }

    public void reset()
    {
        for (LongAdder a : new LongAdder[]{ reads, readBytes, writes, writeBytes, overwrites, overwriteBytes, syncs })
            a.reset();
        byKind.clear();
    }

    public void addTo(IoStats total)
    {
        total.reads.add(reads.sum());
        total.readBytes.add(readBytes.sum());
        total.writes.add(writes.sum());
        total.writeBytes.add(writeBytes.sum());
        total.overwrites.add(overwrites.sum());
        total.overwriteBytes.add(overwriteBytes.sum());
        total.syncs.add(syncs.sum());
        for (java.util.Map.Entry<String, LongAdder[]> e : byKind.entrySet())
        {
            LongAdder[] t = total.byKind.computeIfAbsent(e.getKey(), k -> new LongAdder[]{ new LongAdder(),
                new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder() });
            for (int i = 0; i < 5; i++)
                t[i].add(e.getValue()[i].sum());
        }
    }

    @Override
    public String toString()
    {
        return "reads=" + reads.sum() + "/" + readBytes.sum() + "B writes=" + writes.sum() + "/" + writeBytes.sum()
               + "B overwrites=" + overwrites.sum() + "/" + overwriteBytes.sum() + "B syncs=" + syncs.sum();
    }
}
