package io.elect.core.node;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.elect.core.config.Json;
import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.transition.ParityPlacement.Node;
import io.elect.core.transition.RemoteStripeParticipant;
import io.elect.core.transition.StripeStore;
import io.elect.core.transition.WideningPlanner;
import io.elect.core.transition.WideningPlanner.Addition;
import io.elect.core.transition.WideningPlanner.Candidate;
import io.elect.core.transition.WideningPlanner.Outcome;
import io.elect.core.transition.WideningPlanner.Plan;
import io.elect.core.transition.WideningPlanner.StripePlan;
import io.elect.core.transition.WideningPlanner.Transfer;
import io.elect.core.transition.wire.TransitionMessages.CandidateInfo;
import io.elect.core.transition.wire.NodeSnapshot;
import io.elect.core.transition.wire.TransitionMessages.TableRef;

/**
 * The widening plan of the cluster's stripes ({@code electtool widen --to K --dry-run}): the stripe records from the
 * stripe store, the live ring with racks, every live node's transition candidates of every ELECT table (gathered as
 * transitioning rounds gather them, one SNAPSHOT per node and table), planned by {@link WideningPlanner}. A plan
 * only: nothing is sent and no record changes ({@link WideningRun} applies it; docs/design/scaling.md).
 */
final class WideningReport
{
    /** What the plan document says about applying it. */
    static final String APPLY = "electtool widen --to K (without --dry-run, on the coordinator) applies it; members longer than a "
                                + "stripe's recorded code length are skipped";

    private WideningReport()
    {
    }

    static String json(NodeContext node, TransitionService transitions, int targetK)
    {
        List<Node> ring = liveRing(node);
        return Json.write(document(node.store(), ring, candidates(node, transitions, ring), targetK, transitions.settings().alignment()));
    }

    /** The live ring members with their racks, by id (where members and parity may go). */
    static List<Node> liveRing(NodeContext node)
    {
        List<Node> ring = new ArrayList<>();
        for (String n : node.ring().liveMembers())
            ring.add(new Node(n, node.ring().rack(n)));
        ring.sort(Comparator.comparing(Node::id));
        return ring;
    }

    /** Every live node's transition candidates of every ELECT table (one SNAPSHOT per node and table). */
    static List<Candidate> candidates(NodeContext node, TransitionService transitions, List<Node> ring)
    {
        List<TableRef> tables = new ArrayList<>(node.tables().electTables());
        tables.sort(Comparator.comparing(TableRef::toString));
        List<Candidate> candidates = new ArrayList<>();
        for (TableRef table : tables)
            candidates.addAll(candidates(table, transitions.snapshots(table, ring).values()));
        return candidates;
    }

    /** Every snapshot's candidates as planner candidates, named as stripe members name them. */
    static List<Candidate> candidates(TableRef table, Iterable<NodeSnapshot> snapshots)
    {
        List<Candidate> out = new ArrayList<>();
        for (NodeSnapshot s : snapshots)
            for (CandidateInfo c : s.candidates())
                out.add(new Candidate(s.node(), RemoteStripeParticipant.memberName(table, c.sstable()), c.bytes()));
        return out;
    }

    /**
     * The plan document (pure but for listing the store): totals, outcomes, bytes per node against the Scale-RS lower
     * bound, and every stripe's plan. A store that is not ready yet has no stripes.
     */
    static Map<String, Object> document(StripeStore store, List<Node> ring, List<Candidate> candidates, int targetK, long alignment)
    {
        List<StripeRecord> records = store.ready() ? store.list() : List.of();
        Plan plan = WideningPlanner.plan(records, ring, candidates, targetK, alignment);
        Map<StripeId, Long> movedPerStripe = new TreeMap<>();
        for (Transfer t : plan.transfers())
            movedPerStripe.merge(t.stripe(), t.bytes(), Long::sum);
        Map<String, Integer> outcomes = new LinkedHashMap<>();
        for (Outcome o : Outcome.values())
            outcomes.put(o.name().toLowerCase(), 0);
        List<Object> stripes = new ArrayList<>();
        for (StripePlan p : plan.stripes())
        {
            outcomes.merge(p.outcome().name().toLowerCase(), 1, Integer::sum);
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("id", p.id().toString());
            s.put("outcome", p.outcome().name().toLowerCase());
            s.put("reason", p.reason());
            s.put("from_k", p.fromK());
            s.put("to_k", p.toK());
            s.put("m", p.m());
            s.put("from_codec", p.fromCodec());
            s.put("to_codec", p.toCodec());
            s.put("from_code_length", p.fromCodeLength());
            s.put("to_code_length", p.toCodeLength());
            s.put("slots_asked", p.slotsAsked());
            s.put("bytes_moved", movedPerStripe.getOrDefault(p.id(), 0L));
            s.put("lower_bound", p.lowerBound());
            List<Object> added = new ArrayList<>();
            for (Addition a : p.additions())
            {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("slot", a.slot());
                m.put("virtual_slot", a.virtualSlot());
                m.put("node", a.node());
                m.put("member", a.sstable());
                m.put("bytes", a.bytes());
                added.add(m);
            }
            s.put("additions", added);
            stripes.add(s);
        }
        List<Object> nodes = new ArrayList<>();
        for (Node n : ring)
        {
            WideningPlanner.NodeTraffic t = plan.perNode().get(n.id());
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("node", n.id());
            doc.put("rack", n.rack());
            doc.put("send_bytes", t == null ? 0L : t.sentBytes());
            doc.put("receive_bytes", t == null ? 0L : t.receivedBytes());
            nodes.add(doc);
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("target_k", targetK);
        doc.put("dry_run", true);
        doc.put("apply", APPLY);
        doc.put("stripes_total", records.size());
        doc.put("outcomes", outcomes);
        doc.put("bytes_moved", plan.bytesMoved());
        doc.put("lower_bound", plan.lowerBound());
        // bytes moved / bound; 1.0 when nothing moves (an empty plan is trivially optimal)
        doc.put("ratio_to_lower_bound", plan.lowerBound() == 0 ? 1.0 : (double) plan.bytesMoved() / plan.lowerBound());
        doc.put("candidates", candidates.size());
        doc.put("nodes", nodes);
        doc.put("stripes", stripes);
        return doc;
    }
}
