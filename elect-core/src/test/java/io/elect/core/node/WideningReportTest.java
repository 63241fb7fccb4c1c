package io.elect.core.node;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.elect.coding.CauchyMatrix;
import io.elect.core.config.Json;
import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.InMemoryStripeStore;
import io.elect.core.transition.ParityPlacement.Node;
import io.elect.core.transition.StripeStore;
import io.elect.core.transition.WideningPlanner.Candidate;
import io.elect.core.transition.wire.TransitionMessages.CandidateInfo;
import io.elect.core.transition.wire.NodeSnapshot;
import io.elect.core.transition.wire.TransitionMessages.TableRef;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The node-side widening plan document over an in-memory stripe store (records through the persisted format). */
class WideningReportTest
{
    private static final List<StripeState> TO_COMMITTED = List.of(StripeState.PLANNED, StripeState.CHUNKS_SHIPPED, StripeState.PARITY_BUILT,
                                                                  StripeState.STUBS_INSTALLED, StripeState.SECONDARIES_STUBBED,
                                                                  StripeState.COMMITTED);

    private static StripeRecord planned(long id, List<Member> members, String... parity)
    {
        return StripeRecord.planned(new StripeId(0, id), members, 4096, CauchyMatrix.codecId(members.size(), parity.length),
                                    parity.length, List.of(parity), 0);
    }

    private static void commit(StripeStore store, StripeRecord r)
    {
        store.create(r);
        for (int i = 1; i < TO_COMMITTED.size(); i++)
            store.transition(r.id(), TO_COMMITTED.get(i - 1), TO_COMMITTED.get(i), i);
    }

    @Test
    void documentOfAStoreWithACommittedAndAnInFlightStripe() throws Exception
    {
        InMemoryStripeStore store = new InMemoryStripeStore();
        commit(store, planned(1, List.of(new Member("n1", "ks.t/1", 1000), Member.virtual()), "n3"));
        store.create(planned(2, List.of(new Member("n2", "ks.t/2", 500), new Member("n3", "ks.t/3", 700)), "n1"));
        TableRef table = new TableRef("ks", "t");
        List<NodeSnapshot> snaps = List.of(
            new NodeSnapshot("n2", new long[0][], 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of(new CandidateInfo("4", 300, 0.0, 10_000))),
            new NodeSnapshot("n4", new long[0][], 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of(new CandidateInfo("5", 6000, 0.0, 10_000))));
        List<Candidate> candidates = WideningReport.candidates(table, snaps);
        assertEquals(List.of(new Candidate("n2", "ks.t/4", 300), new Candidate("n4", "ks.t/5", 6000)), candidates);
        List<Node> ring = List.of(new Node("n1", "r1"), new Node("n2", "r1"), new Node("n3", "r1"), new Node("n4", "r1"));

        Map<String, Object> doc = WideningReport.document(store, ring, candidates, 3, 4096);
        JsonNode d = new ObjectMapper().readTree(Json.write(doc));
        assertEquals(3, d.path("target_k").asInt());
        assertEquals(2, d.path("stripes_total").asInt());
        assertEquals(1, d.path("outcomes").path("widened").asInt());
        assertEquals(1, d.path("outcomes").path("not_committed").asInt());
        // stripe 1 (n1, virtual | n3): virtual slot 1 first, from n4 (holds no chunk; n2 holds one of stripe 2), then
        // new slot 2 from n2; the 6000-byte member grows the chunks from 4096 to 8192.
        JsonNode s1 = d.path("stripes").get(0);
        assertEquals(new StripeId(0, 1).toString(), s1.path("id").asText());
        assertEquals("widened", s1.path("outcome").asText());
        assertEquals(1, s1.path("additions").get(0).path("slot").asInt());
        assertEquals(true, s1.path("additions").get(0).path("virtual_slot").asBoolean());
        assertEquals("n4", s1.path("additions").get(0).path("node").asText());
        assertEquals("ks.t/5", s1.path("additions").get(0).path("member").asText());
        assertEquals("n2", s1.path("additions").get(1).path("node").asText());
        assertEquals(2, s1.path("additions").get(1).path("slot").asInt());
        assertEquals("rs-cauchy-gf8-11d:k=3:m=1", s1.path("to_codec").asText());
        assertEquals(8192, s1.path("to_code_length").asLong());
        assertEquals(6300, s1.path("bytes_moved").asLong());
        assertEquals(6300, s1.path("lower_bound").asLong());
        JsonNode s2 = d.path("stripes").get(1);
        assertEquals("not_committed", s2.path("outcome").asText());
        assertEquals("state PLANNED: only committed stripes are widened", s2.path("reason").asText());
        assertEquals(6300, d.path("bytes_moved").asLong());
        assertEquals(6300, d.path("lower_bound").asLong());
        assertEquals(1.0, d.path("ratio_to_lower_bound").asDouble());
        // per node, every live node listed (n1 neither sends nor receives)
        assertEquals("n1", d.path("nodes").get(0).path("node").asText());
        assertEquals(0, d.path("nodes").get(0).path("send_bytes").asLong());
        assertEquals(300, d.path("nodes").get(1).path("send_bytes").asLong());
        assertEquals(6300, d.path("nodes").get(2).path("receive_bytes").asLong());
        assertEquals(6000, d.path("nodes").get(3).path("send_bytes").asLong());
        assertEquals(WideningReport.APPLY, d.path("apply").asText());
    }

    @Test
    void aStoreThatIsNotReadyHasNoStripes() throws Exception
    {
        InMemoryStripeStore inner = new InMemoryStripeStore();
        inner.create(planned(9, List.of(new Member("n1", "ks.t/9", 10)), "n2"));
        StripeStore notReady = new StripeStore()
        {
            public Outcome create(StripeRecord planned) { return inner.create(planned); }
            public java.util.Optional<StripeRecord> get(StripeId id) { return inner.get(id); }
            public Outcome transition(StripeId id, StripeState from, StripeState to, long now) { return inner.transition(id, from, to, now); }
            public Outcome replan(StripeRecord expected, StripeRecord next) { return inner.replan(expected, next); }
            public List<StripeRecord> list() { throw new AssertionError("list() of a store that is not ready"); }
            public boolean delete(StripeId id) { return inner.delete(id); }
            public Map<String, Long> draining() { throw new AssertionError("draining() of a store that is not ready"); }
            public void markDraining(String node, long since) { inner.markDraining(node, since); }
            public void unmarkDraining(String node) { inner.unmarkDraining(node); }
            @Override
            public boolean ready() { return false; }
        };
        Map<String, Object> doc = WideningReport.document(notReady, List.of(new Node("n1", null)), List.of(), 4, 4096);
        assertEquals(0, doc.get("stripes_total"));
        assertEquals(0L, doc.get("bytes_moved"));
    }
}
