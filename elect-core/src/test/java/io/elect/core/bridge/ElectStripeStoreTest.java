package io.elect.core.bridge;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeRecordCodec;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.StripeStateMachineTest;
import io.elect.core.transition.StripeStore;
import io.elect.core.transition.StripeStoreContract;
import io.elect.core.transport.Peer;
import org.apache.cassandra.cql3.QueryProcessor;
import org.apache.cassandra.cql3.UntypedResultSet;
import org.apache.cassandra.schema.Schema;
import org.apache.cassandra.service.StorageService;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One embedded node (ports 47000/49042, no JMX; forked JVM per test class): the {@code elect_system} keyspace is
 * created idempotently with its fixed table id; {@link ElectStripeStore} passes the store contract and the seeded
 * crash-point recovery over real lightweight transactions; the rows hold state/version columns consistent with the
 * checksummed record; {@link ElectPeerLiveness} answers from gossip.
 */
class ElectStripeStoreTest
{
    private static final long SEED = Long.getLong("elect.test.seed", 47_000L);

    @BeforeAll
    static void startNode() throws Exception
    {
        Path base = Paths.get("target", "elect-stripes-node-" + ProcessHandle.current().pid()).toAbsolutePath();
        EmbeddedNode.start("elect-stripes-node.yaml", "elect-stripes-logback.xml", base, base);
        ElectSystemKeyspace.ensure(io.elect.core.util.Clock.SYSTEM);
        ElectSystemKeyspace.ensure(io.elect.core.util.Clock.SYSTEM); // idempotent
    }

    @AfterAll
    static void stopNode() throws Exception
    {
        StorageService.instance.drain();
    }

    @Test
    void keyspaceHasTheFixedTableId()
    {
        assertNotNull(Schema.instance.getKeyspaceMetadata(ElectSystemKeyspace.KEYSPACE));
        assertEquals(ElectSystemKeyspace.STRIPES_ID,
                     Schema.instance.getTableMetadata(ElectSystemKeyspace.KEYSPACE, ElectSystemKeyspace.STRIPES).id.asUUID());
    }

    @Test
    void storeContract()
    {
        StripeStoreContract.basic(new ElectStripeStore(io.elect.core.util.Clock.SYSTEM));
    }

    @Test
    void rowsCarryStateVersionAndChecksummedRecord()
    {
        ElectStripeStore s = new ElectStripeStore(io.elect.core.util.Clock.SYSTEM);
        StripeRecord r = StripeStateMachineTest.record(77);
        assertEquals(StripeStore.Outcome.APPLIED, s.create(r));
        assertEquals(StripeStore.Outcome.APPLIED, s.transition(r.id(), StripeState.PLANNED, StripeState.CHUNKS_SHIPPED, 99));
        UntypedResultSet rs = QueryProcessor.executeInternal("SELECT state, version, record FROM elect_system.stripes WHERE id = ?",
                                                             java.nio.ByteBuffer.wrap(r.id().toBytes()));
        UntypedResultSet.Row row = rs.one();
        assertEquals(StripeState.CHUNKS_SHIPPED.code, row.getInt("state"));
        assertEquals(2L, row.getLong("version"));
        java.nio.ByteBuffer b = row.getBytes("record");
        byte[] bytes = new byte[b.remaining()];
        b.duplicate().get(bytes);
        StripeRecord stored = StripeRecordCodec.decode(bytes);
        assertEquals(StripeState.CHUNKS_SHIPPED, stored.state());
        assertEquals(99, stored.updatedAtMillis());
        assertTrue(stored.samePlan(r));
    }

    @Test
    void crashPointsOverRealLightweightTransactions()
    {
        ElectStripeStore s = new ElectStripeStore(io.elect.core.util.Clock.SYSTEM);
        StripeStoreContract.crashRecovery(() -> s, SEED, 24);
    }

    @Test
    void livenessFromGossip()
    {
        CassandraRing l = new CassandraRing();
        assertTrue(l.isAlive(new Peer("127.0.0.1", 7070)), "this node");
        assertFalse(l.isAlive(new Peer("127.0.0.9", 7070)), "not a ring member");
        assertFalse(l.isAlive(new Peer("no-such-host.invalid", 7070)));
        assertEquals("127.0.0.1", l.self());
        assertEquals(List.of("127.0.0.1"), l.liveMembers());
        assertFalse(l.isAlive("127.0.0.9"), "not a ring member");
    }
}
