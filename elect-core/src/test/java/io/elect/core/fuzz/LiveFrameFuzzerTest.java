package io.elect.core.fuzz;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import io.elect.core.transport.Verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The live-node fuzzer (scripts/fuzz transport) mutates a valid payload of each verb: a verb without one is only ever
 * reached with random bytes, so its decoder and handler are barely exercised. This fails when a verb is added to
 * {@link Verbs} without a seed (as happened for the member-change verbs).
 */
class LiveFrameFuzzerTest
{
    @Test
    void everyVerbHasAPayloadSeed() throws IllegalAccessException
    {
        Map<Integer, List<byte[]>> seeds = LiveFrameFuzzer.payloadSeeds();
        TreeSet<String> missing = new TreeSet<>();
        int verbs = 0;
        for (Field f : Verbs.class.getFields())
        {
            if (f.getType() != int.class || !Modifier.isStatic(f.getModifiers()))
                continue;
            verbs++;
            int verb = f.getInt(null);
            List<byte[]> s = seeds.get(verb);
            if (s == null || s.isEmpty() || s.stream().anyMatch(b -> b == null || b.length == 0))
                missing.add(f.getName());
        }
        assertFalse(verbs < 19, "found only " + verbs + " verb constants");
        assertEquals(new TreeSet<>(), missing, "verbs without a payload seed in LiveFrameFuzzer.payloadSeeds()");
        assertEquals(verbs, seeds.size(), "payloadSeeds() has seeds for numbers that are not verbs: " + seeds.keySet());
    }

    @Test
    void stripeRefHasADecoderTarget()
    {
        assertNotNull(Targets.messages().stream().filter(t -> t.name().equals("verb-stripe-ref")).findFirst().orElse(null));
    }
}
