package io.elect.core.tiered;

import java.io.IOException;

/** Bytes of a tiered data component failed verification against the checksums recorded at switch time. */
public class TieredCorruptionException extends IOException
{
    public TieredCorruptionException(String message)
    {
        super(message);
    }
}
