package io.elect.core.tiered;

/**
 * A read of a tiered data component failed (the cold tier or the stripe is unavailable, or the bytes did not verify).
 * Deliberately unchecked and NOT an IOException: Cassandra turns IOExceptions of a data file into FSReadError and
 * applies disk_failure_policy (stop / blacklist the local disk), which is wrong for a remote source. An unchecked
 * exception fails just the read (the client sees a read failure) or the compaction that hit it.
 */
public final class TieredReadException extends RuntimeException
{
    public TieredReadException(String message, Throwable cause)
    {
        super(message, cause);
    }
}
