package io.elect.core.node;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.elect.core.node.LocalTables.TableFile;
import io.elect.core.transition.HotnessPolicy;
import io.elect.core.transition.HotnessPolicy.SSTableInfo;
import io.elect.core.transition.HotnessTracker;
import io.elect.core.transition.wire.TransitionMessages.CandidateInfo;
import io.elect.core.transition.wire.NodeSnapshot;
import io.elect.core.transition.wire.TransitionMessages.TableRef;

/**
 * This node's SNAPSHOT of an ELECT table (docs/formats/verbs.md): bytes by level and role of unencoded files,
 * frozen (encoded) primaries, stubs and the bytes they stand for, parity hot and cold, the obsolete versions the
 * frozen files hold, and the transition candidates (coldest first). Hotness is kept per table from the files' read counters, sampled at each snapshot. Thread-safe.
 */
final class NodeSnapshots
{
    private final NodeContext node;
    private final Map<TableRef, HotnessState> hotness = new ConcurrentHashMap<>();

    /** Hotness of one table's files, fed by their read counters at each snapshot. */
    private final class HotnessState
    {
        final HotnessTracker<String> tracker = new HotnessTracker<>(() -> node.clock().nanoTime() / 1_000_000,
                                                                    node.config().hotnessHalfLifeSeconds * 1000L);
        final Map<String, Long> lastCounts = new ConcurrentHashMap<>();
        /** ids classified cold in the previous snapshot (hysteresis of HotnessPolicy) */
        volatile Set<String> previous = Set.of();
    }

    NodeSnapshots(NodeContext node)
    {
        this.node = node;
    }

    /** A file's decayed read rate (reads/s) as of the last snapshot of its table; 0 if never read or not seen yet. */
    double readRate(TableRef t, String id)
    {
        HotnessState h = hotness.get(t);
        return h == null ? 0 : h.tracker.rate(id);
    }

    /** Whether every natural replica of the file's span is up (a file without tokens: unknown, so no). */
    private boolean replicasAlive(TableRef t, TableFile f)
    {
        if (f.firstToken() == null || f.lastToken() == null)
            return false;
        for (String r : node.ring().replicasOfSpan(t.keyspace(), f.firstToken(), f.lastToken()))
            if (!node.ring().isAlive(r))
                return false;
        return true;
    }

    NodeSnapshot snapshot(TableRef t) throws IOException
    {
        if (!node.tables().electTables().contains(t))
            throw new IllegalArgumentException("table " + t + " is not an ELECT table on " + node.self());
        HotnessState h = hotness.computeIfAbsent(t, x -> new HotnessState());
        long now = node.clock().millis();
        long offloadAge = node.config().primaryOffloadMinAgeSeconds * 1000L;
        int roles = Math.max(1, node.tables().replicationFactor(t));
        int levels = node.tables().levels();
        long[][] unencoded = new long[levels][roles];
        long encodedHot = 0, encodedHotOld = 0, encodedCold = 0, stubs = 0, replaced = 0;
        List<TableFile> primaries = new ArrayList<>();
        List<TableFile> members = new ArrayList<>(); // this node's encoded primaries, LOCAL or offloaded
        Set<String> liveIds = new HashSet<>();
        for (TableFile f : node.tables().files(t))
        {
            liveIds.add(f.id());
            Long last = h.lastCounts.put(f.id(), f.reads());
            long delta = f.reads() - (last == null ? 0 : last);
            if (delta > 0)
                h.tracker.record(f.id(), delta);
            if (f.source() == LocalTables.Source.DECODED)
            {
                stubs += f.bytesOnDisk();
                // the replicated rows it stands for: after a ring change, only those in ranges this node still replicates
                replaced += Math.round((f.bytesOnDisk() + f.dataBytes()) * node.tables().replicatedShare(t, f));
                continue;
            }
            if (f.source() == LocalTables.Source.COLD)
            {
                // an offloaded encoded primary: its data is in the cold tier, its other components stay here (hot);
                // both count towards what full replication would hold, as they did before the offload
                encodedCold += f.dataBytes();
                encodedHot += f.bytesOnDisk();
                members.add(f);
                continue;
            }
            if (f.frozenTag() != null)
            {
                encodedHot += f.bytesOnDisk();
                members.add(f);
                if (now - f.dataMillis() >= offloadAge)
                    encodedHotOld += f.bytesOnDisk();
                continue;
            }
            Integer role = f.role();
            int ro = role == null ? 0 : Math.max(0, Math.min(role, roles - 1));
            int level = Math.min(f.level(), levels - 1);
            unencoded[level][ro] += f.bytesOnDisk();
            if (role != null && role == 0)
                primaries.add(f);
        }
        h.lastCounts.keySet().retainAll(liveIds);
        for (String id : h.tracker.snapshot().keySet())
            if (!liveIds.contains(id))
                h.tracker.forget(id);

        int maxLevel = 0;
        for (TableFile f : primaries)
            maxLevel = Math.max(maxLevel, f.level());
        List<SSTableInfo> infos = new ArrayList<>();
        Map<String, TableFile> byId = new LinkedHashMap<>();
        for (TableFile f : primaries)
        {
            // a file with a down replica cannot be stubbed everywhere: not a candidate until that replica is back
            // (TransitionService: nothing committed may be contradicted by a node that returns)
            if (!replicasAlive(t, f))
                continue;
            byId.put(f.id(), f);
            infos.add(new SSTableInfo(f.id(), f.level(), f.level() == maxLevel, 0, now - f.dataMillis(), f.dataBytes(),
                                      h.tracker.rate(f.id())));
        }
        HotnessPolicy policy = new HotnessPolicy(node.config().transitionMinAgeSeconds * 1000L, node.config().coldReadRate,
                                                 node.config().hotnessHysteresis);
        HotnessPolicy.Selection selection = policy.select(infos, h.previous);
        List<SSTableInfo> selected = selection.ordered();
        List<CandidateInfo> candidates = new ArrayList<>();
        long encodable = 0, encodableOld = 0;
        for (SSTableInfo s : selected)
        {
            TableFile f = byId.get(s.id());
            if (s.bytes() <= 0)
                continue;
            encodable += f.bytesOnDisk();
            if (s.ageMillis() >= offloadAge)
                encodableOld += f.bytesOnDisk();
            // the stripe member is the data file as it is on disk: its exact length, which PIN verifies
            candidates.add(new CandidateInfo(s.id(), s.bytes(), s.readRate(), s.ageMillis()));
        }
        h.previous = selection.cold();
        long[] parity = node.parity().bytes(t.keyspace(), t.table());
        // obsolete versions held by frozen files: cost, not part of what full replication of the live data would
        // hold (capped by what the snapshot counts for those files, so the planner's reference never goes negative)
        long obsolete = 0;
        java.util.Map<String, Long> obsoleteByFile = node.tables().obsoleteBytes(t);
        for (long b : obsoleteByFile.values())
            obsolete += b;
        // the member-merge step's trigger: obsolete bytes of this node's members (LOCAL or offloaded) and their read
        // rate, per stripe (one member per node and stripe; should there be two files, their sum and the higher rate)
        java.util.Map<String, NodeSnapshot.MergeHint> mergeable = new java.util.HashMap<>();
        for (LocalTables.TableFile f : node.tables().files(t))
            if (f.frozenTag() != null && !f.isStub() && obsoleteByFile.getOrDefault(f.id(), 0L) > 0)
                mergeable.merge(f.frozenTag(), new NodeSnapshot.MergeHint(obsoleteByFile.get(f.id()), h.tracker.rate(f.id())),
                                (a, b) -> new NodeSnapshot.MergeHint(a.obsoleteBytes() + b.obsoleteBytes(), Math.max(a.readRate(), b.readRate())));
        obsolete = Math.min(obsolete, encodedHot + encodedCold + replaced);
        // members' live bytes in partitions outside the ranges this node replicates (after a ring change: a move, or
        // a joiner taking over part of the span; the member stays, the span's replicas count it through their stubs).
        // A file's obsolete bytes are taken as spread evenly over its span, so they are not subtracted twice.
        long unreplicated = 0;
        for (TableFile f : members)
        {
            double share = node.tables().replicatedShare(t, f);
            if (share >= 1)
                continue;
            long bytes = f.source() == LocalTables.Source.COLD ? f.dataBytes() + f.bytesOnDisk() : f.bytesOnDisk();
            long live = Math.max(0, bytes - obsoleteByFile.getOrDefault(f.id(), 0L));
            unreplicated += Math.round(live * (1 - Math.max(0, share)));
        }
        unreplicated = Math.max(0, Math.min(unreplicated, Math.min(encodedHot + encodedCold, encodedHot + encodedCold + replaced - obsolete)));
        java.util.Map<String, java.util.Map<Integer, Boolean>> files = node.tables().shadowedFiles(t, false);
        java.util.Map<String, Boolean> stripes = new java.util.HashMap<>();
        files.forEach((stripe, f) -> stripes.put(stripe, !f.containsValue(false)));
        return new NodeSnapshot(node.self(), unencoded, encodable, encodableOld, encodedHot, encodedHotOld, encodedCold,
                                stubs, replaced, parity[0], parity[1], candidates, obsolete, stripes, files, mergeable, unreplicated);
    }
}
