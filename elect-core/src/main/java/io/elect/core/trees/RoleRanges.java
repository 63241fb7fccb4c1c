package io.elect.core.trees;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Which replica role this node plays for every token of the ring: an immutable, linearised role map.
 *
 * <p>Cassandra's ring is a sorted list of tokens {@code t_0 < ... < t_{n-1}}; a range {@code (t_{i-1}, t_i]} is
 * replicated on the natural replicas of {@code t_i}, and the range {@code (t_{n-1}, t_0]} wraps around. The role of
 * this node for a range is its index among those replicas (0 = primary, i = i-th secondary) or {@link #NOT_A_REPLICA}.
 *
 * <p>This class stores the map <em>linearised</em> over the token order (no wrapping): boundaries
 * {@code b_0 < ... < b_{k-1}} and roles {@code r_0 .. r_k}; segment {@code j} is {@code (b_{j-1}, b_j]} with
 * {@code b_{-1} = -infinity} and {@code b_k = +infinity}. The wrapping range of the ring therefore appears twice, as
 * the first and the last segment, with the same role. Adjacent segments never share a role (they are merged on
 * construction), so two tokens have the same role along the whole span between them iff they are in the same segment:
 * that is the test used for "an SSTable never spans two roles".
 *
 * <p>Pure logic over any {@link Comparable} token type (Cassandra's {@code Token} in the bridge, {@code Long} in
 * tests). Immutable and thread-safe.
 *
 * @param <T> token type; its natural order must be the ring order
 */
public final class RoleRanges<T extends Comparable<? super T>>
{
    /** Role of tokens this node does not replicate (e.g. after a topology change, before cleanup). */
    public static final int NOT_A_REPLICA = -1;

    private final List<T> boundaries; // b_0 < ... < b_{k-1}
    private final int[] roles;        // k + 1 roles, adjacent ones differ

    private RoleRanges(List<T> boundaries, int[] roles)
    {
        this.boundaries = boundaries;
        this.roles = roles;
    }

    /** A map that gives every token the same role (a single-node ring, RF = 1, or an unknown ring). */
    public static <T extends Comparable<? super T>> RoleRanges<T> uniform(int role)
    {
        checkRole(role, "role");
        return new RoleRanges<T>(Collections.<T>emptyList(), new int[]{ role });
    }

    /**
     * Builds the map from a ring: {@code ringTokens} sorted ascending and distinct, {@code rolesOfRanges[i]} the role
     * of this node for the range ending at {@code ringTokens[i]} (i.e. {@code (ringTokens[i-1], ringTokens[i]]}, and
     * for i = 0 the wrapping range {@code (ringTokens[n-1], ringTokens[0]]}).
     *
     * @throws IllegalArgumentException naming the argument if the sizes differ, the tokens are not strictly ascending
     *                                  or a role is below {@link #NOT_A_REPLICA}
     */
    public static <T extends Comparable<? super T>> RoleRanges<T> fromRing(List<T> ringTokens, List<Integer> rolesOfRanges)
    {
        Objects.requireNonNull(ringTokens, "ringTokens");
        Objects.requireNonNull(rolesOfRanges, "rolesOfRanges");
        if (ringTokens.size() != rolesOfRanges.size())
            throw new IllegalArgumentException("ringTokens has " + ringTokens.size() + " tokens but rolesOfRanges has "
                                               + rolesOfRanges.size() + " roles");
        if (ringTokens.isEmpty())
            throw new IllegalArgumentException("ringTokens must not be empty (use uniform() for an unknown ring)");
        for (int i = 0; i < ringTokens.size(); i++)
        {
            checkRole(rolesOfRanges.get(i), "rolesOfRanges[" + i + "]");
            if (i > 0 && ringTokens.get(i - 1).compareTo(ringTokens.get(i)) >= 0)
                throw new IllegalArgumentException("ringTokens must be strictly ascending, but ringTokens[" + (i - 1)
                                                   + "]=" + ringTokens.get(i - 1) + " >= ringTokens[" + i + "]="
                                                   + ringTokens.get(i));
        }
        // Linear segments: (-inf, t_0] has role of range 0, (t_{i-1}, t_i] role i, (t_{n-1}, +inf) role of range 0.
        List<Integer> linearRoles = new ArrayList<>(rolesOfRanges);
        linearRoles.add(rolesOfRanges.get(0));
        return merged(ringTokens, linearRoles);
    }

    /**
     * Builds the map from explicit linear segments: {@code boundaries} strictly ascending, {@code roles} one longer
     * (segment j = {@code (boundaries[j-1], boundaries[j]]}). Used as a test seam and by {@link #fromRing}.
     */
    public static <T extends Comparable<? super T>> RoleRanges<T> linear(List<T> boundaries, List<Integer> roles)
    {
        Objects.requireNonNull(boundaries, "boundaries");
        Objects.requireNonNull(roles, "roles");
        if (roles.size() != boundaries.size() + 1)
            throw new IllegalArgumentException("roles must have boundaries.size() + 1 = " + (boundaries.size() + 1)
                                               + " entries, but has " + roles.size());
        for (int i = 0; i < roles.size(); i++)
            checkRole(roles.get(i), "roles[" + i + "]");
        for (int i = 1; i < boundaries.size(); i++)
            if (boundaries.get(i - 1).compareTo(boundaries.get(i)) >= 0)
                throw new IllegalArgumentException("boundaries must be strictly ascending at index " + i);
        return merged(boundaries, roles);
    }

    private static <T extends Comparable<? super T>> RoleRanges<T> merged(List<T> boundaries, List<Integer> roles)
    {
        List<T> b = new ArrayList<>(boundaries.size());
        List<Integer> r = new ArrayList<>(roles.size());
        r.add(roles.get(0));
        for (int j = 1; j < roles.size(); j++)
        {
            // boundary b_{j-1} separates segment j-1 from j; drop it when both sides share a role
            if (!roles.get(j).equals(r.get(r.size() - 1)))
            {
                b.add(boundaries.get(j - 1));
                r.add(roles.get(j));
            }
        }
        int[] rolesArray = r.stream().mapToInt(Integer::intValue).toArray();
        return new RoleRanges<>(Collections.unmodifiableList(b), rolesArray);
    }

    private static void checkRole(int role, String argument)
    {
        if (role < NOT_A_REPLICA)
            throw new IllegalArgumentException(argument + " must be >= " + NOT_A_REPLICA + " but was " + role);
    }

    /** Index of the linear segment holding {@code token}: the number of boundaries strictly below it. */
    public int segmentOf(T token)
    {
        Objects.requireNonNull(token, "token");
        int lo = 0;
        int hi = boundaries.size(); // answer in [lo, hi]
        while (lo < hi)
        {
            int mid = (lo + hi) >>> 1;
            if (boundaries.get(mid).compareTo(token) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    }

    /** Role of this node for {@code token}. */
    public int roleOf(T token)
    {
        return roles[segmentOf(token)];
    }

    /** Role of segment {@code segment} (0 .. {@link #segmentCount()} - 1). */
    public int roleOfSegment(int segment)
    {
        return roles[segment];
    }

    /**
     * The single role covering every token of {@code [first, last]}, or {@code null} if the span crosses a role
     * boundary (REQUIRES: first <= last).
     */
    public Integer spanRole(T first, T last)
    {
        if (first.compareTo(last) > 0)
            throw new IllegalArgumentException("first " + first + " > last " + last);
        int s = segmentOf(first);
        return s == segmentOf(last) ? roles[s] : null;
    }

    public int segmentCount()
    {
        return roles.length;
    }

    /** The linear boundaries b_0 .. b_{k-1} (unmodifiable). */
    public List<T> boundaries()
    {
        return boundaries;
    }

    /** Distinct roles present, ascending. */
    public List<Integer> distinctRoles()
    {
        List<Integer> out = new ArrayList<>();
        for (int role : roles)
            if (!out.contains(role))
                out.add(role);
        Collections.sort(out);
        return out;
    }

    /**
     * JSON array of segments {@code [{"start":..,"end":..,"role":..}]} with {@code null} for an open end; tokens
     * rendered with {@code toString()} as strings (Murmur3 tokens exceed JSON's exact integer range).
     */
    public String toJson()
    {
        StringBuilder sb = new StringBuilder("[");
        for (int j = 0; j < roles.length; j++)
        {
            if (j > 0)
                sb.append(',');
            sb.append("{\"start\":").append(j == 0 ? "null" : quote(boundaries.get(j - 1)))
              .append(",\"end\":").append(j == roles.length - 1 ? "null" : quote(boundaries.get(j)))
              .append(",\"role\":").append(roles[j]).append('}');
        }
        return sb.append(']').toString();
    }

    private static String quote(Object token)
    {
        return '"' + token.toString().replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    @Override
    public boolean equals(Object o)
    {
        if (!(o instanceof RoleRanges))
            return false;
        RoleRanges<?> that = (RoleRanges<?>) o;
        return boundaries.equals(that.boundaries) && java.util.Arrays.equals(roles, that.roles);
    }

    @Override
    public int hashCode()
    {
        return boundaries.hashCode() * 31 + java.util.Arrays.hashCode(roles);
    }

    @Override
    public String toString()
    {
        return "RoleRanges" + toJson();
    }
}
