package io.elect.core.bridge;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;

import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.io.sstable.format.SSTableFormat.Components;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.service.StorageService;

import io.elect.coding.ErasureCoders;
import io.elect.core.tiered.LocalStripeAssembler;
import io.elect.core.tiered.SourceCounters;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.tiered.TieredSidecar;
import io.elect.offload.ColdStore;
import io.elect.offload.ColdStoreMetrics;
import io.elect.offload.s3.S3ColdStore;
import io.elect.offload.s3.S3ColdStoreConfig;
import io.elect.offload.s3proxy.S3ProxyHandle;
import io.elect.offload.s3proxy.S3ProxyLauncher;

/**
 * The embedded node of TieredNodeIT, one phase per JVM (a Cassandra node cannot restart inside one JVM):
 * <ul>
 * <li>{@code tier}: two tables (LZ4-compressed and uncompressed), four flushed rounds each (later rounds overwrite
 *     and delete keys of the first); capture all reads; round 0 -> COLD on S3Proxy, rounds 1-3 -> a locally
 *     assembled stripe (k=3, m=2, parity on S3Proxy), round 1 -> DECODED; reads identical after each switch; local
 *     data files gone; COLD point reads fetch <= 2 chunks (<= 128 KiB) of the object, DECODED ones about k chunks.</li>
 * <li>{@code restart}: the node comes back with both SSTables still tiered and the same reads; a corrupted cold
 *     object gives a read error (never rows) and reads recover when it is repaired; rehydrate both SSTables: local
 *     again, the cold object is deleted, the same reads.</li>
 * </ul>
 * Any failed check throws, so the JVM exits non-zero. Args: phase workDir s3proxyRunDir.
 */
public final class TieredNodeRunner
{
    static final String[] TABLES = { "tc", "{'class': 'LZ4Compressor'}", "tu", "{'enabled': 'false'}" };
    static final int N = 1500;
    static final int K = 3, M = 2;

    public static void main(String[] args) throws Throwable
    {
        int rc = 1;
        try
        {
            System.setProperty("logback.configurationFile",
                               Paths.get("src/test/resources/tiered-logback.xml").toAbsolutePath().toString());
            String phase = args[0];
            Path work = Paths.get(args[1]).toAbsolutePath();
            S3ProxyHandle s3 = S3ProxyLauncher.find(Paths.get(args[2])).orElseThrow(() -> new AssertionError("S3Proxy not running"));
            ColdStore store = new S3ColdStore(S3ColdStoreConfig.local(s3.endpoint(), s3.bucket(), s3.credentialsFile()));
            NodeHandoff.bridge().node().tiered().registerStore("s3", store);
            TieredNodeSupport.start(work.resolve("node"));
            try (CqlSession session = TieredNodeSupport.session())
            {
                if (phase.equals("tier"))
                    tier(session, store, work);
                else if (phase.equals("restart"))
                    restart(session, store, work, s3);
                else
                    throw new IllegalArgumentException("phase must be tier or restart, got " + phase);
            }
            StorageService.instance.drain();
            System.out.println("PHASE " + phase + " PASSED");
            rc = 0;
        }
        catch (Throwable t)
        {
            t.printStackTrace(System.out);
        }
        System.out.flush();
        Runtime.getRuntime().halt(rc);
    }

    static void tier(CqlSession s, ColdStore store, Path work) throws Exception
    {
        TieredNodeSupport.createTables(s, TABLES);
        for (int t = 0; t < TABLES.length; t += 2)
        {
            String table = TABLES[t];
            ColumnFamilyStore cfs = TieredNodeSupport.cfs(table);
            cfs.disableAutoCompaction();
            List<SSTableReader> rounds = new ArrayList<>();
            for (int r = 0; r < 4; r++)
                rounds.add(TieredNodeSupport.writeRound(s, table, r, N, r == 3));
            TieredNodeSupport.Capture before = TieredNodeSupport.capture(s, table, 4 * N);
            Files.writeString(work.resolve("expected-" + table + ".txt"), TieredNodeSupport.render(before));

            // LOCAL -> COLD
            ColdStoreMetrics metrics = store.metrics();
            long readAllBefore = metrics.op(ColdStoreMetrics.Op.READ_ALL).count.sum();
            SSTableReader cold = NodeHandoff.bridge().tiered().toCold(cfs, rounds.get(0), "s3");
            check(TieredSSTables.isTiered(cold), "COLD reader has the tiered format");
            check(cfs.getLiveSSTables().contains(cold) && !cfs.getLiveSSTables().contains(rounds.get(0)), "swapped");
            awaitDeleted(rounds.get(0));
            check(cold.descriptor.fileFor(Components.DATA).length() == 0, "COLD Data.db is an empty placeholder");
            // an internal read first: a failure here shows the server-side exception in this log
            check(org.apache.cassandra.cql3.QueryProcessor.executeInternal("SELECT field0 FROM " + TieredNodeSupport.KS + "."
                                                                           + table + " WHERE key = ?",
                                                                           TieredNodeSupport.key(1)).size() == 1,
                  "internal read of a COLD key");
            TieredNodeSupport.assertSame(before, TieredNodeSupport.capture(s, table, 4 * N), table + " after COLD");
            coldPointReadsFetchFewChunks(s, table, metrics);
            check(metrics.op(ColdStoreMetrics.Op.READ_ALL).count.sum() == readAllBefore, "no whole-object read");

            // a locally assembled stripe of rounds 1..3; round 1 -> DECODED
            List<Path> files = new ArrayList<>();
            for (int r = 1; r <= K; r++)
                files.add(rounds.get(r).descriptor.fileFor(Components.DATA).toPath());
            StripeLayout stripe = LocalStripeAssembler.assemble(files, ErasureCoders.create(K, M), store, "s3",
                                                                "stripes/" + table, work.resolve("stripes").resolve(table));
            SSTableReader decoded = NodeHandoff.bridge().tiered().toDecoded(cfs, rounds.get(1), stripe, 0);
            awaitDeleted(rounds.get(1));
            check(TieredSSTables.sidecar(decoded.descriptor).source() == TieredSidecar.Source.DECODED, "DECODED sidecar");
            TieredNodeSupport.assertSame(before, TieredNodeSupport.capture(s, table, 4 * N), table + " after DECODED");
            // the member's own copy (its hard link in the stripe) would serve reads directly: without it, reads decode
            Files.delete(work.resolve("stripes").resolve(table).resolve("member-0"));
            decodedPointReadsFetchAboutKChunks(s, table);
        }
    }

    static void restart(CqlSession s, ColdStore store, Path work, S3ProxyHandle s3) throws Exception
    {
        for (int t = 0; t < TABLES.length; t += 2)
        {
            String table = TABLES[t];
            ColumnFamilyStore cfs = TieredNodeSupport.cfs(table);
            cfs.disableAutoCompaction();
            String expected = Files.readString(work.resolve("expected-" + table + ".txt"), StandardCharsets.UTF_8);
            SSTableReader cold = null, decoded = null;
            for (SSTableReader r : cfs.getLiveSSTables())
                if (TieredSSTables.isTiered(r))
                {
                    if (TieredSSTables.sidecar(r.descriptor).source() == TieredSidecar.Source.COLD)
                        cold = r;
                    else
                        decoded = r;
                }
            check(cold != null && decoded != null, table + ": both SSTables are still tiered after the restart");
            check(cfs.getLiveSSTables().size() == 4, table + ": 4 live SSTables, got " + cfs.getLiveSSTables().size());
            check(expected.equals(TieredNodeSupport.render(TieredNodeSupport.capture(s, table, 4 * N))),
                  table + ": reads after restart equal those before tiering");

            // corrupt the cold object at rest (one byte in every 4 KiB of S3Proxy's file), then repair it
            String key = TieredSSTables.sidecar(cold.descriptor).coldKey();
            Path object = s3.runDir().resolve(S3ProxyLauncher.DATA_DIR).resolve(s3.bucket()).resolve(key);
            byte[] good = Files.readAllBytes(object);
            byte[] bad = good.clone();
            for (int i = 100; i < bad.length - 64; i += 4096)
                bad[i] ^= 0x40;
            Files.write(object, bad);
            NodeHandoff.bridge().node().tiered().cache().clear();
            PreparedStatement get = s.prepare("SELECT field0 FROM " + TieredNodeSupport.KS + "." + table + " WHERE key = ?");
            int probe = 1;
            try
            {
                s.execute(get.bind(TieredNodeSupport.key(probe)));
                throw new AssertionError(table + ": a read of a corrupted cold object returned rows");
            }
            catch (com.datastax.oss.driver.api.core.servererrors.CoordinatorException e)
            {
                System.out.println(table + ": corrupted cold object detected: " + e);
            }
            Files.write(object, good);
            NodeHandoff.bridge().node().tiered().cache().clear();
            check(s.execute(get.bind(TieredNodeSupport.key(probe))).one() != null, "reads recover after repair");

            // rehydrate both
            SSTableReader local1 = NodeHandoff.bridge().tiered().rehydrate(cfs, cold);
            SSTableReader local2 = NodeHandoff.bridge().tiered().rehydrate(cfs, decoded);
            for (SSTableReader l : new SSTableReader[]{ local1, local2 })
            {
                check(!TieredSSTables.isTiered(l), "rehydrated SSTable is BIG");
                check(l.descriptor.fileFor(Components.DATA).length() > 0, "rehydrated Data.db is local");
            }
            awaitDeleted(cold);
            awaitDeleted(decoded);
            check(!store.exists(key), table + ": the owned cold object was deleted with the tiered SSTable");
            check(expected.equals(TieredNodeSupport.render(TieredNodeSupport.capture(s, table, 4 * N))),
                  table + ": reads after rehydration equal those before tiering");
        }
    }

    /** Point reads of keys only in the COLD SSTable, each with a cold chunk cache: <= 2 ranged reads, <= 128 KiB. */
    static void coldPointReadsFetchFewChunks(CqlSession s, String table, ColdStoreMetrics m)
    {
        PreparedStatement get = s.prepare("SELECT field0 FROM " + TieredNodeSupport.KS + "." + table + " WHERE key = ?");
        int reads = 0;
        long totalBytes = 0;
        for (int i = 1; i < N && reads < 40; i += 37)
        {
            if (!TieredNodeSupport.onlyInRound0(i))
                continue;
            NodeHandoff.bridge().node().tiered().cache().clear();
            long c0 = m.op(ColdStoreMetrics.Op.READ_RANGE).count.sum(), b0 = m.bytesRead.sum();
            check(s.execute(get.bind(TieredNodeSupport.key(i))).one() != null, "cold key " + i + " found");
            long requests = m.op(ColdStoreMetrics.Op.READ_RANGE).count.sum() - c0, bytes = m.bytesRead.sum() - b0;
            check(requests >= 1 && requests <= 2, table + ": cold point read made " + requests + " ranged reads");
            check(bytes <= 128 * 1024, table + ": cold point read fetched " + bytes + " bytes");
            totalBytes += bytes;
            reads++;
        }
        System.out.println(table + ": COLD point reads: " + reads + " reads, " + (totalBytes / reads) + " bytes/read from the store");
    }

    /**
     * Point reads of keys only in the DECODED SSTable, each with a cold cache: every reconstructed chunk costs exactly
     * k chunk reads of other members (never whole files); a read touches the 1-3 chunks under the compressed
     * chunk(s) Cassandra reads (3 when a partition straddles two compressed chunks).
     */
    static void decodedPointReadsFetchAboutKChunks(CqlSession s, String table)
    {
        PreparedStatement get = s.prepare("SELECT field0 FROM " + TieredNodeSupport.KS + "." + table + " WHERE key = ?");
        int reads = 0;
        long chunks = 0, bytes = 0;
        for (int i = N + 1; i < 2 * N && reads < 40; i += 37)
        {
            NodeHandoff.bridge().node().tiered().cache().clear();
            SourceCounters.Snapshot before = NodeHandoff.bridge().node().tiered().decodedCounters().snapshot();
            check(s.execute(get.bind(TieredNodeSupport.key(i))).one() != null, "decoded key " + i + " found");
            SourceCounters.Snapshot d = NodeHandoff.bridge().node().tiered().decodedCounters().snapshot().minus(before);
            check(d.decodedRuns() >= 1 && d.directRuns() == 0, table + ": the read decoded (runs: " + d + ")");
            check(d.chunksFetched() >= 1 && d.chunksFetched() <= 4, table + ": decoded read reconstructed " + d.chunksFetched() + " chunks");
            // a reconstruction reads the same range of k other members: about k x the chunks' bytes
            check(d.bytesFetched() <= (long) K * d.chunksFetched() * 16 * 1024, table + ": decoded read fetched " + d);
            check(d.bytesFetched() >= (long) K * ((d.chunksFetched() - 1) * 16 * 1024 + 1), table + ": decoded read fetched only " + d);
            chunks += d.chunksFetched();
            bytes += d.bytesFetched();
            reads++;
        }
        check(chunks <= 2.5 * reads, table + ": decoded reads average " + (double) chunks / reads + " chunks");
        System.out.println(table + ": DECODED point reads: " + reads + " reads, " + (double) chunks / reads
                           + " chunks/read, " + (bytes / reads) + " bytes/read from k=" + K + " members");
    }

    static void awaitDeleted(SSTableReader r) throws InterruptedException
    {
        java.io.File f = r.descriptor.fileFor(Components.DATA).toJavaIOFile();
        for (int i = 0; i < 200 && f.exists(); i++)
            Thread.sleep(50);
        check(!f.exists(), r.descriptor + ": data file deleted after the switch");
    }

    static void check(boolean ok, String what)
    {
        if (!ok)
            throw new AssertionError(what);
        System.out.println("ok: " + what);
    }
}
