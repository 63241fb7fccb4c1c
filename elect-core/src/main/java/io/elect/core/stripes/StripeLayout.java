package io.elect.core.stripes;

import java.util.Arrays;
import java.util.List;

/**
 * One erasure-coded stripe of data components: k data members (the data files of k SSTables, each zero-padded to
 * {@code stripeLength}) and m parity members of {@code stripeLength} bytes, coded with codec {@code codecId}.
 * Because the code is positional, bytes [a, b) of any member are a function of bytes [a, b) of any k others, which
 * is what lets a read reconstruct only the range it needs.
 *
 * @param codecId      the ErasureCoder codec id the parity was computed with (never decode with another)
 * @param k            data members
 * @param m            parity members
 * @param dataLengths  real length of each data member (k entries); bytes past it are zero
 * @param stripeLength length of every parity member (the code length): at least max(dataLengths); equal to it when
 *                     the stripe is built, larger after a change removed or shortened its longest member (the code
 *                     length of a stripe never changes, docs/design/updates.md)
 * @param locators     where each of the k + m members can be read, e.g. {@code cold:s3/key} or {@code file:/path}
 */
public record StripeLayout(String codecId, int k, int m, long[] dataLengths, long stripeLength, List<String> locators)
{
    public StripeLayout
    {
        if (codecId == null || codecId.isBlank())
            throw new IllegalArgumentException("codecId must not be empty");
        if (k < 1 || m < 1)
            throw new IllegalArgumentException("k and m must be >= 1, got k=" + k + " m=" + m);
        if (dataLengths == null || dataLengths.length != k)
            throw new IllegalArgumentException("dataLengths must have k=" + k + " entries");
        long max = 0;
        for (long l : dataLengths)
        {
            if (l < 0)
                throw new IllegalArgumentException("dataLengths must be >= 0: " + Arrays.toString(dataLengths));
            max = Math.max(max, l);
        }
        if (stripeLength < max)
            throw new IllegalArgumentException("stripeLength must be >= max(dataLengths)=" + max + ", got " + stripeLength);
        if (locators == null || locators.size() != k + m)
            throw new IllegalArgumentException("locators must have k+m=" + (k + m) + " entries");
        for (String l : locators)
            if (l == null || l.isBlank())
                throw new IllegalArgumentException("locators must not be empty: " + locators);
        dataLengths = dataLengths.clone();
        locators = List.copyOf(locators);
    }

    /** Real length of member i: its data length for a data member, stripeLength for parity. */
    public long memberLength(int member)
    {
        return member < k ? dataLengths[member] : stripeLength;
    }

    @Override
    public long[] dataLengths()
    {
        return dataLengths.clone();
    }

    @Override
    public boolean equals(Object o)
    {
        return o instanceof StripeLayout s && s.codecId.equals(codecId) && s.k == k && s.m == m
               && Arrays.equals(s.dataLengths, dataLengths) && s.stripeLength == stripeLength && s.locators.equals(locators);
    }

    @Override
    public int hashCode()
    {
        return codecId.hashCode() * 31 + Arrays.hashCode(dataLengths) + locators.hashCode();
    }
}
