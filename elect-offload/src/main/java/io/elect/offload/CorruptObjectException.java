package io.elect.offload;

/**
 * The stored bytes of an object do not match their checksums (or the framing is inconsistent). Always
 * raised instead of returning data; never a plain IOException so callers can tell corruption (repair from
 * other replicas or parity) from unavailability (retry later).
 */
public class CorruptObjectException extends ColdStoreException
{
    private final String key;

    public CorruptObjectException(String key, String message)
    {
        super("corrupt cold object '" + key + "': " + message);
        this.key = key;
    }

    public String key()
    {
        return key;
    }
}
