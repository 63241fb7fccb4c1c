package io.elect.core.sim;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import io.elect.core.config.ColdTierStores;
import io.elect.core.config.ElectConfig;
import io.elect.core.node.ElectNode;
import io.elect.core.node.NodeExecutors;
import io.elect.core.node.NodeMetrics;
import io.elect.core.node.Ring;
import io.elect.core.sim.SimRows.Row;
import io.elect.core.stripes.Coders;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.tiered.DecodeContext;
import io.elect.core.tiered.TieredChunkCache;
import io.elect.core.tiered.TieredRuntime;
import io.elect.core.transition.StripeStore;
import io.elect.core.transition.wire.TransitionMessages.ParityInfo;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.core.transport.RequestHandler;
import io.elect.core.transport.TransportOptions;
import io.elect.core.transport.Verbs;
import io.elect.core.util.ManualClock;
import io.elect.offload.ColdStore;

/**
 * The simulated cluster: N nodes on one token ring (one token each, evenly spaced; SimpleStrategy with replication
 * factor min(3, N); a node may leave it, {@link #beginLeaving}/{@link #leave}), each a real {@link ElectNode} service layer over its {@link SimTables}, the simulated network,
 * one shared stripe store and one cold store, all driven by one seeded {@link Random} and one {@link ManualClock}.
 * It knows how to start, kill, wipe and rebuild a node, and how a client writes (CL ALL) and reads (CL ONE, the first
 * ready replica in ring order, which is how ELECT's tables are read).
 */
final class SimCluster implements AutoCloseable
{
    static final TableRef TABLE = new TableRef("sim", "t");
    static final int PORT = 7070;

    final Random random;
    final ManualClock clock;
    /** The configuration nodes (re)start with; the simulation's operator may change it (see Simulation#raiseAlpha). */
    ElectConfig config;
    final int rf;
    final SimNetwork network;
    final StripeStore stripes;
    final ColdStore cold;
    final Sabotage sabotage;
    private final Path root;
    private final int rowsPerFile;
    /** The ring members' tokens, in ring order; {@code tokens[i]} is {@code nodes.get(i)}'s. */
    private long[] tokens;
    private final List<SimNode> nodes = new ArrayList<>();
    /** The node being decommissioned (Cassandra's LEAVING: its ranges are pending on the nodes taking them), or null. */
    private SimNode leaving;
    /** Nodes that left the ring (decommissioned): gone for good, never restarted. */
    private final List<SimNode> departed = new ArrayList<>();

    /** One simulated node. */
    final class SimNode
    {
        /** Position in the ring (and in {@link #nodes}); renumbered when a node leaves. */
        int index;
        final String id;
        final Path dir;
        SimTables tables;
        ElectNode node;
        boolean up;
        /** Its disk was lost: it serves no client read until a rebuild completes. */
        boolean needsRebuild;
        /** Disks this node has had (file ids never repeat across them). */
        int incarnation = 1;
        private final Ring ring;

        SimNode(int index) throws IOException
        {
            this.index = index;
            this.id = "10.0.0." + (index + 1);
            this.dir = root.resolve("n" + (index + 1));
            this.ring = new NodeRing(this);
            this.tables = newTables();
        }

        private SimTables newTables() throws IOException
        {
            return new SimTables(id, incarnation, dir.resolve("data"), TABLE, rf, rowsPerFile, clock, t -> roleOf(index, t),
                                 SimCluster.this::rowsFor, sabotage, () -> node.tiered());
        }

        /** Whether client reads may be served here. */
        boolean ready()
        {
            return up && !needsRebuild;
        }

        Ring ring()
        {
            return ring;
        }

        @Override
        public String toString()
        {
            return id;
        }
    }

    /** The ring as one node sees it: a peer is up if its process runs and no partition separates them. */
    private final class NodeRing implements Ring
    {
        private final SimNode me;

        NodeRing(SimNode me)
        {
            this.me = me;
        }

        @Override
        public String self()
        {
            return me.id;
        }

        @Override
        public List<String> members()
        {
            List<String> ids = new ArrayList<>();
            for (SimNode n : nodes)
                ids.add(n.id);
            ids.sort(Comparator.naturalOrder());
            return ids;
        }

        @Override
        public boolean isAlive(String node)
        {
            if (node.equals(me.id))
                return true;
            SimNode n = byId(node);
            return n != null && n.up && !network.partitioned(me.id, node);
        }

        @Override
        public String rack(String node)
        {
            return "rack1";
        }

        @Override
        public List<String> replicas(String keyspace, String token)
        {
            List<String> out = new ArrayList<>();
            for (int i : replicaIndexes(Long.parseLong(token)))
                out.add(nodes.get(i).id);
            return out;
        }

        /** Its natural ranges, and while a node leaves the ranges it will take over (pending, as token metadata says). */
        @Override
        public boolean willReplicate(String keyspace, String firstToken, String lastToken)
        {
            if (replicasOfSpan(keyspace, firstToken, lastToken).contains(self()))
                return true;
            return leaving != null && leaving != me
                   && (replicasWithout(Long.parseLong(firstToken), leaving).contains(me.id)
                       || replicasWithout(Long.parseLong(lastToken), leaving).contains(me.id));
        }

        @Override
        public long version()
        {
            return members().hashCode() * 31L + (leaving == null ? 0 : leaving.id.hashCode());
        }

        @Override
        public boolean changing()
        {
            return leaving != null;
        }
    }

    SimCluster(long seed, Path root, int n, ElectConfig config, int rowsPerFile, Sabotage sabotage) throws IOException
    {
        // consecutive seeds give correlated first draws of java.util.Random: start from a mixed seed
        this.random = new Random(new java.util.SplittableRandom(seed).nextLong());
        this.clock = new ManualClock(1_700_000_000_000L);
        this.config = config;
        this.rf = Math.min(3, n);
        this.root = root;
        this.rowsPerFile = rowsPerFile;
        this.sabotage = sabotage;
        this.tokens = new long[n];
        BigInteger span = BigInteger.ONE.shiftLeft(64);
        for (int i = 0; i < n; i++)
            tokens[i] = span.multiply(BigInteger.valueOf(i + 1)).divide(BigInteger.valueOf(n)).add(BigInteger.valueOf(Long.MIN_VALUE))
                            .subtract(BigInteger.ONE).longValue();
        this.network = new SimNetwork(random, clock, new TransportOptions(1 << 20, config.transportRequestTimeoutMillis,
                                                                          config.transportRetries, 50),
                                      id -> byId(id) != null && byId(id).up);
        this.stripes = new SimStripeStore();
        this.cold = SimColdTier.create(random.nextLong());
        for (int i = 0; i < n; i++)
            nodes.add(new SimNode(i));
    }

    List<SimNode> nodes()
    {
        return nodes;
    }

    SimNode byId(String id)
    {
        for (SimNode n : nodes)
            if (n.id.equals(id))
                return n;
        return null;
    }

    // ------------------------------------------------------------------ the ring

    /** The replicas of a token once {@code without} has left the ring (ids, primary first). */
    List<String> replicasWithout(long token, SimNode without)
    {
        List<SimNode> rest = new ArrayList<>(nodes);
        rest.remove(without);
        long[] restTokens = tokensWithout(nodes.indexOf(without));
        List<String> out = new ArrayList<>();
        for (int i : replicaIndexes(token, restTokens, Math.min(rf, rest.size())))
            out.add(rest.get(i).id);
        return out;
    }

    /** The ring's tokens without the one at {@code at} (ring order kept). */
    private long[] tokensWithout(int at)
    {
        long[] rest = new long[tokens.length - 1];
        for (int i = 0, j = 0; i < tokens.length; i++)
            if (i != at)
                rest[j++] = tokens[i];
        return rest;
    }

    /** Cassandra's LEAVING: the nodes that will take over n's ranges see them as pending (Ring.willReplicate). */
    void beginLeaving(SimNode n)
    {
        if (leaving != null)
            throw new IllegalStateException(leaving + " is already leaving");
        leaving = n;
    }

    /**
     * Cassandra's LEFT: n is out of the ring (its token gone, the others renumbered), its process stopped and its
     * disk deleted (a decommissioned node's data is no longer the cluster's). The caller streams first.
     */
    void leave(SimNode n) throws IOException
    {
        if (leaving != n)
            throw new IllegalStateException(n + " is not leaving");
        int at = nodes.indexOf(n);
        kill(n);
        tokens = tokensWithout(at);
        nodes.remove(at);
        for (int i = 0; i < nodes.size(); i++)
            nodes.get(i).index = i;
        departed.add(n);
        leaving = null;
        deleteTree(n.dir);
    }

    /** Indexes of the replicas of a token: its primary (the first node whose token is >= it) and the next rf - 1. */
    int[] replicaIndexes(long token)
    {
        return replicaIndexes(token, tokens, rf);
    }

    private static int[] replicaIndexes(long token, long[] tokens, int rf)
    {
        int primary = 0;
        while (primary < tokens.length && tokens[primary] < token)
            primary++;
        if (primary == tokens.length)
            primary = 0;
        int[] out = new int[rf];
        for (int r = 0; r < rf; r++)
            out[r] = (primary + r) % tokens.length;
        return out;
    }

    int roleOf(int node, long token)
    {
        int[] reps = replicaIndexes(token);
        for (int r = 0; r < reps.length; r++)
            if (reps[r] == node)
                return r;
        return -1;
    }

    /** Every row version the live, ready replicas hold (LOCAL data and memtables) of the ranges node replicates. */
    private List<Row> rowsFor(String node)
    {
        SimNode target = byId(node);
        List<Row> out = new ArrayList<>();
        for (SimNode n : nodes)
        {
            if (n == target || !n.ready())
                continue;
            try
            {
                out.addAll(n.tables.rowsForStreaming(t -> roleOf(target.index, t) >= 0 && roleOf(n.index, t) >= 0));
            }
            catch (IOException e)
            {
                throw new java.io.UncheckedIOException("streaming from " + n + ": " + e.getMessage(), e);
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ node lifecycle

    /** Starts a node's process: a fresh ElectNode (nothing volatile survives a restart) over its disk. */
    void start(SimNode n) throws IOException
    {
        TieredRuntime tiered = new TieredRuntime(new Coders("java"), new TieredChunkCache(256 << 10), DecodeContext.direct(clock));
        n.node = new ElectNode(config, clock, tiered, new NodeMetrics(NodeMetrics.LOCAL));
        n.node.registerColdStore(ColdTierStores.DEFAULT_STORE, cold);
        n.tables.processRestarted();
        n.up = true;
        SimNetwork.Endpoint ep = network.endpoint(n.id, PORT);
        ep.setLiveness(peer -> n.ring().isAlive(peer.host()));
        Path state = n.dir.resolve("state");
        Files.createDirectories(state);
        n.node.start(new ElectNode.Seams(n.tables, n.ring(), stripes, state, ep, NodeExecutors.INLINE));
        if (sabotage == Sabotage.PARITY_LOST_AFTER_ACK)
            loseSomeParity(ep);
    }

    /** The planted bug: one BUILD_PARITY in three acknowledges, then its file disappears. */
    private void loseSomeParity(SimNetwork.Endpoint ep)
    {
        RequestHandler real = ep.handler(Verbs.BUILD_PARITY);
        ep.register(Verbs.BUILD_PARITY, payload -> {
            byte[] out = real.handle(payload);
            ParityInfo info = ParityInfo.decode(out);
            if (info.locator().startsWith(LocatorMemberReader.NODE) && random.nextInt(3) == 0)
            {
                Path file = Path.of(LocatorMemberReader.NodeLocator.parse(info.locator()).path());
                Files.deleteIfExists(file);
                Files.deleteIfExists(io.elect.core.stripes.ParitySidecar.of(file));
            }
            return out;
        });
    }

    /** Stripes retired by node processes that were killed since (their metrics died with them). */
    private long retiredByDeadNodes;
    /** Members removed from their stripes by node processes that were killed since. */
    private long removedByDeadNodes;
    private long mergedByDeadNodes;
    private long filledByDeadNodes;
    private long widenedByDeadNodesK;
    /** ParityMaintenance counters of nodes killed so far (a restarted node's registry starts at 0). */
    private final java.util.Map<String, Long> parityByDeadNodes = new java.util.TreeMap<>();
    private static final List<String> PARITY_COUNTERS = List.of("ByTwoVersions", "ByPushedDelta", "Reencoded", "Copied", "ChangedMemberBytes");
    /** Padded choices widened (TransitionCoordinator.viable) by node processes that were killed since. */
    private long widenedByDeadNodes;

    /** Rounds of this node's process that widened a padded choice. */
    private static long widened(SimNode n)
    {
        return n.node.metrics().counter("Transitioning", "PaddedChoicesWidened", null).getCount();
    }

    /** kill -9: the process and everything volatile are gone; the disk stays. */
    void kill(SimNode n)
    {
        n.up = false;
        if (n.node != null)
        {
            retiredByDeadNodes += n.node.metrics().counter("Transitioning", "StripesRetired", null).getCount();
            removedByDeadNodes += n.node.metrics().counter("Transitioning", "MembersRemoved", null).getCount();
            mergedByDeadNodes += n.node.metrics().counter("Transitioning", "MembersMerged", null).getCount();
            filledByDeadNodes += n.node.metrics().counter("Transitioning", "VirtualSlotsFilled", null).getCount();
            widenedByDeadNodesK += n.node.metrics().counter("Transitioning", "StripesWidened", null).getCount();
            for (String c : PARITY_COUNTERS)
                parityByDeadNodes.merge(c, n.node.metrics().counter("ParityMaintenance", c, null).getCount(), Long::sum);
            widenedByDeadNodes += widened(n);
            n.node.close();
        }
        n.node = null;
        network.reset(n.id);
    }

    /** The node's disk is lost (its process dies with it): it must be replaced and rebuilt. */
    void loseDisk(SimNode n) throws IOException
    {
        kill(n);
        deleteTree(n.dir);
        n.incarnation++;
        n.tables = n.newTables();
        n.needsRebuild = true;
    }

    /**
     * Replaces a wiped node (same id and token) and runs its rebuild to the end (inline); returns the rebuild's state
     * ("done" or "failed"; a failed rebuild is resumable and leaves the node not ready).
     */
    String replaceAndRebuild(SimNode n) throws IOException
    {
        if (!n.up)
            start(n);
        n.node.startRebuild(1, 0, true, null);
        String state = n.node.rebuilds().lastState();
        if (state.equals("done"))
            n.needsRebuild = false;
        return state;
    }

    static void deleteTree(Path dir) throws IOException
    {
        if (!Files.exists(dir))
            return;
        try (Stream<Path> s = Files.walk(dir))
        {
            for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator)
                Files.deleteIfExists(p);
        }
    }

    // ------------------------------------------------------------------ client

    /** A write at CL ALL: applied to every replica if all are up (else unavailable, applied nowhere). */
    boolean write(Row r)
    {
        int[] reps = replicaIndexes(r.token());
        for (int i : reps)
            if (!nodes.get(i).up)
                return false;
        for (int i : reps)
            nodes.get(i).tables.write(r);
        return true;
    }

    /** The replica that serves a CL ONE read of the token: the first ready one in ring order, or null. */
    SimNode readReplica(long token)
    {
        for (int i : replicaIndexes(token))
            if (nodes.get(i).ready())
                return nodes.get(i);
        return null;
    }

    /** Nodes down or not ready. */
    int unavailable()
    {
        int d = departedStillNamed();
        for (SimNode n : nodes)
            if (!n.ready())
                d++;
        return d;
    }

    /**
     * Departed nodes that a live stripe record still names (a member or parity chunk): until the departure repair has
     * taken them out, each stripe naming one tolerates one failure fewer (its chunk there is gone for good), so the
     * simulation counts such a node as unavailable, for the failures it injects (at most m) and for the reads it
     * requires to succeed. The window is the real system's: docs/design/topology.md, "The window after a node leaves".
     */
    int departedStillNamed()
    {
        if (departed.isEmpty())
            return 0;
        java.util.Set<String> named = new java.util.HashSet<>();
        for (io.elect.core.stripes.StripeRecord r : stripes.list())
        {
            if (r.state() == io.elect.core.stripes.StripeState.RETIRED || r.state() == io.elect.core.stripes.StripeState.ROLLED_BACK)
                continue;
            for (io.elect.core.stripes.Member mem : r.members())
                if (!mem.isVirtual())
                    named.add(mem.node());
            named.addAll(r.parityNodes());
        }
        int d = 0;
        for (SimNode n : departed)
            if (named.contains(n.id))
                d++;
        return d;
    }

    /** Live nodes' metrics totals of tiered reads by kind (for the summary). */
    Map<String, Long> tieredTotals()
    {
        Map<String, Long> out = new LinkedHashMap<>();
        long direct = 0, decoded = 0;
        for (SimNode n : nodes)
            if (n.node != null)
            {
                direct += n.node.tiered().decodedCounters().directRuns.sum();
                decoded += n.node.tiered().decodedCounters().decodedRuns.sum();
            }
        out.put("direct_runs", direct);
        out.put("decoded_runs", decoded);
        long recalled = 0;
        for (SimNode n : nodes)
            if (n.node != null)
                recalled += n.node.metrics().counter("Transitioning", "PrimaryBytesRecalled", null).getCount();
        out.put("bytes_recalled", recalled);
        long retired = retiredByDeadNodes;
        for (SimNode n : nodes)
            if (n.node != null)
                retired += n.node.metrics().counter("Transitioning", "StripesRetired", null).getCount();
        out.put("stripes_retired", retired);
        long removed = removedByDeadNodes;
        for (SimNode n : nodes)
            if (n.node != null)
                removed += n.node.metrics().counter("Transitioning", "MembersRemoved", null).getCount();
        out.put("members_removed", removed);
        long merged = mergedByDeadNodes;
        for (SimNode n : nodes)
            if (n.node != null)
                merged += n.node.metrics().counter("Transitioning", "MembersMerged", null).getCount();
        out.put("members_merged", merged);
        long filled = filledByDeadNodes;
        for (SimNode n : nodes)
            if (n.node != null)
                filled += n.node.metrics().counter("Transitioning", "VirtualSlotsFilled", null).getCount();
        out.put("virtual_slots_filled", filled);
        long wider = widenedByDeadNodesK;
        for (SimNode n : nodes)
            if (n.node != null)
                wider += n.node.metrics().counter("Transitioning", "StripesWidened", null).getCount();
        out.put("stripes_widened_k", wider);
        for (String c : PARITY_COUNTERS)
        {
            long v = parityByDeadNodes.getOrDefault(c, 0L);
            for (SimNode n : nodes)
                if (n.node != null)
                    v += n.node.metrics().counter("ParityMaintenance", c, null).getCount();
            out.put("parity_" + c, v);
        }
        long widened = widenedByDeadNodes;
        for (SimNode n : nodes)
            if (n.node != null)
                widened += widened(n);
        out.put("padded_choices_widened", widened);
        return out;
    }

    @Override
    public void close() throws IOException
    {
        for (SimNode n : nodes)
            if (n.node != null)
                n.node.close();
        deleteTree(root);
    }
}
