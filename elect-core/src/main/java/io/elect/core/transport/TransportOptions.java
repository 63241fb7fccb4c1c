package io.elect.core.transport;

import io.elect.core.config.ElectConfig;

/** Limits of a transport: the largest frame, the per-attempt timeout, retries and the pause between attempts. */
public record TransportOptions(int maxFrameBytes, long requestTimeoutMillis, int retries, long retryBackoffMillis)
{
    public TransportOptions
    {
        if (maxFrameBytes < FrameCodec.LENGTH_FIELD + FrameCodec.OVERHEAD)
            throw new IllegalArgumentException("maxFrameBytes must be >= " + (FrameCodec.LENGTH_FIELD + FrameCodec.OVERHEAD) + ", was " + maxFrameBytes);
        if (requestTimeoutMillis < 1)
            throw new IllegalArgumentException("requestTimeoutMillis must be >= 1, was " + requestTimeoutMillis);
        if (retries < 0)
            throw new IllegalArgumentException("retries must be >= 0, was " + retries);
        if (retryBackoffMillis < 0)
            throw new IllegalArgumentException("retryBackoffMillis must be >= 0, was " + retryBackoffMillis);
    }

    public static TransportOptions fromConfig(ElectConfig c)
    {
        return new TransportOptions(c.transportMaxFrameBytes, c.transportRequestTimeoutMillis, c.transportRetries, 100);
    }
}
