package io.elect.core.transport;

import java.util.Objects;

/** A node's ELECT transport endpoint. */
public record Peer(String host, int port)
{
    public Peer
    {
        Objects.requireNonNull(host, "host");
        if (port < 0 || port > 65535)
            throw new IllegalArgumentException("port must be in [0, 65535], was " + port);
    }

    @Override
    public String toString()
    {
        return host + ":" + port;
    }
}
