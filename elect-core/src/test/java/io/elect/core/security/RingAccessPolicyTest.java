package io.elect.core.security;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.elect.core.stripes.StripeLayout;
import io.elect.core.transition.wire.TransitionMessages.BuildParityRequest;
import io.elect.core.transition.wire.TransitionMessages.DropParityRequest;
import io.elect.core.transition.wire.TransitionMessages.MemberRequest;
import io.elect.core.transition.wire.TransitionMessages.OffloadRequest;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.core.transport.Caller;
import io.elect.core.transport.Verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ring membership and stripe participation decide who may run which verb (golden cases). */
class RingAccessPolicyTest
{
    static final TableRef T = new TableRef("ks", "t");
    static final String S1 = "0123456789abcdef0123456789abcdef";
    final AtomicInteger lookups = new AtomicInteger();

    RingAccessPolicy policy()
    {
        Map<String, Set<String>> records = Map.of(S1, Set.of("127.0.0.2", "127.0.0.3"));
        return new RingAccessPolicy(ring(), id -> {
            lookups.incrementAndGet();
            return Optional.ofNullable(records.get(id));
        }, io.elect.core.util.Clock.SYSTEM);
    }

    static RingAccessPolicy.Ring ring()
    {
        return new RingAccessPolicy.Ring()
        {
            @Override
            public boolean isMember(InetAddress a)
            {
                return Set.of("127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5").contains(a.getHostAddress());
            }

            @Override
            public boolean isSelf(InetAddress a)
            {
                return a.getHostAddress().equals("127.0.0.5");
            }

            @Override
            public Optional<String> coordinator()
            {
                return Optional.of("127.0.0.1");
            }
        };
    }

    static Caller from(String ip) throws Exception
    {
        return Caller.plaintext(InetAddress.getByName(ip));
    }

    @Test
    void membersOnly() throws Exception
    {
        RingAccessPolicy p = policy();
        assertNull(p.refuseCaller(from("127.0.0.4")));
        assertTrue(p.refuseCaller(from("127.0.0.9")).contains("127.0.0.9 is not a ring member"));
    }

    @Test
    void stripeVerbsNeedAParticipantOrTheCoordinator() throws Exception
    {
        RingAccessPolicy p = policy();
        byte[] drop = new DropParityRequest(T, S1, 0).encode();
        assertNull(p.refuseRequest(from("127.0.0.3"), Verbs.DROP_PARITY, drop), "parity/data node of the stripe");
        assertNull(p.refuseRequest(from("127.0.0.1"), Verbs.DROP_PARITY, drop), "coordinator");
        assertNull(p.refuseRequest(from("127.0.0.5"), Verbs.DROP_PARITY, drop), "this node itself");
        String r = p.refuseRequest(from("127.0.0.4"), Verbs.DROP_PARITY, drop);
        assertTrue(r.contains("127.0.0.4 is not a participant of stripe " + S1), r);
        byte[] rollback = new MemberRequest(T, "5", S1).encode();
        assertTrue(p.refuseRequest(from("127.0.0.4"), Verbs.ROLLBACK, rollback).contains("not a participant"));
        assertNull(p.refuseRequest(from("127.0.0.2"), Verbs.ROLLBACK, rollback));
        String other = "ffffffffffffffffffffffffffffffff";
        assertTrue(p.refuseRequest(from("127.0.0.2"), Verbs.PIN, new MemberRequest(T, "5", other).encode()).contains("no record"));
        StripeLayout layout = new StripeLayout("rs-cauchy-gf8-v1", 1, 1, new long[]{ 1 }, 1, List.of("zero:", "pending:parity"));
        assertTrue(p.refuseRequest(from("127.0.0.4"), Verbs.BUILD_PARITY, new BuildParityRequest(T, S1, layout, 0, false).encode())
                    .contains("not a participant"));
        assertEquals(1 + 1, lookups.get(), "the participants of a stripe are read once (S1), and the unknown stripe once");
        assertTrue(p.refuseRequest(from("127.0.0.4"), Verbs.STUB_INSTALL, new byte[]{ 1, 2 }).startsWith("malformed STUB_INSTALL payload"));
    }

    @Test
    void offloadNeedsTheCoordinatorReadsNeedOnlyMembership() throws Exception
    {
        RingAccessPolicy p = policy();
        byte[] offload = new OffloadRequest(T, 100, 0).encode();
        assertNull(p.refuseRequest(from("127.0.0.1"), Verbs.OFFLOAD_PRIMARY, offload));
        assertTrue(p.refuseRequest(from("127.0.0.2"), Verbs.OFFLOAD_PARITY, offload).contains("only accepted from the transitioning coordinator"));
        // verbs that delete or purge a node's data (retire, stub removal and purge) are the coordinator's too
        byte[] ref = new io.elect.core.transition.wire.TransitionMessages.StripeRef(T, S1).encode();
        for (int verb : new int[]{ Verbs.RETIRE_MEMBERS, Verbs.STUB_REMOVE, Verbs.STUB_PURGE })
        {
            assertNull(p.refuseRequest(from("127.0.0.1"), verb, ref), Verbs.name(verb));
            assertTrue(p.refuseRequest(from("127.0.0.2"), verb, ref).contains("only accepted from the transitioning coordinator"),
                       Verbs.name(verb) + " from a participant that is not the coordinator");
        }
        assertNull(p.refuseRequest(from("127.0.0.4"), Verbs.READ_MEMBER, new byte[]{ 9 }));
        assertNull(p.refuseRequest(from("127.0.0.4"), Verbs.SNAPSHOT, new byte[0]));
        assertNull(p.refuseRequest(from("127.0.0.4"), 999, new byte[0]));
    }

    @Test
    void aFailedReadOfTheRecordIsRetriedBeforeRefusing() throws Exception
    {
        // Under load the record store times out now and then (a Paxos read under contention did, on a real cluster,
        // and each refusal rolled a stripe back): two failures then success admit the participant.
        AtomicInteger failuresLeft = new AtomicInteger(2);
        List<Long> sleeps = new java.util.ArrayList<>();
        RingAccessPolicy p = new RingAccessPolicy(ring(), id -> {
            lookups.incrementAndGet();
            if (failuresLeft.getAndDecrement() > 0)
                throw new java.util.concurrent.TimeoutException("read timed out");
            return Optional.of(Set.of("127.0.0.2"));
        }, sleeps::add, () -> 0L);
        byte[] drop = new DropParityRequest(T, S1, 0).encode();
        assertNull(p.refuseRequest(from("127.0.0.2"), Verbs.DROP_PARITY, drop));
        assertEquals(3, lookups.get());
        assertEquals(List.of(50L, 200L), sleeps, "back-off between attempts");

        RingAccessPolicy down = new RingAccessPolicy(ring(), id -> {
            throw new java.util.concurrent.TimeoutException("read timed out");
        }, millis -> { }, () -> 0L);
        String r = down.refuseRequest(from("127.0.0.2"), Verbs.DROP_PARITY, drop);
        assertTrue(r.contains("3 reads failed, the last with TimeoutException"), r);
    }

    @Test
    void aCallerMissingFromTheCachedParticipantsMakesTheRecordBeReadAgainAtMostOncePerSecond() throws Exception
    {
        // A replan (parity regenerated on another node) changes a stripe's participants after they were cached.
        java.util.concurrent.atomic.AtomicReference<Set<String>> parties = new java.util.concurrent.atomic.AtomicReference<>(Set.of("127.0.0.2"));
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong();
        RingAccessPolicy p = new RingAccessPolicy(ring(), id -> {
            lookups.incrementAndGet();
            return Optional.of(parties.get());
        }, millis -> { }, now::get);
        byte[] drop = new DropParityRequest(T, S1, 0).encode();
        assertNull(p.refuseRequest(from("127.0.0.2"), Verbs.DROP_PARITY, drop));
        parties.set(Set.of("127.0.0.2", "127.0.0.4"));
        assertTrue(p.refuseRequest(from("127.0.0.4"), Verbs.DROP_PARITY, drop).contains("not a participant"), "cached set, read < 1 s ago");
        assertEquals(1, lookups.get());
        now.addAndGet(1_001_000_000L);
        assertNull(p.refuseRequest(from("127.0.0.4"), Verbs.DROP_PARITY, drop), "re-read after a second names the new parity node");
        assertEquals(2, lookups.get());
        assertNull(p.refuseRequest(from("127.0.0.2"), Verbs.DROP_PARITY, drop));
        assertTrue(p.refuseRequest(from("127.0.0.3"), Verbs.DROP_PARITY, drop).contains("not a participant"));
        assertEquals(2, lookups.get(), "members of the fresh set and refusals within the second need no read");
    }
}
