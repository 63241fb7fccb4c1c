package io.elect.core.stripes;

/** One data chunk of a stripe: an SSTable of a node (its real length before padding), or a virtual zero chunk. */
public record Member(String node, String sstable, long realBytes)
{
    public boolean isVirtual()
    {
        return node == null;
    }

    /** A virtual zero chunk (node and sstable null, realBytes 0). */
    public static Member virtual()
    {
        return new Member(null, null, 0);
    }

    /** {@code node/sstable/realBytes}, or {@code -} for a virtual chunk (the stripe id's input). */
    public String descriptor()
    {
        return isVirtual() ? "-" : node + "/" + sstable + "/" + realBytes;
    }
}
