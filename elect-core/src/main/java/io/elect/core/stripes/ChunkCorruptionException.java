package io.elect.core.stripes;

import java.io.IOException;

/** Bytes of a tiered data component failed verification against the checksums recorded at switch time. */
public class ChunkCorruptionException extends IOException
{
    public ChunkCorruptionException(String message)
    {
        super(message);
    }
}
