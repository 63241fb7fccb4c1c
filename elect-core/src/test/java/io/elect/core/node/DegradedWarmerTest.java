package io.elect.core.node;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.elect.coding.ErasureCoder;
import io.elect.coding.ErasureCoders;
import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.Coders;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.tiered.DecodeContext;
import io.elect.core.tiered.DecodedRangeSource;
import io.elect.core.tiered.SourceCounters;
import io.elect.core.tiered.TieredChunkCache;
import io.elect.core.tiered.TieredRuntime;
import io.elect.core.tiered.TieredSidecar;
import io.elect.core.transport.Peer;
import io.elect.core.util.ManualClock;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The warmer over a real tiered runtime and DECODED source: members are in-memory files of peers 10.0.0.1..6 read
 * through the runtime's node reader, which refuses peers marked down (as the transport does).
 */
class DegradedWarmerTest
{
    private static final int CS = 4096;
    private static final long LENGTH = 12L * CS;

    @Test
    void planTakesTheHottestThatFitAcrossSources()
    {
        List<DegradedWarmer.Candidate> in = List.of(new DegradedWarmer.Candidate(0, 1, 5, 100),
                                                    new DegradedWarmer.Candidate(1, 9, 7, 100),
                                                    new DegradedWarmer.Candidate(0, 4, 5, 100),
                                                    new DegradedWarmer.Candidate(1, 2, 2, 50),
                                                    new DegradedWarmer.Candidate(0, 3, 3, 120));
        Map<Integer, long[]> p = DegradedWarmer.plan(in, 330);
        // 1/9 (7), 0/1 (5), 0/4 (5): 300 bytes; 0/3 (120) does not fit; 1/2 (50) does not fit either (30 left)
        assertEquals(List.of(0, 1), new ArrayList<>(p.keySet()));
        assertArrayEquals(new long[]{ 1, 4 }, p.get(0));
        assertArrayEquals(new long[]{ 9 }, p.get(1));
        Map<Integer, long[]> q = DegradedWarmer.plan(in, 360);
        assertArrayEquals(new long[]{ 1, 4 }, q.get(0));
        assertArrayEquals(new long[]{ 9, 2 }, q.get(1), "a smaller chunk after one that did not fit is taken");
        assertEquals(Map.of(), DegradedWarmer.plan(in, 0));
    }

    /** Six members of 12 chunks on peers 10.0.0.1..6; reads of a down peer fail; counts reads per peer. */
    static final class Peers
    {
        final byte[][] files = new byte[6][];
        final Set<Peer> down = ConcurrentHashMap.newKeySet();
        final AtomicInteger[] reads = new AtomicInteger[6];

        Peers(long seed)
        {
            ErasureCoder coder = ErasureCoders.create(4, 2, ErasureCoders.JAVA);
            Random rnd = new Random(seed);
            ByteBuffer[] data = new ByteBuffer[4];
            ByteBuffer[] parity = new ByteBuffer[2];
            for (int i = 0; i < 6; i++)
            {
                files[i] = new byte[(int) LENGTH];
                reads[i] = new AtomicInteger();
                if (i < 4)
                {
                    rnd.nextBytes(files[i]);
                    data[i] = ByteBuffer.wrap(files[i]);
                }
                else
                    parity[i - 4] = ByteBuffer.wrap(files[i]);
            }
            coder.encode(data, parity, 0, (int) LENGTH);
        }

        static Peer peer(int member)
        {
            return new Peer("10.0.0." + (member + 1), 7000);
        }

        StripeLayout layout()
        {
            List<String> locators = new ArrayList<>();
            for (int i = 0; i < 6; i++)
                locators.add("node:" + peer(i).host() + ":7000/data/m" + i);
            long[] lengths = { LENGTH, LENGTH, LENGTH, LENGTH };
            return new StripeLayout(ErasureCoders.create(4, 2, ErasureCoders.JAVA).codecId(), 4, 2, lengths, LENGTH, locators);
        }
    }

    private final ManualClock clock = new ManualClock(1_000_000);

    private TieredRuntime runtime(Peers peers)
    {
        TieredRuntime tiered = new TieredRuntime(new Coders("java"), new TieredChunkCache(1 << 20), DecodeContext.direct(clock));
        tiered.setNodeReader((where, offset, length) -> {
            Peer p = new Peer(where.host(), where.port());
            if (peers.down.contains(p))
                throw new IOException("PEER_DOWN: " + p);
            int m = Integer.parseInt(where.path().substring("/data/m".length()));
            peers.reads[m].incrementAndGet();
            return ByteBuffer.wrap(Arrays.copyOfRange(peers.files[m], (int) offset, (int) (offset + length)));
        });
        return tiered;
    }

    private static void readChunk(DecodedRangeSource src, Peers peers, long chunk) throws IOException
    {
        ByteBuffer dst = ByteBuffer.allocate(100);
        src.read(chunk * CS + 7, dst);
        assertArrayEquals(Arrays.copyOfRange(peers.files[0], (int) (chunk * CS + 7), (int) (chunk * CS + 107)), dst.array());
    }

    @Test
    void aPeerGoingDownGetsItsHotChunksDecodedAheadOfTheReaders() throws IOException
    {
        Peers peers = new Peers(5);
        TieredRuntime tiered = runtime(peers);
        ChunkChecksums sums = ChunkChecksums.compute(ByteBuffer.wrap(peers.files[0]), CS);
        DecodedRangeSource src = (DecodedRangeSource) tiered.openSource(TieredSidecar.decoded(sums, peers.layout(), 0), "test");
        assertEquals(List.of(src), tiered.decodedSources());
        for (int i = 0; i < 3; i++)
            readChunk(src, peers, 3);
        readChunk(src, peers, 8);
        readChunk(src, peers, 8);
        readChunk(src, peers, 1);                       // read once: not hot
        assertEquals(1 + 1 + 1, peers.reads[0].get(), "direct reads of the up peer, then cache hits");
        tiered.cache().invalidate(src.cacheId());      // e.g. evicted by cold-tier reads

        NodeMetrics metrics = new NodeMetrics(NodeMetrics.LOCAL);
        Set<Peer> downView = peers.down;
        DegradedWarmer warmer = new DegradedWarmer(tiered, p -> !downView.contains(p), clock, metrics, 1 << 20, 2);
        assertEquals(0, warmer.poll(), "nobody is down");

        peers.down.add(Peers.peer(0));
        SourceCounters.Snapshot before = src.counters().snapshot();
        assertEquals(2, warmer.poll(), "chunks 3 and 8 (read 3 and 2 times) are warmed; chunk 1 (once) is not");
        SourceCounters.Snapshot warm = src.counters().snapshot().minus(before);
        assertEquals(2, warm.decodedRuns(), warm.toString());
        assertEquals(3, src.heat().reads(3), "warming is not counted as reading");
        assertEquals(2, metrics.counter("Tiered", "WarmedChunks", null).getCount());
        assertEquals(2L * CS, metrics.counter("Tiered", "WarmedBytes", null).getCount());
        assertEquals(0, warmer.poll(), "a peer is warmed once per time it goes down");

        before = src.counters().snapshot();
        readChunk(src, peers, 3);
        readChunk(src, peers, 8);
        SourceCounters.Snapshot after = src.counters().snapshot().minus(before);
        assertEquals(0, after.requests(), "warmed chunks are cache hits: " + after);
        assertEquals(2, after.cacheHits());
        readChunk(src, peers, 1);
        assertEquals(1, src.counters().snapshot().minus(before).decodedRuns(), "an unwarmed chunk decodes on read");

        // up again, then down again: warmed again (already cached, so nothing is fetched)
        peers.down.clear();
        assertEquals(0, warmer.poll());
        peers.down.add(Peers.peer(0));
        before = src.counters().snapshot();
        assertEquals(3, warmer.poll(), "chunk 1 now has 2 reads too");
        assertEquals(0, src.counters().snapshot().minus(before).requests());
    }

    @Test
    void theBudgetBoundsWarmingAndOldHeatDecays() throws IOException
    {
        Peers peers = new Peers(6);
        TieredRuntime tiered = runtime(peers);
        ChunkChecksums sums = ChunkChecksums.compute(ByteBuffer.wrap(peers.files[0]), CS);
        DecodedRangeSource src = (DecodedRangeSource) tiered.openSource(TieredSidecar.decoded(sums, peers.layout(), 0), "test");
        for (long c : new long[]{ 2, 2, 2, 5, 5, 9, 9, 9, 9 })
            readChunk(src, peers, c);
        tiered.cache().invalidate(src.cacheId());
        DegradedWarmer warmer = new DegradedWarmer(tiered, p -> !peers.down.contains(p), clock, new NodeMetrics(NodeMetrics.LOCAL),
                                                   2L * CS, 2);
        peers.down.add(Peers.peer(0));
        assertEquals(2, warmer.poll(), "two chunks fit: 9 (4 reads) and 2 (3 reads)");
        SourceCounters.Snapshot before = src.counters().snapshot();
        readChunk(src, peers, 9);
        readChunk(src, peers, 2);
        assertEquals(2, src.counters().snapshot().minus(before).cacheHits());

        clock.advance(DegradedWarmer.DECAY_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
        peers.down.clear();
        warmer.poll();                                  // decays: 5 reads of 9 -> 2, 2 of 5 -> 1
        assertEquals(1, src.heat().reads(5));
        assertThrows(IllegalArgumentException.class, () -> new DegradedWarmer(tiered, p -> true, clock, new NodeMetrics(NodeMetrics.LOCAL), -1, 2));
        assertThrows(IllegalArgumentException.class, () -> new DegradedWarmer(tiered, p -> true, clock, new NodeMetrics(NodeMetrics.LOCAL), 1, 0));
    }
}
