package io.elect.core.stripes;


import java.util.List;
import java.util.Objects;


/**
 * One stripe's metadata: immutable plan (id, codec, k, m, code length, members, parity nodes) plus its mutable
 * progress (state, version, time of the last transition). {@code version} starts at 1 and grows by one per
 * transition; stores compare-and-set on it.
 */
public record StripeRecord(StripeId id, String codecId, int k, int m, long codeLength, List<Member> members,
                           List<String> parityNodes, StripeState state, long version, long updatedAtMillis)
{
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
        return new StripeRecord(id, codecId, k, m, codeLength, members, parityNodes, next, version + 1, nowMillis);
    }

    /** Whether the immutable parts (everything but state, version and time) are equal. */
    public boolean samePlan(StripeRecord o)
    {
        return id.equals(o.id) && codecId.equals(o.codecId) && k == o.k && m == o.m && codeLength == o.codeLength
               && members.equals(o.members) && parityNodes.equals(o.parityNodes);
    }
}
