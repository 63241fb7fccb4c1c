package io.elect.core.transport;

/**
 * Serves one verb. MUST be idempotent: a request may arrive more than once (retries after a timeout whose first
 * attempt did run). Runs on the transport's handler executor, never on a network thread, so it may block. An exception
 * is returned to the caller as a REMOTE_ERROR with its message; the connection stays open.
 */
@FunctionalInterface
public interface RequestHandler
{
    byte[] handle(byte[] payload) throws Exception;
}
