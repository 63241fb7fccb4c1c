package io.elect.core.bridge;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.io.sstable.format.SSTableFormat.Components;
import org.apache.cassandra.io.sstable.format.SSTableReader;

import io.elect.core.config.ElectConfig;
import io.elect.core.tiered.TieredSidecar;
import io.elect.core.transition.HotnessPolicy;
import io.elect.core.transition.HotnessPolicy.SSTableInfo;
import io.elect.core.transition.HotnessTracker;
import io.elect.core.transition.wire.TransitionMessages.CandidateInfo;
import io.elect.core.transition.wire.TransitionMessages.NodeSnapshot;
import io.elect.core.transition.wire.TransitionMessages.TableRef;

/**
 * This node's SNAPSHOT of an ELECT table (docs/formats/verbs.md): bytes by level and role of unencoded SSTables,
 * frozen (encoded) primaries, stubs and the bytes they stand for, parity hot and cold, and the transition candidates
 * (coldest first). Hotness is kept per table from Cassandra's per-SSTable read meters, sampled at each snapshot.
 * Thread-safe.
 */
final class NodeSnapshots
{
    private final ElectConfig config;
    private final String node;
    private final Map<TableRef, HotnessState> hotness = new ConcurrentHashMap<>();

    /** Hotness of one table's SSTables, fed by Cassandra's per-SSTable read meters at each snapshot. */
    private final class HotnessState
    {
        final HotnessTracker<String> tracker = new HotnessTracker<>(System::currentTimeMillis, config.hotnessHalfLifeSeconds * 1000L);
        final Map<String, Long> lastCounts = new ConcurrentHashMap<>();
        volatile Set<String> previous = Set.of();
    }

    NodeSnapshots(ElectConfig config, String node)
    {
        this.config = config;
        this.node = node;
    }

    NodeSnapshot snapshot(TableRef t) throws IOException
    {
        ColumnFamilyStore cfs = LocalTransitionOps.cfs(t);
        ElectCompactionStrategy strategy = ElectTables.strategyOf(cfs);
        if (strategy == null)
            throw new IllegalArgumentException("table " + t + " does not use ElectCompactionStrategy");
        HotnessState h = hotness.computeIfAbsent(t, x -> new HotnessState());
        long now = System.currentTimeMillis();
        long offloadAge = config.primaryOffloadMinAgeSeconds * 1000L;
        int roles = Math.max(1, Keyspace.open(t.keyspace()).getReplicationStrategy().getReplicationFactor().allReplicas);
        long[][] unencoded = new long[ElectTables.LEVELS][roles];
        long encodedHot = 0, encodedHotOld = 0, encodedCold = 0, stubs = 0, replaced = 0;
        List<SSTableReader> primaries = new ArrayList<>();
        Set<String> liveIds = new HashSet<>();
        for (SSTableReader r : cfs.getLiveSSTables())
        {
            String id = r.descriptor.id.toString();
            liveIds.add(id);
            if (r.getReadMeter() != null)
            {
                long count = r.getReadMeter().count();
                Long last = h.lastCounts.put(id, count);
                long delta = count - (last == null ? 0 : last);
                if (delta > 0)
                    h.tracker.record(id, delta);
            }
            if (TieredSSTables.isTiered(r))
            {
                TieredSidecar sidecar = TieredSSTables.sidecar(r.descriptor);
                if (sidecar.source() == TieredSidecar.Source.DECODED)
                {
                    stubs += r.bytesOnDisk();
                    replaced += r.bytesOnDisk() + sidecar.checksums().length();
                }
                else // COLD: an offloaded encoded primary (OFFLOAD_PRIMARY); its data length, not the placeholder's 0
                    encodedCold += sidecar.checksums().length();
                continue;
            }
            if (FrozenSSTables.isFrozen(r))
            {
                long b = r.bytesOnDisk();
                encodedHot += b;
                if (now - dataMillis(r) >= offloadAge)
                    encodedHotOld += b;
                continue;
            }
            Integer role = strategy.currentRoles().spanRole(r.getFirst().getToken(), r.getLast().getToken());
            int ro = role == null ? 0 : Math.min(role, roles - 1);
            int level = Math.min(r.getSSTableLevel(), ElectTables.LEVELS - 1);
            unencoded[level][ro] += r.bytesOnDisk();
            if (role != null && role == 0)
                primaries.add(r);
        }
        h.lastCounts.keySet().retainAll(liveIds);
        for (String id : h.tracker.snapshot().keySet())
            if (!liveIds.contains(id))
                h.tracker.forget(id);

        int maxLevel = 0;
        for (SSTableReader r : primaries)
            maxLevel = Math.max(maxLevel, r.getSSTableLevel());
        List<SSTableInfo> infos = new ArrayList<>();
        Map<String, SSTableReader> byId = new LinkedHashMap<>();
        for (SSTableReader r : primaries)
        {
            String id = r.descriptor.id.toString();
            byId.put(id, r);
            infos.add(new SSTableInfo(id, r.getSSTableLevel(), r.getSSTableLevel() == maxLevel, 0, now - dataMillis(r),
                                      dataFileBytes(r), h.tracker.rate(id)));
        }
        HotnessPolicy policy = new HotnessPolicy(config.transitionMinAgeSeconds * 1000L, config.coldReadRate, config.hotnessHysteresis);
        List<SSTableInfo> selected = policy.select(infos, h.previous);
        Set<String> now2 = new HashSet<>();
        List<CandidateInfo> candidates = new ArrayList<>();
        long encodable = 0, encodableOld = 0;
        for (SSTableInfo s : selected)
        {
            SSTableReader r = byId.get(s.id());
            now2.add(s.id());
            if (s.bytes() <= 0)
                continue;
            long b = r.bytesOnDisk();
            encodable += b;
            if (s.ageMillis() >= offloadAge)
                encodableOld += b;
            // the stripe member is the Data.db file as it is on disk: its exact length, which PIN verifies
            candidates.add(new CandidateInfo(s.id(), s.bytes(), s.readRate(), s.ageMillis()));
        }
        h.previous = now2;
        long[] parity = LocalTransitionOps.parityBytes(t);
        return new NodeSnapshot(node, unencoded, encodable, encodableOld, encodedHot, encodedHotOld, encodedCold,
                                stubs, replaced, parity[0], parity[1], candidates);
    }

    private static long dataFileBytes(SSTableReader r)
    {
        try
        {
            return Files.size(r.descriptor.fileFor(Components.DATA).toPath());
        }
        catch (IOException e)
        {
            return 0; // gone: not a candidate
        }
    }

    private static long dataMillis(SSTableReader r)
    {
        try
        {
            return Files.getLastModifiedTime(r.descriptor.fileFor(Components.DATA).toPath()).toMillis();
        }
        catch (IOException e)
        {
            return System.currentTimeMillis();
        }
    }
}
