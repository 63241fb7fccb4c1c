package io.elect.core.transition;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.ParityPlacement.Node;

/**
 * What a round does with a stripe that names a node which left the ring (issue 18: decommission, removenode;
 * docs/design/topology.md "Nodes that left the ring"). A pure function of the record, the ring and the set of nodes
 * that left, tested with golden cases.
 *
 * <p>One step per stripe and round, each a member change of the stripe's state machine under the next parity
 * generation:
 * <ul>
 * <li>{@link Kind#REMOVE_MEMBER}: a data member on a node that left is removed (the slot becomes virtual); its stubs
 *     are first rewritten as ordinary SSTables on their nodes (STUB_MATERIALIZE), so its rows keep their replicas.
 *     Parity nodes that left are replaced in the same step.</li>
 * <li>{@link Kind#RETIRE}: that member is the stripe's last real one: after materializing its stubs the stripe is
 *     retired (nothing encoded is left in it).</li>
 * <li>{@link Kind#MOVE_PARITY}: only parity nodes left: every such parity chunk is rebuilt on a replacement node, a
 *     change whose slot keeps its member (no member bytes change; the stubs switch to the new parity locators).</li>
 * </ul>
 * Replacement parity nodes are live ring members holding no chunk of the stripe, chosen by {@link ParityPlacement}
 * (racks respected). Empty (wait) when the stripe is not COMMITTED, when no node of it left, when more than one data
 * member left (not handled: each removal needs the others readable), when a parity move finds no live member to keep,
 * or when there are not enough replacement nodes.
 */
public final class Departures
{
    public enum Kind
    {
        REMOVE_MEMBER, RETIRE, MOVE_PARITY
    }

    /**
     * @param slot        the member slot the change names (the departed member, or the kept member of a parity move)
     * @param replacement what the slot holds next (virtual for a removal, the same member for a parity move)
     * @param parityNodes the stripe's parity nodes after the step (departed ones replaced)
     * @param departed    the departed node whose member is removed (REMOVE_MEMBER, RETIRE), else null
     */
    public record Plan(Kind kind, StripeRecord record, int slot, Member replacement, List<String> parityNodes, String departed)
    {
    }

    private Departures()
    {
    }

    /**
     * @param live  the live ring members with their racks (where replacement parity may go)
     * @param racks the rack of any node still in the ring (down members included), for placement; may answer null
     * @param left  the nodes that left the ring
     */
    public static Optional<Plan> plan(StripeRecord r, Collection<Node> live, java.util.function.Function<String, String> racks, Set<String> left)
    {
        if (r.state() != StripeState.COMMITTED)
            return Optional.empty();
        List<Integer> departedSlots = new ArrayList<>();
        for (int i = 0; i < r.k(); i++)
        {
            Member m = r.members().get(i);
            if (!m.isVirtual() && left.contains(m.node()))
                departedSlots.add(i);
        }
        boolean parityLeft = r.parityNodes().stream().anyMatch(left::contains);
        if (departedSlots.isEmpty() && !parityLeft)
            return Optional.empty();
        if (departedSlots.size() > 1)
            return Optional.empty();
        if (!departedSlots.isEmpty() && r.realMembers() == 1)
        {
            int slot = departedSlots.get(0);
            return Optional.of(new Plan(Kind.RETIRE, r, slot, Member.virtual(), r.parityNodes(), r.members().get(slot).node()));
        }
        // the nodes that keep a chunk of the stripe after the step
        Set<String> occupied = new HashSet<>();
        for (int i = 0; i < r.k(); i++)
        {
            Member m = r.members().get(i);
            if (!m.isVirtual() && !left.contains(m.node()))
                occupied.add(m.node());
        }
        for (String p : r.parityNodes())
            if (!left.contains(p))
                occupied.add(p);
        List<String> parity = new ArrayList<>(r.parityNodes());
        int missing = (int) parity.stream().filter(left::contains).count();
        if (missing > 0)
        {
            List<Node> ring = new ArrayList<>();
            Set<String> seen = new HashSet<>();
            for (Node n : live)
                if (!left.contains(n.id()) && seen.add(n.id()))
                    ring.add(n);
            for (String o : occupied)
                if (seen.add(o))
                    ring.add(new Node(o, racks.apply(o)));
            List<Node> chosen;
            try
            {
                chosen = ParityPlacement.place(r.id(), ring, occupied, missing);
            }
            catch (IllegalArgumentException e)
            {
                return Optional.empty(); // not enough nodes without a chunk of the stripe
            }
            int next = 0;
            for (int j = 0; j < parity.size(); j++)
                if (left.contains(parity.get(j)))
                    parity.set(j, chosen.get(next++).id());
        }
        if (!departedSlots.isEmpty())
        {
            int slot = departedSlots.get(0);
            return Optional.of(new Plan(Kind.REMOVE_MEMBER, r, slot, Member.virtual(), parity, r.members().get(slot).node()));
        }
        Set<String> liveIds = new HashSet<>();
        live.forEach(n -> liveIds.add(n.id()));
        for (int i = 0; i < r.k(); i++)
        {
            Member m = r.members().get(i);
            if (!m.isVirtual() && liveIds.contains(m.node()))
                return Optional.of(new Plan(Kind.MOVE_PARITY, r, i, m, parity, null));
        }
        return Optional.empty();
    }
}
