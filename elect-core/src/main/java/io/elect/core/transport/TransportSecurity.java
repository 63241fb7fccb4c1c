package io.elect.core.transport;

import java.util.Objects;

import io.netty.handler.ssl.SslContext;

/**
 * How a {@link NettyTransport} protects its connections: TLS contexts (both null: plaintext; both set: mutual TLS)
 * and the policy that decides which callers may run which verbs. Built by {@code io.elect.core.security.TlsContexts}
 * from the same keystore and truststore as Cassandra's {@code server_encryption_options} (docs/security.md).
 *
 * <p>With TLS the server requires a client certificate that chains to the truststore, and each side checks that the
 * other's certificate names the address it is connected to (the client by endpoint identification during the
 * handshake, the server after it, answering a mismatch with one ERROR). {@code describe} is for logs and
 * {@code electtool status}: protocol and mode, never key material.
 */
public record TransportSecurity(SslContext serverContext, SslContext clientContext, CallerPolicy policy, String describe)
{
    /** No TLS, every caller admitted: tests and tools. */
    public static final TransportSecurity PLAINTEXT_OPEN = new TransportSecurity(null, null, CallerPolicy.ALLOW_ALL, "none");

    public TransportSecurity
    {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(describe, "describe");
        if ((serverContext == null) != (clientContext == null))
            throw new IllegalArgumentException("TLS needs both a server and a client context, or neither");
        if (serverContext != null && (!serverContext.isServer() || clientContext.isServer()))
            throw new IllegalArgumentException("serverContext must be a server context and clientContext a client one");
    }

    public boolean tls()
    {
        return serverContext != null;
    }

    /** The same TLS contexts with another policy. */
    public TransportSecurity withPolicy(CallerPolicy p)
    {
        return new TransportSecurity(serverContext, clientContext, p, describe);
    }
}
