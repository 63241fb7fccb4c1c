package io.elect.core.node;

import io.elect.core.bridge.NodeHandoff;
import io.elect.core.stripes.ParityFiles;
import io.elect.core.transition.InMemoryStripeStore;

import io.elect.core.bridge.ElectStateDir;
import io.elect.core.bridge.EmbeddedNode;
import io.elect.core.bridge.FrozenSSTables;
import io.elect.core.bridge.RoleRangesSource;
import io.elect.core.bridge.TieredSSTables;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.apache.cassandra.cql3.QueryProcessor;
import org.apache.cassandra.cql3.UntypedResultSet;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.io.sstable.format.SSTableFormat.Components;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.service.StorageService;

import io.elect.core.config.ColdTierStores;
import io.elect.core.config.ElectConfig;
import io.elect.core.stripes.NodeMemberReader;
import io.elect.core.stripes.RedirectTable;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.stripes.LocatorMemberReader.NodeLocator;
import io.elect.core.trees.RoleRanges;
import io.elect.core.transition.wire.TransitionMessages.DropParityRequest;
import io.elect.core.transition.wire.TransitionMessages.MemberRequest;
import io.elect.core.transition.wire.NodeSnapshot;
import io.elect.core.transition.wire.TransitionMessages.OffloadRequest;
import io.elect.core.transition.wire.TransitionMessages.OffloadResult;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.core.transport.InMemoryNetwork;
import io.elect.core.transport.InMemoryTransport;
import io.elect.core.transport.Peer;
import io.elect.core.transport.PeerLiveness;
import io.elect.core.transport.Transport;
import io.elect.core.transport.TransportOptions;
import io.elect.core.transport.Verbs;
import io.elect.offload.ColdStore;
import io.elect.offload.FramedColdStore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One embedded node (ports 58000/58042, no native transport) with an in-memory cold tier under
 * {@link ColdTierStores#DEFAULT_STORE}, and the node's transitioning handlers on an InMemoryTransport. An encoded
 * (frozen) primary offloaded by OFFLOAD_PRIMARY becomes a tiered COLD SSTable, and a READ_MEMBER of its OLD Data.db
 * path (what secondaries' stub locators name) still returns the original bytes; reads are unchanged; the snapshot
 * counts it as encodedCold with its data length. A hot parity member offloaded by OFFLOAD_PARITY is served from the
 * cold tier at its old path and accounted as cold parity; DROP_PARITY removes it everywhere.
 */
class ColdOffloadTest
{
    private static final String KS = "elect_offload";
    private static final TableRef T = new TableRef(KS, "t");
    private static final Peer SERVER = new Peer("server", 7070);

    @BeforeAll
    static void startNode() throws Exception
    {
        Path base = Paths.get("target", "elect-offload-node-" + ProcessHandle.current().pid()).toAbsolutePath();
        EmbeddedNode.start("elect-offload-node.yaml", "elect-stripes-logback.xml", base.resolve("node"), base);
    }

    @AfterAll
    static void stopNode() throws Exception
    {
        StorageService.instance.drain();
    }

    private static void cql(String q)
    {
        QueryProcessor.executeInternal(q);
    }

    private static List<String> readAll(int keys)
    {
        List<String> out = new ArrayList<>();
        for (int k = 0; k < keys; k++)
            for (UntypedResultSet.Row r : QueryProcessor.executeInternal("SELECT k, v FROM " + KS + ".t WHERE k = " + k))
                out.add(r.getInt("k") + "=" + r.getString("v"));
        return out;
    }

    /** A COMMITTED stripe with one member (the SSTable id), walked through every state as the state machine would. */
    private static String committedStripe(InMemoryStripeStore store, String sstable)
    {
        io.elect.core.stripes.StripeRecord r = io.elect.core.stripes.StripeRecord.planned(
            io.elect.core.stripes.StripeId.ofMembers(List.of(sstable)),
            List.of(new io.elect.core.stripes.Member("127.0.0.1", KS + ".t/" + sstable, 1)), 4096, "rs-cauchy-gf8-11d:k=1:m=1", 1,
            List.of("127.0.0.2"), 1);
        store.create(r);
        io.elect.core.stripes.StripeState[] path = { io.elect.core.stripes.StripeState.PLANNED, io.elect.core.stripes.StripeState.CHUNKS_SHIPPED,
                                                     io.elect.core.stripes.StripeState.PARITY_BUILT, io.elect.core.stripes.StripeState.STUBS_INSTALLED,
                                                     io.elect.core.stripes.StripeState.SECONDARIES_STUBBED, io.elect.core.stripes.StripeState.COMMITTED };
        for (int i = 1; i < path.length; i++)
            store.transition(r.id(), path[i - 1], path[i], 1 + i);
        return r.id().toString();
    }

    /** The "sources" of {@code electtool reads --json} for the test table. */
    private static com.fasterxml.jackson.databind.JsonNode readSources(ElectNode node) throws Exception
    {
        com.fasterxml.jackson.databind.JsonNode doc = new com.fasterxml.jackson.databind.ObjectMapper().readTree(node.readsJson());
        assertEquals(1, doc.path("version").asInt());
        for (com.fasterxml.jackson.databind.JsonNode t : doc.path("tables"))
            if (t.path("table").asText().equals(T.toString()))
                return t.path("sources");
        throw new AssertionError("no " + T + " in " + doc);
    }

        private static byte[] bytes(ByteBuffer b)
    {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    @Test
    void offloadedPrimaryAndParityStayReadableAtTheirOldPaths() throws Exception
    {
        ColdStore cold = FramedColdStore.inMemory();
        NodeHandoff.bridge().node().tiered().registerStore(ColdTierStores.DEFAULT_STORE, cold);
        NodeHandoff.bridge().roles().setOverrideForTesting(KS, RoleRanges.<org.apache.cassandra.dht.Token>linear(List.of(), List.of(0)));
        cql("CREATE KEYSPACE " + KS + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
        cql("CREATE TABLE " + KS + ".t (k int PRIMARY KEY, v text) WITH compaction = "
            + "{'class': 'io.elect.core.bridge.ElectCompactionStrategy', 'sstable_size_in_mb': 1, 'fanout_size': 4}");
        ColumnFamilyStore cfs = Keyspace.open(KS).getColumnFamilyStore("t");
        cfs.disableAutoCompaction();
        Random rnd = new Random(9);
        for (int k = 0; k < 2000; k++)
            cql("INSERT INTO " + KS + ".t (k, v) VALUES (" + k + ", '" + Long.toHexString(rnd.nextLong()) + "')");
        cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.UNIT_TESTS);
        assertEquals(1, cfs.getLiveSSTables().size());
        SSTableReader primary = cfs.getLiveSSTables().iterator().next();
        List<String> before = readAll(2000);

        InMemoryNetwork network = new InMemoryNetwork();
        TransportOptions opts = new TransportOptions(64 * 1024, 5_000, 2, 10);
        Transport server = new InMemoryTransport(network, SERVER, opts, PeerLiveness.ALWAYS);
        Transport client = new InMemoryTransport(network, new Peer("client", 7070), opts, PeerLiveness.ALWAYS);
        try
        {
            ElectNode node = NodeHandoff.bridge().node();
            InMemoryStripeStore stripes = new InMemoryStripeStore();
            node.start(new ElectNode.Seams(NodeHandoff.bridge().localTables(), NodeHandoff.bridge().ring(), stripes,
                                           ElectStateDir.root(), server, NodeExecutors.THREADS));
            LocalTransitionOps ops = node.ops();
            ParityFiles parityFiles = new ParityFiles(ElectStateDir.root());
            NodeMemberReader reader = new NodeMemberReader(client);

            // Not encoded yet: nothing to offload.
            assertEquals(new OffloadResult(0, 0), OffloadResult.decode(await(client, Verbs.OFFLOAD_PRIMARY, new OffloadRequest(T, 1L << 40, 0).encode())));

            // ROLLBACK retried after its member was unfrozen here and encoded by a later stripe: the new owner stays.
            String id = primary.descriptor.id.toString();
            NodeHandoff.bridge().frozen().freeze(cfs, primary, "stripe-0");
            await(client, Verbs.ROLLBACK, new MemberRequest(T, id, "stripe-0").encode());
            assertNull(NodeHandoff.bridge().frozen().frozen(cfs).get(id));
            NodeHandoff.bridge().frozen().freeze(cfs, primary, "stripe-1");
            await(client, Verbs.ROLLBACK, new MemberRequest(T, id, "stripe-0").encode());
            assertEquals("stripe-1", NodeHandoff.bridge().frozen().frozen(cfs).get(id));

            NodeHandoff.bridge().frozen().freeze(cfs, primary, "stripe-1");
            // only members of COMMITTED stripes are offloaded: "stripe-1" is not a stripe the store knows
            assertEquals(new OffloadResult(0, 0), OffloadResult.decode(await(client, Verbs.OFFLOAD_PRIMARY, new OffloadRequest(T, 1L << 40, 0).encode())));
            NodeHandoff.bridge().frozen().unfreeze(cfs, primary, "stripe-1");
            String stripe1 = committedStripe(stripes, id);
            NodeHandoff.bridge().frozen().freeze(cfs, primary, stripe1);
            Path oldData = primary.descriptor.fileFor(Components.DATA).toPath().toAbsolutePath();
            byte[] original = Files.readAllBytes(oldData);
            NodeLocator oldLocator = NodeLocator.parse(LocatorMemberReader.node(SERVER.host(), SERVER.port(), oldData));
            // too young for a one-day minimum age
            assertEquals(new OffloadResult(0, 0), OffloadResult.decode(await(client, Verbs.OFFLOAD_PRIMARY, new OffloadRequest(T, 1L << 40, 86_400_000L).encode())));

            OffloadResult res = OffloadResult.decode(await(client, Verbs.OFFLOAD_PRIMARY, new OffloadRequest(T, 1L << 40, 0).encode()));
            assertEquals(new OffloadResult(original.length, 1), res);
            SSTableReader tiered = cfs.getLiveSSTables().iterator().next();
            assertEquals(1, cfs.getLiveSSTables().size());
            assertTrue(TieredSSTables.isTiered(tiered));
            assertNotEquals(primary.descriptor.id, tiered.descriptor.id);
            assertEquals(stripe1, NodeHandoff.bridge().frozen().frozen(cfs).get(tiered.descriptor.id.toString()), "the owner is kept");
            String coldKey = TieredSSTables.sidecar(tiered.descriptor).coldKey();
            // every node writes into the same bucket and SSTable ids repeat across nodes: the key names this node
            assertTrue(coldKey.startsWith("tiered/" + KS + "/t/" + org.apache.cassandra.service.StorageService.instance.getLocalHostId() + "/"), coldKey);
            String target = "cold:" + ColdTierStores.DEFAULT_STORE + "/" + coldKey;
            assertEquals(Optional.of(target), RedirectTable.open(ElectStateDir.root().resolve(ColdOffload.REDIRECTS_FILE)).lookup(oldData));
            long deadline = System.currentTimeMillis() + 30_000;
            while (Files.exists(oldData) && System.currentTimeMillis() < deadline)
                Thread.sleep(50);
            assertFalse(Files.exists(oldData), "the old Data.db is deleted once unreferenced");

            // A secondary's stub locator (the old path) still reads the member's bytes, now from the cold tier.
            assertArrayEquals(original, bytes(reader.read(oldLocator, 0, original.length)));
            assertArrayEquals(Arrays.copyOfRange(original, 100, 1100), bytes(reader.read(oldLocator, 100, 1000)));
            assertEquals(before, readAll(2000));
            // electtool reads: the 2000 reads since the offload were served by the offloaded (cold) file, the only one
            com.fasterxml.jackson.databind.JsonNode sources = readSources(node);
            assertEquals(2000, sources.path("cold").path("reads").asLong(), sources.toString());
            assertEquals(1, sources.path("cold").path("files").asLong(), sources.toString());
            assertEquals(0, sources.path("encoded").path("files").asLong() + sources.path("primary").path("files").asLong(), sources.toString());
            NodeSnapshot snap = ops.snapshot(T);
            assertEquals(original.length, snap.encodedCold());
            // its other components (index, filter, statistics...) stay on this node: hot bytes of an encoded primary
            assertEquals(tiered.bytesOnDisk(), snap.encodedHot());
            assertTrue(snap.encodedHot() > 0, "components: " + snap.encodedHot());
            // idempotent: nothing left to move
            assertEquals(new OffloadResult(0, 0), OffloadResult.decode(await(client, Verbs.OFFLOAD_PRIMARY, new OffloadRequest(T, 1L << 40, 0).encode())));

            // The offloaded primary turned hot (every key was just read; the snapshot recorded it): it comes back to the
            // hot tier, still frozen for its stripe, and the old path now leads to the local copy.
            ops.snapshot(T);
            assertEquals(1, ops.offload().recallHot(T));
            SSTableReader recalled = cfs.getLiveSSTables().iterator().next();
            assertEquals(1, cfs.getLiveSSTables().size());
            assertFalse(TieredSSTables.isTiered(recalled), "recalled: a local SSTable again");
            assertEquals(stripe1, NodeHandoff.bridge().frozen().frozen(cfs).get(recalled.descriptor.id.toString()), "still its stripe's member");
            Path recalledData = recalled.descriptor.fileFor(Components.DATA).toPath().toAbsolutePath();
            assertArrayEquals(original, Files.readAllBytes(recalledData));
            assertEquals(Optional.of("file:" + recalledData), RedirectTable.open(ElectStateDir.root().resolve(ColdOffload.REDIRECTS_FILE)).lookup(oldData));
            assertArrayEquals(original, bytes(reader.read(oldLocator, 0, original.length)));
            assertEquals(before, readAll(2000));
            sources = readSources(node);
            assertEquals(2000, sources.path("encoded").path("reads").asLong(), "recalled: encoded again, on local disk: " + sources);
            assertEquals(0, sources.path("cold").path("files").asLong(), sources.toString());
            deadline = System.currentTimeMillis() + 30_000;
            while (cold.exists(coldKey) && System.currentTimeMillis() < deadline)
                Thread.sleep(50);
            assertFalse(cold.exists(coldKey), "the cold object goes with the COLD SSTable");
            assertEquals(0, ops.offload().recallHot(T), "nothing left to recall");

            // A hot parity member (no checksum sidecar: verification is skipped) moves to the cold tier.
            Path dir = parityFiles.dir(KS, "t");
            byte[] parity = new byte[150_000];
            rnd.nextBytes(parity);
            Path p0 = Files.write(dir.resolve(ParityFiles.name("stripe-1", 0)), parity);
            Path p1 = Files.write(dir.resolve(ParityFiles.name("stripe-2", 0)), new byte[10]);
            Files.setLastModifiedTime(p0, FileTime.fromMillis(System.currentTimeMillis() - 60_000)); // the oldest
            NodeLocator parityLocator = NodeLocator.parse(LocatorMemberReader.node(SERVER.host(), SERVER.port(), p0));
            assertArrayEquals(new long[]{ parity.length + 10, 0 }, parityFiles.bytes(KS, "t"));
            res = OffloadResult.decode(await(client, Verbs.OFFLOAD_PARITY, new OffloadRequest(T, parity.length, 0).encode()));
            assertEquals(new OffloadResult(parity.length, 1), res);
            assertFalse(Files.exists(p0));
            assertTrue(Files.exists(p1), "one member reached the bytes asked");
            assertArrayEquals(new long[]{ 10, parity.length }, parityFiles.bytes(KS, "t"));
            String key = ParityFiles.coldKey(KS, "t", "stripe-1", 0);
            assertArrayEquals(parity, bytes(cold.readAll(key)));
            assertArrayEquals(Arrays.copyOfRange(parity, 70_000, 150_000), bytes(reader.read(parityLocator, 70_000, 80_000)));
            java.io.IOException past = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                                                                                   () -> reader.read(parityLocator, parity.length - 5, 10));
            assertTrue(past.getMessage().contains("past the end"), past.getMessage());
            await(client, Verbs.DROP_PARITY, new DropParityRequest(T, "stripe-1", 0).encode());
            assertFalse(cold.exists(key));
            assertArrayEquals(new long[]{ 10, 0 }, parityFiles.bytes(KS, "t"));
            java.io.IOException gone = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                                                                                   () -> reader.read(parityLocator, 0, 10));
            assertTrue(gone.getMessage().contains("no such file"), gone.getMessage());
        }
        finally
        {
            client.close();
            server.close();
        }
    }

    private static byte[] await(Transport client, int verb, byte[] payload) throws Exception
    {
        return client.requestOnce(SERVER, verb, payload, 120_000L).get();
    }
}
