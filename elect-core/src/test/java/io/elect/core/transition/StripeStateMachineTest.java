package io.elect.core.transition;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.elect.core.transition.StripeFormer.Member;
import io.elect.core.transition.StripeStore.Outcome;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The stripe record format, the store contract, the state machine, and seeded crash-point recovery. */
class StripeStateMachineTest
{
    private static final long SEED = Long.getLong("elect.test.seed", 8_2026L);

    static StripeRecord record(int i)
    {
        List<Member> members = List.of(new Member("10.0.0.1", "nb-" + i + "-big", 4000), new Member("10.0.0.2", "nb-7-big", 4096),
                                       new Member("10.0.0.3", "nb-9-big", 1), Member.virtual());
        StripeId id = StripeId.ofMembers(List.of("t" + i));
        return new StripeRecord(id, "rs-cauchy-gf8-11d:k=4:m=2", 4, 2, 4096, members, List.of("10.0.0.5", "10.0.0.6"),
                                StripeState.PLANNED, 1, 1000 + i);
    }

    @Test
    void codecRoundTripsAndDetectsCorruption()
    {
        StripeRecord r = record(1).moveTo(StripeState.CHUNKS_SHIPPED, 5000);
        byte[] b = StripeRecordCodec.encode(r);
        assertEquals(r, StripeRecordCodec.decode(b));
        assertArrayEquals(b, StripeRecordCodec.encode(StripeRecordCodec.decode(b)));
        Random rnd = new Random(SEED);
        for (int i = 0; i < 200; i++)
        {
            byte[] c = b.clone();
            c[rnd.nextInt(c.length)] ^= (byte) (1 << rnd.nextInt(8));
            assertThrows(StripeRecordCodec.CorruptRecordException.class, () -> StripeRecordCodec.decode(c));
        }
        assertThrows(StripeRecordCodec.CorruptRecordException.class,
                     () -> StripeRecordCodec.decode(java.util.Arrays.copyOf(b, b.length - 1)));
        // Golden header: magic "ESTR", version 1, then the 16 id bytes, then the state code.
        assertEquals('E', b[0]);
        assertEquals('R', b[3]);
        assertEquals(1, b[4]);
        assertEquals(StripeState.CHUNKS_SHIPPED.code, b[21]);
    }

    @Test
    void storeContractIdempotentTransitions()
    {
        StripeStore s = new InMemoryStripeStore();
        storeContract(s);
    }

    /** Shared with the Cassandra-backed store's test. */
    static void storeContract(StripeStore s)
    {
        StripeRecord r = record(2);
        assertEquals(Outcome.APPLIED, s.create(r));
        assertEquals(Outcome.ALREADY, s.create(r));
        StripeRecord other = new StripeRecord(r.id(), "rs-cauchy-gf8-11d:k=4:m=2", 4, 2, 8192, r.members(), r.parityNodes(),
                                              StripeState.PLANNED, 1, 0);
        assertEquals(Outcome.CONFLICT, s.create(other));
        assertEquals(Outcome.APPLIED, s.transition(r.id(), StripeState.PLANNED, StripeState.CHUNKS_SHIPPED, 2000));
        assertEquals(Outcome.ALREADY, s.transition(r.id(), StripeState.PLANNED, StripeState.CHUNKS_SHIPPED, 2001));
        assertEquals(Outcome.CONFLICT, s.transition(r.id(), StripeState.PLANNED, StripeState.ROLLING_BACK, 2002));
        StripeRecord got = s.get(r.id()).orElseThrow();
        assertEquals(StripeState.CHUNKS_SHIPPED, got.state());
        assertEquals(2, got.version());
        assertEquals(2000, got.updatedAtMillis());
        assertTrue(got.samePlan(r));
        assertThrows(IllegalArgumentException.class, () -> s.transition(r.id(), StripeState.CHUNKS_SHIPPED, StripeState.COMMITTED, 1));
        assertEquals(Outcome.CONFLICT, s.transition(StripeId.ofMembers(List.of("absent")), StripeState.PLANNED,
                                                    StripeState.CHUNKS_SHIPPED, 1));
        assertEquals(Optional.empty(), s.get(StripeId.ofMembers(List.of("absent"))));
        assertThrows(IllegalStateException.class, () -> s.delete(r.id()));
        assertEquals(Outcome.APPLIED, s.transition(r.id(), StripeState.CHUNKS_SHIPPED, StripeState.ROLLING_BACK, 3000));
        assertEquals(Outcome.APPLIED, s.transition(r.id(), StripeState.ROLLING_BACK, StripeState.ROLLED_BACK, 3001));
        assertTrue(s.list().stream().anyMatch(x -> x.id().equals(r.id()) && x.state() == StripeState.ROLLED_BACK));
        assertTrue(s.delete(r.id()));
        assertFalse(s.delete(r.id()));
        assertTrue(s.get(r.id()).isEmpty());
    }

    @Test
    void happyPathAndRollbackOnEarlyFailure()
    {
        InMemoryStripeStore store = new InMemoryStripeStore();
        ModelParticipant p = new ModelParticipant(store, SEED);
        AtomicLong clock = new AtomicLong(10_000);
        StripeStateMachine sm = new StripeStateMachine(store, p, clock::incrementAndGet);
        StripeRecord a = record(3);
        assertEquals(StripeState.COMMITTED, sm.run(a));
        assertEquals(5, store.get(a.id()).orElseThrow().version(), "one version per transition");
        assertTrue(p.committed.contains(a.id()) && p.stubbed.contains(a.id()) && p.parity.contains(a.id()));
        assertFalse(p.shipped.contains(a.id()), "shipped chunks are temporary");
        // Running it again is a no-op.
        assertEquals(StripeState.COMMITTED, sm.run(a));
        assertEquals(1, p.calls.get("commit"));

        StripeRecord b = record(4);
        ModelParticipant q = p;
        StripeStateMachine failing = new StripeStateMachine(store, new StripeParticipant()
        {
            public void shipChunks(StripeRecord s) { q.shipChunks(s); }
            public void writeParity(StripeRecord s) { throw new RuntimeException("parity node down"); }
            public void stubSecondaries(StripeRecord s) { q.stubSecondaries(s); }
            public void commit(StripeRecord s) { q.commit(s); }
            public void rollback(StripeRecord s) { q.rollback(s); }
        }, clock::incrementAndGet);
        assertEquals(StripeState.ROLLED_BACK, failing.run(b));
        assertFalse(p.shipped.contains(b.id()) || p.parity.contains(b.id()));
    }

    /**
     * Crash at every seeded point of a run of several stripes (store or participant, before or after the effect),
     * then restart: recovery must end every stripe COMMITTED or ROLLED_BACK with no orphan and every invariant held.
     * A second crash during recovery is included for a part of the runs.
     */
    @Test
    void seededCrashPointsAlwaysEndTerminalWithoutOrphans()
    {
        System.out.println("StripeStateMachineTest seed=" + SEED + " (rerun with -Delect.test.seed=" + SEED + ")");
        Random rnd = new Random(SEED);
        int committedRuns = 0, rolledBackRuns = 0;
        for (int run = 0; run < 400; run++)
        {
            long runSeed = rnd.nextLong();
            Random r = new Random(runSeed);
            InMemoryStripeStore durable = new InMemoryStripeStore();
            ModelParticipant model = new ModelParticipant(durable, runSeed);
            boolean crashStore = r.nextBoolean();
            FaultInjectingStripeStore store = new FaultInjectingStripeStore(durable, runSeed, 0.05, 0.05,
                                                                            crashStore ? r.nextInt(40) : -1);
            model.failRate = 0.05;
            if (!crashStore)
                model.crashAtOp = r.nextInt(16);
            AtomicLong clock = new AtomicLong();
            StripeStateMachine sm = new StripeStateMachine(store, model, clock::incrementAndGet);
            List<StripeRecord> stripes = new ArrayList<>();
            for (int i = 0; i < 3; i++)
                stripes.add(record(100 * run + i));
            for (StripeRecord s : stripes)
            {
                try
                {
                    sm.run(s);
                }
                catch (RuntimeException e)
                {
                    // a fault or the crash: the process goes on with the next stripe, or is dead (everything fails)
                }
            }
            // Restart, possibly crashing once more during recovery; then a clean recovery.
            model.failRate = 0;
            model.crashAtOp = r.nextBoolean() ? model.ops + r.nextInt(4) : -1;
            StripeStateMachine restarted = new StripeStateMachine(durable, model, clock::incrementAndGet);
            try
            {
                StripeRecovery.recover(durable, restarted);
            }
            catch (RuntimeException e)
            {
                // crashed during recovery
            }
            model.crashAtOp = -1;
            StripeRecovery.Summary sum = StripeRecovery.recover(durable, restarted);
            assertTrue(sum.pending().isEmpty(), "run seed " + runSeed);
            for (StripeRecord s : stripes)
            {
                Optional<StripeRecord> row = durable.get(s.id());
                String ctx = "stripe " + s.id() + " run seed " + runSeed;
                if (row.isPresent())
                {
                    assertEquals(StripeState.COMMITTED, row.get().state(), ctx);
                    assertTrue(model.committed.contains(s.id()) && model.stubbed.contains(s.id()), ctx);
                    assertTrue(model.parity.contains(s.id()) && model.coldObjects.contains(s.id()), ctx);
                    assertFalse(model.shipped.contains(s.id()), ctx + ": shipped chunks left behind");
                    committedRuns++;
                }
                else
                {
                    // Rolled back and its row garbage-collected (or never created): no trace may remain.
                    assertFalse(model.shipped.contains(s.id()) || model.parity.contains(s.id())
                                || model.coldObjects.contains(s.id()) || model.stubbed.contains(s.id())
                                || model.committed.contains(s.id()), ctx + ": orphan left");
                    rolledBackRuns++;
                }
            }
            // Recovery again changes nothing.
            StripeRecovery.Summary again = StripeRecovery.recover(durable, restarted);
            assertEquals(0, again.committed() + again.rolledBack() + again.removed(), "run seed " + runSeed);
        }
        System.out.println("crash runs: " + committedRuns + " stripes committed, " + rolledBackRuns + " rolled back");
        assertTrue(committedRuns > 50 && rolledBackRuns > 50, "both outcomes exercised: " + committedRuns + "/" + rolledBackRuns);
    }
}
