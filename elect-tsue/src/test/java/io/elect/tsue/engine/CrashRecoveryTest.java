package io.elect.tsue.engine;

import java.io.IOException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.elect.tsue.fs.MemFileLayer;
import io.elect.tsue.fs.SimulatedCrashException;
import io.elect.tsue.log.TxRecord.Extent;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Crash consistency per policy: a seed picks a crash point among the cluster's mutating file operations; every node
 * then loses its unsynced bytes. After recovery on a fresh engine: (a) every acknowledged update reads back (the
 * update in flight at the crash reads back entirely old or entirely new); losing any m chunks still yields that
 * data; for TSUE and DPU, so does losing every log file of one node (their logs are replicated on 2 nodes);
 * (b) after draining, parity equals a full re-encode of the data.
 */
class CrashRecoveryTest
{
    private static final int ROUNDS = Integer.getInteger("tsue.crash.rounds", 12);

    @ParameterizedTest
    @MethodSource("io.elect.tsue.engine.Fixture#variants")
    void recoversFromSeededCrashPoints(String policy) throws Exception
    {
        long base = System.nanoTime();
        for (int round = 0; round < ROUNDS; round++)
        {
            long seed = base + round;
            try
            {
                crashAndRecover(policy, seed, round % 3 == 2);
            }
            catch (AssertionError | Exception e)
            {
                throw new AssertionError(policy + " failed with seed=" + seed + " (round " + round + ")", e);
            }
        }
        System.out.println("CrashRecoveryTest " + policy + " seeds " + base + ".." + (base + ROUNDS - 1) + " passed");
    }

    private void crashAndRecover(String policy, long seed, boolean loseLogReplica) throws Exception
    {
        int ops = 120;
        // dry run: how many mutating operations does this seed's workload make?
        long total;
        {
            Fixture dry = new Fixture(Fixture.small(policy, 0), 3);
            Random rnd = new Random(seed);
            try (UpdateEngine e = dry.engine(true))
            {
                dry.create(e, rnd);
                dry.clock.arm(Long.MAX_VALUE);
                for (int i = 0; i < ops; i++)
                {
                    rnd.nextInt();
                    Fixture.Op op = dry.randomOp(rnd);
                    e.update(op.stripe(), op.chunk(), op.extents());
                }
            }
            total = dry.clock.ops();
        }
        Random pick = new Random(seed ^ 0x5DEECE66DL);
        long crashAt = 1 + (long) (pick.nextDouble() * total);
        Fixture f = new Fixture(Fixture.small(policy, 0), 3);
        Random rnd = new Random(seed);
        Fixture.Op inFlight = null;
        try (UpdateEngine e = f.engine(true))
        {
            f.create(e, rnd);
            f.clock.arm(crashAt);
            for (int i = 0; i < ops; i++)
            {
                rnd.nextInt();   // keep the op stream identical to the dry run's
                Fixture.Op op = f.randomOp(rnd);
                try
                {
                    e.update(op.stripe(), op.chunk(), op.extents());
                }
                catch (SimulatedCrashException | java.io.UncheckedIOException ex)
                {
                    inFlight = op;
                    break;
                }
                f.apply(op);
            }
        }
        catch (IOException closing)
        {
            // closing a crashed engine may fail; the files are what matters
        }
        for (MemFileLayer m : f.mem)
            m.crash();
        f.clock.restart();
        if (loseLogReplica && (policy.startsWith("TSUE") || policy.equals("DPU")))
        {
            // every replicated log file of one node: data-log units, delta-log copies, differential pages
            MemFileLayer victim = f.mem.get(pick.nextInt(f.mem.size()));
            for (String name : victim.list())
                if (name.startsWith("dlog-") || name.startsWith("dpu-") || name.startsWith("tdelta-")
                    || name.startsWith("tdrep-"))
                    victim.delete(name);
        }
        try (UpdateEngine e = f.engine(false))
        {
            e.recover();
            resolveInFlight(f, e, inFlight);
            f.assertReads(e, policy + " after recovery (crash at op " + crashAt + " of " + total + ")");
            Random lose = new Random(seed);
            for (int t = 0; t < 4; t++)
            {
                Set<Integer> lost = new HashSet<>();
                while (lost.size() < f.cfg.m)
                    lost.add(lose.nextInt(f.cfg.k + f.cfg.m));
                int s = lose.nextInt(f.stripes), c = lose.nextInt(f.cfg.k);
                byte[] got = e.degradedRead(s, c, 0, f.cfg.chunkSize, lost);
                if (!Arrays.equals(f.model[s][c], got))
                    fail("degraded read of stripe " + s + " chunk " + c + " with lost " + lost + " differs at "
                         + Arrays.mismatch(f.model[s][c], got));
            }
            e.drain();
            for (int s = 0; s < f.stripes; s++)
                assertTrue(e.parityConsistent(s), "parity of stripe " + s + " after recovery and drain");
            f.assertReads(e, policy + " after drain");
        }
    }

    /** The update in flight at the crash must be all old or all new; the model adopts what survived. */
    private static void resolveInFlight(Fixture f, UpdateEngine e, Fixture.Op op) throws IOException
    {
        if (op == null)
            return;
        boolean allNew = true, allOld = true;
        for (Extent x : op.extents())
        {
            byte[] got = e.read(op.stripe(), op.chunk(), x.offset(), x.bytes().length);
            byte[] old = Arrays.copyOfRange(f.model[op.stripe()][op.chunk()], x.offset(), x.end());
            allNew &= Arrays.equals(got, x.bytes());
            allOld &= Arrays.equals(got, old);
        }
        if (!allNew && !allOld)
            fail("update in flight at the crash is partly applied");
        if (allNew)
            f.apply(op);
    }
}
