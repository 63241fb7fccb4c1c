package io.elect.core.bridge;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import javax.management.ObjectName;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.elect.core.trees.RoleRanges;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.dht.Token;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.service.EmbeddedCassandraService;
import org.apache.cassandra.service.StorageService;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One embedded node (the ports of {@link ElectCompactionStrategyTest}; surefire runs one JVM per class, one at a
 * time). Trial rewrites of an encoded (frozen) member: without newer versions the merge reproduces the member's data
 * component byte for byte; with some partitions updated (same-size values) or deleted, the trial counts exactly
 * those partitions and the uncompressed pages they occupy, the on-disk diff covers at least those pages, and
 * nothing is left behind: the table's files, live SSTables and reads are as before the trial.
 */
class MemberRewriteTest
{
    private static final String KS = "elect_rewrite";
    private static final ObjectMapper JSON = new ObjectMapper();

    private static EmbeddedCassandraService cassandra;
    private static CqlSession session;

    @BeforeAll
    static void startNode() throws Exception
    {
        Path base = Paths.get("target", "elect-rewrite-node-" + ProcessHandle.current().pid()).toAbsolutePath();
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

    @Test
    void trialRewritesMeasureTheMembersChangeAndLeaveNothing() throws Exception
    {
        ColumnFamilyStore cfs = table(KS, " AND compression = {'enabled': 'false'}");
        PreparedStatement insert = session.prepare("INSERT INTO " + KS + ".t (key, field0) VALUES (?, ?)");
        for (int i = 0; i < 500; i++)
            session.execute(insert.bind("k" + i, value(i, 0)));
        cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
        SSTableReader f = cfs.getLiveSSTables().iterator().next();
        NodeHandoff.bridge().frozen().freeze(cfs, f, "stripe-7");

        // No newer versions: the merged version is the member itself, byte for byte.
        JsonNode m = only(trials());
        assertEquals(f.descriptor.id.toString(), m.get("member").asText());
        assertEquals("stripe-7", m.get("stripe").asText());
        assertEquals(0, m.get("newer_sstables").asInt());
        assertEquals(500, m.get("partitions").asLong());
        assertEquals(0, m.get("changed_partitions").asLong());
        assertEquals(0, m.get("same_size_partitions").asLong());
        assertEquals(m.get("bytes_before").asLong(), m.get("bytes_after").asLong());
        assertEquals(0, m.get("changed_pages").asLong(), "an unchanged member is rewritten byte for byte");
        assertEquals(0, m.get("in_place_pages").asLong());
        assertEquals(m.get("bytes_before").asLong(), m.get("gc_bytes_after").asLong(), "nothing shadows the member");
        assertEquals(0, m.get("gc_changed_pages").asLong());
        assertEquals(0, m.get("shadowed_partitions").asLong());

        // Every 25th partition of F (data order) gets a same-size newer value, one more is deleted.
        EmbeddedNode.Layout layout = EmbeddedNode.layout(f);
        List<String> keys = layout.keys();
        List<Long> starts = layout.starts();
        Set<Long> pages = new TreeSet<>();
        long shadowedBytes = 0;
        for (int i = 0; i < keys.size(); i += 25)
        {
            shadowedBytes += starts.get(i + 1) - starts.get(i);
            if (i == 250)
                session.execute("DELETE FROM " + KS + ".t WHERE key = ?", keys.get(i));
            else
                session.execute(insert.bind(keys.get(i), value(Integer.parseInt(keys.get(i).substring(1)), 1)));
            for (long p = starts.get(i) / MemberRewrite.PAGE; p <= (starts.get(i + 1) - 1) / MemberRewrite.PAGE; p++)
                pages.add(p);
        }
        cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
        Set<String> filesBefore = files(cfs);
        Set<SSTableReader> liveBefore = Set.copyOf(cfs.getLiveSSTables());

        m = only(trials());
        assertEquals(1, m.get("newer_sstables").asInt());
        assertEquals(20, m.get("changed_partitions").asLong());
        // 19 same-size overwrites; the deleted partition shrinks to its tombstone
        assertTrue(m.get("same_size_partitions").asLong() <= 19, m.toString());
        assertEquals(pages.size(), m.get("in_place_pages").asLong(), "uncompressed pages holding a changed partition");
        assertEquals((f.uncompressedLength() + MemberRewrite.PAGE - 1) / MemberRewrite.PAGE, m.get("uncompressed_pages").asLong());
        assertTrue(m.get("changed_pages").asLong() >= pages.size() - 1, "the on-disk diff covers the changed partitions: " + m);
        assertTrue(m.get("changed_pages").asLong() <= m.get("pages").asLong(), m.toString());
        // the deleted partition's row is gone (a tombstone within gc_grace stays): the new version is smaller
        assertTrue(m.get("bytes_after").asLong() < m.get("bytes_before").asLong(), m.toString());
        // garbage collection drops the shadowed values of the 20 partitions (Cassandra keeps a few bytes of each: key
        // and row marker, about 15 of ~318 here) and rewrites the others byte for byte
        long gc = m.get("gc_bytes_after").asLong(), before = m.get("bytes_before").asLong();
        assertTrue(gc >= before - shadowedBytes && gc <= before - shadowedBytes * 9 / 10,
                   "gc keeps " + gc + " of " + before + " bytes, " + shadowedBytes + " shadowed: " + m);
        assertTrue(m.get("gc_changed_pages").asLong() > 0, m.toString());
        // the 19 overwritten partitions are shadowed whole; the deleted one is not counted (a partition deletion is a
        // wider-scope deletion, which the purge rule does not use)
        assertEquals(19, m.get("shadowed_partitions").asLong(), m.toString());

        // Nothing left behind, nothing installed, reads as written.
        assertEquals(filesBefore, files(cfs));
        assertEquals(liveBefore, Set.copyOf(cfs.getLiveSSTables()));
        for (int i = 0; i < keys.size(); i++)
        {
            Row r = session.execute("SELECT field0 FROM " + KS + ".t WHERE key = ?", keys.get(i)).one();
            int k = Integer.parseInt(keys.get(i).substring(1));
            if (i == 250)
                assertNull(r, keys.get(i));
            else
                assertEquals(value(k, i % 25 == 0 ? 1 : 0), r.getByteBuffer("field0"), keys.get(i));
        }
    }

    /**
     * A member written by a compaction whose inputs held older versions it dropped: its header's encoding stats are
     * older than its rows (Cassandra merges the inputs' stats); a trial without newer versions must still reproduce
     * it byte for byte (the new version is written against the member's own header, not its exact stats).
     */
    @Test
    void aCompactedMemberIsReproducedByteForByte() throws Exception
    {
        String ks = KS + "_compacted";
        ColumnFamilyStore cfs = table(ks, "");
        PreparedStatement old = session.prepare("INSERT INTO " + ks + ".t (key, field0) VALUES (?, ?) USING TIMESTAMP 1");
        for (int i = 0; i < 300; i++)
            session.execute(old.bind("k" + i, value(i, 0)));
        cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
        PreparedStatement insert = session.prepare("INSERT INTO " + ks + ".t (key, field0) VALUES (?, ?)");
        for (int i = 0; i < 300; i++)
            session.execute(insert.bind("k" + i, value(i, 1)));
        cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
        cfs.forceMajorCompaction();
        assertEquals(1, cfs.getLiveSSTables().size());
        SSTableReader f = cfs.getLiveSSTables().iterator().next();
        assertTrue(f.header.stats().minTimestamp < f.getMinTimestamp(),
                   "precondition: the compacted member's header is older than its rows");
        NodeHandoff.bridge().frozen().freeze(cfs, f, "stripe-8");
        String json = NodeHandoff.bridge().tables().memberTrialsJson(ks, "t");
        JsonNode m = only(JSON.readTree(json).get("members"));
        assertEquals(0, m.get("newer_sstables").asInt());
        assertEquals(m.get("bytes_before").asLong(), m.get("bytes_after").asLong(), m.toString());
        assertEquals(0, m.get("changed_pages").asLong(), "reproduced byte for byte: " + m);
        assertEquals(m.get("bytes_before").asLong(), m.get("gc_bytes_after").asLong(), m.toString());
        assertEquals(0, m.get("shadowed_partitions").asLong(), m.toString());

        // every key written again: the member is shadowed whole
        for (int i = 0; i < 300; i++)
            session.execute(insert.bind("k" + i, value(i, 2)));
        cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
        m = only(JSON.readTree(NodeHandoff.bridge().tables().memberTrialsJson(ks, "t")).get("members"));
        assertEquals(300, m.get("shadowed_partitions").asLong(), m.toString());
    }

    /**
     * The retire step's detection and deletion on a real node: a frozen member is reported fully shadowed only once
     * EVERY row of it has a newer version (a partial overwrite leaves it unreported); a frozen shadow of another
     * stripe counts when all its data is strictly newer; retiring deletes the member (and only under its own tag)
     * and reads still return the newest values.
     */
    @Test
    void shadowScanFindsFullyShadowedMembersAndRetireDeletesThem() throws Exception
    {
        String ks = KS + "_retire";
        ColumnFamilyStore cfs = table(ks, "");
        io.elect.core.transition.wire.TransitionMessages.TableRef t = new io.elect.core.transition.wire.TransitionMessages.TableRef(ks, "t");
        io.elect.core.node.LocalTables tables = NodeHandoff.bridge().localTables();
        PreparedStatement insert = session.prepare("INSERT INTO " + ks + ".t (key, field0) VALUES (?, ?)");
        SSTableReader f = firstVersion(cfs, insert, 200);
        String a = "00000000000000000000000000000aaa", b = "00000000000000000000000000000bbb";
        NodeHandoff.bridge().frozen().freeze(cfs, f, a);
        assertEquals(java.util.Map.of(a, false), tables.shadowedStripes(t, true), "nothing newer");

        for (int i = 0; i < 199; i++)
            session.execute(insert.bind("k" + i, value(i, 1)));
        cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
        assertEquals(java.util.Map.of(a, false), tables.shadowedStripes(t, true), "one row of 200 has no newer version");

        session.execute(insert.bind("k199", value(199, 1)));
        cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
        assertEquals(java.util.Map.of(a, false), tables.shadowedStripes(t, false), "not checked yet: a SNAPSHOT does not wait for the check");
        assertEquals(java.util.Map.of(a, true), tables.shadowedStripes(t, true), "every row overwritten");
        assertEquals(java.util.Map.of(a, true), tables.shadowedStripes(t, false), "the maintenance's answer, cached");

        // the newer versions encoded by a later stripe still shadow it (all strictly newer); the later one is not shadowed
        for (SSTableReader g : cfs.getLiveSSTables())
            if (g != f)
                NodeHandoff.bridge().frozen().freeze(cfs, g, b);
        assertEquals(java.util.Map.of(a, true, b, false), tables.shadowedStripes(t, true));

        assertThrows(IllegalStateException.class, () -> tables.retire(t, f.descriptor.id.toString(), b), "another stripe's tag");
        tables.retire(t, f.descriptor.id.toString(), a);
        assertTrue(cfs.getLiveSSTables().stream().noneMatch(r -> r.descriptor.id.equals(f.descriptor.id)), "the member is gone");
        tables.retire(t, f.descriptor.id.toString(), a); // idempotent
        assertEquals(java.util.Map.of(b, false), tables.shadowedStripes(t, true));
        for (int i = 0; i < 200; i++)
            assertEquals(value(i, 1), session.execute("SELECT field0 FROM " + ks + ".t WHERE key = ?", "k" + i).one().getByteBuffer("field0"));
    }

    /**
     * A member merge on a real node (LocalTables#mergeMember): half of member F's rows overwritten and the newer
     * versions frozen under another stripe. An unfrozen newer version does not count (it may be on this replica
     * only), nor does a stripe the predicate does not accept; then the next version holds exactly the other half,
     * is live and frozen under F's tag beside F, reads are unchanged, and once F is
     * retired the next version alone serves every key.
     */
    @Test
    void aMergeDropsWhatANewerReplicatedStripeShadows() throws Exception
    {
        String ks = KS + "_merge";
        ColumnFamilyStore cfs = table(ks, " AND compression = {'enabled': 'false'}");
        io.elect.core.transition.wire.TransitionMessages.TableRef t = new io.elect.core.transition.wire.TransitionMessages.TableRef(ks, "t");
        io.elect.core.node.LocalTables tables = NodeHandoff.bridge().localTables();
        PreparedStatement insert = session.prepare("INSERT INTO " + ks + ".t (key, field0) VALUES (?, ?)");
        SSTableReader f = firstVersion(cfs, insert, 200);
        String fid = f.descriptor.id.toString();
        String a = "00000000000000000000000000000aaa", b = "00000000000000000000000000000bbb";
        NodeHandoff.bridge().frozen().freeze(cfs, f, a);
        for (int i = 0; i < 200; i += 2)
            session.execute(insert.bind("k" + i, value(i, 1)));
        cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
        SSTableReader g = cfs.getLiveSSTables().stream().filter(r -> r != f).findFirst().orElseThrow();

        assertNull(tables.mergeMember(t, fid, a, tag -> true, 0.25), "an unfrozen newer version is not a shadow");
        NodeHandoff.bridge().frozen().freeze(cfs, g, b);
        assertNull(tables.mergeMember(t, fid, a, tag -> false, 0.25), "a stripe whose stubs are not everywhere is not a shadow");
        assertNull(tables.mergeMember(t, fid, a, b::equals, 0.6), "frees about half: less than asked");
        assertEquals(2, cfs.getLiveSSTables().size(), "declined merges leave nothing");

        io.elect.core.node.LocalTables.Merged m = tables.mergeMember(t, fid, a, b::equals, 0.25);
        assertTrue(m.dataBytes() < m.bytesBefore() * 6 / 10 && m.dataBytes() > m.bytesBefore() * 4 / 10, m.toString());
        assertEquals(f.onDiskLength(), m.bytesBefore());
        SSTableReader next = cfs.getLiveSSTables().stream().filter(r -> r.descriptor.id.toString().equals(m.id())).findFirst().orElseThrow();
        assertEquals(a, NodeHandoff.bridge().frozen().frozen(cfs).get(m.id()), "frozen under the member's stripe");
        assertEquals(100, EmbeddedNode.layout(next).keys().size(), "the odd keys, which nothing newer shadows");
        assertTrue(EmbeddedNode.layout(next).keys().stream().allMatch(k -> Integer.parseInt(k.substring(1)) % 2 == 1));
        assertEquals(3, cfs.getLiveSSTables().size(), "the member, its newer versions and the next version");
        for (int i = 0; i < 200; i++)
            assertEquals(value(i, i % 2 == 0 ? 1 : 0), session.execute("SELECT field0 FROM " + ks + ".t WHERE key = ?", "k" + i).one().getByteBuffer("field0"));

        tables.retire(t, fid, a); // what the change flow's REMOVE_MEMBER does once the stripe names the next version
        assertEquals(2, cfs.getLiveSSTables().size());
        for (int i = 0; i < 200; i++)
            assertEquals(value(i, i % 2 == 0 ? 1 : 0), session.execute("SELECT field0 FROM " + ks + ".t WHERE key = ?", "k" + i).one().getByteBuffer("field0"));
    }

    /**
     * An offloaded (COLD) member merges like a LOCAL one (recall-merge): its rows are read from the cold tier, the
     * next version is a LOCAL file frozen under the member's stripe, reads are unchanged before and after the cold
     * member is retired, and only the cold tier's ranges of it were read (never a whole-object download).
     */
    @Test
    void anOffloadedMemberMergesIntoALocalNextVersion() throws Exception
    {
        String ks = KS + "_coldmerge";
        ColumnFamilyStore cfs = table(ks, " AND compression = {'enabled': 'false'}");
        io.elect.core.transition.wire.TransitionMessages.TableRef t = new io.elect.core.transition.wire.TransitionMessages.TableRef(ks, "t");
        io.elect.core.node.LocalTables tables = NodeHandoff.bridge().localTables();
        io.elect.offload.ColdStore cold = io.elect.offload.FramedColdStore.inMemory();
        NodeHandoff.bridge().node().tiered().registerStore("mem-merge", cold);
        PreparedStatement insert = session.prepare("INSERT INTO " + ks + ".t (key, field0) VALUES (?, ?)");
        SSTableReader f = firstVersion(cfs, insert, 200);
        String a = "00000000000000000000000000000ccc", b = "00000000000000000000000000000ddd";
        NodeHandoff.bridge().frozen().freeze(cfs, f, a);
        long local = f.onDiskLength();
        String fid = tables.toCold(t, f.descriptor.id.toString(), "mem-merge", (data, store, key) -> { });
        io.elect.core.node.LocalTables.TableFile coldFile = tables.files(t).stream().filter(x -> x.id().equals(fid)).findFirst().orElseThrow();
        assertEquals(io.elect.core.node.LocalTables.Source.COLD, coldFile.source());
        assertEquals(a, coldFile.frozenTag());
        for (int i = 0; i < 200; i += 4)
            session.execute(insert.bind("k" + i, value(i, 1)));
        cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
        SSTableReader g = cfs.getLiveSSTables().stream().filter(r -> !TieredSSTables.isTiered(r)).findFirst().orElseThrow();
        NodeHandoff.bridge().frozen().freeze(cfs, g, b);

        long readAll = cold.metrics().op(io.elect.offload.ColdStoreMetrics.Op.READ_ALL).count.sum();
        long ranged = cold.metrics().bytesRead.sum();
        io.elect.core.node.LocalTables.Merged m = tables.mergeMember(t, fid, a, b::equals, 0.2);
        assertTrue(m != null && m.bytesBefore() == local, "the cold member's data length is its local length: " + m);
        assertTrue(m.dataBytes() < local * 8 / 10 && m.dataBytes() > local * 7 / 10, m.toString());
        assertEquals(readAll, cold.metrics().op(io.elect.offload.ColdStoreMetrics.Op.READ_ALL).count.sum(), "no whole-object read");
        assertTrue(cold.metrics().bytesRead.sum() - ranged >= local, "the member's bytes came from the cold tier");
        io.elect.core.node.LocalTables.TableFile next = tables.files(t).stream().filter(x -> x.id().equals(m.id())).findFirst().orElseThrow();
        assertEquals(io.elect.core.node.LocalTables.Source.LOCAL, next.source(), "the next version is hot");
        assertEquals(a, next.frozenTag(), "frozen under the member's stripe");
        SSTableReader nextReader = cfs.getLiveSSTables().stream().filter(r -> r.descriptor.id.toString().equals(m.id())).findFirst().orElseThrow();
        assertEquals(150, EmbeddedNode.layout(nextReader).keys().size(), "the keys nothing newer shadows");
        for (int i = 0; i < 200; i++)
            assertEquals(value(i, i % 4 == 0 ? 1 : 0), session.execute("SELECT field0 FROM " + ks + ".t WHERE key = ?", "k" + i).one().getByteBuffer("field0"));
        assertThrows(IllegalStateException.class, () -> tables.mergeMember(t, fid, b, b::equals, 0.2), "another stripe's tag");

        tables.retire(t, fid, a); // REMOVE_MEMBER once the stripe names the next version
        assertEquals(2, cfs.getLiveSSTables().size());
        assertTrue(cfs.getLiveSSTables().stream().noneMatch(TieredSSTables::isTiered), "the cold member is gone");
        for (int i = 0; i < 200; i++)
            assertEquals(value(i, i % 4 == 0 ? 1 : 0), session.execute("SELECT field0 FROM " + ks + ".t WHERE key = ?", "k" + i).one().getByteBuffer("field0"));
    }

    /** Keys k0..k{n-1} at version 0, flushed: the table's one SSTable. */
    private static SSTableReader firstVersion(ColumnFamilyStore cfs, PreparedStatement insert, int n)
    {
        for (int i = 0; i < n; i++)
            session.execute(insert.bind("k" + i, value(i, 0)));
        cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.USER_FORCED);
        return cfs.getLiveSSTables().iterator().next();
    }

    /** Keyspace ks (RF 1, one role: one SSTable per flush) with ELECT table t, autocompaction off. */
    private static ColumnFamilyStore table(String ks, String options)
    {
        NodeHandoff.bridge().roles().setOverrideForTesting(ks, RoleRanges.linear(List.<Token>of(), List.of(0)));
        session.execute("CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
        session.execute("CREATE TABLE " + ks + ".t (key text PRIMARY KEY, field0 blob) WITH compaction = "
                        + "{'class': 'io.elect.core.bridge.ElectCompactionStrategy', 'sstable_size_in_mb': 64}" + options);
        ColumnFamilyStore cfs = Keyspace.open(ks).getColumnFamilyStore("t");
        cfs.disableAutoCompaction();
        return cfs;
    }

    private static JsonNode trials() throws Exception
    {
        String json = (String) ManagementFactory.getPlatformMBeanServer()
                                                .invoke(new ObjectName(ElectTables.MBEAN_NAME), "memberTrialsJson",
                                                        new Object[]{ KS, "t" },
                                                        new String[]{ String.class.getName(), String.class.getName() });
        JsonNode doc = JSON.readTree(json);
        assertEquals(1, doc.get("version").asInt());
        assertEquals(MemberRewrite.PAGE, doc.get("page_bytes").asInt());
        return doc.get("members");
    }

    private static JsonNode only(JsonNode members)
    {
        assertEquals(1, members.size(), members.toString());
        return members.get(0);
    }

    private static ByteBuffer value(int key, int version)
    {
        byte[] b = new byte[300];
        for (int i = 0; i < b.length; i++)
            b[i] = (byte) (key * 31 + version * 7 + i);
        return ByteBuffer.wrap(b);
    }

    private static Set<String> files(ColumnFamilyStore cfs) throws Exception
    {
        Set<String> out = new TreeSet<>();
        for (org.apache.cassandra.io.util.File dir : cfs.getDirectories().getCFDirectories())
            try (Stream<Path> s = Files.list(dir.toPath()))
            {
                s.forEach(p -> out.add(p.getFileName().toString()));
            }
        return out;
    }
}
