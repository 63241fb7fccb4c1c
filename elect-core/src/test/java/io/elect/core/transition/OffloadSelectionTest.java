package io.elect.core.transition;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.elect.core.transition.OffloadSelection.Item;
import io.elect.core.transition.wire.TransitionMessages.OffloadRequest;
import io.elect.core.transition.wire.TransitionMessages.OffloadResult;
import io.elect.core.transition.wire.TransitionMessages.TableRef;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Golden cases of "oldest first, nearest to bytes", and the OFFLOAD payloads. */
class OffloadSelectionTest
{
    static final long NOW = 1_000_000;
    static final List<Item> ITEMS = List.of(new Item("c", 300, NOW - 100), new Item("a", 100, NOW - 500),
                                            new Item("b", 200, NOW - 500), new Item("d", 400, NOW - 10));

    static List<String> ids(long bytes, long minAge)
    {
        return OffloadSelection.oldestFirst(ITEMS, bytes, minAge, NOW).stream().map(Item::id).toList();
    }

    @Test
    void golden()
    {
        assertEquals(List.of(), ids(0, 0));
        assertEquals(List.of(), ids(-5, 0));
        assertEquals(List.of(), ids(49, 0));                 // nearest: less than half of the oldest (a, 100)
        assertEquals(List.of("a"), ids(50, 0));              // half of it: taken
        assertEquals(List.of("a"), ids(100, 0));             // exactly reached: stop
        assertEquals(List.of("a"), ids(199, 0));             // 99 missing < half of b (200)
        assertEquals(List.of("a", "b"), ids(200, 0));        // 100 missing = half of b: taken (overshoot by 100)
        assertEquals(List.of("a", "b", "c"), ids(600, 0));
        assertEquals(List.of("a", "b", "c"), ids(799, 0));   // 199 missing < half of d (400)
        assertEquals(List.of("a", "b", "c", "d"), ids(800, 0));
        assertEquals(List.of("a", "b", "c", "d"), ids(1L << 40, 0)); // not enough: everything
        assertEquals(List.of("a", "b", "c"), ids(1L << 40, 100));   // d is 10 ms old: too young
        assertEquals(List.of("a", "b"), ids(1L << 40, 101));
        assertEquals(List.of(), ids(1L << 40, 501));
        assertEquals(List.of(), OffloadSelection.oldestFirst(List.of(), 10, 0, NOW));
    }

    @Test
    void coldestFirstByReadRateThenAge()
    {
        List<Item> items = List.of(new Item("old-hot", 100, NOW - 900, 5.0), new Item("young-cold", 100, NOW - 10, 0.0),
                                   new Item("old-cold", 100, NOW - 800, 0.0), new Item("warm", 100, NOW - 700, 0.5));
        java.util.function.Function<List<Item>, List<String>> names = l -> l.stream().map(Item::id).toList();
        assertEquals(List.of("old-cold", "young-cold", "warm", "old-hot"),
                     names.apply(OffloadSelection.coldestFirst(items, 1L << 40, 0, Double.POSITIVE_INFINITY, NOW)));
        // files read more often than the cold threshold are not offloaded at all
        assertEquals(List.of("old-cold", "young-cold", "warm"), names.apply(OffloadSelection.coldestFirst(items, 1L << 40, 0, 1.0, NOW)));
        assertEquals(List.of("old-cold", "young-cold"), names.apply(OffloadSelection.coldestFirst(items, 1L << 40, 0, 0.01, NOW)));
        // nearest to the bytes asked, coldest first
        assertEquals(List.of("old-cold"), names.apply(OffloadSelection.coldestFirst(items, 120, 0, 1.0, NOW)));
        // the minimum age still applies
        assertEquals(List.of("old-cold", "warm"), names.apply(OffloadSelection.coldestFirst(items, 1L << 40, 100, 1.0, NOW)));
        // without rates, age decides (parity members)
        assertEquals(ids(1L << 40, 0), names.apply(OffloadSelection.coldestFirst(ITEMS, 1L << 40, 0, 0, NOW)));
    }

    @Test
    void payloadsRoundTrip()
    {
        OffloadRequest req = new OffloadRequest(new TableRef("ycsb", "usertable"), 123_456_789_000L, 86_400_000L);
        assertEquals(req, OffloadRequest.decode(req.encode()));
        OffloadResult res = new OffloadResult(42L << 30, 7);
        assertEquals(res, OffloadResult.decode(res.encode()));
        byte[] b = req.encode();
        assertThrows(IllegalArgumentException.class, () -> OffloadRequest.decode(java.util.Arrays.copyOf(b, b.length - 1)));
        assertThrows(IllegalArgumentException.class, () -> OffloadResult.decode(java.util.Arrays.copyOf(res.encode(), 12)));
        assertEquals(1 + 4 + 4 + 4 + 9 + 8 + 8, b.length); // version, "ycsb", "usertable", bytes, minAgeMillis
    }
}
