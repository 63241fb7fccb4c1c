package io.elect.offload;

import java.io.IOException;

/** A cold-tier operation failed for good (after retries, or because retrying cannot help). */
public class ColdStoreException extends IOException
{
    public ColdStoreException(String message)
    {
        super(message);
    }

    public ColdStoreException(String message, Throwable cause)
    {
        super(message, cause);
    }
}
