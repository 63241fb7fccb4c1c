package io.elect.core.transition;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What an OFFLOAD_PARITY / OFFLOAD_PRIMARY request moves to the cold tier: among the items at least
 * {@code minAgeMillis} old and not hot (read rate at most {@code maxReadRate}), the coldest first (lowest read rate,
 * then oldest, then by id, so that a retried request picks the same items), the prefix whose bytes come NEAREST to
 * {@code bytes}: an item is taken while what is still missing is at least half of it (files are indivisible; rounding
 * to the nearest keeps the planner from overshooting alpha by a whole file per node). Nothing when
 * {@code bytes <= 0}; everything eligible when they do not reach it. Pure.
 */
public final class OffloadSelection
{
    /** A hot-tier item: its id, its bytes, when it was last modified (epoch millis) and its read rate (reads/s). */
    public record Item(String id, long bytes, long modifiedMillis, double readRate)
    {
        /** An item nobody reads directly (parity): ordered by age alone. */
        public Item(String id, long bytes, long modifiedMillis)
        {
            this(id, bytes, modifiedMillis, 0);
        }
    }

    private OffloadSelection()
    {
    }

    public static List<Item> oldestFirst(List<Item> items, long bytes, long minAgeMillis, long nowMillis)
    {
        return coldestFirst(items, bytes, minAgeMillis, Double.POSITIVE_INFINITY, nowMillis);
    }

    public static List<Item> coldestFirst(List<Item> items, long bytes, long minAgeMillis, double maxReadRate, long nowMillis)
    {
        List<Item> out = new ArrayList<>();
        if (bytes <= 0)
            return out;
        List<Item> eligible = new ArrayList<>();
        for (Item i : items)
            if (nowMillis - i.modifiedMillis() >= minAgeMillis && i.readRate() <= maxReadRate)
                eligible.add(i);
        eligible.sort(Comparator.comparingDouble(Item::readRate).thenComparingLong(Item::modifiedMillis).thenComparing(Item::id));
        long sum = 0;
        for (Item i : eligible)
        {
            if (bytes - sum < (i.bytes() + 1) / 2)
                break;
            out.add(i);
            sum += i.bytes();
        }
        return out;
    }
}
