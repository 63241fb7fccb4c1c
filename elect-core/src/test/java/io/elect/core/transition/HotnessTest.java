package io.elect.core.transition;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import io.elect.core.transition.HotnessPolicy.SSTableInfo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Decayed read rates under a controlled clock, and golden cases of candidate selection. */
class HotnessTest
{
    private static final long HOUR = 3_600_000L;

    @Test
    void decayHalvesPerHalfLife()
    {
        AtomicLong now = new AtomicLong(1_000);
        HotnessTracker<String> t = new HotnessTracker<>(now::get, 10_000);
        t.record("a", 100);
        double r0 = t.rate("a");
        assertEquals(100 * Math.log(2) / 10.0, r0, 1e-9);
        now.addAndGet(10_000);
        assertEquals(r0 / 2, t.rate("a"), 1e-9);
        now.addAndGet(20_000);
        assertEquals(r0 / 8, t.rate("a"), 1e-9);
        t.record("a", 100);
        assertEquals(r0 / 8 + r0, t.rate("a"), 1e-9);
        assertEquals(0.0, t.rate("never"), 0.0);
    }

    @Test
    void steadyStreamConvergesToItsRate()
    {
        AtomicLong now = new AtomicLong();
        HotnessTracker<Integer> t = new HotnessTracker<>(now::get, 5_000);
        // 4 reads per second for 100 half-lives, recorded every 250 ms.
        for (int i = 0; i < 2_000; i++)
        {
            now.addAndGet(250);
            t.record(7, 1);
        }
        assertEquals(4.0, t.rate(7), 0.3);
        Map<Integer, Double> snap = t.snapshot();
        assertEquals(Set.of(7), snap.keySet());
        t.forget(7);
        assertEquals(0, t.size());
    }

    @Test
    void rejectsBadArguments()
    {
        assertThrows(IllegalArgumentException.class, () -> new HotnessTracker<String>(() -> 0, 0));
        HotnessTracker<String> t = new HotnessTracker<>(() -> 0, 1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.record("x", -1));
        assertTrue(e.getMessage().contains("reads"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new HotnessPolicy(0, 1, 0.5));
    }

    private static SSTableInfo s(String id, boolean last, int role, long ageMillis, double rate)
    {
        return new SSTableInfo(id, last ? 3 : 1, last, role, ageMillis, 1 << 20, rate);
    }

    private static List<String> ids(List<SSTableInfo> l)
    {
        return l.stream().map(SSTableInfo::id).collect(Collectors.toList());
    }

    @Test
    void goldenSelection()
    {
        HotnessPolicy p = new HotnessPolicy(HOUR, 0.1, 2.0);
        List<SSTableInfo> in = List.of(s("hot", true, 0, 5 * HOUR, 0.5),
                                       s("young", true, 0, HOUR - 1, 0.0),
                                       s("upper", false, 0, 9 * HOUR, 0.0),
                                       s("secondary", true, 1, 9 * HOUR, 0.0),
                                       s("warm", true, 0, 2 * HOUR, 0.1),
                                       s("cold-old", true, 0, 8 * HOUR, 0.0),
                                       s("cold-new", true, 0, 2 * HOUR, 0.0),
                                       s("cool", true, 0, 3 * HOUR, 0.05),
                                       s("edge-age", true, 0, HOUR, 0.02));
        HotnessPolicy.Selection sel = p.select(in, Set.of());
        // every eligible file is a candidate: the cold class first (coldest, then oldest), the hot one after it
        assertEquals(List.of("cold-old", "cold-new", "edge-age", "cool", "warm", "hot"), ids(sel.ordered()));
        assertEquals(Set.of("cold-old", "cold-new", "edge-age", "cool", "warm"), sel.cold());
        // a hot file far older than every cold one still comes after them: hotness orders before age
        List<SSTableInfo> aged = List.of(s("hot-ancient", true, 0, 100 * HOUR, 0.2), s("cold-young", true, 0, HOUR, 0.0));
        assertEquals(List.of("cold-young", "hot-ancient"), ids(p.select(aged, Set.of()).ordered()));
    }

    @Test
    void hysteresisKeepsCandidatesUntilTwiceTheEnterRate()
    {
        HotnessPolicy p = new HotnessPolicy(0, 0.1, 2.0);
        List<SSTableInfo> round2 = List.of(s("a", true, 0, 1, 0.15), s("b", true, 0, 1, 0.15), s("c", true, 0, 1, 0.25));
        // a was cold: stays (0.15 <= 0.2); b was not: does not enter (0.15 > 0.1); c exceeds 0.2: leaves. All three
        // remain candidates, the cold class first.
        HotnessPolicy.Selection sel = p.select(round2, Set.of("a", "c"));
        assertEquals(Set.of("a"), sel.cold());
        assertEquals(List.of("a", "b", "c"), ids(sel.ordered()));
        // hysteresis also orders: a file that stayed cold at 0.15 goes before a cooler one that has not entered yet
        List<SSTableInfo> round3 = List.of(s("a", true, 0, 1, 0.15), s("d", true, 0, 1, 0.12));
        assertEquals(List.of("a", "d"), ids(p.select(round3, Set.of("a")).ordered()));
        assertEquals(List.of("d", "a"), ids(p.select(round3, Set.of()).ordered()));
        // Oscillating around the enter rate never flaps once selected.
        Set<String> prev = Set.of();
        int changes = 0;
        boolean was = false;
        for (int i = 0; i < 50; i++)
        {
            double rate = 0.1 + ((i % 2 == 0) ? -0.05 : 0.05);
            Set<String> cold = p.select(List.of(s("x", true, 0, 1, rate)), prev).cold();
            boolean is = !cold.isEmpty();
            if (is != was)
                changes++;
            was = is;
            prev = is ? Set.of("x") : Set.of();
        }
        assertEquals(1, changes);
    }
}
