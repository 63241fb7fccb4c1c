package io.elect.tsue.engine;

import java.util.ArrayList;
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
 * One unit of the TSUE data-log pool: the durable records live in files {@code dlog-<id>} on the data and replica
 * nodes of each updated chunk; in memory a two-level index (stripe, then chunk) of merged extents: a newer update
 * overwrites the overlapped bytes of older ones (temporal merging), so recycling sees each byte once.
 *
 * <p>Appenders hold the read side of {@link #appenders} while appending and indexing; recycling takes the write
 * side once, after the unit left the active slot, to wait for the last in-flight append. The index is guarded by
 * the unit's monitor.
 */
final class LogUnit
{
    final long id;
    final ReentrantReadWriteLock appenders = new ReentrantReadWriteLock();
    final Set<Integer> nodes = ConcurrentHashMap.newKeySet();
    /** Payload bytes appended (the fill level that seals the unit). */
    final AtomicLong appended = new AtomicLong();
    private final Map<Long, Map<Integer, TreeMap<Integer, byte[]>>> index = new HashMap<>();
    private long memory;
    int pendingParts;
    volatile long sealedNanos = System.nanoTime();

    LogUnit(long id)
    {
        this.id = id;
    }

    String file()
    {
        return "dlog-" + id;
    }

    /** Inserts extents of (stripe, chunk), newest last: they replace any overlapped older bytes. */
    synchronized void insert(long stripe, int chunk, List<Extent> extents)
    {
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
                map.put(lower.getKey(), java.util.Arrays.copyOf(old, start - lower.getKey()));
                if (oldEnd > end)
                    map.put(end, java.util.Arrays.copyOfRange(old, end - lower.getKey(), old.length));
                memory -= Math.min(oldEnd, end) - start;
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
                    map.put(end, java.util.Arrays.copyOfRange(next.getValue(), end - next.getKey(), next.getValue().length));
                    memory -= end - next.getKey();
                }
                else
                {
                    memory -= next.getValue().length;
                }
            }
            map.put(start, e.bytes());
            memory += e.bytes().length;
        }
    }

    /** Copies the unit's bytes of (stripe, chunk) over buf, which holds [offset, offset+buf.length). */
    synchronized void overlay(long stripe, int chunk, int offset, byte[] buf)
    {
        Map<Integer, TreeMap<Integer, byte[]>> s = index.get(stripe);
        TreeMap<Integer, byte[]> map = s == null ? null : s.get(chunk);
        if (map == null)
            return;
        int end = offset + buf.length;
        Map.Entry<Integer, byte[]> first = map.floorEntry(offset);
        Integer from = first != null ? first.getKey() : offset;
        for (Map.Entry<Integer, byte[]> e : map.subMap(from, true, end, false).entrySet())
        {
            int a = Math.max(offset, e.getKey()), b = Math.min(end, e.getKey() + e.getValue().length);
            if (a < b)
                System.arraycopy(e.getValue(), a - e.getKey(), buf, a - offset, b - a);
        }
    }

    synchronized List<Long> stripes()
    {
        return new ArrayList<>(index.keySet());
    }

    /** The merged extents of one stripe per chunk, sorted by offset. */
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

    synchronized long memory()
    {
        return memory;
    }

    synchronized boolean isEmpty()
    {
        return index.isEmpty();
    }
}
