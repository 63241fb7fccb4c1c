package io.elect.core.node;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.elect.core.config.Json;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.AlphaPlanner.Plan;
import io.elect.core.transition.ParityPlacement.Node;
import io.elect.core.transition.TransitionCoordinator;
import io.elect.core.transition.wire.NodeSnapshot;
import io.elect.core.transition.wire.TransitionMessages.TableRef;

/**
 * The storage report of every ELECT table ({@code electtool storage}): per node hot and cold bytes, the obsolete
 * versions frozen files hold, the achieved saving against full replication of the live data (as the planner measures
 * it: obsolete versions are cost), the target, and stripes per state. Gathered from
 * every live node over the ELECT transport.
 */
final class StorageReport
{
    private StorageReport()
    {
    }

    static Map<String, Object> build(NodeContext node, TransitionService transitions)
    {
        List<Node> nodes = new ArrayList<>();
        for (String n : node.ring().liveMembers())
            nodes.add(new Node(n, node.ring().rack(n)));
        nodes.sort(Comparator.comparing(Node::id));
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("target_saving", transitions.savingTarget());
        doc.put("k", node.config().dataChunks);
        doc.put("m", node.config().parityChunks);
        doc.put("live_nodes", nodes.size());
        doc.put("ring_nodes", node.ring().members().size());
        List<Object> tables = new ArrayList<>();
        List<TableRef> names = new ArrayList<>(node.tables().electTables());
        names.sort(Comparator.comparing(TableRef::toString));
        // the stripe store exists once a coordinator created it (every ring member up): until then there is no stripe
        List<StripeRecord> records = node.store().ready() ? node.store().list() : List.of();
        for (TableRef table : names)
        {
            Map<String, NodeSnapshot> snaps = transitions.snapshots(table, nodes);
            // the plan a round would make now: same parity correction and the same room in virtual slots
            double room = node.store().ready()
                          ? TransitionCoordinator.fillableBytes(transitions.fillable(table, nodes.size() == node.ring().members().size())) : 0;
            Plan plan = TransitionCoordinator.plan(transitions.settings(), snaps.values(),
                                                   TransitionCoordinator.parityCorrection(table, records), room);
            Map<String, Object> tdoc = new LinkedHashMap<>();
            tdoc.put("table", table.toString());
            List<Object> perNode = new ArrayList<>();
            long hot = 0, cold = 0, obsolete = 0;
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
                n.put("obsolete_bytes", s.obsolete());
                // encoded members' bytes outside this node's ranges (after a ring change): not replicated data here
                n.put("unreplicated_member_bytes", s.unreplicated());
                // transition candidates and how many of them are hot (read more than cold_read_rate: encoded only
                // after every cold one, never offloaded); rates as the node's hotness tracker measures them
                int hotCandidates = 0;
                double maxRate = 0;
                for (io.elect.core.transition.wire.TransitionMessages.CandidateInfo c : s.candidates())
                {
                    if (c.readRate() > node.config().coldReadRate)
                        hotCandidates++;
                    maxRate = Math.max(maxRate, c.readRate());
                }
                n.put("candidates", s.candidates().size());
                n.put("hot_candidates", hotCandidates);
                n.put("candidate_read_rate_max", maxRate);
                perNode.add(n);
                hot += s.hotBytes();
                cold += s.encodedCold() + s.parityCold();
                obsolete += s.obsolete();
            }
            tdoc.put("nodes", perNode);
            tdoc.put("hot_bytes", hot);
            tdoc.put("cold_bytes", cold);
            // obsolete versions in frozen (encoded, offloaded, stub) files: not data, so not in full replication
            tdoc.put("obsolete_bytes", obsolete);
            tdoc.put("full_replication_bytes", (long) plan.fullReplicationBytes());
            tdoc.put("achieved_saving", plan.fullReplicationBytes() <= 0 ? 0.0 : 1 - plan.hotBytes() / plan.fullReplicationBytes());
            tdoc.put("plan", plan.toMap());
            tdoc.put("parity_cost", parityCost(table, records));
            // what this node's rounds (as coordinator, since it started) did to encoded data under updates (issue 16)
            Map<String, Object> changes = new LinkedHashMap<>();
            changes.put("stripes_retired", node.metrics().counter("Transitioning", "StripesRetired", table.toString()).getCount());
            changes.put("members_removed", node.metrics().counter("Transitioning", "MembersRemoved", table.toString()).getCount());
            changes.put("members_merged", node.metrics().counter("Transitioning", "MembersMerged", table.toString()).getCount());
            changes.put("member_merge_enabled", node.config().memberMergeEnabled);
            changes.put("virtual_slots_filled", node.metrics().counter("Transitioning", "VirtualSlotsFilled", table.toString()).getCount());
            changes.put("fill_virtual_slots", node.config().fillVirtualSlots);
            tdoc.put("changes_by_this_node", changes);
            TransitionCoordinator.RoundResult last = transitions.lastRound(table);
            tdoc.put("last_round_on_this_node", last == null ? null : Map.of("planned", last.planned(), "committed", last.committed(),
                                                                              "rolled_back", last.rolledBack(), "failed", last.failed()));
            tables.add(tdoc);
        }
        doc.put("tables", tables);
        Map<String, Object> states = new TreeMap<>();
        for (StripeState st : StripeState.values())
            states.put(st.name().toLowerCase(), 0);
        // stripes still naming a node that left the ring (issue 18: repaired by the coordinator's rounds a minute after)
        Map<String, Integer> departed = new TreeMap<>();
        // and nodes being drained before they leave (electtool decommission): the stripes that still name each
        Map<String, Long> marks = node.store().ready() ? node.store().draining() : Map.of();
        Map<String, Integer> draining = new TreeMap<>();
        marks.keySet().forEach(n -> draining.put(n, 0));
        for (StripeRecord r : node.store().ready() ? node.store().list() : List.<StripeRecord>of())
        {
            states.merge(r.state().name().toLowerCase(), 1, (a, b) -> (Integer) a + (Integer) b);
            java.util.Set<String> named = new java.util.TreeSet<>(r.parityNodes());
            r.members().forEach(m -> {
                if (!m.isVirtual())
                    named.add(m.node());
            });
            for (String n : named)
                if (!r.state().rowRemovable() && node.ring().hasLeft(n))
                    departed.merge(n, 1, Integer::sum);
                else if (!r.state().rowRemovable() && marks.containsKey(n))
                    draining.merge(n, 1, Integer::sum);
        }
        doc.put("stripes", states);
        doc.put("stripes_naming_departed_nodes", departed);
        doc.put("stripes_naming_draining_nodes", draining);
        return doc;
    }

    static String json(NodeContext node, TransitionService transitions)
    {
        return Json.write(build(node, transitions));
    }

    /**
     * What the table's COMMITTED stripes spend on parity by their records, split by cause (issue 16's drift):
     * {@code parity_bytes} = m x code length summed; {@code nominal_bytes} = m / k x their real data bytes (full, equal
     * members: what encoding costs at best); {@code code_overhang_bytes} = m x (code length - longest real member), the
     * zeros past the longest member after a merge or removal shortened it (the code length of a stripe never shrinks;
     * parity files written since 2026-11-28 do not store them, older ones do: the nodes' parity_hot/cold_bytes are what
     * is stored); {@code padded_stripes} with a virtual member and the {@code padding_bytes} they spend over the
     * nominal; the rest of parity_bytes - nominal_bytes is members of unequal lengths.
     */
    static Map<String, Object> parityCost(TableRef table, List<StripeRecord> records)
    {
        String prefix = table.keyspace() + "." + table.table() + "/";
        long parity = 0, overhang = 0, padded = 0;
        double nominal = 0, padding = 0;
        int stripes = 0;
        for (StripeRecord r : records)
        {
            if (r.state() != StripeState.COMMITTED)
                continue;
            long real = 0, longest = 0;
            boolean ours = false;
            for (io.elect.core.stripes.Member mem : r.members())
                if (!mem.isVirtual())
                {
                    ours |= mem.sstable().startsWith(prefix);
                    real += mem.realBytes();
                    longest = Math.max(longest, mem.realBytes());
                }
            if (!ours)
                continue;
            stripes++;
            parity += (long) r.m() * r.codeLength();
            overhang += (long) r.m() * (r.codeLength() - longest);
            double nominalHere = (double) r.m() / r.k() * real;
            nominal += nominalHere;
            if (r.realMembers() < r.k())
            {
                padded++;
                padding += (double) r.m() * longest - nominalHere;
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("committed_stripes", stripes);
        out.put("parity_bytes", parity);
        out.put("nominal_bytes", Math.round(nominal));
        out.put("code_overhang_bytes", overhang);
        out.put("padded_stripes", padded);
        out.put("padding_bytes", Math.round(padding));
        return out;
    }
}
