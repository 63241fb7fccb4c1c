package io.elect.core.transition.wire;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.elect.core.transition.wire.TransitionMessages.CandidateInfo;

/**
 * SNAPSHOT response: the byte counts AlphaPlanner.NodeBytes (transition) needs, the node's
 * transition candidates (coldest first) and its replica set size.
 */
public record NodeSnapshot(String node, long[][] unencoded, long encodable, long encodableOld, long encodedHot,
                           long encodedHotOld, long encodedCold, long stubs, long replacedSecondaries,
                           long parityHot, long parityCold, List<CandidateInfo> candidates, long obsolete,
                           Map<String, Boolean> stripes, Map<String, Map<Integer, Boolean>> files, Map<String, MergeHint> mergeable,
                           long unreplicated)
{
    /**
     * The member-merge step's view of this node's member of one stripe: its obsolete bytes (ObsoleteScan: partitions a
     * newer version shadows) and its decayed read rate in reads/s (what the obsolete versions cost reads: every read
     * of a key they hold probes them too).
     */
    public record MergeHint(long obsoleteBytes, double readRate)
    {
        public MergeHint
        {
            if (obsoleteBytes < 0 || !(readRate >= 0) || Double.isInfinite(readRate))
                throw new IllegalArgumentException("MergeHint: obsolete bytes " + obsoleteBytes + " and read rate " + readRate
                                                   + " must be >= 0 and finite");
        }
    }

    /**
     * Payload version of SNAPSHOT responses: 2 added {@code obsolete} (bytes of frozen files' data that a newer
     * version shadows) at the end; 3 added {@code stripes} (for every stripe with a file on the node, whether every
     * such file is fully shadowed: the retire step's detection); 4 added {@code files} (the same per file: a stub's
     * member index, or -1 for the node's member of the stripe; the member-removal step's detection); 5 added
     * {@code mergeable} (per stripe, the obsolete bytes of this node's LOCAL member of it: the member-merge step's
     * trigger); 6 added the member's read rate to each {@code mergeable} entry (the merge policy's read-cost term);
     * 7 added {@code unreplicated} at the end (bytes of this node's encoded members, hot and cold, whose partitions
     * lie outside the ranges it replicates after a ring change, e.g. a move: full replication would not hold them
     * here, issue 18). An older node's answer is refused (upgrade every node).
     */
    public static final int SNAPSHOT_VERSION = 7;

    public NodeSnapshot
    {
        if (unreplicated < 0 || unreplicated > encodedHot + encodedCold)
            throw new IllegalArgumentException("NodeSnapshot: unreplicated member bytes " + unreplicated + " must be in [0, "
                                               + (encodedHot + encodedCold) + "] (the encoded primary bytes)");
        stripes = Map.copyOf(stripes);
        Map<String, Map<Integer, Boolean>> copy = new java.util.HashMap<>();
        files.forEach((k, v) -> copy.put(k, Map.copyOf(v)));
        files = Map.copyOf(copy);
        mergeable = Map.copyOf(mergeable);
    }

    /** A snapshot whose encoded members all lie in ranges the node replicates. */
    public NodeSnapshot(String node, long[][] unencoded, long encodable, long encodableOld, long encodedHot,
                        long encodedHotOld, long encodedCold, long stubs, long replacedSecondaries,
                        long parityHot, long parityCold, List<CandidateInfo> candidates, long obsolete,
                        Map<String, Boolean> stripes, Map<String, Map<Integer, Boolean>> files, Map<String, MergeHint> mergeable)
    {
        this(node, unencoded, encodable, encodableOld, encodedHot, encodedHotOld, encodedCold, stubs, replacedSecondaries,
             parityHot, parityCold, candidates, obsolete, stripes, files, mergeable, 0);
    }

    /** A snapshot without merge hints. */
    public NodeSnapshot(String node, long[][] unencoded, long encodable, long encodableOld, long encodedHot,
                        long encodedHotOld, long encodedCold, long stubs, long replacedSecondaries,
                        long parityHot, long parityCold, List<CandidateInfo> candidates, long obsolete,
                        Map<String, Boolean> stripes, Map<String, Map<Integer, Boolean>> files)
    {
        this(node, unencoded, encodable, encodableOld, encodedHot, encodedHotOld, encodedCold, stubs, replacedSecondaries,
             parityHot, parityCold, candidates, obsolete, stripes, files, Map.of());
    }

    /** A snapshot whose per-file shadow answers are not reported. */
    public NodeSnapshot(String node, long[][] unencoded, long encodable, long encodableOld, long encodedHot,
                        long encodedHotOld, long encodedCold, long stubs, long replacedSecondaries,
                        long parityHot, long parityCold, List<CandidateInfo> candidates, long obsolete,
                        Map<String, Boolean> stripes)
    {
        this(node, unencoded, encodable, encodableOld, encodedHot, encodedHotOld, encodedCold, stubs, replacedSecondaries,
             parityHot, parityCold, candidates, obsolete, stripes, Map.of());
    }

    /** A snapshot that reports no stripe files. */
    public NodeSnapshot(String node, long[][] unencoded, long encodable, long encodableOld, long encodedHot,
                        long encodedHotOld, long encodedCold, long stubs, long replacedSecondaries,
                        long parityHot, long parityCold, List<CandidateInfo> candidates, long obsolete)
    {
        this(node, unencoded, encodable, encodableOld, encodedHot, encodedHotOld, encodedCold, stubs, replacedSecondaries,
             parityHot, parityCold, candidates, obsolete, Map.of());
    }

    /** A snapshot without obsolete bytes measured (0). */
    public NodeSnapshot(String node, long[][] unencoded, long encodable, long encodableOld, long encodedHot,
                        long encodedHotOld, long encodedCold, long stubs, long replacedSecondaries,
                        long parityHot, long parityCold, List<CandidateInfo> candidates)
    {
        this(node, unencoded, encodable, encodableOld, encodedHot, encodedHotOld, encodedCold, stubs, replacedSecondaries,
             parityHot, parityCold, candidates, 0);
    }

    /**
     * This snapshot with nothing to encode (no candidates, no encodable bytes): how a down node is planned with,
     * its bytes still counted.
     */
    public NodeSnapshot withoutCandidates()
    {
        return new NodeSnapshot(node, unencoded, 0, 0, encodedHot, encodedHotOld, encodedCold, stubs, replacedSecondaries,
                                parityHot, parityCold, List.of(), obsolete, stripes, files, mergeable, unreplicated);
    }

    public byte[] encode()
    {
        Wire.Writer w = new Wire.Writer(SNAPSHOT_VERSION);
        w.str(node).i32(unencoded.length).i32(unencoded.length == 0 ? 0 : unencoded[0].length);
        for (long[] level : unencoded)
            for (long b : level)
                w.i64(b);
        w.i64(encodable).i64(encodableOld).i64(encodedHot).i64(encodedHotOld).i64(encodedCold).i64(stubs)
         .i64(replacedSecondaries).i64(parityHot).i64(parityCold);
        w.i32(candidates.size());
        for (CandidateInfo c : candidates)
            w.str(c.sstable()).i64(c.bytes()).f64(c.readRate()).i64(c.ageMillis());
        w.i64(obsolete);
        w.i32(stripes.size());
        for (Map.Entry<String, Boolean> e : new java.util.TreeMap<>(stripes).entrySet())
            w.str(e.getKey()).bool(e.getValue());
        w.i32(files.size());
        for (Map.Entry<String, Map<Integer, Boolean>> e : new java.util.TreeMap<>(files).entrySet())
        {
            w.str(e.getKey()).i32(e.getValue().size());
            for (Map.Entry<Integer, Boolean> f : new java.util.TreeMap<>(e.getValue()).entrySet())
                w.i32(f.getKey()).bool(f.getValue());
        }
        w.i32(mergeable.size());
        for (Map.Entry<String, MergeHint> e : new java.util.TreeMap<>(mergeable).entrySet())
            w.str(e.getKey()).i64(e.getValue().obsoleteBytes()).f64(e.getValue().readRate());
        w.i64(unreplicated);
        return w.toBytes();
    }

    public static NodeSnapshot decode(byte[] b)
    {
        Wire.Reader r = new Wire.Reader(b, SNAPSHOT_VERSION, "NodeSnapshot");
        String node = r.str("node");
        int levels = r.count("levels", 0);
        int roles = r.count("roles", 0);
        // Both bounds, not only the product: with roles = 0 the product says nothing and levels empty arrays
        // would still be allocated (found by the fuzzer: 2^31 x 0 ran the node out of heap).
        if (levels > 4096 || roles > 4096 || (long) levels * roles > 4096)
            throw new IllegalArgumentException("NodeSnapshot: " + levels + " x " + roles + " level/role cells is too many");
        long[][] u = new long[levels][roles];
        for (int l = 0; l < levels; l++)
            for (int ro = 0; ro < roles; ro++)
                u[l][ro] = r.i64("unencoded");
        long encodable = r.i64("encodable"), encodableOld = r.i64("encodableOld"), encodedHot = r.i64("encodedHot"),
             encodedHotOld = r.i64("encodedHotOld"), encodedCold = r.i64("encodedCold"), stubs = r.i64("stubs"),
             replaced = r.i64("replacedSecondaries"), parityHot = r.i64("parityHot"), parityCold = r.i64("parityCold");
        int n = r.count("candidates", 28);
        List<CandidateInfo> cands = new ArrayList<>(n);
        for (int i = 0; i < n; i++)
            cands.add(new CandidateInfo(r.str("sstable"), r.i64("bytes"), r.f64("readRate"), r.i64("ageMillis")));
        long obsolete = r.i64("obsolete");
        int ns = r.count("stripes", 5);
        Map<String, Boolean> stripes = new java.util.HashMap<>();
        for (int i = 0; i < ns; i++)
        {
            String id = r.str("stripe");
            if (stripes.put(id, r.bool("shadowed")) != null)
                throw new IllegalArgumentException("NodeSnapshot: stripe " + id + " listed twice");
        }
        int nf = r.count("files", 6);
        Map<String, Map<Integer, Boolean>> files = new java.util.HashMap<>();
        for (int i = 0; i < nf; i++)
        {
            String id = r.str("stripe");
            int nfiles = r.count("stripeFiles", 5);
            Map<Integer, Boolean> m = new java.util.HashMap<>();
            for (int j = 0; j < nfiles; j++)
            {
                int slot = r.i32("slot");
                if (slot < -1 || slot > 255 || m.put(slot, r.bool("shadowed")) != null)
                    throw new IllegalArgumentException("NodeSnapshot: stripe " + id + " file " + slot + " invalid or listed twice");
            }
            if (files.put(id, m) != null)
                throw new IllegalArgumentException("NodeSnapshot: stripe " + id + " listed twice in files");
        }
        int nm = r.count("mergeable", 20);
        Map<String, MergeHint> mergeable = new java.util.HashMap<>();
        for (int i = 0; i < nm; i++)
        {
            String id = r.str("stripe");
            long bytes = r.i64("obsoleteBytes");
            MergeHint hint = new MergeHint(bytes, r.f64("readRate")); // refuses negative or non-finite values
            if (id == null || mergeable.put(id, hint) != null)
                throw new IllegalArgumentException("NodeSnapshot: mergeable stripe " + id + " invalid or listed twice");
        }
        long unreplicated = r.i64("unreplicated");
        r.end();
        return new NodeSnapshot(node, u, encodable, encodableOld, encodedHot, encodedHotOld, encodedCold, stubs,
                                replaced, parityHot, parityCold, cands, obsolete, stripes, files, mergeable, unreplicated);
    }

    /** Hot-tier bytes of the table on this node. */
    public long hotBytes()
    {
        long s = encodedHot + stubs + parityHot;
        for (long[] level : unencoded)
            for (long b : level)
                s += b;
        return s;
    }
}
