package io.elect.tsue.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Clients racing on the same bytes of one stripe: the winner is unspecified, but every page must hold one whole
 * written value, reads must agree before and after drain, and a restarted engine (recover) must agree too.
 */
class SameStripeConcurrencyTest
{
    @ParameterizedTest
    @MethodSource("io.elect.tsue.engine.Fixture#variants")
    void racingWritersAgreeEverywhere(String policy) throws Exception
    {
        Fixture f = new Fixture(Fixture.small(policy, 2), 1);
        int page = f.cfg.pageSize, threads = 4, rounds = 60;
        byte[] before, drained;
        try (UpdateEngine e = f.engine(false))
        {
            f.create(e, new java.util.Random(11));
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++)
            {
                int id = t;
                fs.add(pool.submit(() -> {
                    for (int i = 0; i < rounds; i++)
                    {
                        byte[] b = new byte[2 * page];
                        Arrays.fill(b, (byte) (id * rounds + i + 1));
                        e.update(0, 1, page * (i % 3), b);
                    }
                    return null;
                }));
            }
            for (Future<?> x : fs)
                x.get();
            pool.shutdown();
            before = e.read(0, 1, 0, f.cfg.chunkSize);
            for (int p = 0; p < 4; p++)
            {
                byte v = before[p * page];
                for (int i = 0; i < page; i++)
                    assertTrue(before[p * page + i] == v, policy + ": page " + p + " mixes values");
            }
            e.drain();
            drained = e.read(0, 1, 0, f.cfg.chunkSize);
            assertArrayEquals(before, drained, policy + ": drain changed what reads return");
            assertTrue(e.parityConsistent(0), policy + ": parity after drain");
        }
        try (UpdateEngine again = f.engine(false))
        {
            again.recover();
            assertArrayEquals(before, again.read(0, 1, 0, f.cfg.chunkSize), policy + ": restart changed the data");
        }
    }
}
