package io.elect.core.transport;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The transport contract over {@link NettyTransport} on real sockets (127.0.0.1, ephemeral ports). */
class NettyTransportTest extends TransportContract
{
    @Override
    Transport newTransport(TransportOptions options, PeerLiveness liveness)
    {
        return new NettyTransport("127.0.0.1", 0, options, liveness);
    }

    /** A peer announcing a frame over the limit is cut off at once, before sending the body. */
    @Test
    void oversizedLengthClosesTheSocketAtOnce() throws Exception
    {
        Transport s = server();
        try (Socket sock = new Socket("127.0.0.1", s.localPeer().port()))
        {
            sock.setSoTimeout(10_000);
            OutputStream out = sock.getOutputStream();
            out.write(ByteBuffer.allocate(4).putInt(1 << 30).array());
            out.flush();
            InputStream in = sock.getInputStream();
            assertEquals(-1, in.read(), "the server closes the connection");
        }
        eventually("counted", () -> s.metrics().malformedFrames.get() == 1);
    }
}
