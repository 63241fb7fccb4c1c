package io.elect.core.transition;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.wire.TransitionMessages;
import io.elect.core.transport.InMemoryNetwork;
import io.elect.core.transport.InMemoryTransport;
import io.elect.core.transport.Peer;
import io.elect.core.transport.PeerLiveness;
import io.elect.core.transport.Transport;
import io.elect.core.transport.TransportOptions;
import io.elect.core.transport.Verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The order of a rollback's verbs over a real (in-memory) transport: the parity goes only after every stub. */
class RemoteStripeParticipantTest
{
    private static final TransportOptions OPTS = new TransportOptions(1 << 20, 2_000, 0, 10);
    private static final List<String> NODES = List.of("10.0.0.1", "10.0.0.2", "10.0.0.3");

    private final InMemoryNetwork network = new InMemoryNetwork();
    private final List<Transport> open = new ArrayList<>();
    /** "verb@node", in the order the handlers ran. */
    private final List<String> calls = Collections.synchronizedList(new ArrayList<>());
    private volatile String failStubRemoveOn;
    /** A node whose STUB_REMOVE answers late: the failed fan-out must still wait for it. */
    private volatile String slowStubRemoveOn;

    @AfterEach
    void close()
    {
        open.forEach(Transport::close);
    }

    private Transport node(String host)
    {
        Transport t = new InMemoryTransport(network, new Peer(host, 7070), OPTS, PeerLiveness.ALWAYS);
        open.add(t);
        t.register(Verbs.STUB_REMOVE, p -> {
            if (host.equals(slowStubRemoveOn))
                sleep(300);
            calls.add("STUB_REMOVE@" + host);
            if (host.equals(failStubRemoveOn))
                throw new IllegalStateException("injected: cannot remove stubs now");
            return new TransitionMessages.StubCount(1, 0, 0).encode();
        });
        t.register(Verbs.DROP_PARITY, p -> {
            calls.add("DROP_PARITY@" + host);
            return TransitionMessages.ok();
        });
        t.register(Verbs.ROLLBACK, p -> {
            calls.add("ROLLBACK@" + host);
            return TransitionMessages.ok();
        });
        return t;
    }

    private static StripeRecord stripe()
    {
        List<Member> members = List.of(new Member("10.0.0.1", "ks.t/nb-1-big", 4000), new Member("10.0.0.2", "ks.t/nb-2-big", 4096));
        return new StripeRecord(StripeId.ofMembers(List.of("ks.t/nb-1-big", "ks.t/nb-2-big")), "rs-cauchy-gf8-11d:k=2:m=1", 2, 1,
                                4096, members, List.of("10.0.0.3"), StripeState.PARITY_BUILT, 1, 1000);
    }

    @Test
    void rollbackRemovesEveryStubBeforeTheParityGoes()
    {
        Transport coordinator = node(NODES.get(0));
        node(NODES.get(1));
        node(NODES.get(2));
        RemoteStripeParticipant p = new RemoteStripeParticipant(coordinator, h -> new Peer(h, 7070), r -> false, () -> NODES);

        failStubRemoveOn = "10.0.0.2";
        slowStubRemoveOn = "10.0.0.3";
        assertThrows(RuntimeException.class, () -> p.rollback(stripe()));
        assertTrue(calls.stream().noneMatch(c -> c.startsWith("DROP_PARITY") || c.startsWith("ROLLBACK")),
                   "a node still holding a stub keeps the parity it may decode from: " + calls);
        assertEquals(3, calls.stream().filter(c -> c.startsWith("STUB_REMOVE")).count(),
                     "a failed fan-out returns only after every node answered, so its retry cannot overlap it: " + calls);

        calls.clear();
        failStubRemoveOn = null;
        slowStubRemoveOn = null;
        p.rollback(stripe());
        int lastStubRemove = -1, firstDrop = Integer.MAX_VALUE, firstRollback = Integer.MAX_VALUE, lastDrop = -1;
        for (int i = 0; i < calls.size(); i++)
        {
            String c = calls.get(i);
            if (c.startsWith("STUB_REMOVE"))
                lastStubRemove = i;
            if (c.startsWith("DROP_PARITY"))
            {
                firstDrop = Math.min(firstDrop, i);
                lastDrop = i;
            }
            if (c.startsWith("ROLLBACK"))
                firstRollback = Math.min(firstRollback, i);
        }
        assertEquals(3, calls.stream().filter(c -> c.startsWith("STUB_REMOVE")).count(), calls.toString());
        assertEquals(List.of("DROP_PARITY@10.0.0.3"), calls.stream().filter(c -> c.startsWith("DROP_PARITY")).toList());
        assertTrue(lastStubRemove < firstDrop && lastDrop < firstRollback, "stubs, then parity, then unfreeze: " + calls);
    }

    /** What node 10.0.0.2 answers to the fill's PIN (null: the member's description), and whether 10.0.0.3 holds a stub of it. */
    private volatile String pinError;
    private volatile boolean stubOnThree;

    private Transport fillNode(String host)
    {
        Transport t = node(host);
        t.register(Verbs.PIN, p -> {
            calls.add("PIN@" + host);
            throw new IllegalStateException(pinError);
        });
        t.register(Verbs.STRIPE_STATUS, p -> {
            calls.add("STRIPE_STATUS@" + host);
            if (!stubOnThree || !host.equals("10.0.0.3"))
                return TransitionMessages.StripeStatus.none().encode();
            io.elect.core.stripes.StripeLayout layout = new io.elect.core.stripes.StripeLayout(
                "rs-cauchy-gf8-11d:k=2:m=1", 2, 1, new long[]{4000, 100}, 4000,
                List.of("node:10.0.0.1:7070:/a", "node:10.0.0.2:7070:/b", "node:10.0.0.3:7070:/p"));
            return new TransitionMessages.StripeStatus(new TransitionMessages.StubRequest(
                new TransitionMessages.TableRef("ks", "t"), "ks.t/nb-9-big", "s", layout, 1,
                new io.elect.core.stripes.ChunkChecksums(io.elect.core.stripes.ChunkChecksums.DEFAULT_CHUNK_SIZE, 0, new int[0]), List.of()),
                "0", "1").encode();
        });
        return t;
    }

    /** A fill of slot 1 by 10.0.0.2's nb-9-big under way (CHANGING, parity generation 1 on 10.0.0.3). */
    private static StripeRecord fill()
    {
        List<Member> members = List.of(new Member("10.0.0.1", "ks.t/nb-1-big", 4000), Member.virtual());
        return new StripeRecord(StripeId.ofMembers(List.of("ks.t/nb-1-big", "-")), "rs-cauchy-gf8-11d:k=2:m=1", 2, 1, 4096, members,
                                List.of("10.0.0.3"), StripeState.COMMITTED, 5, 1000)
            .beginFill(1, new Member("10.0.0.2", "ks.t/nb-9-big", 100), 2000);
    }

    @Test
    void aFillIsAbandonedOnlyWhenItsMemberIsGoneAndNoNodeHoldsAStubOfIt()
    {
        Transport coordinator = fillNode(NODES.get(0));
        fillNode(NODES.get(1));
        fillNode(NODES.get(2));
        RemoteStripeParticipant p = new RemoteStripeParticipant(coordinator, h -> new Peer(h, 7070), r -> false, () -> NODES);

        // gone, and no stub anywhere: the next generation's parity (if an earlier attempt built it) is dropped, then refused
        pinError = TransitionMessages.MEMBER_NOT_TAKEN + "sstable nb-9-big of ks.t is not live on 10.0.0.2";
        assertThrows(StripeParticipant.NextMemberGone.class, () -> p.change(fill()));
        assertEquals(4, calls.size(), calls.toString());
        assertEquals("PIN@10.0.0.2", calls.get(0), "first the member's node: " + calls);
        assertEquals(java.util.Set.of("STRIPE_STATUS@10.0.0.1", "STRIPE_STATUS@10.0.0.3"), java.util.Set.copyOf(calls.subList(1, 3)),
                     "then every other node is asked for a stub of it: " + calls);
        assertEquals("DROP_PARITY@10.0.0.3", calls.get(3), "then the next generation's parity goes: " + calls);
        // gone, but a node holds a stub of it (its secondaries may have purged): the fill waits for the member's rebuild
        calls.clear();
        stubOnThree = true;
        RuntimeException e = assertThrows(RuntimeException.class, () -> p.change(fill()));
        assertTrue(!(e instanceof StripeParticipant.NextMemberGone) && e.getMessage().contains("holds a stub"), e.toString());
        assertTrue(calls.stream().noneMatch(c -> c.startsWith("DROP_PARITY")), calls.toString());
        // gone, and a node that might hold one does not answer: retried, not abandoned
        calls.clear();
        stubOnThree = false;
        RemoteStripeParticipant twoDown = new RemoteStripeParticipant(coordinator, h -> new Peer(h, 7070), r -> false,
                                                                      () -> List.of("10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"));
        e = assertThrows(RuntimeException.class, () -> twoDown.change(fill()));
        assertTrue(!(e instanceof StripeParticipant.NextMemberGone), e.toString());
        assertTrue(calls.stream().noneMatch(c -> c.startsWith("DROP_PARITY")), calls.toString());
        // any other refusal (a compaction holds the file, the node is busy): retried, nothing asked
        calls.clear();
        pinError = "sstable nb-9-big of ks.t is being compacted";
        e = assertThrows(RuntimeException.class, () -> p.change(fill()));
        assertTrue(!(e instanceof StripeParticipant.NextMemberGone), e.toString());
        assertEquals(List.of("PIN@10.0.0.2"), calls, calls.toString());
    }

    /**
     * A merge under way whose previous version's node lost its disk and was rebuilt: the rebuild restored the slot's
     * next version (the record names it), so DESCRIBE_MEMBER of the previous version describes that file, of another
     * length. The previous version is unreadable, and the parity nodes are asked to encode generation 2 from the other
     * members (a previous plan with the slot at length 0); before, the length check refused the change on every retry
     * and the stripe stayed CHANGING for good (the simulation's seed 238).
     */
    @Test
    void aMergeWhosePreviousVersionWasLostReencodesFromTheOtherMembers()
    {
        List<io.elect.core.stripes.StripeLayout> previousPlans = Collections.synchronizedList(new ArrayList<>());
        for (String host : NODES)
        {
            Transport t = node(host);
            t.register(Verbs.DESCRIBE_MEMBER, p -> {
                TransitionMessages.MemberRequest req = TransitionMessages.MemberRequest.decode(p);
                calls.add("DESCRIBE_MEMBER@" + host + ":" + req.sstable());
                long length = host.equals("10.0.0.1") ? 4000 : 541; // 10.0.0.2 holds only the restored next version
                return new TransitionMessages.MemberLocation("node:" + host + ":7070:/" + req.sstable(), checksums(length)).encode();
            });
            t.register(Verbs.PARITY_CHANGE, p -> {
                previousPlans.add(io.elect.core.transition.wire.ChangeMessages.ParityChangeRequest.decode(p).previous());
                calls.add("PARITY_CHANGE@" + host);
                throw new IllegalStateException("injected: stop after PARITY_CHANGE");
            });
        }
        RemoteStripeParticipant p = new RemoteStripeParticipant(open.get(0), h -> new Peer(h, 7070), r -> false, () -> NODES);
        List<Member> members = List.of(new Member("10.0.0.1", "ks.t/nb-1-big", 4000), new Member("10.0.0.2", "ks.t/nb-2-big", 669));
        StripeRecord merging = new StripeRecord(StripeId.ofMembers(List.of("ks.t/nb-1-big", "ks.t/nb-2-big")), "rs-cauchy-gf8-11d:k=2:m=1",
                                                2, 1, 4096, members, List.of("10.0.0.3"), StripeState.COMMITTED, 1, 1000)
            .beginChange(1, new Member("10.0.0.2", "ks.t/nb-7-big", 541), 2000);

        RuntimeException e = assertThrows(RuntimeException.class, () -> p.change(merging));
        assertTrue(String.valueOf(e.getMessage()).contains("injected"), "the change got as far as PARITY_CHANGE: " + e + " " + calls);
        assertEquals(1, previousPlans.size(), calls.toString());
        assertEquals(4000, previousPlans.get(0).memberLength(0), "member 0 read as it is");
        assertEquals(0, previousPlans.get(0).memberLength(1), "the lost previous version is announced unreadable (length 0)");
    }

    private static io.elect.core.stripes.ChunkChecksums checksums(long length)
    {
        int chunk = io.elect.core.stripes.ChunkChecksums.DEFAULT_CHUNK_SIZE;
        return new io.elect.core.stripes.ChunkChecksums(chunk, length, new int[(int) ((length + chunk - 1) / chunk)]);
    }

    private static void sleep(long millis)
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
