package io.elect.core.transition;

import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * A model of the cluster side of stripes, for crash tests: the durable effects of each step (shipped chunks, parity
 * files, cold parity objects, stubbed secondaries, committed primaries) as sets that survive a "crash". Checks the
 * safety preconditions itself: stubs installed only when the store says PARITY_BUILT or later, purges only when it says
 * STUBS_INSTALLED or later, rollback only with nothing purged (installed stubs are removed), commit only after purging.
 * Faults: from operation {@code crashAtOp} on, every call throws (before or after applying its effect, by a seeded
 * coin); before that, each call fails with probability {@code failRate}.
 */
final class ModelParticipant implements StripeParticipant
{
    static final class Crash extends RuntimeException
    {
        Crash(String m)
        {
            super(m);
        }
    }

    final Set<StripeId> shipped = new HashSet<>();
    final Set<StripeId> parity = new HashSet<>();
    final Set<StripeId> coldObjects = new HashSet<>();
    final Set<StripeId> stubsInstalled = new HashSet<>();
    final Set<StripeId> stubbed = new HashSet<>();
    final Set<StripeId> committed = new HashSet<>();
    final Set<StripeId> retired = new HashSet<>();
    /** Parity generations present per stripe (generation 0 is {@link #parity}); the generation each stripe's stubs use. */
    final Map<StripeId, Set<Long>> parityGenerations = new HashMap<>();
    final Map<StripeId, Long> stubGeneration = new HashMap<>();
    /** Previous member versions still on disk, per stripe (a change's "previous", until finishChange deletes it). */
    final Map<StripeId, Set<String>> previousMembers = new HashMap<>();
    /** SSTables their nodes no longer have: a fill of one is refused (NextMemberGone) unless an earlier attempt took it. */
    final Set<String> gone = new HashSet<>();
    /** Fill members taken (frozen under their stripe) by a change. */
    final Set<String> taken = new HashSet<>();
    final Map<String, Integer> calls = new HashMap<>();
    private final StripeStore truth;
    private final Random random;
    long crashAtOp = -1;
    double failRate;
    long ops;

    ModelParticipant(StripeStore truth, long seed)
    {
        this.truth = truth;
        this.random = new Random(seed);
    }

    private boolean enter(String what)
    {
        calls.merge(what, 1, Integer::sum);
        long n = ops++;
        boolean applyThenFail = random.nextBoolean();
        if (crashAtOp >= 0 && n >= crashAtOp)
        {
            if (!applyThenFail)
                throw new Crash("crash before " + what);
            return true;
        }
        if (random.nextDouble() < failRate)
        {
            if (!applyThenFail)
                throw new Crash("fault before " + what);
            return true;
        }
        return false;
    }

    private void leave(boolean fail, String what)
    {
        if (fail)
            throw new Crash("crash after " + what);
    }

    @Override
    public void shipChunks(StripeRecord s)
    {
        boolean f = enter("ship");
        shipped.add(s.id());
        leave(f, "ship");
    }

    @Override
    public void writeParity(StripeRecord s)
    {
        boolean f = enter("parity");
        if (!shipped.contains(s.id()))
            throw new AssertionError("parity of " + s.id() + " written before its chunks were shipped");
        parity.add(s.id());
        coldObjects.add(s.id());
        leave(f, "parity");
    }

    @Override
    public void installStubs(StripeRecord s)
    {
        boolean f = enter("install-stubs");
        StripeState st = truth.get(s.id()).orElseThrow().state();
        if (st != StripeState.PARITY_BUILT && !st.purgesMayHaveBegun())
            throw new AssertionError("installing stubs of " + s.id() + " in state " + st);
        if (!parity.contains(s.id()))
            throw new AssertionError("installing stubs of " + s.id() + " without parity");
        stubsInstalled.add(s.id());
        leave(f, "install-stubs");
    }

    @Override
    public void purgeSecondaries(StripeRecord s)
    {
        boolean f = enter("purge");
        StripeState st = truth.get(s.id()).orElseThrow().state();
        if (!st.purgesMayHaveBegun())
            throw new AssertionError("purging against " + s.id() + " in state " + st);
        if (!stubsInstalled.contains(s.id()))
            throw new AssertionError("purging against " + s.id() + " before its stubs were installed");
        stubbed.add(s.id());
        leave(f, "purge");
    }

    @Override
    public void commit(StripeRecord s)
    {
        boolean f = enter("commit");
        if (!stubbed.contains(s.id()))
            throw new AssertionError("commit of " + s.id() + " before stubbing");
        committed.add(s.id());
        shipped.remove(s.id());
        leave(f, "commit");
    }

    @Override
    public void rollback(StripeRecord s)
    {
        boolean f = enter("rollback");
        if (stubbed.contains(s.id()))
            throw new AssertionError("rollback of " + s.id() + " after secondaries purged against it");
        stubsInstalled.remove(s.id());
        shipped.remove(s.id());
        parity.remove(s.id());
        coldObjects.remove(s.id());
        leave(f, "rollback");
    }

    @Override
    public void retire(StripeRecord s)
    {
        boolean f = enter("retire");
        StripeState st = truth.get(s.id()).orElseThrow().state();
        if (st != StripeState.RETIRING)
            throw new AssertionError("retiring " + s.id() + " in state " + st);
        if (!committed.contains(s.id()) && !retired.contains(s.id()))
            throw new AssertionError("retiring " + s.id() + " that never committed");
        stubsInstalled.remove(s.id());
        stubbed.remove(s.id());
        parity.remove(s.id());
        coldObjects.remove(s.id());
        committed.remove(s.id());
        parityGenerations.remove(s.id());
        retired.add(s.id());
        leave(f, "retire");
    }

    @Override
    public void change(StripeRecord s)
    {
        boolean f = enter("change");
        StripeState st = truth.get(s.id()).orElseThrow().state();
        if (st != StripeState.CHANGING)
            throw new AssertionError("changing " + s.id() + " in state " + st);
        if (s.changeReplaces() && gone.contains(s.members().get(s.change().slot()).sstable()))
            throw new StripeParticipant.NextMemberGone("next version " + s.members().get(s.change().slot()).sstable() + " is gone");
        if (s.changeFills())
        {
            String member = s.members().get(s.change().slot()).sstable();
            if (!taken.contains(member) && gone.contains(member))
            {
                if (parityGenerations.getOrDefault(s.id(), Set.of()).contains(s.parityGeneration()))
                    throw new AssertionError("a fill of " + s.id() + " refused after its generation " + s.parityGeneration() + " was built");
                throw new StripeParticipant.NextMemberGone("member not taken: " + member + " is gone");
            }
            taken.add(member);
        }
        if (!committed.contains(s.id()))
            throw new AssertionError("changing " + s.id() + " that never committed");
        long from = s.parityGeneration() - 1;
        Set<Long> gens = parityGenerations.computeIfAbsent(s.id(), x -> new HashSet<>(Set.of(0L)));
        if (!gens.contains(from) && !gens.contains(s.parityGeneration()))
            throw new AssertionError("changing " + s.id() + " to generation " + s.parityGeneration() + " without generation " + from);
        gens.add(s.parityGeneration());
        previousMembers.computeIfAbsent(s.id(), x -> new HashSet<>()).add(s.change().previous().sstable());
        stubGeneration.put(s.id(), s.parityGeneration());
        leave(f, "change");
    }

    @Override
    public void finishChange(StripeRecord s)
    {
        boolean f = enter("finish-change");
        StripeState st = truth.get(s.id()).orElseThrow().state();
        if (st != StripeState.CHANGED)
            throw new AssertionError("finishing the change of " + s.id() + " in state " + st);
        if (stubGeneration.getOrDefault(s.id(), 0L) != s.parityGeneration())
            throw new AssertionError("finishing the change of " + s.id() + " while stubs use generation " + stubGeneration.get(s.id()));
        Set<Long> gens = parityGenerations.get(s.id());
        if (gens == null || !gens.contains(s.parityGeneration()))
            throw new AssertionError("finishing the change of " + s.id() + " without its new parity");
        gens.removeIf(g -> g < s.parityGeneration());
        Set<String> prev = previousMembers.get(s.id());
        if (prev != null)
            prev.remove(s.change().previous().sstable());
        leave(f, "finish-change");
    }
}
