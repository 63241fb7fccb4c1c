package io.elect.core.transition;

import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeRecordCodec;
import io.elect.core.stripes.StripeState;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.elect.core.stripes.Member;
import io.elect.core.transition.StripeStore.Outcome;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The stripe record format, the store contract, the state machine, and seeded crash-point recovery. */
public class StripeStateMachineTest
{
    private static final long SEED = Long.getLong("elect.test.seed", 8_2026L);

    public static StripeRecord record(int i)
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
    void parityGenerationIsFormatTwoAndGenerationZeroStaysFormatOne()
    {
        StripeRecord r = record(2).moveTo(StripeState.COMMITTED, 6000);
        byte[] v1 = StripeRecordCodec.encode(r);
        StripeRecord g3 = r.replan(r.members(), r.parityNodes(), 3, StripeState.COMMITTED, 7000);
        byte[] v2 = StripeRecordCodec.encode(g3);
        assertEquals(1, v1[4], "generation 0 is written as format 1 (readable by nodes that only know format 1)");
        assertEquals(2, v2[4]);
        assertEquals(v1.length + 8, v2.length, "format 2 = format 1 + the i64 generation");
        assertEquals(g3, StripeRecordCodec.decode(v2));
        assertEquals(3, StripeRecordCodec.decode(v2).parityGeneration());
        assertEquals(0, StripeRecordCodec.decode(v1).parityGeneration());
        assertEquals(r.version() + 1, g3.version(), "a plan change is a version like a transition");
        assertFalse(r.samePlan(g3), "the parity generation is part of the plan");
        assertTrue(g3.samePlan(g3.moveTo(StripeState.RETIRING, 8000)));
        // Format 2 with generation 0 is not a valid record (format 1 holds generation 0): refused, like any corruption.
        byte[] bad = v2.clone();
        java.nio.ByteBuffer.wrap(bad).putLong(bad.length - 12, 0);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(bad, 0, bad.length - 4);
        java.nio.ByteBuffer.wrap(bad).putInt(bad.length - 4, (int) crc.getValue());
        assertThrows(StripeRecordCodec.CorruptRecordException.class, () -> StripeRecordCodec.decode(bad));
        assertThrows(IllegalArgumentException.class, () -> r.replan(r.members(), r.parityNodes(), -1, StripeState.COMMITTED, 1));
    }

    @Test
    void aChangeUnderWayIsFormatThreeAndOnlyInChangingStates()
    {
        StripeRecord r = record(3).moveTo(StripeState.COMMITTED, 6000);
        StripeRecord changing = r.beginChange(1, Member.virtual(), 7000);
        assertEquals(StripeState.CHANGING, changing.state());
        assertEquals(1, changing.parityGeneration());
        assertEquals(new StripeRecord.Change(1, r.members().get(1)), changing.change());
        assertTrue(changing.members().get(1).isVirtual());
        byte[] v3 = StripeRecordCodec.encode(changing);
        assertEquals(3, v3[4]);
        assertEquals(changing, StripeRecordCodec.decode(v3));
        StripeRecord changed = changing.moveTo(StripeState.CHANGED, 8000);
        assertEquals(changing.change(), StripeRecordCodec.decode(StripeRecordCodec.encode(changed)).change(), "CHANGED keeps the change");
        StripeRecord done = changed.endChange(9000);
        assertEquals(StripeState.COMMITTED, done.state());
        assertEquals(2, StripeRecordCodec.encode(done)[4], "the change is dropped: format 2 again");
        assertEquals(done, StripeRecordCodec.decode(StripeRecordCodec.encode(done)));
        assertThrows(IllegalArgumentException.class, () -> done.beginChange(1, Member.virtual(), 1), "slot 1 is virtual now");
        assertThrows(IllegalStateException.class, () -> changing.beginChange(0, Member.virtual(), 1), "one change at a time");
        assertThrows(IllegalArgumentException.class, () -> new StripeRecord(r.id(), r.codecId(), r.k(), r.m(), r.codeLength(), r.members(),
                                                                            r.parityNodes(), 1, changing.change(), StripeState.COMMITTED, 2, 1),
                     "a change outside CHANGING/CHANGED");
        assertThrows(IllegalArgumentException.class, () -> new StripeRecord(r.id(), r.codecId(), r.k(), r.m(), r.codeLength(), r.members(),
                                                                            r.parityNodes(), 1, null, StripeState.CHANGING, 2, 1),
                     "CHANGING without its change");
    }

    @Test
    void aChangeGoesForwardToCommittedWithTheNewGenerationAndNothingLeft()
    {
        InMemoryStripeStore store = new InMemoryStripeStore();
        ModelParticipant p = new ModelParticipant(store, 5);
        AtomicLong clock = new AtomicLong();
        StripeStateMachine sm = new StripeStateMachine(store, p, clock::incrementAndGet);
        StripeRecord r = record(6);
        assertEquals(StripeState.COMMITTED, sm.run(r));
        StripeRecord committed = store.get(r.id()).orElseThrow();
        assertEquals(StripeState.COMMITTED, sm.change(committed, 2, Member.virtual()));
        StripeRecord after = store.get(r.id()).orElseThrow();
        assertEquals(1, after.parityGeneration());
        assertTrue(after.members().get(2).isVirtual());
        assertEquals(java.util.Set.of(1L), p.parityGenerations.get(r.id()));
        assertTrue(p.previousMembers.get(r.id()).isEmpty());
        // A decision taken on a stale record (the version moved on) does nothing.
        assertEquals(StripeState.COMMITTED, sm.change(committed, 0, Member.virtual()));
        assertFalse(store.get(r.id()).orElseThrow().members().get(0).isVirtual(), "a stale decision is not applied");
        // Removing the last real member is a retirement, not a change.
        StripeRecord single = new StripeRecord(r.id(), r.codecId(), 4, 2, 4096,
                                               List.of(new Member("10.0.0.1", "nb-1-big", 10), Member.virtual(), Member.virtual(), Member.virtual()),
                                               r.parityNodes(), StripeState.COMMITTED, 9, 1);
        assertThrows(IllegalArgumentException.class, () -> sm.change(single, 0, Member.virtual()));
    }

    @Test
    void aFillTakesTheVirtualSlotOrIsAbandonedWhenItsMemberIsGone()
    {
        InMemoryStripeStore store = new InMemoryStripeStore();
        ModelParticipant p = new ModelParticipant(store, 5);
        AtomicLong clock = new AtomicLong();
        StripeStateMachine sm = new StripeStateMachine(store, p, clock::incrementAndGet);
        StripeRecord r = record(7); // slot 3 virtual, parity on .5 and .6
        assertEquals(StripeState.COMMITTED, sm.run(r));
        StripeRecord committed = store.get(r.id()).orElseThrow();
        Member fill = new Member("10.0.0.4", "nb-20-big", 4096);
        // a member on a node that holds a chunk, a non-virtual slot, a member longer than the code: refused
        assertThrows(IllegalArgumentException.class, () -> committed.beginFill(3, new Member("10.0.0.5", "nb-21-big", 10), 1));
        assertThrows(IllegalArgumentException.class, () -> committed.beginFill(3, new Member("10.0.0.1", "nb-21-big", 10), 1));
        assertThrows(IllegalArgumentException.class, () -> committed.beginFill(2, fill, 1));
        assertThrows(IllegalArgumentException.class, () -> committed.beginFill(3, new Member("10.0.0.4", "nb-21-big", 4097), 1));
        // gone: abandoned, the plan is the one before (virtual slot, generation 0), nothing built
        p.gone.add("nb-20-big");
        assertFalse(sm.fill(committed, 3, fill));
        StripeRecord abandoned = store.get(r.id()).orElseThrow();
        assertEquals(StripeState.COMMITTED, abandoned.state());
        assertTrue(abandoned.members().get(3).isVirtual());
        assertEquals(0, abandoned.parityGeneration());
        assertTrue(abandoned.samePlan(committed.moveTo(StripeState.COMMITTED, 0)), "the plan before the fill");
        // present: filled under generation 1; the previous generation dropped, no previous member to delete
        p.gone.clear();
        assertTrue(sm.fill(abandoned, 3, fill));
        StripeRecord filled = store.get(r.id()).orElseThrow();
        assertEquals(fill, filled.members().get(3));
        assertEquals(1, filled.parityGeneration());
        assertEquals(java.util.Set.of(1L), p.parityGenerations.get(r.id()));
        assertEquals(1L, p.stubGeneration.get(r.id()));
        // a stale decision (the version moved on) does nothing; a full stripe has no virtual slot
        assertFalse(sm.fill(abandoned, 3, new Member("10.0.0.7", "nb-22-big", 1)));
        assertThrows(IllegalArgumentException.class, () -> filled.beginFill(3, new Member("10.0.0.7", "nb-22-big", 1), 1));
        // the record format carries a fill under way (its previous member is the virtual chunk)
        StripeRecord changing = abandoned.beginFill(3, fill, 99);
        assertTrue(changing.changeFills());
        assertEquals(changing, StripeRecordCodec.decode(StripeRecordCodec.encode(changing)));
        assertEquals(abandoned.members(), changing.abandonChange(100).members());
        assertThrows(IllegalStateException.class, () -> filled.abandonChange(1), "only a fill under way is abandoned");
    }

    @Test
    void aFillCrashedMidwayIsFinishedIfItsMemberWasTakenElseAbandonedOnceTheFileIsGone()
    {
        int finished = 0, abandoned = 0;
        for (long seed = 1; seed <= 40; seed++)
        {
            InMemoryStripeStore store = new InMemoryStripeStore();
            ModelParticipant p = new ModelParticipant(store, seed);
            AtomicLong clock = new AtomicLong();
            StripeStateMachine sm = new StripeStateMachine(store, p, clock::incrementAndGet);
            StripeRecord r = record(8);
            assertEquals(StripeState.COMMITTED, sm.run(r));
            StripeRecord committed = store.get(r.id()).orElseThrow();
            Member fill = new Member("10.0.0.4", "nb-30-big", 100);
            p.crashAtOp = p.ops; // the change call crashes, before or after taking the member (seeded coin)
            assertThrows(ModelParticipant.Crash.class, () -> sm.fill(committed, 3, fill));
            assertEquals(StripeState.CHANGING, store.get(r.id()).orElseThrow().state(), "recorded before any side effect");
            boolean taken = p.taken.contains("nb-30-big");
            p.crashAtOp = -1;
            p.gone.add("nb-30-big"); // compacted away if it was not taken; a taken member is frozen and stays
            assertEquals(StripeState.COMMITTED, sm.recover(r.id()));
            StripeRecord after = store.get(r.id()).orElseThrow();
            if (taken)
            {
                finished++;
                assertEquals(fill, after.members().get(3));
                assertEquals(1, after.parityGeneration());
            }
            else
            {
                abandoned++;
                assertTrue(after.members().get(3).isVirtual());
                assertEquals(0, after.parityGeneration());
            }
        }
        assertTrue(finished > 0 && abandoned > 0, "both crash points seen: " + finished + " finished, " + abandoned + " abandoned");
    }

    @Test
    void aWideningAddsVirtualSlotsUnderTheWiderCodecThenFillsTakeThem()
    {
        InMemoryStripeStore store = new InMemoryStripeStore();
        ModelParticipant p = new ModelParticipant(store, 5);
        AtomicLong clock = new AtomicLong();
        StripeStateMachine sm = new StripeStateMachine(store, p, clock::incrementAndGet);
        StripeRecord r = record(9); // k=4 m=2, slot 3 virtual
        assertEquals(StripeState.COMMITTED, sm.run(r));
        StripeRecord committed = store.get(r.id()).orElseThrow();
        assertThrows(IllegalArgumentException.class, () -> committed.beginReshape(4, "x", 1), "not wider");
        assertThrows(IllegalArgumentException.class, () -> committed.beginReshape(255, "x", 1), "k + m > 256");
        StripeRecord changing = committed.beginReshape(6, "rs-cauchy-gf8-11d:k=6:m=2", 50);
        assertTrue(changing.changeReshapes() && !changing.changeFills() && changing.changeKeepsMember());
        assertTrue(committed.reshapedInto(changing));
        assertEquals(changing, StripeRecordCodec.decode(StripeRecordCodec.encode(changing)), "the record format holds a widening");
        // a replan that changes k any other way is refused by the store
        StripeRecord sneaky = new StripeRecord(r.id(), "rs-cauchy-gf8-11d:k=5:m=2", 5, 2, committed.codeLength(),
                                               List.of(committed.members().get(0), committed.members().get(1), committed.members().get(2),
                                                       Member.virtual(), Member.virtual()), committed.parityNodes(), 0, StripeState.COMMITTED,
                                               committed.version() + 1, 60);
        assertThrows(IllegalArgumentException.class, () -> store.replan(committed, sneaky));
        assertTrue(sm.reshape(committed, 6, "rs-cauchy-gf8-11d:k=6:m=2"));
        StripeRecord wide = store.get(r.id()).orElseThrow();
        assertEquals(6, wide.k());
        assertEquals("rs-cauchy-gf8-11d:k=6:m=2", wide.codecId());
        assertEquals(committed.members(), wide.members().subList(0, 4));
        assertTrue(wide.members().get(4).isVirtual() && wide.members().get(5).isVirtual());
        assertEquals(1, wide.parityGeneration());
        assertEquals(java.util.Set.of(1L), p.parityGenerations.get(r.id()));
        assertFalse(sm.reshape(committed, 8, "rs-cauchy-gf8-11d:k=8:m=2"), "a stale decision does nothing");
        // the new slots are filled like any virtual slot
        assertTrue(sm.fill(wide, 4, new Member("10.0.0.7", "nb-40-big", 100)));
        assertEquals(new Member("10.0.0.7", "nb-40-big", 100), store.get(r.id()).orElseThrow().members().get(4));
        assertEquals(2, store.get(r.id()).orElseThrow().parityGeneration());
    }

    @Test
    void aReplacementWhoseNextVersionIsGoneGoesBackToThePreviousVersionARemovalNever()
    {
        InMemoryStripeStore store = new InMemoryStripeStore();
        ModelParticipant p = new ModelParticipant(store, 5);
        AtomicLong clock = new AtomicLong();
        StripeStateMachine sm = new StripeStateMachine(store, p, clock::incrementAndGet);
        StripeRecord r = record(10);
        assertEquals(StripeState.COMMITTED, sm.run(r));
        StripeRecord committed = store.get(r.id()).orElseThrow();
        p.gone.add("nb-10-next");
        assertEquals(StripeState.COMMITTED, sm.change(committed, 0, new Member("10.0.0.1", "nb-10-next", 3000)));
        StripeRecord back = store.get(r.id()).orElseThrow();
        assertEquals(committed.members(), back.members(), "the previous version is the member again");
        assertEquals(0, back.parityGeneration());
        StripeRecord removal = back.beginChange(1, Member.virtual(), 1);
        assertThrows(IllegalStateException.class, () -> removal.abandonChange(2), "a removal is never abandoned");
        assertThrows(IllegalStateException.class, () -> back.beginReshape(6, "w", 1).abandonChange(2), "nor a widening");
    }

    @Test
    void storeContractIdempotentTransitions()
    {
        StripeStoreContract.basic(new InMemoryStripeStore());
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
        assertEquals(6, store.get(a.id()).orElseThrow().version(), "one version per transition");
        assertTrue(p.committed.contains(a.id()) && p.stubbed.contains(a.id()) && p.parity.contains(a.id()));
        assertFalse(p.shipped.contains(a.id()), "shipped chunks are temporary");
        // Running it again is a no-op.
        assertEquals(StripeState.COMMITTED, sm.run(a));
        assertEquals(1, p.calls.get("commit"));
        // Retirement: only from COMMITTED, forward to RETIRED, idempotent.
        StripeRecord ret = record(6);
        assertEquals(StripeState.COMMITTED, sm.run(ret));
        assertEquals(StripeState.RETIRED, sm.retire(ret.id()));
        assertTrue(p.retired.contains(ret.id()) && !p.parity.contains(ret.id()) && !p.committed.contains(ret.id()));
        assertEquals(StripeState.RETIRED, sm.retire(ret.id()));
        assertEquals(1, p.calls.get("retire"), "a RETIRED stripe is not retired again");
        assertTrue(StripeRecovery.recover(store, sm).removed() >= 1, "the RETIRED row is removed");
        assertTrue(store.get(ret.id()).isEmpty());

        StripeRecord b = record(4);
        ModelParticipant q = p;
        StripeStateMachine failing = new StripeStateMachine(store, new StripeParticipant()
        {
            public void shipChunks(StripeRecord s) { q.shipChunks(s); }
            public void writeParity(StripeRecord s) { throw new RuntimeException("parity node down"); }
            public void installStubs(StripeRecord s) { q.installStubs(s); }
            public void purgeSecondaries(StripeRecord s) { q.purgeSecondaries(s); }
            public void commit(StripeRecord s) { q.commit(s); }
            public void rollback(StripeRecord s) { q.rollback(s); }
            public void retire(StripeRecord s) { q.retire(s); }
            public void change(StripeRecord s) { q.change(s); }
            public void finishChange(StripeRecord s) { q.finishChange(s); }
        }, clock::incrementAndGet);
        assertEquals(StripeState.ROLLED_BACK, failing.run(b));
        assertFalse(p.shipped.contains(b.id()) || p.parity.contains(b.id()));

        // Stubs that cannot all be installed (a member's node lost its disk before its stub existed): nothing was
        // purged yet, so the stripe rolls back and its installed stubs go with it.
        StripeRecord c = record(5);
        StripeStateMachine noStubs = new StripeStateMachine(store, new StripeParticipant()
        {
            public void shipChunks(StripeRecord s) { q.shipChunks(s); }
            public void writeParity(StripeRecord s) { q.writeParity(s); }
            public void installStubs(StripeRecord s) { q.installStubs(s); throw new RuntimeException("member 0 is gone"); }
            public void purgeSecondaries(StripeRecord s) { q.purgeSecondaries(s); }
            public void commit(StripeRecord s) { q.commit(s); }
            public void rollback(StripeRecord s) { q.rollback(s); }
            public void retire(StripeRecord s) { q.retire(s); }
            public void change(StripeRecord s) { q.change(s); }
            public void finishChange(StripeRecord s) { q.finishChange(s); }
        }, clock::incrementAndGet);
        assertEquals(StripeState.ROLLED_BACK, noStubs.run(c));
        assertFalse(p.stubsInstalled.contains(c.id()) || p.parity.contains(c.id()) || p.stubbed.contains(c.id()));
    }

    /** Crash points over the in-memory store (the Cassandra-backed store runs the same procedure, fewer runs). */
    @Test
    void seededCrashPointsAlwaysEndTerminalWithoutOrphans()
    {
        StripeStoreContract.crashRecovery(InMemoryStripeStore::new, SEED, 400);
    }
}
