package io.elect.core.transport;

/**
 * A request that did not get a response. {@link #retriable()} is true for timeouts and lost connections (the request
 * may or may not have run: handlers must be idempotent), false for an error returned by the remote handler, an
 * unknown verb, or a peer that the liveness source reports down.
 */
public class TransportException extends RuntimeException
{
    public enum Reason
    {
        TIMEOUT, CONNECTION, REMOTE_ERROR, PEER_DOWN, CLOSED
    }

    public final Reason reason;

    public TransportException(Reason reason, String message)
    {
        super(reason + ": " + message);
        this.reason = reason;
    }

    public TransportException(Reason reason, String message, Throwable cause)
    {
        super(reason + ": " + message, cause);
        this.reason = reason;
    }

    public boolean retriable()
    {
        return reason == Reason.TIMEOUT || reason == Reason.CONNECTION;
    }
}
