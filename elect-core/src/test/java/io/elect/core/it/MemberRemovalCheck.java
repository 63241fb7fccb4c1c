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
 * middle 60% of one node's primary token range is written again, so that node's encoded members lying inside it
 * become fully shadowed while their stripe-mates (other nodes' ranges) stay live; the coordinator must then REMOVE
 * those members from their stripes (a new parity generation, the stubs relaid out), not retire the stripes.
 */
final class MemberRemovalCheck
{
    private MemberRemovalCheck()
    {
    }

    /** The keys (0 <= k < keys) whose token is in the middle 60% of {@code owner}'s primary range (single-token nodes). */
    static IntPredicate slice(CqlSession session, Node owner, int keys, java.util.function.IntFunction<String> key)
    {
        TokenMap tm = session.getMetadata().getTokenMap().orElseThrow();
        Set<Token> own = tm.getTokens(owner);
        assertTrue(own.size() == 1, "the check assumes one token per node, " + owner + " has " + own.size());
        long end = ((Murmur3Token) own.iterator().next()).getValue();
        long start = Long.MIN_VALUE;
        boolean found = false;
        TreeSet<Long> ring = new TreeSet<>();
        for (Token t : tm.getTokenRanges().stream().map(r -> r.getEnd()).toList())
            ring.add(((Murmur3Token) t).getValue());
        Long prev = ring.lower(end);
        start = prev != null ? prev : ring.last(); // wraps around
        double span = unsigned(end - start);
        boolean[] in = new boolean[keys];
        for (int k = 0; k < keys; k++)
        {
            long t = ((Murmur3Token) tm.newToken(ByteBuffer.wrap(key.apply(k).getBytes(StandardCharsets.UTF_8)))).getValue();
            double d = unsigned(t - start);
            in[k] = d > 0.2 * span && d < 0.8 * span;
        }
        return k -> in[k];
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
            ByteBuffer b = r.getByteBuffer("record");
            byte[] bytes = new byte[b.remaining()];
            b.duplicate().get(bytes);
            StripeRecord rec = StripeRecordCodec.decode(bytes);
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
