package io.elect.offload;

/**
 * A failure that may succeed if retried: throttling (HTTP 503 SlowDown / 429), server errors (5xx),
 * timeouts, broken connections. Thrown by blob stores; the retrying layer (FramedColdStore) retries it
 * with backoff and reports a plain ColdStoreException when attempts run out.
 */
public class TransientColdStoreException extends ColdStoreException
{
    private final boolean throttled;

    public TransientColdStoreException(String message, boolean throttled, Throwable cause)
    {
        super(message, cause);
        this.throttled = throttled;
    }

    public boolean throttled()
    {
        return throttled;
    }
}
