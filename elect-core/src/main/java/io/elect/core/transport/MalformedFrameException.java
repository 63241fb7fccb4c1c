package io.elect.core.transport;

/** A frame that violates docs/formats/transport.md; the connection it came on is closed. */
public final class MalformedFrameException extends RuntimeException
{
    public MalformedFrameException(String message)
    {
        super(message);
    }
}
