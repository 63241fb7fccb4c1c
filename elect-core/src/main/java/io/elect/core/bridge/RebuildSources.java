package io.elect.core.bridge;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import io.elect.core.util.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.dht.Range;
import org.apache.cassandra.dht.Token;
import org.apache.cassandra.gms.FailureDetector;
import org.apache.cassandra.locator.EndpointsForToken;
import org.apache.cassandra.locator.InetAddressAndPort;
import org.apache.cassandra.locator.Replica;
import org.apache.cassandra.service.StorageService;
import org.apache.cassandra.utils.FBUtilities;

/**
 * Where a rebuilding node streams each of its ranges from. Cassandra's rebuild picks any replica; for a keyspace with
 * ELECT tables, the primary of a range (its first natural replica) holds the encoded SSTables of that range as LOCAL
 * files, which Cassandra would stream whole (the rebuild then drops them again: the node gets stubs instead), while a
 * secondary holds stubs, which are never streamed. So each range is streamed from a live secondary other than this
 * node when there is one, else from its primary: {@link #plan} (a pure function), then one
 * {@code StorageService.rebuild(keyspace, ranges, source)} per source.
 */
final class RebuildSources
{
    private static final Logger logger = LoggerFactory.getLogger(RebuildSources.class);

    private RebuildSources()
    {
    }

    /** One range of the rebuilding node and its replicas in ring order (the primary first). */
    record RangeReplicas<R>(R range, List<String> replicas)
    {
    }

    /**
     * Sources by range: each range goes to the first live replica after the primary that is not {@code me}; if there
     * is none, to the primary if it is live and not {@code me}. Ranges with no live source are returned under the
     * key {@code null} (the caller fails with a clear error). The map keeps the order of first use.
     */
    static <R> Map<String, List<R>> plan(List<RangeReplicas<R>> ranges, String me, Predicate<String> alive)
    {
        Map<String, List<R>> out = new LinkedHashMap<>();
        for (RangeReplicas<R> rr : ranges)
        {
            String source = null;
            List<String> reps = rr.replicas();
            for (int i = 1; i < reps.size() && source == null; i++)
                if (!reps.get(i).equals(me) && alive.test(reps.get(i)))
                    source = reps.get(i);
            if (source == null && !reps.isEmpty() && !reps.get(0).equals(me) && alive.test(reps.get(0)))
                source = reps.get(0);
            out.computeIfAbsent(source, x -> new ArrayList<>()).add(rr.range());
        }
        return out;
    }

    /** Streams this node's ranges of keyspace from the sources {@link #plan} picks, one Cassandra rebuild per source. */
    static void stream(String keyspace, Clock clock) throws IOException
    {
        InetAddressAndPort self = FBUtilities.getBroadcastAddressAndPort();
        Keyspace ks = Keyspace.open(keyspace);
        Map<String, InetAddressAndPort> endpoints = new LinkedHashMap<>();
        List<RangeReplicas<Range<Token>>> ranges = new ArrayList<>();
        for (Replica local : StorageService.instance.getLocalReplicas(keyspace))
        {
            EndpointsForToken natural = ks.getReplicationStrategy().getNaturalReplicasForToken(local.range().right);
            List<String> names = new ArrayList<>();
            for (Replica r : natural)
            {
                String name = r.endpoint().getHostAddressAndPort();
                endpoints.put(name, r.endpoint());
                names.add(name);
            }
            ranges.add(new RangeReplicas<>(local.range(), names));
        }
        Map<String, List<Range<Token>>> plan = plan(ranges, self.getHostAddressAndPort(),
                                                    name -> FailureDetector.instance.isAlive(endpoints.get(name)));
        if (plan.containsKey(null))
            throw new IOException("no live replica to stream ranges " + plan.get(null) + " of keyspace " + keyspace + " from");
        Token.TokenFactory tf = StorageService.instance.getTokenFactory();
        for (Map.Entry<String, List<Range<Token>>> e : plan.entrySet())
        {
            long start = clock.nanoTime();
            StringBuilder tokens = new StringBuilder();
            for (Range<Token> r : e.getValue())
                tokens.append(tokens.length() == 0 ? "" : ",").append('(').append(tf.toString(r.left)).append(',')
                      .append(tf.toString(r.right)).append(']');
            StorageService.instance.rebuild(null, keyspace, tokens.toString(), e.getKey());
            logger.info("rebuild of {}: keyspace {}: {} ranges streamed from {} ({} ms)", self, keyspace, e.getValue().size(),
                        e.getKey(), TimeUnit.NANOSECONDS.toMillis(clock.nanoTime() - start));
        }
    }
}
