package io.elect.ycsb;

/**
 * ELECT's YCSB key shape: {@code "user"} followed by a zero-padded decimal number, 24 bytes in all.
 *
 * <p>This is exactly YCSB 0.17.0's {@code CoreWorkload.buildKeyName} (a test checks it against YCSB itself), with
 * {@code zeropadding=20}: YCSB hashes the key number with FNV-64 and takes its absolute value unless
 * {@code insertorder=ordered}, so a number has at most 19 digits and every key is exactly 24 ASCII bytes.
 */
public final class KeyNames
{
    public static final String PREFIX = "user";
    /** The {@code zeropadding} of the workload files under {@code ycsb/workloads/}. */
    public static final int ELECT_ZERO_PADDING = 20;
    /** Length in bytes of every key with {@link #ELECT_ZERO_PADDING}. */
    public static final int ELECT_KEY_LENGTH = PREFIX.length() + ELECT_ZERO_PADDING;

    private static final long FNV_OFFSET_BASIS_64 = 0xCBF29CE484222325L;
    private static final long FNV_PRIME_64 = 1099511628211L;

    private KeyNames()
    {
    }

    /** The key YCSB builds for record number {@code keynum}. REQUIRES: keynum >= 0, zeropadding >= 1. */
    public static String keyName(long keynum, boolean ordered, int zeropadding)
    {
        if (keynum < 0)
            throw new IllegalArgumentException("keynum must be >= 0, got " + keynum);
        if (zeropadding < 1)
            throw new IllegalArgumentException("zeropadding must be >= 1, got " + zeropadding);
        String value = Long.toString(ordered ? keynum : fnvhash64(keynum));
        StringBuilder sb = new StringBuilder(PREFIX.length() + Math.max(zeropadding, value.length()));
        sb.append(PREFIX);
        for (int i = value.length(); i < zeropadding; i++)
            sb.append('0');
        return sb.append(value).toString();
    }

    /** ELECT's key for record number {@code keynum} with {@code insertorder=ordered}. */
    public static String electKey(long keynum)
    {
        return keyName(keynum, true, ELECT_ZERO_PADDING);
    }

    /**
     * YCSB's {@code Utils.fnvhash64}: FNV-1a over the 8 bytes of the value, low byte first, made non-negative with
     * {@code Math.abs} (which leaves {@code Long.MIN_VALUE} negative; YCSB has the same quirk, unreachable in
     * practice).
     */
    static long fnvhash64(long val)
    {
        long hashval = FNV_OFFSET_BASIS_64;
        for (int i = 0; i < 8; i++)
        {
            long octet = val & 0x00ff;
            val = val >> 8;
            hashval = hashval ^ octet;
            hashval = hashval * FNV_PRIME_64;
        }
        return Math.abs(hashval);
    }
}
