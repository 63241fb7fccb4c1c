package io.elect.tsue.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every policy against a byte-exact model: reads always current, parity equal to a re-encode after drain. */
class EngineModelTest
{
    @ParameterizedTest
    @MethodSource("io.elect.tsue.engine.Fixture#variants")
    void randomUpdatesMatchModel(String policy) throws Exception
    {
        long seed = System.nanoTime();
        System.out.println("EngineModelTest " + policy + " seed=" + seed);
        Random rnd = new Random(seed);
        Fixture f = new Fixture(Fixture.small(policy, 0), 3);
        try (UpdateEngine e = f.engine(false))
        {
            f.create(e, rnd);
            for (int i = 0; i < 300; i++)
            {
                Fixture.Op op = f.randomOp(rnd);
                e.update(op.stripe(), op.chunk(), op.extents());
                f.apply(op);
                if (i % 50 == 0)
                    f.assertReads(e, policy + " seed " + seed + " op " + i);
                int s = rnd.nextInt(f.stripes), c = rnd.nextInt(4), off = rnd.nextInt(60000);
                assertArrayEquals(Arrays.copyOfRange(f.model[s][c], off, off + 4000), e.read(s, c, off, 4000),
                                  policy + " seed " + seed);
            }
            f.assertReads(e, policy + " before drain, seed " + seed);
            // degraded reads with m chunks lost, before draining the logs
            for (int t = 0; t < 6; t++)
            {
                Set<Integer> lost = new HashSet<>();
                while (lost.size() < 2)
                    lost.add(rnd.nextInt(6));
                int s = rnd.nextInt(f.stripes), c = rnd.nextInt(4);
                assertArrayEquals(f.model[s][c], e.degradedRead(s, c, 0, f.cfg.chunkSize, lost),
                                  policy + " degraded read lost=" + lost + " seed " + seed);
            }
            e.drain();
            for (int s = 0; s < f.stripes; s++)
                assertTrue(e.parityConsistent(s), policy + " parity of stripe " + s + " seed " + seed);
            f.assertReads(e, policy + " after drain, seed " + seed);
        }
    }

    @ParameterizedTest
    @MethodSource("io.elect.tsue.engine.Fixture#variants")
    void concurrentClientsWithBackgroundRecycling(String policy) throws Exception
    {
        long seed = System.nanoTime();
        System.out.println("EngineModelTest concurrent " + policy + " seed=" + seed);
        Fixture f = new Fixture(Fixture.small(policy, 2), 4);
        try (UpdateEngine e = f.engine(false))
        {
            f.create(e, new Random(seed));
            ExecutorService clients = Executors.newFixedThreadPool(4);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++)
            {
                int stripe = t;   // each client owns one stripe, so the model needs no ordering across clients
                Random rnd = new Random(seed + t);
                done.add(clients.submit(() -> {
                    for (int i = 0; i < 150; i++)
                    {
                        Fixture.Op op = f.randomOp(rnd);
                        op = new Fixture.Op(stripe, op.chunk(), op.extents());
                        e.update(op.stripe(), op.chunk(), op.extents());
                        synchronized (f)
                        {
                            f.apply(op);
                        }
                        int off = rnd.nextInt(60000);
                        byte[] expect;
                        synchronized (f)
                        {
                            expect = Arrays.copyOfRange(f.model[stripe][op.chunk()], off, off + 4096);
                        }
                        assertArrayEquals(expect, e.read(stripe, op.chunk(), off, 4096));
                    }
                    return null;
                }));
            }
            for (Future<?> d : done)
                d.get();
            clients.shutdown();
            f.assertReads(e, policy + " concurrent seed " + seed);
            e.drain();
            for (int s = 0; s < f.stripes; s++)
                assertTrue(e.parityConsistent(s), policy + " parity of stripe " + s + " seed " + seed);
            f.assertReads(e, policy + " concurrent after drain seed " + seed);
            assertTrue(e.peakLogMemoryBytes() > 0 || policy.equals("IN_PLACE"), "peak log memory tracked");
            assertEquals(policy.startsWith("TSUE") ? UpdatePolicy.TSUE : UpdatePolicy.valueOf(policy), e.config().policy);
        }
    }
}
