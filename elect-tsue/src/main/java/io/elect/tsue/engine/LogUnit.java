package io.elect.tsue.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import io.elect.tsue.log.TxRecord.Extent;

/**
 * One unit of a TSUE data-log pool: the durable records live in files {@code dlog-<id>} on the data and replica
 * nodes of each updated chunk; in memory a two-level index (stripe, then chunk). Merged (the default): a newer update
 * overwrites the overlapped bytes of older ones (temporal merging), so recycling sees each byte once. Raw (ablation
 * baseline, {@code merge == false}): every update is kept as it came, in order, and recycled on its own.
 *
 * <p>Appenders hold the read side of {@link #appenders} while appending and indexing; recycling takes the write
 * side once, after the unit left the active slot, to wait for the last in-flight append. The index is guarded by
 * the unit's monitor; {@link #memory()} is lock-free.
 */
final class LogUnit
{
    /** One acknowledged update of one chunk, as kept by a raw unit. */
    record Update(int chunk, List<Extent> extents)
    {
    }

    final long id;
    final int pool;
    final boolean merge;
    final ReentrantReadWriteLock appenders = new ReentrantReadWriteLock();
    final Set<Integer> nodes = ConcurrentHashMap.newKeySet();
    /** Payload bytes appended (the fill level that seals the unit). */
    final AtomicLong appended = new AtomicLong();
    private final Map<Long, Map<Integer, TreeMap<Integer, byte[]>>> index = new HashMap<>();
    private final Map<Long, List<Update>> raw = new HashMap<>();
    private final AtomicLong memory = new AtomicLong();
    /** Sum over appended updates of bytes x the clock when they became durable (for the mean buffer time). */
    private double durableAtSum;
    private long durableBytes;
    int pendingParts;
    volatile long sealedNanos;

    LogUnit(long id, int pool, boolean merge)
    {
        this.id = id;
        this.pool = pool;
        this.merge = merge;
    }

    String file()
    {
        return "dlog-" + id;
    }

    /** Inserts extents of (stripe, chunk), newest last: they replace any overlapped older bytes. */
    synchronized void insert(long stripe, int chunk, List<Extent> extents)
    {
        if (!merge)
        {
            raw.computeIfAbsent(stripe, s -> new ArrayList<>()).add(new Update(chunk, extents));
            for (Extent e : extents)
                memory.addAndGet(e.bytes().length);
            return;
        }
        TreeMap<Integer, byte[]> map = index.computeIfAbsent(stripe, s -> new HashMap<>())
                                            .computeIfAbsent(chunk, c -> new TreeMap<>());
        for (Extent e : extents)
        {
            int start = e.offset(), end = e.end();
            Map.Entry<Integer, byte[]> lower = map.lowerEntry(start);
            if (lower != null && lower.getKey() + lower.getValue().length > start)
            {
                byte[] old = lower.getValue();
                int oldEnd = lower.getKey() + old.length;
                map.put(lower.getKey(), Arrays.copyOf(old, start - lower.getKey()));
                if (oldEnd > end)
                    map.put(end, Arrays.copyOfRange(old, end - lower.getKey(), old.length));
                memory.addAndGet(-(Math.min(oldEnd, end) - start));
            }
            while (true)
            {
                Map.Entry<Integer, byte[]> next = map.ceilingEntry(start);
                if (next == null || next.getKey() >= end)
                    break;
                map.remove(next.getKey());
                int nEnd = next.getKey() + next.getValue().length;
                if (nEnd > end)
                {
                    map.put(end, Arrays.copyOfRange(next.getValue(), end - next.getKey(), next.getValue().length));
                    memory.addAndGet(-(end - next.getKey()));
                }
                else
                {
                    memory.addAndGet(-next.getValue().length);
                }
            }
            map.put(start, e.bytes());
            memory.addAndGet(e.bytes().length);
        }
    }

    /** Notes that bytes of an update became durable at clock time nanos. */
    synchronized void durable(long bytes, long nanos)
    {
        durableBytes += bytes;
        durableAtSum += (double) bytes * nanos;
    }

    /** {bytes, sum of bytes x (now - durable time)}: the buffer time of the unit's bytes when recycling starts. */
    synchronized double[] bufferTime(long now)
    {
        return new double[]{ durableBytes, durableBytes * (double) now - durableAtSum };
    }

    /** Copies the unit's bytes of (stripe, chunk) over buf, which holds [offset, offset+buf.length). */
    synchronized void overlay(long stripe, int chunk, int offset, byte[] buf)
    {
        int end = offset + buf.length;
        if (!merge)
        {
            for (Update u : raw.getOrDefault(stripe, List.of()))
                if (u.chunk() == chunk)
                    for (Extent e : u.extents())
                        copy(e.offset(), e.bytes(), offset, buf);
            return;
        }
        Map<Integer, TreeMap<Integer, byte[]>> s = index.get(stripe);
        TreeMap<Integer, byte[]> map = s == null ? null : s.get(chunk);
        if (map == null)
            return;
        Map.Entry<Integer, byte[]> first = map.floorEntry(offset);
        Integer from = first != null ? first.getKey() : offset;
        for (Map.Entry<Integer, byte[]> e : map.subMap(from, true, end, false).entrySet())
            copy(e.getKey(), e.getValue(), offset, buf);
    }

    private static void copy(int at, byte[] bytes, int offset, byte[] buf)
    {
        int a = Math.max(offset, at), b = Math.min(offset + buf.length, at + bytes.length);
        if (a < b)
            System.arraycopy(bytes, a - at, buf, a - offset, b - a);
    }

    synchronized List<Long> stripes()
    {
        return new ArrayList<>(merge ? index.keySet() : raw.keySet());
    }

    /** Merged units: the merged extents of one stripe per chunk, sorted by offset. */
    synchronized Map<Integer, List<Extent>> extents(long stripe)
    {
        Map<Integer, List<Extent>> out = new TreeMap<>();
        Map<Integer, TreeMap<Integer, byte[]>> s = index.get(stripe);
        if (s != null)
            for (Map.Entry<Integer, TreeMap<Integer, byte[]>> c : s.entrySet())
            {
                List<Extent> l = new ArrayList<>();
                for (Map.Entry<Integer, byte[]> e : c.getValue().entrySet())
                    l.add(new Extent(e.getKey(), e.getValue()));
                out.put(c.getKey(), l);
            }
        return out;
    }

    /** Raw units: the updates of one stripe in the order they were acknowledged. */
    synchronized List<Update> updates(long stripe)
    {
        return new ArrayList<>(raw.getOrDefault(stripe, List.of()));
    }

    long memory()
    {
        return memory.get();
    }

    synchronized boolean isEmpty()
    {
        return index.isEmpty() && raw.isEmpty();
    }
}
