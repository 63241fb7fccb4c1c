package io.elect.core.bridge;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.gms.FailureDetector;
import org.apache.cassandra.locator.InetAddressAndPort;
import org.apache.cassandra.service.StorageService;
import org.apache.cassandra.utils.FBUtilities;

import io.elect.coding.ErasureCoders;
import io.elect.core.config.ElectConfig;
import io.elect.core.config.Json;
import io.elect.core.tiered.LocatorMemberReader;
import io.elect.core.stripes.NodeMemberReader;
import io.elect.core.transition.AlphaPlanner.Plan;
import io.elect.core.transition.ParityPlacement.Node;
import io.elect.core.transition.RemoteStripeParticipant;
import io.elect.core.transition.StripeRecord;
import io.elect.core.transition.StripeRecovery;
import io.elect.core.transition.StripeState;
import io.elect.core.transition.StripeStateMachine;
import io.elect.core.transition.TransitionCoordinator;
import io.elect.core.transition.wire.TransitionMessages.NodeSnapshot;
import io.elect.core.transition.wire.TransitionMessages.OffloadRequest;
import io.elect.core.transition.wire.TransitionMessages.OffloadResult;
import io.elect.core.transition.wire.TransitionMessages.SnapshotRequest;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.core.transport.NettyTransport;
import io.elect.core.transport.Peer;
import io.elect.core.transport.Verbs;

/**
 * Redundancy transitioning on this node: the ELECT transport (all nodes), the handlers of the transitioning verbs
 * (all nodes), and the periodic round (only on the coordinator: the live ring member with the smallest address).
 * A round first recovers half-done stripes, then, for each ELECT table, collects every node's snapshot, plans with
 * the storage-saving target and runs the stripes ({@link TransitionCoordinator}). A round is skipped while any ring
 * member is down: stubbing a secondary needs it up, and the planner needs every node's bytes.
 *
 * <p>Assumption (documented in docs/design/transitioning.md): every node uses the same {@code transport_port}; node
 * ids in stripe records are broadcast addresses.
 */
public final class TransitionService
{
    private static final Logger logger = LoggerFactory.getLogger(TransitionService.class);

    /**
     * Parity is always built into the hot tier; {@link #offload} later moves whole parity files to the cold tier
     * against a plan measured once encoding has settled. Deciding at build time (per stripe, from the previous
     * round's plan) overshot alpha: that plan was measured while secondaries of fresh stripes still held their
     * rows, and a parity file sent to the cold tier is never brought back. The cost is one extra local write of
     * parity that ends up cold.
     */
    private static final Predicate<StripeRecord> NEVER_COLD_AT_BUILD = stripe -> false;
    static final int MAX_STRIPES_PER_ROUND = 16;

    private static volatile TransitionService instance;

    private final ElectConfig config;
    private final NettyTransport transport;
    private final ElectStripeStore store = new ElectStripeStore();
    private final StripeStateMachine machine;
    private final LocalTransitionOps ops;
    private final String codecId;
    private final Map<TableRef, TransitionCoordinator> coordinators = new ConcurrentHashMap<>();
    private final Map<TableRef, TransitionCoordinator.RoundResult> lastRounds = new ConcurrentHashMap<>();
    private final ScheduledExecutorService exec = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "elect-transition");
        t.setDaemon(true);
        return t;
    });

    private TransitionService(ElectConfig config)
    {
        this.config = config;
        String host = FBUtilities.getBroadcastAddressAndPort().getAddress().getHostAddress();
        // issue 19: TLS per server_encryption_options, ring-member and stripe-participant checks (ElectTransportSecurity)
        this.transport = ElectTransportSecurity.open(host, config, store, new ElectPeerLiveness());
        NodeMemberReader nodes = new NodeMemberReader(transport);
        LocatorMemberReader members = nodes.members(name -> TieredSSTables.store(name).orElse(null));
        TieredSSTables.setNodeReader(nodes);
        // READ_MEMBER (with the cold-tier fallback for moved files) is registered by LocalTransitionOps.register()
        this.ops = new LocalTransitionOps(config, transport, members, nodes);
        ops.register();
        RemoteStripeParticipant participant = new RemoteStripeParticipant(transport, this::peerOf, NEVER_COLD_AT_BUILD);
        this.machine = new StripeStateMachine(store, participant, System::currentTimeMillis);
        this.codecId = ErasureCoders.create(config.dataChunks, config.parityChunks, config.coder).codecId();
    }

    /** Starts the transport and, with erasure coding enabled, the rounds. Call once, after Cassandra joined the ring. */
    public static synchronized void start(ElectConfig config)
    {
        if (instance != null)
            return;
        TransitionService s = new TransitionService(config);
        instance = s;
        s.exec.scheduleWithFixedDelay(s::maintainSafely, config.transitionIntervalSeconds, config.transitionIntervalSeconds, TimeUnit.SECONDS);
        if (config.erasureCodingEnabled)
            s.exec.scheduleWithFixedDelay(s::roundSafely, config.transitionIntervalSeconds, config.transitionIntervalSeconds, TimeUnit.SECONDS);
        logger.info("ELECT transitioning started: transport {} codec {} (k={}, m={}), alpha {}, rounds every {} s{}",
                    s.transport.localPeer(), s.codecId, config.dataChunks, config.parityChunks, config.storageSavingTarget,
                    config.transitionIntervalSeconds, config.erasureCodingEnabled ? "" : " (erasure coding disabled: no rounds)");
    }

    public static TransitionService instance()
    {
        return instance;
    }

    Peer peerOf(String node)
    {
        return new Peer(node, config.transportPort);
    }

    private void maintainSafely()
    {
        try
        {
            ops.maintain();
        }
        catch (Throwable t)
        {
            logger.warn("ELECT stub maintenance failed: {}", t.toString(), t);
        }
    }

    private void roundSafely()
    {
        try
        {
            round();
        }
        catch (Throwable t)
        {
            if (String.valueOf(t.getMessage()).contains(NodeRebuild.REFUSAL))
                logger.info("ELECT transition round skipped: {}", t.getMessage()); // expected while a node rebuilds
            else
                logger.warn("ELECT transition round failed: {}", t.toString(), t);
        }
    }

    /** Ring members sorted by address; null if any is down. */
    private List<InetAddressAndPort> ringIfAllUp()
    {
        List<InetAddressAndPort> ring = new ArrayList<>(StorageService.instance.getTokenMetadata().getAllEndpoints());
        for (InetAddressAndPort ep : ring)
            if (!ep.equals(FBUtilities.getBroadcastAddressAndPort()) && !FailureDetector.instance.isAlive(ep))
                return null;
        ring.sort(Comparator.comparing(ep -> ep.getAddress().getHostAddress()));
        return ring;
    }

    public synchronized void round()
    {
        List<InetAddressAndPort> ring = ringIfAllUp();
        if (ring == null || ring.isEmpty() || !ring.get(0).equals(FBUtilities.getBroadcastAddressAndPort()))
            return;
        // Created by the coordinator with every ring member up, so that its replication factor is min(3, ring)
        // rather than that of whichever node started first.
        ElectSystemKeyspace.ensure();
        StripeRecovery.Summary rec = StripeRecovery.recover(store, machine);
        if (rec.committed() + rec.rolledBack() + rec.pending().size() > 0)
            logger.info("transition recovery: {} committed, {} rolled back, {} rows removed, {} pending", rec.committed(),
                        rec.rolledBack(), rec.removed(), rec.pending().size());
        List<Node> nodes = new ArrayList<>();
        for (InetAddressAndPort ep : ring)
            nodes.add(new Node(ep.getAddress().getHostAddress(), DatabaseDescriptor.getEndpointSnitch().getRack(ep)));
        for (List<String> t : ElectTables.registered())
        {
            TableRef table = new TableRef(t.get(0), t.get(1));
            Map<String, NodeSnapshot> snaps = snapshots(table, nodes);
            TransitionCoordinator c = coordinators.computeIfAbsent(table, x -> new TransitionCoordinator(settings(), System::currentTimeMillis));
            TransitionCoordinator.RoundResult previous = lastRounds.get(table);
            TransitionCoordinator.RoundResult r = c.round(table, snaps, nodes, machine, p -> lastRounds.put(table, new TransitionCoordinator.RoundResult(table, p, 0, 0, 0, 0)));
            lastRounds.put(table, r);
            // Offload only once encoding has settled (no stripe this round nor the last): stubs purge their
            // secondaries a little after commit, and offloading against not-yet-purged bytes would overshoot alpha.
            if (config.offloadEnabled && r.planned() == 0 && previous != null && previous.planned() == 0)
                offload(table, snaps, r.plan());
        }
    }

    /**
     * Moves existing hot parity, then old encoded primaries, to the cold tier as the plan asks: each node gets a
     * share of the bytes proportional to what it holds of that kind, and picks its own oldest files
     * (OFFLOAD_PARITY, OFFLOAD_PRIMARY).
     */
    private void offload(TableRef table, Map<String, NodeSnapshot> snaps, Plan plan)
    {
        long parityHot = 0, primaryOld = 0;
        for (NodeSnapshot s : snaps.values())
        {
            parityHot += s.parityHot();
            primaryOld += s.encodedHotOld();
        }
        offloadShares(table, snaps, Verbs.OFFLOAD_PARITY, (long) plan.parityOffloadBytes(), parityHot, NodeSnapshot::parityHot, 0);
        offloadShares(table, snaps, Verbs.OFFLOAD_PRIMARY, (long) plan.primaryOffloadBytes(), primaryOld, NodeSnapshot::encodedHotOld,
                      config.primaryOffloadMinAgeSeconds * 1000L);
    }

    private void offloadShares(TableRef table, Map<String, NodeSnapshot> snaps, int verb, long bytes, long held,
                               java.util.function.ToLongFunction<NodeSnapshot> heldBy, long minAgeMillis)
    {
        if (bytes <= 0 || held <= 0)
            return;
        long start = System.currentTimeMillis();
        long moved = 0;
        int items = 0;
        // Largest holders first, each asked for what is still missing (capped by what it holds): at most one node
        // gets a partial share, so the rounding to whole files happens once, not once per node.
        List<NodeSnapshot> byHolding = new ArrayList<>(snaps.values());
        byHolding.sort(Comparator.comparingLong(heldBy).reversed().thenComparing(NodeSnapshot::node));
        long remaining = bytes;
        for (NodeSnapshot s : byHolding)
        {
            long share = Math.min(remaining, heldBy.applyAsLong(s));
            if (share <= 0)
                break;
            remaining -= share;
            try
            {
                OffloadResult res = OffloadResult.decode(transport.requestOnce(peerOf(s.node()), verb,
                                                                                 new OffloadRequest(table, share, minAgeMillis).encode(),
                                                                                 15 * 60_000L).get());
                moved += res.bytes();
                items += res.items();
            }
            catch (Exception e)
            {
                logger.warn("{} of {} bytes of {} on {} failed (next round retries): {}", Verbs.name(verb), share, table, s.node(), e.toString());
            }
        }
        logger.info("{} {}: asked {} bytes, moved {} bytes in {} files ({} ms)", Verbs.name(verb), table, bytes, moved, items,
                    System.currentTimeMillis() - start);
    }

    private TransitionCoordinator.Settings settings()
    {
        return new TransitionCoordinator.Settings(config.storageSavingTarget, config.dataChunks, config.parityChunks, codecId,
                                                  config.erasureCodingEnabled, config.offloadEnabled, 4096,
                                                  config.stripeFillWaitSeconds * 1000L, MAX_STRIPES_PER_ROUND);
    }

    /** Every node's snapshot of the table (this node's locally), by node id. */
    Map<String, NodeSnapshot> snapshots(TableRef table, List<Node> nodes)
    {
        Map<String, CompletableFuture<byte[]>> calls = new LinkedHashMap<>();
        for (Node n : nodes)
            calls.put(n.id(), transport.request(peerOf(n.id()), Verbs.SNAPSHOT, new SnapshotRequest(table).encode()));
        Map<String, NodeSnapshot> out = new TreeMap<>();
        for (Map.Entry<String, CompletableFuture<byte[]>> e : calls.entrySet())
        {
            try
            {
                out.put(e.getKey(), NodeSnapshot.decode(e.getValue().get()));
            }
            catch (Exception ex)
            {
                throw new IllegalStateException("snapshot of " + table + " from " + e.getKey() + " failed: " + ex.getMessage(), ex);
            }
        }
        return out;
    }

    /**
     * The storage report of every ELECT table ({@code electtool storage}): per node hot and cold bytes, the achieved
     * saving against full replication (as the planner measures it), the target, and stripes per state.
     */
    public String storageJson()
    {
        List<Node> nodes = new ArrayList<>();
        for (InetAddressAndPort ep : StorageService.instance.getTokenMetadata().getAllEndpoints())
            if (ep.equals(FBUtilities.getBroadcastAddressAndPort()) || FailureDetector.instance.isAlive(ep))
                nodes.add(new Node(ep.getAddress().getHostAddress(), DatabaseDescriptor.getEndpointSnitch().getRack(ep)));
        nodes.sort(Comparator.comparing(Node::id));
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("target_saving", config.storageSavingTarget);
        doc.put("k", config.dataChunks);
        doc.put("m", config.parityChunks);
        doc.put("live_nodes", nodes.size());
        doc.put("ring_nodes", StorageService.instance.getTokenMetadata().getAllEndpoints().size());
        List<Object> tables = new ArrayList<>();
        List<List<String>> names = ElectTables.registered();
        names.sort(Comparator.comparing(n -> n.get(0) + "." + n.get(1)));
        for (List<String> t : names)
        {
            TableRef table = new TableRef(t.get(0), t.get(1));
            Map<String, NodeSnapshot> snaps = snapshots(table, nodes);
            Plan plan = TransitionCoordinator.plan(settings(), snaps.values());
            Map<String, Object> tdoc = new LinkedHashMap<>();
            tdoc.put("table", table.toString());
            List<Object> perNode = new ArrayList<>();
            long hot = 0, cold = 0;
            for (NodeSnapshot s : snaps.values())
            {
                Map<String, Object> n = new LinkedHashMap<>();
                n.put("node", s.node());
                n.put("hot_bytes", s.hotBytes());
                n.put("cold_bytes", s.encodedCold() + s.parityCold());
                n.put("encoded_primary_bytes", s.encodedHot());
                n.put("stub_bytes", s.stubs());
                n.put("parity_hot_bytes", s.parityHot());
                n.put("parity_cold_bytes", s.parityCold());
                perNode.add(n);
                hot += s.hotBytes();
                cold += s.encodedCold() + s.parityCold();
            }
            tdoc.put("nodes", perNode);
            tdoc.put("hot_bytes", hot);
            tdoc.put("cold_bytes", cold);
            tdoc.put("full_replication_bytes", (long) plan.fullReplicationBytes());
            tdoc.put("achieved_saving", plan.fullReplicationBytes() <= 0 ? 0.0 : 1 - plan.hotBytes() / plan.fullReplicationBytes());
            tdoc.put("plan", plan.toMap());
            TransitionCoordinator.RoundResult last = lastRounds.get(table);
            tdoc.put("last_round_on_this_node", last == null ? null : Map.of("planned", last.planned(), "committed", last.committed(),
                                                                              "rolled_back", last.rolledBack(), "failed", last.failed()));
            tables.add(tdoc);
        }
        doc.put("tables", tables);
        Map<String, Object> states = new TreeMap<>();
        for (StripeState st : StripeState.values())
            states.put(st.name().toLowerCase(), 0);
        for (StripeRecord r : ElectSystemKeyspace.exists() ? store.list() : List.<StripeRecord>of())
            states.merge(r.state().name().toLowerCase(), 1, (a, b) -> (Integer) a + (Integer) b);
        doc.put("stripes", states);
        return Json.write(doc);
    }

    /** Starts {@code electtool rebuild} on this node (see {@link NodeRebuild}); returns its first status. */
    public String startRebuild(int parallelism, double throttleMiBps, boolean stream, String keyspace) throws IOException
    {
        return NodeRebuild.start(ops, store, parallelism, throttleMiBps, stream, keyspace);
    }

    /** {@code electtool verify} on this node (see {@link StripeVerifier}). */
    public String verify() throws IOException
    {
        return StripeVerifier.verify(ops, store);
    }

    public synchronized void stop()
    {
        exec.shutdownNow();
        transport.close();
        instance = null;
    }
}
