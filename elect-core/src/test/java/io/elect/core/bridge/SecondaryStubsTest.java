package io.elect.core.bridge;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.apache.cassandra.cql3.QueryProcessor;
import org.apache.cassandra.cql3.UntypedResultSet;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.db.rows.Unfiltered;
import org.apache.cassandra.db.rows.UnfilteredRowIterator;
import org.apache.cassandra.io.sstable.Component;
import org.apache.cassandra.io.sstable.ISSTableScanner;
import org.apache.cassandra.io.sstable.format.SSTableFormat.Components;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.service.StorageService;

import io.elect.coding.ErasureCoder;
import io.elect.coding.ErasureCoders;
import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.tiered.TieredSidecar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One embedded node (ports 57000/59042, no JMX, its own directories; forked JVM per test class). A secondary's own
 * SSTable S (rows v1 at timestamp 1000) plays the primary's SSTable: its components are copied aside, its data file
 * becomes member 0 of a k=2, m=1 stripe ({@code file:} locators, real coder). A later SSTable X holds newer
 * versions, deletions, TTL'd cells, a newer static cell, a range tombstone, new rows, older versions and exact
 * duplicates. Installing the stub and purging must keep every read identical, remove S entirely, and leave in X'
 * exactly the newer data.
 */
class SecondaryStubsTest
{
    private static final String KS = "stubs";
    private static Path base;

    @BeforeAll
    static void startNode() throws Exception
    {
        // Assertions stay on everywhere: tiered readers skip the key cache (ElectTieredFormat.TieredTableReader), whose
        // -ea check of the entry's format they would otherwise fail.
        base = Paths.get("target", "elect-stubs-node-" + ProcessHandle.current().pid()).toAbsolutePath();
        EmbeddedNode.start("elect-stubs-node.yaml", "elect-stripes-logback.xml", base.resolve("node"), base);
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

    /** Everything a read returns, key by key (CQL through the local query processor). */
    private static Map<Integer, List<String>> readAll(String table, int maxKey)
    {
        Map<Integer, List<String>> out = new TreeMap<>();
        for (int k = 0; k <= maxKey; k++)
        {
            List<String> rows = new ArrayList<>();
            UntypedResultSet rs = QueryProcessor.executeInternal("SELECT c, v, w, s FROM " + KS + "." + table + " WHERE k = " + k);
            for (UntypedResultSet.Row r : rs)
                rows.add((r.has("c") ? r.getInt("c") : -1) + ":" + (r.has("v") ? r.getString("v") : null) + ":"
                         + (r.has("w") ? r.getInt("w") : null) + ":" + (r.has("s") ? r.getString("s") : null));
            if (!rows.isEmpty())
                out.put(k, rows);
        }
        return out;
    }

    private static SSTableReader flushOne(ColumnFamilyStore cfs, Set<SSTableReader> before)
    {
        cfs.forceBlockingFlush(ColumnFamilyStore.FlushReason.UNIT_TESTS);
        Set<SSTableReader> now = new HashSet<>(cfs.getLiveSSTables());
        now.removeAll(before);
        assertEquals(1, now.size(), "one new SSTable: " + now);
        return now.iterator().next();
    }

    /** {partitions, regular rows, static rows, range tombstone markers} of an SSTable, through its scanner. */
    private static long[] count(SSTableReader r)
    {
        long[] c = new long[4];
        try (ISSTableScanner scanner = r.getScanner())
        {
            while (scanner.hasNext())
                try (UnfilteredRowIterator p = scanner.next())
                {
                    c[0]++;
                    if (!p.staticRow().isEmpty())
                        c[2]++;
                    while (p.hasNext())
                    {
                        Unfiltered u = p.next();
                        c[u.isRow() ? 1 : 3]++;
                    }
                }
        }
        return c;
    }

    /** Table t of KS (k, c, v, w, static s) with compaction off, so that every flush stays its own SSTable. */
    private static ColumnFamilyStore createTable(String t)
    {
        cql("CREATE KEYSPACE IF NOT EXISTS " + KS + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
        cql("CREATE TABLE " + KS + "." + t + " (k int, c int, v text, w int, s text static, PRIMARY KEY (k, c))"
            + " WITH compaction = {'class': 'SizeTieredCompactionStrategy', 'enabled': 'false'}");
        ColumnFamilyStore cfs = Keyspace.open(KS).getColumnFamilyStore(t);
        cfs.disableAutoCompaction();
        return cfs;
    }

    @Test
    void installAndPurge() throws Exception
    {
        String t = "t";
        ColumnFamilyStore cfs = createTable(t);

        // S: keys 0..39, clusterings 0..2, all at timestamp 1000
        for (int k = 0; k < 40; k++)
            for (int c = 0; c < 3; c++)
                cql("INSERT INTO " + KS + "." + t + " (k, c, v, w, s) VALUES (" + k + ", " + c + ", 'v1-" + k + "-" + c
                    + "', " + k + ", 's1-" + k + "') USING TIMESTAMP 1000");
        SSTableReader s = flushOne(cfs, Set.of());

        // S's components as fetched from P, and its data file as stripe member 0 (member 1: other bytes)
        Fetched f = fetch(s, "fetched");
        Map<String, Path> components = f.components();
        StripeLayout stripe = f.stripe();
        ChunkChecksums sums = f.sums();
        Path member0 = f.member0();

        // X: newer, deleted, TTL'd, static, range-deleted, new, older and duplicate versions
        Set<SSTableReader> beforeX = Set.of(s);
        for (int k = 0; k < 10; k++)
            for (int c = 0; c < 2; c++)
                cql("UPDATE " + KS + "." + t + " USING TIMESTAMP 2000 SET v = 'v2-" + k + "-" + c + "' WHERE k = " + k + " AND c = " + c);
        for (int k = 10; k < 15; k++)
            cql("DELETE FROM " + KS + "." + t + " USING TIMESTAMP 2000 WHERE k = " + k);
        cql("DELETE FROM " + KS + "." + t + " USING TIMESTAMP 2000 WHERE k = 15 AND c = 1");
        for (int k = 16; k < 20; k++)
            cql("UPDATE " + KS + "." + t + " USING TTL 100000 AND TIMESTAMP 2000 SET v = 'ttl-" + k + "' WHERE k = " + k + " AND c = 0");
        for (int k = 20; k < 30; k++)
            cql("INSERT INTO " + KS + "." + t + " (k, c, v) VALUES (" + k + ", 0, 'old-" + k + "') USING TIMESTAMP 500");
        cql("UPDATE " + KS + "." + t + " USING TIMESTAMP 2000 SET s = 's2-30' WHERE k = 30");
        cql("DELETE FROM " + KS + "." + t + " USING TIMESTAMP 2000 WHERE k = 31 AND c >= 1");
        for (int c = 0; c < 3; c++) // key 32: exactly S's versions again
            cql("INSERT INTO " + KS + "." + t + " (k, c, v, w, s) VALUES (32, " + c + ", 'v1-32-" + c + "', 32, 's1-32') USING TIMESTAMP 1000");
        for (int k = 100; k < 105; k++)
            cql("INSERT INTO " + KS + "." + t + " (k, c, v) VALUES (" + k + ", 0, 'new-" + k + "') USING TIMESTAMP 2000");
        SSTableReader x = flushOne(cfs, beforeX);
        long[] xCounts = count(x);

        Map<Integer, List<String>> expected = readAll(t, 110);
        assertEquals(List.of("0:v2-0-0:0:s1-0", "1:v2-0-1:0:s1-0", "2:v1-0-2:0:s1-0"), expected.get(0));
        assertFalse(expected.containsKey(12));
        assertEquals(List.of("0:v1-20-0:20:s1-20", "1:v1-20-1:20:s1-20", "2:v1-20-2:20:s1-20"), expected.get(20));
        assertEquals(List.of("0:v1-31-0:31:s1-31"), expected.get(31));

        // install (twice: the same SSTable)
        SSTableReader stub = NodeHandoff.bridge().stubs().install(cfs, components, stripe, 0, sums);
        assertTrue(TieredSSTables.isTiered(stub));
        assertEquals(TieredSidecar.Source.DECODED, TieredSSTables.sidecar(stub.descriptor).source());
        assertEquals(0, Files.size(stub.descriptor.fileFor(Components.DATA).toPath()));
        assertTrue(stub.getSSTableMetadata().commitLogIntervals.isEmpty(), "a stub carries no commit log intervals");
        assertNotEquals(s.descriptor, stub.descriptor);
        assertSame(stub, NodeHandoff.bridge().stubs().install(cfs, components, stripe, 0, sums));
        assertEquals(3, cfs.getLiveSSTables().size());
        assertEquals(expected, readAll(t, 110), "reads with the stub installed");

        // purge: S (a byte-identical copy of the stub's data) disappears without its rows being read; X keeps exactly
        // what is newer or absent from the stub
        assertSame(stub, SecondaryStubs.copyOf(s, List.of(stub)));
        assertNull(SecondaryStubs.copyOf(x, List.of(stub)), "X is not a copy of the stub's data");
        SecondaryStubs.PurgeStats p = NodeHandoff.bridge().stubs().purge(cfs, stub, r -> true);
        assertEquals(2, p.examined(), p.toString());
        assertEquals(2, p.rewritten(), p.toString());
        assertEquals(1, p.removed(), p.toString());
        assertEquals(1, p.copies(), p.toString());
        assertEquals(0, p.skippedBusy(), p.toString());
        // X: keys 20..29 (10 older rows) and key 32 (3 rows + its static row)
        assertEquals(10 + 4, p.rowsDropped(), p.toString());
        // X: one cell per older row, key 32's 3 * 2 + 1
        assertEquals(10 + 7, p.cellsDropped(), p.toString());
        assertTrue(p.bytesAfter() < p.bytesBefore(), p.toString());
        assertFalse(cfs.getLiveSSTables().contains(s));
        assertFalse(cfs.getLiveSSTables().contains(x));
        assertEquals(2, cfs.getLiveSSTables().size(), cfs.getLiveSSTables().toString());
        SSTableReader xp = null;
        for (SSTableReader r : cfs.getLiveSSTables())
            if (r != stub)
                xp = r;
        long[] c = count(xp);
        // partitions: 0..9, 10..14, 15, 16..19, 30, 31, 100..104 (20..29 and 32 are gone)
        assertEquals(27, c[0], "partitions of X'");
        // rows: 0..9 x 2 newer cells, 15's row deletion, 16..19 TTL'd, 100..104 new
        assertEquals(20 + 1 + 4 + 5, c[1], "rows of X'");
        assertEquals(1, c[2], "static rows of X' (key 30)");
        assertEquals(xCounts[3], c[3], "range tombstone markers kept");
        assertEquals(xCounts[1] - 13, c[1], "X' = X minus 13 rows");
        assertEquals(expected, readAll(t, 110), "reads after the purge");

        // the stub's data is reconstructed from the other members: P's data file is not needed
        Files.delete(member0);
        NodeHandoff.bridge().node().tiered().cache().clear();
        long fetchedBefore = NodeHandoff.bridge().node().tiered().decodedCounters().bytesFetched.sum();
        assertEquals(expected, readAll(t, 110), "reads without member 0");
        assertTrue(NodeHandoff.bridge().node().tiered().decodedCounters().bytesFetched.sum() > fetchedBefore, "reads went through reconstruction");

        // idempotent
        SecondaryStubs.PurgeStats again = NodeHandoff.bridge().stubs().purge(cfs, stub, r -> true);
        assertEquals(1, again.examined(), again.toString());
        assertEquals(0, again.rewritten(), again.toString());
        assertEquals(0, again.rowsDropped() + again.cellsDropped(), again.toString());
        assertTrue(cfs.getLiveSSTables().contains(xp));
        assertSame(stub, NodeHandoff.bridge().stubs().install(cfs, components, stripe, 0, sums));

        // a failed install (a component vanished mid-way) leaves no file and no SSTable behind
        Set<Path> filesBefore = listing(stub.descriptor.directory.toPath());
        Set<SSTableReader> liveBefore = new HashSet<>(cfs.getLiveSSTables());
        Map<String, Path> broken = new LinkedHashMap<>(components);
        broken.put("Summary.db", base.resolve("no-such-file"));
        List<String> otherLocators = new ArrayList<>(stripe.locators());
        otherLocators.set(2, LocatorMemberReader.file(base.resolve("elsewhere")));
        StripeLayout otherStripe = new StripeLayout(stripe.codecId(), 2, 1, stripe.dataLengths(), stripe.stripeLength(), otherLocators);
        try
        {
            NodeHandoff.bridge().stubs().install(cfs, broken, otherStripe, 0, sums);
            throw new AssertionError("install with a missing component must fail");
        }
        catch (java.io.IOException expectedFailure)
        {
            // expected
        }
        assertEquals(liveBefore, new HashSet<>(cfs.getLiveSSTables()));
        assertEquals(filesBefore, listing(stub.descriptor.directory.toPath()), "no leftovers of the failed install");
    }

    /**
     * One pass against two overlapping shadows drops what either wins over and nothing else: each X partition goes
     * through the shadowing of every shadow holding its key (here plain LOCAL SSTables, as restored primaries are).
     */
    @Test
    void purgeAgainstSeveralShadowsInOnePass() throws Exception
    {
        String t = "multi";
        ColumnFamilyStore cfs = createTable(t);
        // A: keys 0..19, rows c = 0 and 1, v at 1000; B: keys 10..29, row c = 0, w at 1500
        for (int k = 0; k < 20; k++)
            for (int c = 0; c < 2; c++)
                cql("INSERT INTO " + KS + "." + t + " (k, c, v) VALUES (" + k + ", " + c + ", 'a" + c + "-" + k + "') USING TIMESTAMP 1000");
        SSTableReader a = flushOne(cfs, Set.of());
        for (int k = 10; k < 30; k++)
            cql("UPDATE " + KS + "." + t + " USING TIMESTAMP 1500 SET w = " + k + " WHERE k = " + k + " AND c = 0");
        SSTableReader b = flushOne(cfs, Set.of(a));
        // X: keys 0..39 row c = 0 with v and w at 1200 (v beats A's; w loses to B's on keys 10..29);
        // keys 0..4 row c = 1 with v at 900 (loses to A's: the row goes)
        for (int k = 0; k < 40; k++)
            cql("UPDATE " + KS + "." + t + " USING TIMESTAMP 1200 SET v = 'x-" + k + "', w = " + (1000 + k) + " WHERE k = " + k + " AND c = 0");
        for (int k = 0; k < 5; k++)
            cql("UPDATE " + KS + "." + t + " USING TIMESTAMP 900 SET v = 'old-" + k + "' WHERE k = " + k + " AND c = 1");
        SSTableReader x = flushOne(cfs, Set.of(a, b));
        Map<Integer, List<String>> expected = readAll(t, 45);
        assertEquals(List.of("0:x-12:12:null", "1:a1-12:null:null"), expected.get(12));
        assertEquals(List.of("0:x-2:1002:null", "1:a1-2:null:null"), expected.get(2));
        assertEquals(List.of("0:x-33:1033:null"), expected.get(33));

        SecondaryStubs.PurgeStats p = NodeHandoff.bridge().stubs().purge(cfs, List.of(a, b), r -> true);
        assertEquals(1, p.examined(), p.toString()); // A and B are the shadows, never purged themselves
        assertEquals(1, p.rewritten(), p.toString());
        assertEquals(20 + 5, p.cellsDropped(), p.toString()); // w of keys 10..29 (B), v of keys 0..4 row 1 (A)
        assertEquals(5, p.rowsDropped(), p.toString());
        assertEquals(expected, readAll(t, 45), "reads after the purge");
        assertTrue(cfs.getLiveSSTables().contains(a) && cfs.getLiveSSTables().contains(b));
        assertFalse(cfs.getLiveSSTables().contains(x));

        // idempotent: a second pass finds nothing
        SecondaryStubs.PurgeStats again = NodeHandoff.bridge().stubs().purge(cfs, List.of(a, b), r -> true);
        assertEquals(0, again.rewritten(), again.toString());
        assertEquals(0, again.cellsDropped() + again.rowsDropped(), again.toString());
    }

    /** What P sends for a stub of S: S's non-data components, a k=2 m=1 stripe with S's data as member 0, its sums. */
    private record Fetched(Map<String, Path> components, StripeLayout stripe, ChunkChecksums sums, Path member0)
    {
    }

    private static Fetched fetch(SSTableReader s, String name) throws Exception
    {
        Path fetched = Files.createDirectories(base.resolve(name));
        Map<String, Path> components = new LinkedHashMap<>();
        for (Component c : s.descriptor.discoverComponents())
        {
            if (c.equals(Components.DATA))
                continue;
            Path from = s.descriptor.fileFor(c).toPath();
            Path to = fetched.resolve(from.getFileName());
            Files.copy(from, to);
            components.put(c.name(), to);
        }
        Path member0 = fetched.resolve("member-0"), member1 = fetched.resolve("member-1"), parity = fetched.resolve("parity-0");
        Files.copy(s.descriptor.fileFor(Components.DATA).toPath(), member0);
        byte[] other = new byte[(int) Files.size(member0) / 2 + 777];
        new Random(42).nextBytes(other);
        Files.write(member1, other);
        StripeLayout stripe = encode(List.of(member0, member1), parity);
        try (FileChannel ch = FileChannel.open(member0, StandardOpenOption.READ))
        {
            return new Fetched(components, stripe, ChunkChecksums.compute(ch, ChunkChecksums.DEFAULT_CHUNK_SIZE), member0);
        }
    }

    /**
     * Obsolete versions between two stubs (a secondary replica after the old and the new version of updated rows were
     * both encoded): the newer stub's data is not local, so its statistics decide. Before this rule the older stub's
     * updated rows counted as live (0 obsolete), and the storage report overstated the saving under updates.
     */
    @Test
    void aNewerStubMakesTheOlderStubsSharedKeysObsolete() throws Exception
    {
        String t = "obs";
        ColumnFamilyStore cfs = createTable(t);
        for (int k = 0; k < 40; k++)
            cql("INSERT INTO " + KS + "." + t + " (k, c, v) VALUES (" + k + ", 0, 'old-" + k + "') USING TIMESTAMP 1000");
        SSTableReader s1 = flushOne(cfs, Set.of());
        // S2: keys 0..9 overwritten at 2000; keys 50..59 written at 900, so S2's timestamps overlap S1's (a newer
        // file that is not newer in every row, as after a compaction that merged old and new data)
        for (int k = 0; k < 10; k++)
            cql("INSERT INTO " + KS + "." + t + " (k, c, v) VALUES (" + k + ", 0, 'new-" + k + "') USING TIMESTAMP 2000");
        for (int k = 50; k < 60; k++)
            cql("INSERT INTO " + KS + "." + t + " (k, c, v) VALUES (" + k + ", 0, 'early-" + k + "') USING TIMESTAMP 900");
        SSTableReader s2 = flushOne(cfs, Set.of(s1));
        assertTrue(s2.getMinTimestamp() <= s1.getMaxTimestamp() && s2.getMaxTimestamp() > s1.getMaxTimestamp());
        Fetched f1 = fetch(s1, "obs-1"), f2 = fetch(s2, "obs-2");
        SSTableReader stub1 = NodeHandoff.bridge().stubs().install(cfs, f1.components(), f1.stripe(), 0, f1.sums());
        SSTableReader stub2 = NodeHandoff.bridge().stubs().install(cfs, f2.components(), f2.stripe(), 0, f2.sums());
        NodeHandoff.bridge().stubs().purge(cfs, List.of(stub1, stub2), r -> true); // S1, S2: byte copies, removed
        assertEquals(Set.of(stub1, stub2), new HashSet<>(cfs.getLiveSSTables()));

        // keys 0..9 of the stub of S1: a quarter of its partitions, all of the same size
        double share = new ObsoleteScan().fractions(cfs, r -> r == stub1).get(stub1.descriptor.id.toString());
        assertEquals(0.25, share, 0.03, "obsolete share of the older stub");
        // the newer stub's keys are not shadowed by the older one (its greatest timestamp is not above)
        Double newer = new ObsoleteScan().fractions(cfs, r -> r == stub2).get(stub2.descriptor.id.toString());
        assertEquals(0.0, newer, 0.0, "obsolete share of the newer stub");
        Map<Integer, List<String>> rows = readAll(t, 60);
        assertEquals(List.of("0:new-3:null:null"), rows.get(3));
        assertEquals(List.of("0:old-30:null:null"), rows.get(30));
    }

    private static Set<Path> listing(Path dir) throws java.io.IOException
    {
        try (java.util.stream.Stream<Path> files = Files.list(dir))
        {
            return files.filter(Files::isRegularFile).collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new));
        }
    }

    /** A k=len(dataFiles), m=1 stripe with file: locators, parity computed with the real coder. */
    private static StripeLayout encode(List<Path> dataFiles, Path parityFile) throws Exception
    {
        int k = dataFiles.size();
        ErasureCoder coder = ErasureCoders.create(k, 1);
        long[] lengths = new long[k];
        long max = 0;
        for (int i = 0; i < k; i++)
        {
            lengths[i] = Files.size(dataFiles.get(i));
            max = Math.max(max, lengths[i]);
        }
        ByteBuffer[] data = new ByteBuffer[k];
        for (int i = 0; i < k; i++)
        {
            data[i] = ByteBuffer.allocateDirect((int) max);
            data[i].put(Files.readAllBytes(dataFiles.get(i))).clear();
        }
        ByteBuffer[] parity = { ByteBuffer.allocateDirect((int) max) };
        coder.encode(data, parity, 0, (int) max);
        byte[] p = new byte[(int) max];
        parity[0].duplicate().clear().get(p);
        Files.write(parityFile, p);
        List<String> locators = new ArrayList<>();
        for (Path f : dataFiles)
            locators.add(LocatorMemberReader.file(f));
        locators.add(LocatorMemberReader.file(parityFile));
        return new StripeLayout(coder.codecId(), k, 1, lengths, max, locators);
    }
}
