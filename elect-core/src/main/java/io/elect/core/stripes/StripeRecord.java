package io.elect.core.stripes;


import java.util.List;
import java.util.Objects;


/**
 * One stripe's metadata: its plan (id, codec, k, m, code length, members, parity nodes, parity generation) plus its
 * mutable progress (state, version, time of the last transition). {@code version} starts at 1 and grows by one per
 * transition or plan change; stores compare-and-set on it.
 *
 * <p>{@code parityGeneration} names the parity files that belong to this plan (0 for parity as first built;
 * docs/formats/parity-file.md): a plan change that changes the parity's content (a member removed, replaced or
 * added) writes the next generation as NEW files beside the old ones and switches the record to it in one
 * compare-and-set, so that a reader never combines members of one plan with parity of another, and so that applying
 * a parity difference (an XOR, which is not idempotent) can be repeated after a crash: it always reads generation g
 * and writes g + 1.
 *
 * <p>{@code change} is non-null exactly while a member change is under way (states CHANGING and CHANGED): the plan
 * is already the target one (member {@code change.slot} replaced, parity generation g + 1), and {@code change}
 * keeps what the slot held under generation g, which the parity nodes need to compute g + 1 and which is deleted
 * once every reader has switched (docs/design/updates.md, item 4).
 */
public record StripeRecord(StripeId id, String codecId, int k, int m, long codeLength, List<Member> members,
                           List<String> parityNodes, long parityGeneration, Change change, StripeState state,
                           long version, long updatedAtMillis)
{
    /**
     * A member change under way: slot {@code slot} held {@code previous} under parity generation
     * {@code parityGeneration - 1} of the record.
     */
    public record Change(int slot, Member previous)
    {
        public Change
        {
            Objects.requireNonNull(previous, "previous");
            if (slot < 0)
                throw new IllegalArgumentException("change slot must be >= 0, was " + slot);
        }
    }

    /** A record with no change under way. */
    public StripeRecord(StripeId id, String codecId, int k, int m, long codeLength, List<Member> members,
                        List<String> parityNodes, long parityGeneration, StripeState state, long version, long updatedAtMillis)
    {
        this(id, codecId, k, m, codeLength, members, parityNodes, parityGeneration, null, state, version, updatedAtMillis);
    }

    /** A record of parity generation 0 (every stripe whose parity was never changed after it was built). */
    public StripeRecord(StripeId id, String codecId, int k, int m, long codeLength, List<Member> members,
                        List<String> parityNodes, StripeState state, long version, long updatedAtMillis)
    {
        this(id, codecId, k, m, codeLength, members, parityNodes, 0, state, version, updatedAtMillis);
    }

    public StripeRecord
    {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(codecId, "codecId");
        Objects.requireNonNull(state, "state");
        members = List.copyOf(Objects.requireNonNull(members, "members"));
        parityNodes = List.copyOf(Objects.requireNonNull(parityNodes, "parityNodes"));
        if (codecId.isEmpty() || codecId.length() > 255)
            throw new IllegalArgumentException("codecId must be 1..255 characters, was '" + codecId + "'");
        if (k < 1 || m < 1 || k + m > 256)
            throw new IllegalArgumentException("k, m must be >= 1 with k + m <= 256, were " + k + ", " + m);
        if (members.size() != k)
            throw new IllegalArgumentException("members: " + members.size() + " members for k=" + k);
        if (parityNodes.size() != m)
            throw new IllegalArgumentException("parityNodes: " + parityNodes.size() + " nodes for m=" + m);
        if (codeLength < 0)
            throw new IllegalArgumentException("codeLength must be >= 0, was " + codeLength);
        for (Member mem : members)
            if (mem.realBytes() > codeLength || mem.realBytes() < 0)
                throw new IllegalArgumentException("members: real size " + mem.realBytes() + " outside [0, codeLength=" + codeLength + "]");
        if (version < 1)
            throw new IllegalArgumentException("version must be >= 1, was " + version);
        if (parityGeneration < 0)
            throw new IllegalArgumentException("parityGeneration must be >= 0, was " + parityGeneration);
        boolean changing = state == StripeState.CHANGING || state == StripeState.CHANGED;
        if (changing != (change != null))
            throw new IllegalArgumentException("change: " + (change == null ? "missing in state " : "present in state ") + state);
        if (change != null)
        {
            if (change.slot() >= k)
                throw new IllegalArgumentException("change slot " + change.slot() + " outside [0, k=" + k + ")");
            if (parityGeneration < 1)
                throw new IllegalArgumentException("a change needs parity generation >= 1, was " + parityGeneration);
            if (change.previous().realBytes() > codeLength)
                throw new IllegalArgumentException("change: previous real size " + change.previous().realBytes() + " exceeds codeLength=" + codeLength);
        }
    }

    /** A freshly planned stripe (state PLANNED, version 1). */
    public static StripeRecord planned(StripeId id, List<Member> members, long codeLength, String codecId, int m,
                                       List<String> parityNodes, long nowMillis)
    {
        return new StripeRecord(id, codecId, members.size(), m, codeLength, members, parityNodes, StripeState.PLANNED, 1, nowMillis);
    }

    /** The same plan in state {@code next}, one version later. */
    public StripeRecord moveTo(StripeState next, long nowMillis)
    {
        return new StripeRecord(id, codecId, k, m, codeLength, members, parityNodes, parityGeneration, change, next, version + 1, nowMillis);
    }

    /**
     * The same stripe with another plan (members, parity nodes, parity generation; id, codec, k, m and code length
     * stay) in state {@code next}, one version later: what a plan change writes in one compare-and-set.
     */
    public StripeRecord replan(List<Member> newMembers, List<String> newParityNodes, long newParityGeneration,
                               StripeState next, long nowMillis)
    {
        return new StripeRecord(id, codecId, k, m, codeLength, newMembers, newParityNodes, newParityGeneration, null, next,
                                version + 1, nowMillis);
    }

    /**
     * COMMITTED -> CHANGING: member {@code slot} becomes {@code replacement} (a new version, or a virtual chunk for a
     * removal) under parity generation g + 1; the record keeps what the slot held ({@link Change}).
     */
    public StripeRecord beginChange(int slot, Member replacement, long nowMillis)
    {
        return beginChange(slot, replacement, parityNodes, nowMillis);
    }

    /**
     * {@link #beginChange(int, Member, long)} that also moves parity chunks to other nodes ({@code newParityNodes},
     * same count; a node that left the ring replaced, issue 18). A replacement equal to the slot's member is a parity
     * move: no member changes, the next generation differs from g only in where its parity chunks are
     * ({@link #changeKeepsMember}).
     */
    public StripeRecord beginChange(int slot, Member replacement, List<String> newParityNodes, long nowMillis)
    {
        if (newParityNodes.size() != m || new java.util.HashSet<>(newParityNodes).size() != m)
            throw new IllegalArgumentException("stripe " + id + ": " + newParityNodes + " are not " + m + " distinct parity nodes");
        if (state != StripeState.COMMITTED)
            throw new IllegalStateException("stripe " + id + " is " + state + ": only a COMMITTED stripe changes");
        java.util.ArrayList<Member> next = new java.util.ArrayList<>(members);
        Member previous = next.set(slot, Objects.requireNonNull(replacement, "replacement"));
        if (previous.isVirtual())
            throw new IllegalArgumentException("stripe " + id + " slot " + slot + " is virtual: nothing to change");
        return new StripeRecord(id, codecId, k, m, codeLength, next, newParityNodes, parityGeneration + 1,
                                new Change(slot, previous), StripeState.CHANGING, version + 1, nowMillis);
    }

    /**
     * COMMITTED -> CHANGING that fills virtual slot {@code slot} with {@code member} (a whole last-level SSTable of a
     * node holding no chunk of the stripe; issue 18, Scale-RS's first step: the parity of generation g + 1 is that of
     * g plus the member's contribution, nothing else moves). Same record shape as any change: the change's previous
     * member is the virtual chunk ({@link #changeFills}).
     */
    public StripeRecord beginFill(int slot, Member member, long nowMillis)
    {
        if (state != StripeState.COMMITTED)
            throw new IllegalStateException("stripe " + id + " is " + state + ": only a COMMITTED stripe changes");
        if (!members.get(slot).isVirtual())
            throw new IllegalArgumentException("stripe " + id + " slot " + slot + " holds " + members.get(slot).descriptor() + ": not a virtual slot");
        Objects.requireNonNull(member, "member");
        if (member.isVirtual())
            throw new IllegalArgumentException("stripe " + id + " slot " + slot + ": a fill needs a real member");
        for (Member mem : members)
            if (!mem.isVirtual() && mem.node().equals(member.node()))
                throw new IllegalArgumentException("stripe " + id + ": node " + member.node() + " already holds a member of it");
        if (parityNodes.contains(member.node()))
            throw new IllegalArgumentException("stripe " + id + ": node " + member.node() + " holds a parity chunk of it");
        java.util.ArrayList<Member> next = new java.util.ArrayList<>(members);
        next.set(slot, member);
        return new StripeRecord(id, codecId, k, m, codeLength, next, parityNodes, parityGeneration + 1,
                                new Change(slot, Member.virtual()), StripeState.CHANGING, version + 1, nowMillis);
    }

    /** Whether the change under way fills a virtual slot ({@link #beginFill}). */
    public boolean changeFills()
    {
        return change != null && change.previous().isVirtual() && !members.get(change.slot()).isVirtual();
    }

    /**
     * COMMITTED -> CHANGING that widens the stripe from k to {@code toK} data chunks under codec {@code toCodecId}
     * (issue 18, Scale-RS; docs/design/scaling.md "Widening"): slots k .. toK - 1 are added as virtual chunks, and
     * the parity of generation g + 1 has the same bytes as g's (the Cauchy coefficient of a slot does not depend on k,
     * so RS(toK, m) parity of the same members with zero chunks added is RS(k, m) parity). Recorded as a change of the
     * new last slot from the virtual chunk to the virtual chunk ({@link #changeReshapes}); members are added after it
     * by fills. Code length and m stay.
     */
    public StripeRecord beginReshape(int toK, String toCodecId, long nowMillis)
    {
        if (state != StripeState.COMMITTED)
            throw new IllegalStateException("stripe " + id + " is " + state + ": only a COMMITTED stripe changes");
        if (toK <= k || toK + m > 256)
            throw new IllegalArgumentException("stripe " + id + ": cannot widen k=" + k + " to " + toK + " (m=" + m + ", k + m <= 256)");
        java.util.ArrayList<Member> next = new java.util.ArrayList<>(members);
        while (next.size() < toK)
            next.add(Member.virtual());
        return new StripeRecord(id, toCodecId, toK, m, codeLength, next, parityNodes, parityGeneration + 1,
                                new Change(toK - 1, Member.virtual()), StripeState.CHANGING, version + 1, nowMillis);
    }

    /** Whether the change under way widens the stripe ({@link #beginReshape}): a virtual slot stays virtual. */
    public boolean changeReshapes()
    {
        return change != null && change.previous().isVirtual() && members.get(change.slot()).isVirtual();
    }

    /** Whether {@code next} is {@code this} (COMMITTED) widened by {@link #beginReshape}: same members first, virtual after. */
    public boolean reshapedInto(StripeRecord next)
    {
        if (state != StripeState.COMMITTED || !next.changeReshapes() || next.k <= k || next.m != m || next.codeLength != codeLength
            || !next.members.subList(0, k).equals(members) || !next.parityNodes.equals(parityNodes)
            || next.parityGeneration != parityGeneration + 1 || next.change.slot() != next.k - 1)
            return false;
        for (Member mem : next.members.subList(k, next.k))
            if (!mem.isVirtual())
                return false;
        return true;
    }

    /** Whether the change under way replaces a real member by another real one (a merge's next version). */
    public boolean changeReplaces()
    {
        return change != null && !change.previous().isVirtual() && !members.get(change.slot()).isVirtual() && !changeKeepsMember();
    }

    /**
     * CHANGING -> COMMITTED with the plan before the change (the slot's previous member again, generation g), for a
     * fill or a replacement whose new member is gone from its node before any stub of it existed anywhere (so
     * nothing was purged against it and no stub switched to generation g + 1): the caller made sure of that and
     * dropped the parity of generation g + 1.
     */
    public StripeRecord abandonChange(long nowMillis)
    {
        if (state != StripeState.CHANGING || !(changeFills() || changeReplaces()))
            throw new IllegalStateException("stripe " + id + " is " + state + (change == null ? "" : " changing slot " + change.slot())
                                            + ": only a fill or a replacement under way (CHANGING) is abandoned");
        java.util.ArrayList<Member> before = new java.util.ArrayList<>(members);
        before.set(change.slot(), change.previous());
        return new StripeRecord(id, codecId, k, m, codeLength, before, parityNodes, parityGeneration - 1, null,
                                StripeState.COMMITTED, version + 1, nowMillis);
    }

    /** Whether the change under way keeps its slot's member (a parity move: only parity chunks change nodes). */
    public boolean changeKeepsMember()
    {
        return change != null && change.previous().equals(members.get(change.slot()));
    }

    /** CHANGED -> COMMITTED: the change is done, its record dropped (the plan stays). */
    public StripeRecord endChange(long nowMillis)
    {
        if (state != StripeState.CHANGED)
            throw new IllegalStateException("stripe " + id + " is " + state + ": only a CHANGED stripe ends its change");
        return new StripeRecord(id, codecId, k, m, codeLength, members, parityNodes, parityGeneration, null,
                                StripeState.COMMITTED, version + 1, nowMillis);
    }

    /** Whether at least one member is real (a change never removes the last one: retire the stripe instead). */
    public long realMembers()
    {
        return members.stream().filter(mem -> !mem.isVirtual()).count();
    }

    /**
     * Parity bytes the m parity members of this plan store: m x the longest real member (ParityBuilder.storedLength;
     * a parity member is zero past it), never above m x the code length. Parity files written before 2026-11-28 stored
     * the whole code length; the nodes' measured parity bytes tell those apart, a record cannot.
     */
    public long storedParityBytes()
    {
        long longest = 0;
        for (Member mem : members)
            if (!mem.isVirtual())
                longest = Math.max(longest, mem.realBytes());
        return (long) m * Math.min(longest, codeLength);
    }

    /** Whether the plans (everything but state, version and time) are equal. */
    public boolean samePlan(StripeRecord o)
    {
        return id.equals(o.id) && codecId.equals(o.codecId) && k == o.k && m == o.m && codeLength == o.codeLength
               && members.equals(o.members) && parityNodes.equals(o.parityNodes) && parityGeneration == o.parityGeneration
               && Objects.equals(change, o.change);
    }
}
