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
