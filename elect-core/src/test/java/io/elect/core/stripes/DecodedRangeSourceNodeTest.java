package io.elect.core.stripes;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.elect.coding.ErasureCoder;
import io.elect.coding.ErasureCoders;
import io.elect.core.stripes.ParityBuilder.ParityResult;
import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.tiered.DecodedRangeSource;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.tiered.SourceCounters;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.transport.InMemoryNetwork;
import io.elect.core.transport.InMemoryTransport;
import io.elect.core.transport.Peer;
import io.elect.core.transport.PeerLiveness;
import io.elect.core.transport.Transport;
import io.elect.core.transport.TransportOptions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The secondary's stub of a stripe member over the transport: each data member lives on its own "node" (a
 * MemberServer), parity is built by ParityBuilder reading the members through node: locators, and the stub of
 * member 0 reads the primary's file directly while the primary is up and reconstructs it when the primary is gone.
 */
class DecodedRangeSourceNodeTest
{
    private static final int CS = 4096;
    private static final TransportOptions OPTS = new TransportOptions(64 * 1024, 1_000, 1, 5);

    @TempDir
    Path tmp;

    @Test
    void stubReadsPrimaryWhileUpAndDecodesWhenDown() throws IOException
    {
        InMemoryNetwork net = new InMemoryNetwork();
        List<Transport> nodes = new ArrayList<>();
        Random rnd = new Random(17);
        int k = 3, m = 2;
        ErasureCoder coder = ErasureCoders.create(k, m);
        List<String> locators = new ArrayList<>();
        long[] lengths = new long[k];
        byte[][] data = new byte[k][];
        try
        {
            for (int i = 0; i < k + m; i++)
            {
                Peer peer = new Peer("node-" + i, 7070);
                Transport t = new InMemoryTransport(net, peer, OPTS, PeerLiveness.ALWAYS);
                nodes.add(t);
                Path dir = Files.createDirectories(tmp.resolve("node-" + i));
                new MemberServer(t, List.of(dir));
                if (i < k)
                {
                    data[i] = new byte[10 * CS + rnd.nextInt(20 * CS)];
                    rnd.nextBytes(data[i]);
                    lengths[i] = data[i].length;
                    locators.add(LocatorMemberReader.node(peer.host(), peer.port(), Files.write(dir.resolve("data"), data[i])));
                }
                else
                {
                    locators.add(LocatorMemberReader.node(peer.host(), peer.port(), dir.resolve("parity").toAbsolutePath()));
                }
            }
            long max = Arrays.stream(lengths).max().getAsLong();
            StripeLayout layout = new StripeLayout(coder.codecId(), k, m, lengths, max, locators);

            // each parity node builds its parity, reading the data members over the transport
            for (int j = 0; j < m; j++)
            {
                LocatorMemberReader members = new NodeMemberReader(nodes.get(k + j)).members(n -> null);
                ParityResult r = new ParityBuilder(64 * 1024, CS, new Coders("auto"), io.elect.core.util.Clock.SYSTEM).build(layout, j, members, tmp.resolve("node-" + (k + j)), "parity");
                assertEquals(max, r.length());
            }

            // the stub of member 0 on a secondary (a client of its own)
            Transport secondary = new InMemoryTransport(net, new Peer("secondary", 7070), OPTS, PeerLiveness.ALWAYS);
            nodes.add(secondary);
            LocatorMemberReader members = new NodeMemberReader(secondary).members(n -> null);
            SourceCounters counters = new SourceCounters();
            DecodedRangeSource stub = new DecodedRangeSource(layout, 0, coder, members,
                                                             ChunkChecksums.compute(ByteBuffer.wrap(data[0]), CS), null, counters, io.elect.core.tiered.DecodeContext.pooled(io.elect.core.util.Clock.SYSTEM, "test-fetch"));
            ByteBuffer all = ByteBuffer.allocate(data[0].length);
            stub.read(0, all);
            assertArrayEquals(data[0], all.array());
            assertEquals(1, counters.directRuns.sum());
            assertEquals(data[0].length, counters.bytesFetched.sum(), "1x the bytes while the primary is up");

            nodes.get(0).close(); // the primary goes down
            ByteBuffer again = ByteBuffer.allocate(data[0].length);
            stub.read(0, again);
            assertArrayEquals(data[0], again.array(), "reconstructed from the other data member and the parity");
            assertEquals(1, counters.decodedRuns.sum());
            long decodedBytes = counters.bytesFetched.sum() - data[0].length;
            assertTrue(decodedBytes > data[0].length, "decoding reads k members, more than the direct read: " + counters.snapshot());
        }
        finally
        {
            nodes.forEach(Transport::close);
        }
    }
}
