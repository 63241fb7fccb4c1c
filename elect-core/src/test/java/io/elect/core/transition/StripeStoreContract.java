package io.elect.core.transition;

import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.elect.core.transition.StripeStore.Outcome;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@link StripeStore} contract and the crash-point procedure, shared by the tests of every store. */
public final class StripeStoreContract
{
    private StripeStoreContract()
    {
    }

    /** Create, idempotent transitions, conflicts, illegal moves, list, garbage collection. */
    public static void basic(StripeStore s)
    {
        StripeRecord r = StripeStateMachineTest.record(2);
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
        replan(s);
        drains(s);
    }

    /** Drain marks: the first mark's time stays, unmarking is idempotent, marks of several nodes are independent. */
    public static void drains(StripeStore s)
    {
        assertFalse(s.draining().containsKey("10.0.0.9"));
        s.markDraining("10.0.0.9", 1000);
        s.markDraining("10.0.0.9", 2000); // a retry or a second electtool decommission keeps the first time
        s.markDraining("10.0.0.8", 3000);
        assertEquals(1000L, s.draining().get("10.0.0.9"));
        assertEquals(3000L, s.draining().get("10.0.0.8"));
        s.unmarkDraining("10.0.0.9");
        s.unmarkDraining("10.0.0.9");
        assertFalse(s.draining().containsKey("10.0.0.9"));
        assertEquals(3000L, s.draining().get("10.0.0.8"));
        s.unmarkDraining("10.0.0.8");
        assertTrue(s.draining().isEmpty());
    }

    /** Plan changes: compare-and-set on the version, idempotent retries, conflicts, refused shapes. */
    static void replan(StripeStore s)
    {
        StripeRecord r = StripeStateMachineTest.record(3);
        assertEquals(Outcome.APPLIED, s.create(r));
        StripeRecord planned = s.get(r.id()).orElseThrow();
        java.util.List<io.elect.core.stripes.Member> narrowed = new ArrayList<>(planned.members());
        narrowed.set(1, io.elect.core.stripes.Member.virtual());
        StripeRecord next = planned.replan(narrowed, planned.parityNodes(), 1, StripeState.PLANNED, 4000);
        assertEquals(Outcome.APPLIED, s.replan(planned, next));
        assertEquals(Outcome.ALREADY, s.replan(planned, next), "a retry after an unknown outcome");
        StripeRecord got = s.get(r.id()).orElseThrow();
        assertTrue(got.samePlan(next));
        assertEquals(1, got.parityGeneration());
        assertEquals(planned.version() + 1, got.version());
        assertTrue(got.members().get(1).isVirtual());
        // A writer that read the old version loses, whatever it wanted to write.
        StripeRecord stale = planned.replan(planned.members(), planned.parityNodes(), 2, StripeState.PLANNED, 4001);
        assertEquals(Outcome.CONFLICT, s.replan(planned, stale));
        assertEquals(1, s.get(r.id()).orElseThrow().parityGeneration(), "a lost compare-and-set changes nothing");
        // A plan change may carry a legal state change, never an illegal one nor another codec shape.
        StripeRecord shipped = got.replan(got.members(), got.parityNodes(), 2, StripeState.CHUNKS_SHIPPED, 4002);
        assertEquals(Outcome.APPLIED, s.replan(got, shipped));
        assertEquals(StripeState.CHUNKS_SHIPPED, s.get(r.id()).orElseThrow().state());
        assertThrows(IllegalArgumentException.class,
                     () -> s.replan(shipped, shipped.replan(shipped.members(), shipped.parityNodes(), 3, StripeState.COMMITTED, 1)));
        assertThrows(IllegalArgumentException.class, () -> s.replan(shipped, shipped.moveTo(StripeState.PARITY_BUILT, 1).moveTo(StripeState.STUBS_INSTALLED, 1)));
        StripeRecord absent = StripeStateMachineTest.record(4);
        assertEquals(Outcome.CONFLICT, s.replan(absent, absent.replan(absent.members(), absent.parityNodes(), 1, StripeState.PLANNED, 1)));
        assertEquals(Outcome.APPLIED, s.transition(r.id(), StripeState.CHUNKS_SHIPPED, StripeState.ROLLING_BACK, 5000));
        assertEquals(Outcome.APPLIED, s.transition(r.id(), StripeState.ROLLING_BACK, StripeState.ROLLED_BACK, 5001));
        assertEquals(2, s.get(r.id()).orElseThrow().parityGeneration(), "transitions keep the plan's generation");
        assertTrue(s.delete(r.id()));
    }

    /**
     * Crash at a seeded point of a run of three stripes (store or participant, before or after the effect, plus
     * transient faults; in half of the runs a retirement of the first stripe), then restart: recovery must end every
     * stripe COMMITTED, ROLLED_BACK or RETIRED (rows of the last two removed) with no
     * orphan and every invariant held (checked by {@link ModelParticipant}); a crash during recovery is included for
     * part of the runs; a second recovery changes nothing. {@code stores} gives an EMPTY durable store per run
     * (or one whose rows of other runs do not collide: stripe ids differ per run).
     */
    public static void crashRecovery(Supplier<StripeStore> stores, long seed, int runs)
    {
        // Hundreds of stripes, each logging one INFO line per transition: keep the test output readable.
        ch.qos.logback.classic.Logger log = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("io.elect.core.transition");
        ch.qos.logback.classic.Level before = log.getLevel();
        log.setLevel(ch.qos.logback.classic.Level.WARN);
        try
        {
            crashRuns(stores, seed, runs);
        }
        finally
        {
            log.setLevel(before);
        }
    }

    private static void crashRuns(Supplier<StripeStore> stores, long seed, int runs)
    {
        System.out.println("crash-point runs, seed=" + seed + " (rerun with -Delect.test.seed=" + seed + ")");
        Random rnd = new Random(seed);
        int committedRuns = 0, rolledBackRuns = 0, retiredRuns = 0, changedRuns = 0;
        for (int run = 0; run < runs; run++)
        {
            long runSeed = rnd.nextLong();
            Random r = new Random(runSeed);
            StripeStore durable = stores.get();
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
                stripes.add(StripeStateMachineTest.record((int) (runSeed % 1_000_000) * 10 + i));
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
            // In half of the runs the first stripe, if it committed, is retired (its files fully shadowed), with the
            // same faults and crash point: recovery must finish a RETIRING stripe forward.
            boolean retireFirst = r.nextBoolean();
            if (retireFirst)
            {
                try
                {
                    sm.retire(stripes.get(0).id());
                }
                catch (RuntimeException e)
                {
                    // a fault, the crash, or no row (the stripe was never created)
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
            // In two thirds of the runs the second and third stripes, if they committed, have a member removed (slot
            // 2) and then possibly another replaced (slot 0, a new version), with faults and a fresh crash point; then
            // a restart whose recovery may crash once more, and a clean recovery: a change only goes forward.
            int changes = r.nextInt(3);
            if (changes > 0)
            {
                model.failRate = 0.05;
                model.crashAtOp = model.ops + r.nextInt(12);
                StripeStateMachine live = new StripeStateMachine(new FaultInjectingStripeStore(durable, runSeed + 1, 0.05, 0.05, -1),
                                                                 model, clock::incrementAndGet);
                for (int c = 0; c < changes; c++)
                    for (int x = 1; x <= 2; x++)
                    {
                        try
                        {
                            StripeRecord cur = durable.get(stripes.get(x).id()).orElse(null);
                            if (cur != null)
                                live.change(cur, c == 0 ? 2 : 0, c == 0 ? Member.virtual() : new Member("10.0.0.1", "nb-new-" + c + "-big", 3000));
                        }
                        catch (RuntimeException e)
                        {
                            // a fault or the crash
                        }
                    }
                model.failRate = 0;
                model.crashAtOp = r.nextBoolean() ? model.ops + r.nextInt(4) : -1;
                try
                {
                    StripeRecovery.recover(durable, restarted);
                }
                catch (RuntimeException e)
                {
                    // crashed during recovery
                }
                model.crashAtOp = -1;
                assertTrue(StripeRecovery.recover(durable, restarted).pending().isEmpty(), "run seed " + runSeed + " after changes");
            }
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
                    assertNull(row.get().change(), ctx + ": a COMMITTED row with a change");
                    long gen = row.get().parityGeneration();
                    assertEquals(gen == 0 ? java.util.Set.of(0L) : java.util.Set.of(gen),
                                 model.parityGenerations.getOrDefault(s.id(), java.util.Set.of(0L)), ctx + ": parity generations");
                    assertEquals(gen, (long) model.stubGeneration.getOrDefault(s.id(), 0L), ctx + ": stubs on another generation");
                    assertTrue(model.previousMembers.getOrDefault(s.id(), java.util.Set.of()).isEmpty(), ctx + ": previous member left");
                    if (gen > 0)
                    {
                        assertTrue(s != stripes.get(0) && changes > 0, ctx + ": changed without being asked");
                        int applied = (row.get().members().get(2).isVirtual() ? 1 : 0)
                                      + (row.get().members().get(0).sstable().startsWith("nb-new-") ? 1 : 0);
                        assertEquals(gen, applied, ctx + ": one parity generation per change applied");
                        changedRuns++;
                    }
                    committedRuns++;
                }
                else
                {
                    // Rolled back or retired and its row garbage-collected (or never created): no trace may remain.
                    if (model.retired.contains(s.id()))
                    {
                        assertTrue(retireFirst && s == stripes.get(0), ctx + ": retired without being asked");
                        retiredRuns++;
                    }
                    else
                        rolledBackRuns++;
                    assertFalse(model.shipped.contains(s.id()) || model.parity.contains(s.id())
                                || model.coldObjects.contains(s.id()) || model.stubbed.contains(s.id())
                                || model.stubsInstalled.contains(s.id())
                                || model.committed.contains(s.id()), ctx + ": orphan left");
                }
            }
            // Recovery again changes nothing.
            StripeRecovery.Summary again = StripeRecovery.recover(durable, restarted);
            assertEquals(0, again.committed() + again.rolledBack() + again.removed(), "run seed " + runSeed);
        }
        System.out.println("crash runs: " + committedRuns + " stripes committed, " + rolledBackRuns + " rolled back, " + retiredRuns
                           + " retired, " + changedRuns + " changed");
        assertTrue(committedRuns > runs / 8 && rolledBackRuns > runs / 8 && retiredRuns > runs / 16 && changedRuns > runs / 16,
                   "every outcome exercised: " + committedRuns + "/" + rolledBackRuns + "/" + retiredRuns + "/" + changedRuns);
    }
}
