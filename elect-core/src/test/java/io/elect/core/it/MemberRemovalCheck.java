package io.elect.core.it;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletionStage;
import java.util.function.IntPredicate;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.AsyncResultSet;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.metadata.Node;
import com.datastax.oss.driver.api.core.metadata.TokenMap;
import com.datastax.oss.driver.api.core.metadata.token.Token;
import com.datastax.oss.driver.internal.core.metadata.token.Murmur3Token;

import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeRecordCodec;
import io.elect.core.stripes.StripeState;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * TransitioningIT's member-change step (issue 16, docs/design/updates.md item 4) on a real cluster: every key in the
 * token span of one of a node's encoded members is written again, so that member becomes fully shadowed while its
 * stripe-mates (other nodes' ranges) stay live; the coordinator must then REMOVE it from its stripe (a new parity
 * generation, the stubs relaid out), not retire the stripe.
 */
final class MemberRemovalCheck
{
    private MemberRemovalCheck()
    {
    }

    /**
     * The keys (0 <= k < keys) whose token lies in the token span of one of node {@code nodeIndex}'s encoded members
     * (a frozen SSTable whose whole span is inside the node's primary range: stubs on the node cover other nodes'
     * ranges), the largest such member; rewriting them makes that member fully shadowed while its stripe-mates, on
     * other nodes, stay live. Picking the member (not a fixed share of the range) makes the step deterministic: which
     * of a node's files are encoded depends on the planner. Single-token nodes.
     */
    static IntPredicate slice(CqlSession session, Node owner, int nodeIndex, String keyspace, String table, int keys,
                              java.util.function.IntFunction<String> key) throws Exception
    {
        IntPredicate s = slice(session, owner, nodeIndex, keyspace, table, keys, key, r -> true);
        assertTrue(s != null, "no local member of node " + nodeIndex + " in a stripe with another member, inside its primary range");
        return s;
    }

    /**
     * {@link #slice(CqlSession, Node, int, String, String, int, java.util.function.IntFunction)} among the members of
     * the stripes {@code stripes} accepts only; null if there is none.
     */
    static IntPredicate slice(CqlSession session, Node owner, int nodeIndex, String keyspace, String table, int keys,
                              java.util.function.IntFunction<String> key, java.util.function.Predicate<StripeRecord> stripes) throws Exception
    {
        TokenMap tm = session.getMetadata().getTokenMap().orElseThrow();
        Set<Token> own = tm.getTokens(owner);
        assertTrue(own.size() == 1, "the check assumes one token per node, " + owner + " has " + own.size());
        long end = ((Murmur3Token) own.iterator().next()).getValue();
        TreeSet<Long> ring = new TreeSet<>();
        for (Token t : tm.getTokenRanges().stream().map(r -> r.getEnd()).toList())
            ring.add(((Murmur3Token) t).getValue());
        Long prev = ring.lower(end);
        long start = prev != null ? prev : ring.last(); // wraps around
        double span = unsigned(end - start);
        // members of node nodeIndex in committed stripes that keep another real member (a padded stripe's only
        // member, fully shadowed, makes the stripe retired whole instead)
        Set<String> members = new java.util.HashSet<>();
        String self = "127.0.0." + nodeIndex;
        for (Row r : session.execute("SELECT record FROM elect_system.stripes").all())
        {
            StripeRecord rec = decode(r);
            if (rec.state() == StripeState.COMMITTED && rec.realMembers() >= 2 && stripes.test(rec))
                for (io.elect.core.stripes.Member m : rec.members())
                    if (!m.isVirtual() && m.node().equals(self))
                        members.add(m.sstable().substring(m.sstable().indexOf('/') + 1));
        }
        String json = (String) LocalClusterScript.jmxInvoke(nodeIndex, "io.elect:type=Tables", "sstablesJson", keyspace, table);
        long first = 0, last = 0, best = -1;
        for (com.fasterxml.jackson.databind.JsonNode f : new com.fasterxml.jackson.databind.ObjectMapper().readTree(json))
        {
            String file = f.path("file").asText();
            if (!"frozen".equals(f.path("role").asText()) || members.stream().noneMatch(id -> file.contains("-" + id + "-")))
                continue;
            long a = Long.parseLong(f.path("first_token").asText()), b = Long.parseLong(f.path("last_token").asText());
            double da = unsigned(a - start), db = unsigned(b - start);
            if (da > 0 && db <= span && da <= db && f.path("bytes").asLong() > best)
            {
                best = f.path("bytes").asLong();
                first = a;
                last = b;
            }
        }
        if (best < 0)
            return null; // no local member of the node in such a stripe, inside its primary range
        double lo = unsigned(first - start), hi = unsigned(last - start);
        boolean[] in = new boolean[keys];
        for (int k = 0; k < keys; k++)
        {
            long t = ((Murmur3Token) tm.newToken(ByteBuffer.wrap(key.apply(k).getBytes(StandardCharsets.UTF_8)))).getValue();
            double d = unsigned(t - start);
            in[k] = d >= lo && d <= hi;
        }
        return k -> in[k];
    }

    private static StripeRecord decode(Row r)
    {
        ByteBuffer b = r.getByteBuffer("record");
        byte[] bytes = new byte[b.remaining()];
        b.duplicate().get(bytes);
        return StripeRecordCodec.decode(bytes);
    }

    private static double unsigned(long v)
    {
        return v >= 0 ? v : (double) (v >>> 1) * 2.0;
    }

    /** Committed stripes at parity generation >= 1 (changed), and whether any stripe is in a change. */
    static int[] changed(CqlSession session)
    {
        int changed = 0, changing = 0;
        for (Row r : session.execute("SELECT record FROM elect_system.stripes").all())
        {
            StripeRecord rec = decode(r);
            if (rec.state() == StripeState.COMMITTED && rec.parityGeneration() >= 1)
                changed++;
            if (rec.state() == StripeState.CHANGING || rec.state() == StripeState.CHANGED)
                changing++;
        }
        return new int[]{ changed, changing };
    }

    /** Writes every key of the slice again (version {@code version} of every field) at CL ALL. */
    static int overwrite(CqlSession session, String table, int keys, IntPredicate slice, java.util.function.IntFunction<String> key,
                         ValueOf value, int version) throws Exception
    {
        PreparedStatement put = session.prepare("INSERT INTO " + table + " (key, field0, field1, field2, field3) VALUES (?, ?, ?, ?, ?)");
        List<CompletionStage<AsyncResultSet>> inflight = new ArrayList<>();
        int n = 0;
        for (int k = 0; k < keys; k++)
        {
            if (!slice.test(k))
                continue;
            n++;
            inflight.add(session.executeAsync(put.bind(key.apply(k), value.of(k, version, 0), value.of(k, version, 1), value.of(k, version, 2),
                                                       value.of(k, version, 3)).setConsistencyLevel(ConsistencyLevel.ALL)));
            if (inflight.size() >= 64)
            {
                for (CompletionStage<AsyncResultSet> f : inflight)
                    f.toCompletableFuture().get();
                inflight.clear();
            }
        }
        for (CompletionStage<AsyncResultSet> f : inflight)
            f.toCompletableFuture().get();
        return n;
    }

    interface ValueOf
    {
        String of(int k, int version, int field);
    }
}
