package io.elect.core.bridge;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;

import javax.management.ObjectName;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.AsyncResultSet;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.elect.core.trees.RoleRanges;
import io.elect.offload.FramedColdStore;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.db.compaction.AbstractCompactionStrategy;
import org.apache.cassandra.db.compaction.CompactionManager;
import org.apache.cassandra.db.compaction.OperationType;
import org.apache.cassandra.db.lifecycle.LifecycleTransaction;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.io.sstable.IScrubber;
import org.apache.cassandra.io.sstable.IVerifier;
import org.apache.cassandra.schema.CompactionParams;
import org.apache.cassandra.dht.Token;
import org.apache.cassandra.io.sstable.Descriptor;
import org.apache.cassandra.io.sstable.format.SSTableFormat.Components;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.service.EmbeddedCassandraService;
import org.apache.cassandra.service.StorageService;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * One embedded node (the ports of {@link ElectCompactionStrategyTest}; surefire runs one JVM per class, one at a
 * time). An SSTable frozen through {@link FrozenSSTables} survives background, major and user-defined compactions
 * byte-identical while everything around it is compacted; the strategy holds it in no tree; the registry is on disk,
 * re-read by strategies created later (ALTER), garbage-collected only for SSTables without files; unfreezing lets
 * compaction take it; a tiered (COLD) SSTable is frozen by format. Reads equal a model of the writes throughout.
 */
class FrozenSSTablesTest
{
    private static final String KS = "elect_frozen";
    private static final long B1 = -3074457345618258602L;
    private static final long B2 = 3074457345618258602L;
    private static final int KEYS = 6000;

    private static EmbeddedCassandraService cassandra;
    private static CqlSession session;
    /** key -> value (absent = never written or deleted). */
    private final Map<String, ByteBuffer> model = new TreeMap<>();

    @BeforeAll
    static void startNode() throws Exception
    {
        Path base = Paths.get("target", "elect-frozen-node-" + ProcessHandle.current().pid()).toAbsolutePath();
        cassandra = EmbeddedNode.start("elect-trees-node.yaml", "elect-trees-logback.xml", base, base);
        session = EmbeddedNode.session(19042);
    }

    @AfterAll
    static void stopNode() throws Exception
    {
        if (session != null)
            session.close();
        if (cassandra != null)
            StorageService.instance.drain();
    }

    private static RoleRanges<Token> ranges()
    {
        return RoleRanges.linear(List.of(new Murmur3Partitioner.LongToken(B1), new Murmur3Partitioner.LongToken(B2)),
                                 List.of(0, 1, 2));
    }

    @Test
    void frozenSSTablesAreNeverCompacted() throws Exception
    {
        long seed = System.nanoTime();
        System.out.println("FrozenSSTablesTest seed=" + seed);
        Random rnd = new Random(seed);
        NodeHandoff.bridge().roles().setOverrideForTesting(KS, ranges());
        session.execute("CREATE KEYSPACE " + KS + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
        session.execute("CREATE TABLE " + KS + ".t (key text PRIMARY KEY, field0 blob) WITH compaction = "
                        + "{'class': 'io.elect.core.bridge.ElectCompactionStrategy', 'sstable_size_in_mb': 1, 'fanout_size': 4}"
                        + " AND read_repair = 'NONE'");
        ColumnFamilyStore cfs = Keyspace.open(KS).getColumnFamilyStore("t");
        cfs.disableAutoCompaction();
        for (int round = 0; round < 3; round++)
        {
            writeRound(rnd, round);
            cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
        }
        assertReadsMatchModel();

        // Freeze the largest role-0 SSTable.
        SSTableReader frozen = null;
        for (Map.Entry<SSTableReader, Integer> e : strategy(cfs).placements().entrySet())
            if (e.getValue() == 0 && (frozen == null || e.getKey().onDiskLength() > frozen.onDiskLength()))
                frozen = e.getKey();
        assertNotNull(frozen, "a role-0 SSTable");
        String id = frozen.descriptor.id.toString();
        String digest = digest(frozen);
        NodeHandoff.bridge().frozen().freeze(cfs, frozen, "stripe-1");
        NodeHandoff.bridge().frozen().freeze(cfs, frozen, "stripe-1"); // idempotent
        SSTableReader f0 = frozen;
        IllegalStateException other = assertThrows(IllegalStateException.class, () -> NodeHandoff.bridge().frozen().freeze(cfs, f0, "stripe-2"));
        assertTrue(other.getMessage().contains("stripe-1") && other.getMessage().contains("stripe-2"), other.getMessage());
        assertEquals(ElectCompactionStrategy.FROZEN, strategy(cfs).placements().get(frozen));
        assertEquals(1, strategy(cfs).frozenCount());
        assertEquals(1, strategy(cfs).roleLevels().get(0).frozenCount());
        assertEquals(Map.of(id, "stripe-1"), NodeHandoff.bridge().frozen().frozen(cfs));
        Path registry = FrozenSSTables.registryFile(KS, "t");
        assertTrue(Files.readString(registry).contains("frozen=" + id + " stripe-1\n"), Files.readString(registry));
        assertTrue(registry.startsWith(cfs.getDirectories().getCFDirectories().get(0).toPath().getParent().getParent().getParent()
                                          .resolve("elect")), "registry beside the data directory: " + registry);
        assertFalse(cfs.getTracker().getCompacting().contains(frozen), "freeze released the SSTable");

        // A compaction holding the SSTable makes freezing fail (retry later).
        SSTableReader busy = anyUnfrozen(cfs);
        try (LifecycleTransaction txn = cfs.getTracker().tryModify(busy, OperationType.COMPACTION))
        {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> NodeHandoff.bridge().frozen().freeze(cfs, busy, "x"));
            assertTrue(e.getMessage().contains("retry later"), e.getMessage());
            txn.abort();
        }
        assertFalse(NodeHandoff.bridge().frozen().frozen(cfs).containsKey(busy.descriptor.id.toString()));

        // Background compactions (with more writes), a major compaction, a user-defined compaction naming it.
        Set<SSTableReader> before = new HashSet<>(cfs.getLiveSSTables());
        before.remove(frozen);
        assertTrue(before.size() >= 6, "other SSTables to compact: " + before);
        cfs.enableAutoCompaction();
        for (int round = 3; round < 6; round++)
        {
            writeRound(rnd, round);
            cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
            awaitCompactions(cfs);
        }
        cfs.forceMajorCompaction();
        awaitCompactions(cfs);
        SSTableReader neighbour = anyUnfrozen(cfs);
        CompactionManager.instance.forceUserDefinedCompaction(frozen.descriptor.fileFor(Components.DATA).absolutePath() + ","
                                                              + neighbour.descriptor.fileFor(Components.DATA).absolutePath());
        awaitCompactions(cfs);
        assertFalse(cfs.getLiveSSTables().contains(neighbour), "the user-defined compaction ran on the other SSTable");
        assertTrue(cfs.getLiveSSTables().contains(frozen), "frozen SSTable still live");
        assertEquals(digest, digest(frozen), "frozen SSTable byte-identical");
        assertEquals(ElectCompactionStrategy.FROZEN, strategy(cfs).placements().get(frozen));
        Set<SSTableReader> survivors = new HashSet<>(before);
        survivors.retainAll(cfs.getLiveSSTables());
        assertEquals(Set.of(), survivors, "every unfrozen SSTable of before the compactions was compacted");
        assertReadsMatchModel();
        assertVisibility(cfs, 1);

        // upgradesstables-like rewrites are refused, and the SSTable is released again.
        try (LifecycleTransaction txn = cfs.getTracker().tryModify(frozen, OperationType.UPGRADE_SSTABLES))
        {
            assertNotNull(txn);
            IllegalStateException e = assertThrows(IllegalStateException.class,
                                                   () -> cfs.getCompactionStrategyManager().getCompactionTask(txn, 0, Long.MAX_VALUE));
            assertTrue(e.getMessage().contains("frozen"), e.getMessage());
        }
        assertFalse(cfs.getTracker().getCompacting().contains(frozen));

        maintenanceOperationsSkipIt(cfs, frozen, digest);
        electHoldsDoNotBlockMajorCompaction(cfs);
        assertReadsMatchModel();

        // Strategies created later (ALTER) re-read the registry from disk.
        NodeHandoff.bridge().frozen().resetCacheForTesting();
        session.execute("ALTER TABLE " + KS + ".t WITH compaction = {'class': 'io.elect.core.bridge.ElectCompactionStrategy', "
                        + "'sstable_size_in_mb': 1, 'fanout_size': 5}");
        assertEquals(ElectCompactionStrategy.FROZEN, strategy(cfs).placements().get(frozen), "re-created strategy keeps it frozen");
        cfs.forceMajorCompaction();
        awaitCompactions(cfs);
        assertTrue(cfs.getLiveSSTables().contains(frozen));

        // GC: an entry without files is dropped; an entry whose SSTable has files but is not loaded is kept.
        Descriptor notLoaded = cfs.newSSTableDescriptor(cfs.getDirectories().getDirectoryForNewSSTables());
        Path orphan = notLoaded.fileFor(Components.DATA).toPath();
        Files.write(orphan, new byte[0]);
        try
        {
            Map<String, String> edited = new TreeMap<>(NodeHandoff.bridge().frozen().frozen(cfs));
            edited.put(notLoaded.id.toString(), "stripe-3");
            edited.put("zzzz_0000_gone", "stripe-4");
            FrozenSSTables.write(registry, KS + ".t", edited);
            NodeHandoff.bridge().frozen().resetCacheForTesting();
            assertEquals(1, NodeHandoff.bridge().frozen().gc(cfs), "only the entry without files is dropped");
            assertEquals(Map.of(id, "stripe-1", notLoaded.id.toString(), "stripe-3"), NodeHandoff.bridge().frozen().frozen(cfs));
        }
        finally
        {
            Files.delete(orphan);
        }
        assertEquals(1, NodeHandoff.bridge().frozen().gc(cfs), "files gone: dropped");
        assertEquals(Map.of(id, "stripe-1"), NodeHandoff.bridge().frozen().frozen(cfs));

        // A corrupt registry is an error, never an empty registry.
        byte[] good = Files.readAllBytes(registry);
        byte[] bad = good.clone();
        bad[bad.length / 2] ^= 1;
        Files.write(registry, bad);
        NodeHandoff.bridge().frozen().resetCacheForTesting();
        java.io.IOException corrupt = assertThrows(java.io.IOException.class, () -> NodeHandoff.bridge().frozen().frozen(cfs));
        assertTrue(corrupt.getMessage().contains(registry.toString()), corrupt.getMessage());
        Files.write(registry, good);
        NodeHandoff.bridge().frozen().resetCacheForTesting();

        // Unfreeze: wrong tag refused; right tag puts it back into role 0's tree; the next major compaction takes it.
        SSTableReader f1 = frozen;
        assertThrows(IllegalStateException.class, () -> NodeHandoff.bridge().frozen().unfreeze(cfs, f1, "stripe-9"));
        NodeHandoff.bridge().frozen().unfreeze(cfs, frozen, "stripe-1");
        NodeHandoff.bridge().frozen().unfreeze(cfs, frozen, "stripe-1"); // idempotent
        assertEquals(Map.of(), NodeHandoff.bridge().frozen().frozen(cfs));
        assertEquals(0, strategy(cfs).placements().get(frozen));
        assertEquals(0, strategy(cfs).frozenCount());
        cfs.forceMajorCompaction();
        awaitCompactions(cfs);
        assertFalse(cfs.getLiveSSTables().contains(frozen), "unfrozen SSTable compacted away");
        assertReadsMatchModel();
        assertVisibility(cfs, 0);

        // A tiered (COLD) SSTable is frozen by format: compactions leave it alone and reads go through it.
        NodeHandoff.bridge().node().tiered().registerStore("mem", FramedColdStore.inMemory());
        writeRound(rnd, 6);
        cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
        awaitCompactions(cfs);
        SSTableReader local = anyUnfrozen(cfs);
        SSTableReader cold = NodeHandoff.bridge().tiered().toCold(cfs, local, "mem");
        assertTrue(NodeHandoff.bridge().frozen().isFrozen(cold));
        assertEquals(ElectCompactionStrategy.FROZEN, strategy(cfs).placements().get(cold));
        assertNull(strategy(cfs).placements().get(local));
        writeRound(rnd, 7);
        cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
        cfs.forceMajorCompaction();
        awaitCompactions(cfs);
        assertTrue(cfs.getLiveSSTables().contains(cold), "tiered SSTable not compacted");
        assertEquals(1, strategy(cfs).frozenCount());
        assertReadsMatchModel();
        assertVisibility(cfs, 1);
    }

    // ---- helpers -------------------------------------------------------------------------------------------------

    /**
     * ObsoleteScan: after one SSTable F is frozen, the partitions of F that a newer unfrozen SSTable overwrites or
     * deletes are obsolete, by their byte range in F; a version written with an older timestamp is not.
     */
    @Test
    void obsoleteVersionsInFrozenSSTablesAreCounted() throws Exception
    {
        String ks = "elect_obsolete";
        NodeHandoff.bridge().roles().setOverrideForTesting(ks, RoleRanges.linear(List.<Token>of(), List.of(0))); // one role: one SSTable per flush
        session.execute("CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
        session.execute("CREATE TABLE " + ks + ".t (key text PRIMARY KEY, field0 blob) WITH compaction = "
                        + "{'class': 'io.elect.core.bridge.ElectCompactionStrategy', 'sstable_size_in_mb': 64}"
                        + " AND compression = {'enabled': 'false'}");
        ColumnFamilyStore cfs = Keyspace.open(ks).getColumnFamilyStore("t");
        cfs.disableAutoCompaction();
        PreparedStatement insert = session.prepare("INSERT INTO " + ks + ".t (key, field0) VALUES (?, ?)");
        for (int i = 0; i < 400; i++)
            session.execute(insert.bind("k" + i, ByteBuffer.wrap(new byte[100 + i])));
        cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
        assertEquals(1, cfs.getLiveSSTables().size());
        SSTableReader f = cfs.getLiveSSTables().iterator().next();
        NodeHandoff.bridge().frozen().freeze(cfs, f, "stripe-9");
        ObsoleteScan scan = new ObsoleteScan();
        assertEquals(Map.of(f.descriptor.id.toString(), 0.0), scan.fractions(cfs, NodeHandoff.bridge().frozen()::isFrozen));

        // F's partitions in data order with their byte ranges (from its index).
        EmbeddedNode.Layout layout = EmbeddedNode.layout(f);
        List<String> keys = layout.keys();
        List<Long> starts = layout.starts();
        long expected = 0;
        PreparedStatement delete = session.prepare("DELETE FROM " + ks + ".t WHERE key = ?");
        PreparedStatement oldWrite = session.prepare("INSERT INTO " + ks + ".t (key, field0) VALUES (?, ?) USING TIMESTAMP 1");
        for (int i = 0; i < keys.size(); i++)
        {
            if (i % 4 == 0)
                session.execute(insert.bind(keys.get(i), ByteBuffer.wrap(new byte[10]))); // newer: F's version is obsolete
            else if (i % 4 == 1)
                session.execute(delete.bind(keys.get(i)));                                  // deleted: obsolete too
            else if (i % 4 == 2)
                session.execute(oldWrite.bind(keys.get(i), ByteBuffer.wrap(new byte[10]))); // older: F's version wins
            else
                continue;                                                                    // untouched
            if (i % 4 != 2)
                expected += starts.get(i + 1) - starts.get(i);
        }
        cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
        assertEquals(2, cfs.getLiveSSTables().size());
        double fraction = scan.fractions(cfs, NodeHandoff.bridge().frozen()::isFrozen).get(f.descriptor.id.toString());
        assertEquals((double) expected / f.uncompressedLength(), fraction, 1e-12,
                     "obsolete share of F (" + expected + " of " + f.uncompressedLength() + " bytes)");
        assertTrue(fraction > 0.3 && fraction < 0.7, "about half of F: " + fraction);

        // Through the node's seam: the same share of the data component, by id; unfrozen SSTables are not listed.
        io.elect.core.transition.wire.TransitionMessages.TableRef ref = new io.elect.core.transition.wire.TransitionMessages.TableRef(ks, "t");
        Map<String, Long> bytes = NodeHandoff.bridge().localTables().obsoleteBytes(ref);
        long dataBytes = Files.size(f.descriptor.fileFor(Components.DATA).toPath());
        assertEquals(Map.of(f.descriptor.id.toString(), Math.round(fraction * dataBytes)), bytes);
    }

    private void writeRound(Random rnd, int round) throws Exception
    {
        PreparedStatement insert = session.prepare("INSERT INTO " + KS + ".t (key, field0) VALUES (?, ?)");
        PreparedStatement delete = session.prepare("DELETE FROM " + KS + ".t WHERE key = ?");
        List<CompletionStage<AsyncResultSet>> inflight = new ArrayList<>();
        for (int i = 0; i < KEYS; i++)
        {
            if (round > 0 && rnd.nextInt(3) != 0)
                continue;
            String key = String.format("user%019d", i);
            if (round > 0 && rnd.nextInt(10) == 0)
            {
                model.remove(key);
                inflight.add(session.executeAsync(delete.bind(key)));
            }
            else
            {
                byte[] value = new byte[200 + rnd.nextInt(400)];
                rnd.nextBytes(value);
                model.put(key, ByteBuffer.wrap(value));
                inflight.add(session.executeAsync(insert.bind(key, ByteBuffer.wrap(value))));
            }
            if (inflight.size() >= 256)
                drain(inflight);
        }
        drain(inflight);
    }

    private static void drain(List<CompletionStage<AsyncResultSet>> inflight) throws Exception
    {
        for (CompletionStage<AsyncResultSet> f : inflight)
            f.toCompletableFuture().get();
        inflight.clear();
    }

    private void assertReadsMatchModel()
    {
        Map<String, ByteBuffer> all = new TreeMap<>();
        for (Row row : session.execute(SimpleStatement.newInstance("SELECT key, field0 FROM " + KS + ".t").setPageSize(500)))
            all.put(row.getString(0), row.getByteBuffer(1));
        assertEquals(model.size(), all.size(), "row count");
        assertEquals(model, all, "full scan equals the model");
    }

    /**
     * Cassandra's whole-table operations (garbagecollect, scrub, upgradesstables, cleanup, verify, relocation) run on
     * the table and rewrite its other SSTables, but leave the frozen one live and byte-identical (it is marked
     * suspect, which they skip).
     */
    private static void maintenanceOperationsSkipIt(ColumnFamilyStore cfs, SSTableReader frozen, String digest) throws Exception
    {
        assertTrue(frozen.isMarkedSuspect(), "a frozen SSTable is marked suspect");
        SSTableReader other = anyUnfrozen(cfs);
        assertFalse(other.isMarkedSuspect());
        assertEquals(CompactionManager.AllSSTableOpStatus.SUCCESSFUL, cfs.garbageCollect(CompactionParams.TombstoneOption.ROW, 1));
        assertFalse(cfs.getLiveSSTables().contains(other), "garbagecollect rewrote the other SSTables");
        other = anyUnfrozen(cfs);
        assertEquals(CompactionManager.AllSSTableOpStatus.SUCCESSFUL, cfs.scrub(true, IScrubber.options().build(), 1));
        assertFalse(cfs.getLiveSSTables().contains(other), "scrub rewrote the other SSTables");
        other = anyUnfrozen(cfs);
        assertEquals(CompactionManager.AllSSTableOpStatus.SUCCESSFUL, cfs.sstablesRewrite(false, Long.MAX_VALUE, false, 1));
        assertFalse(cfs.getLiveSSTables().contains(other), "upgradesstables -a rewrote the other SSTables");
        assertEquals(CompactionManager.AllSSTableOpStatus.SUCCESSFUL, cfs.forceCleanup(1));
        assertEquals(CompactionManager.AllSSTableOpStatus.SUCCESSFUL, cfs.verify(IVerifier.options().build()));
        assertEquals(CompactionManager.AllSSTableOpStatus.SUCCESSFUL, cfs.relocateSSTables(1));
        assertTrue(cfs.getLiveSSTables().contains(frozen), "frozen SSTable still live");
        assertEquals(digest, digest(frozen), "frozen SSTable byte-identical");
        assertEquals(ElectCompactionStrategy.FROZEN, strategy(cfs).placements().get(frozen));
        assertFalse(cfs.getTracker().getCompacting().contains(frozen));
    }

    /**
     * An ELECT hold ({@link SSTableHold}: a purge rewriting an SSTable, a tiering switch) is registered with the
     * compaction manager: a major compaction asks it to stop and proceeds once it is released, instead of giving up
     * after a minute ("Unable to cancel in-progress compactions", then a NullPointerException from submitMaximal).
     * While Cassandra has the table's compactions paused, no hold is granted.
     */
    private static void electHoldsDoNotBlockMajorCompaction(ColumnFamilyStore cfs) throws Exception
    {
        SSTableReader x = anyUnfrozen(cfs);
        SSTableHold hold = SSTableHold.tryAcquire(cfs, x, OperationType.GARBAGE_COLLECT);
        assertNotNull(hold);
        assertNull(SSTableHold.tryAcquire(cfs, x, OperationType.GARBAGE_COLLECT), "held already");
        java.util.concurrent.atomic.AtomicBoolean stopSeen = new java.util.concurrent.atomic.AtomicBoolean();
        Thread worker = new Thread(() -> {
            // a long operation under the hold, polling for Cassandra's stop request as the purge does
            long deadline = System.nanoTime() + 120_000_000_000L;
            while (!hold.stopRequested() && System.nanoTime() < deadline)
                Thread.onSpinWait();
            stopSeen.set(hold.stopRequested());
            assertThrows(org.apache.cassandra.db.compaction.CompactionInterruptedException.class, hold::checkStop);
            hold.close();
        }, "elect-hold-test");
        worker.start();
        long start = System.nanoTime();
        cfs.forceMajorCompaction();
        worker.join();
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(stopSeen.get(), "the major compaction asked the hold to stop");
        assertTrue(millis < 30_000, "major compaction waited " + millis + " ms for the hold");
        assertFalse(cfs.getLiveSSTables().contains(x), "the major compaction took the formerly held SSTable");
        assertFalse(cfs.getTracker().getCompacting().contains(x));

        SSTableReader y = anyUnfrozen(cfs);
        Object refused = cfs.runWithCompactionsDisabled(() -> SSTableHold.tryAcquire(cfs, y, OperationType.UNKNOWN) == null,
                                                        OperationType.MAJOR_COMPACTION, false, false);
        assertEquals(Boolean.TRUE, refused, "no hold while the table's compactions are paused");
        try (SSTableHold again = SSTableHold.tryAcquire(cfs, y, OperationType.UNKNOWN))
        {
            assertNotNull(again, "holds are granted again once compactions resume");
            again.txn().abort();
        }
    }

    private static String digest(SSTableReader r) throws Exception
    {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        md.update(Files.readAllBytes(r.descriptor.fileFor(Components.DATA).toPath()));
        return HexFormat.of().formatHex(md.digest());
    }

    private static SSTableReader anyUnfrozen(ColumnFamilyStore cfs)
    {
        Set<SSTableReader> compacting = new HashSet<>(cfs.getTracker().getCompacting());
        for (SSTableReader s : cfs.getLiveSSTables())
            if (!NodeHandoff.bridge().frozen().isFrozen(s) && !compacting.contains(s))
                return s;
        fail("no unfrozen SSTable in " + cfs.getLiveSSTables());
        return null;
    }

    private static ElectCompactionStrategy strategy(ColumnFamilyStore cfs)
    {
        for (List<AbstractCompactionStrategy> holder : cfs.getCompactionStrategyManager().getStrategies())
            for (AbstractCompactionStrategy s : holder)
                if (s instanceof ElectCompactionStrategy && ((ElectCompactionStrategy) s).roleLevels().size() > 0)
                    return (ElectCompactionStrategy) s;
        fail("no ElectCompactionStrategy with SSTables on " + cfs);
        return null;
    }

    private static void awaitCompactions(ColumnFamilyStore cfs) throws InterruptedException
    {
        long deadline = System.nanoTime() + 180_000_000_000L;
        int quiet = 0;
        while (quiet < 3)
        {
            if (System.nanoTime() > deadline)
                fail("compactions did not settle on " + cfs);
            CompactionManager.instance.submitBackground(cfs);
            Thread.sleep(300);
            boolean idle = CompactionManager.instance.getActiveCompactions() == 0
                           && CompactionManager.instance.getPendingTasks() == 0
                           && cfs.getCompactionStrategyManager().getEstimatedRemainingTasks() == 0;
            quiet = idle ? quiet + 1 : 0;
        }
    }

    /** JSON: tree levels + frozen = every live SSTable; the frozen count as expected. */
    private static void assertVisibility(ColumnFamilyStore cfs, long frozen) throws Exception
    {
        JsonNode doc = new ObjectMapper().readTree(ManagementFactory.getPlatformMBeanServer()
                                                                     .getAttribute(new ObjectName(ElectTables.MBEAN_NAME), "TablesJson")
                                                                     .toString());
        JsonNode table = null;
        for (JsonNode t : doc.get("tables"))
            if (t.get("keyspace").asText().equals(KS))
                table = t;
        assertNotNull(table, doc.toString());
        long count = table.get("frozen").get("sstables").asLong();
        assertEquals(frozen, count, doc.toString());
        for (JsonNode role : table.get("roles"))
            for (JsonNode level : role.get("levels"))
                count += level.get("sstables").asLong();
        assertEquals(cfs.getLiveSSTables().size(), count, doc.toString());
        long perLevel = 0;
        for (int n : cfs.getCompactionStrategyManager().getSSTableCountPerLevel())
            perLevel += n;
        assertEquals(cfs.getLiveSSTables().size(), perLevel, "tablestats' per-level counts include frozen SSTables");
    }
}
