package io.elect.core.stripes;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.stripes.LocatorMemberReader.NodeLocator;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.transport.FaultInjectingTransport;
import io.elect.core.transport.InMemoryNetwork;
import io.elect.core.transport.InMemoryTransport;
import io.elect.core.transport.Peer;
import io.elect.core.transport.PeerLiveness;
import io.elect.core.transport.Transport;
import io.elect.core.transport.TransportOptions;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** MemberServer + NodeMemberReader over an InMemoryTransport: ranges, splitting, refused paths, EOF, faults. */
class NodeMemberReaderTest
{
    /** Small frames (64 KiB) so that splitting is exercised with small files. */
    static final TransportOptions OPTS = new TransportOptions(64 * 1024, 2_000, 2, 10);
    static final Peer SERVER = new Peer("server", 7070);

    @TempDir
    Path tmp;
    Path root, outside;
    final InMemoryNetwork network = new InMemoryNetwork();
    final List<Transport> opened = new ArrayList<>();
    Transport server, client;
    byte[] content;
    Path file;

    @BeforeEach
    void setUp() throws IOException
    {
        root = Files.createDirectories(tmp.resolve("root"));
        outside = Files.createDirectories(tmp.resolve("outside"));
        server = open(SERVER, OPTS);
        client = open(new Peer("client", 7070), OPTS);
        new MemberServer(server, List.of(root));
        content = new byte[300_000];
        new Random(11).nextBytes(content);
        file = Files.write(root.resolve("member-0"), content);
    }

    Transport open(Peer peer, TransportOptions options)
    {
        Transport t = new InMemoryTransport(network, peer, options, PeerLiveness.ALWAYS);
        opened.add(t);
        return t;
    }

    @AfterEach
    void tearDown()
    {
        opened.forEach(Transport::close);
    }

    static NodeLocator at(Path p)
    {
        return NodeLocator.parse(LocatorMemberReader.node(SERVER.host(), SERVER.port(), p));
    }

    static byte[] bytes(ByteBuffer b)
    {
        assertEquals(0, b.position());
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    @Test
    void locatorsRoundTrip()
    {
        String l = LocatorMemberReader.node("10.0.0.5", 7199, Path.of("/var/lib/elect/../elect/x-Data.db"));
        assertEquals("node:10.0.0.5:7199/var/lib/elect/x-Data.db", l);
        assertEquals(new NodeLocator("10.0.0.5", 7199, "/var/lib/elect/x-Data.db"), NodeLocator.parse(l));
        String v6 = LocatorMemberReader.node("::1", 7000, Path.of("/a/b"));
        assertEquals("node:[::1]:7000/a/b", v6);
        assertEquals(new NodeLocator("::1", 7000, "/a/b"), NodeLocator.parse(v6));
        assertThrows(IllegalArgumentException.class, () -> NodeLocator.parse("node:host/a"));
        assertThrows(IllegalArgumentException.class, () -> NodeLocator.parse("node:host:x/a"));
        assertThrows(IllegalArgumentException.class, () -> NodeLocator.parse("node:host:7000"));
        assertThrows(IllegalArgumentException.class, () -> LocatorMemberReader.node("h", 1, Path.of("rel/x")));
    }

    @Test
    void rangesAreServedExactly() throws IOException
    {
        NodeMemberReader reader = new NodeMemberReader(client);
        Random rnd = new Random(5);
        for (int i = 0; i < 40; i++)
        {
            int len = rnd.nextInt(20_000);
            int pos = rnd.nextInt(content.length - len + 1);
            assertArrayEquals(Arrays.copyOfRange(content, pos, pos + len), bytes(reader.read(at(file), pos, len)),
                              pos + "+" + len);
        }
        // the last byte, and an empty read at the end
        assertArrayEquals(new byte[]{ content[content.length - 1] }, bytes(reader.read(at(file), content.length - 1, 1)));
        assertEquals(0, reader.read(at(file), content.length, 0).remaining());

        // through LocatorMemberReader and a stripe layout, next to a zero: member
        StripeLayout layout = new StripeLayout("rs-test", 2, 1, new long[]{ content.length, 1000 }, content.length,
                                               List.of(LocatorMemberReader.node(SERVER.host(), SERVER.port(), file),
                                                       LocatorMemberReader.zero(), "file:/nonexistent"));
        LocatorMemberReader members = reader.members(name -> null);
        assertArrayEquals(Arrays.copyOfRange(content, 1000, 5000), bytes(members.read(layout, 0, 1000, 4000)));
        assertArrayEquals(new byte[500], bytes(members.read(layout, 1, 100, 500)));
        // without a node reader, node: members are unavailable (IOException), unknown schemes still IAE
        IOException e = assertThrows(IOException.class, () -> new LocatorMemberReader(n -> null).read(layout, 0, 0, 10));
        assertTrue(e.getMessage().contains("no transport"), e.getMessage());
        StripeLayout bad = new StripeLayout("rs-test", 1, 1, new long[]{ 10 }, 10, List.of("mem:0", "zero:"));
        assertThrows(IllegalArgumentException.class, () -> members.read(bad, 0, 0, 1));
    }

    @Test
    void largeRangesAreSplitIntoFrames() throws IOException
    {
        NodeMemberReader reader = new NodeMemberReader(client);
        long sent0 = client.metrics().requestsSent.get();
        ByteBuffer all = reader.read(at(file), 0, content.length);
        long sent = client.metrics().requestsSent.get() - sent0;
        assertArrayEquals(content, bytes(all));
        int piece = ReadMember.maxReadBytes(OPTS);
        assertEquals((content.length + piece - 1) / piece, sent, "one request per frame-sized piece");
        assertTrue(sent >= 5, "300 KB over 64 KiB frames: " + sent);

        // an explicit, smaller piece size
        NodeMemberReader small = new NodeMemberReader(client, 10_000);
        sent0 = client.metrics().requestsSent.get();
        assertArrayEquals(Arrays.copyOfRange(content, 7, 100_007), bytes(small.read(at(file), 7, 100_000)));
        assertEquals(10, client.metrics().requestsSent.get() - sent0);
        assertThrows(IllegalArgumentException.class, () -> new NodeMemberReader(client, piece + 1));
    }

    @Test
    void pathsOutsideTheRootsAreRefused() throws IOException
    {
        NodeMemberReader reader = new NodeMemberReader(client);
        Path secret = Files.write(outside.resolve("secret"), new byte[100]);
        assertRefused(reader, new NodeLocator(SERVER.host(), SERVER.port(), secret.toString()), "outside the allowed roots");
        // ../ escape, unnormalized on purpose (NodeLocator takes the path as given)
        assertRefused(reader, new NodeLocator(SERVER.host(), SERVER.port(), root + "/../outside/secret"), "outside the allowed roots");
        // a symlink inside the root pointing outside
        Path link = Files.createSymbolicLink(root.resolve("link"), secret);
        assertRefused(reader, new NodeLocator(SERVER.host(), SERVER.port(), link.toString()), "outside the allowed roots");
        Path dirLink = Files.createSymbolicLink(root.resolve("dirlink"), outside);
        assertRefused(reader, new NodeLocator(SERVER.host(), SERVER.port(), dirLink + "/secret"), "outside the allowed roots");
        // the root itself, a directory inside, a missing file
        assertRefused(reader, new NodeLocator(SERVER.host(), SERVER.port(), root.toString()), "outside the allowed roots");
        Files.createDirectories(root.resolve("sub"));
        assertRefused(reader, new NodeLocator(SERVER.host(), SERVER.port(), root.resolve("sub").toString()), "not a regular file");
        assertRefused(reader, new NodeLocator(SERVER.host(), SERVER.port(), root.resolve("nope").toString()), "no such file");
        // a symlink inside the root to a file inside the root is fine
        Path inner = Files.createSymbolicLink(root.resolve("inner"), file);
        assertArrayEquals(Arrays.copyOfRange(content, 0, 10), bytes(reader.read(at(inner), 0, 10)));
        // a relative path never leaves the client through a NodeLocator; the server refuses it too
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                                                  () -> serverHandler().resolve("root/member-0"));
        assertTrue(e.getMessage().contains("absolute"), e.getMessage());
    }

    @Test
    void rangesPastTheEndAreRefused() throws IOException
    {
        NodeMemberReader reader = new NodeMemberReader(client);
        assertRefused(reader, at(file), content.length - 10, 11, "past the end");
        assertRefused(reader, at(file), content.length, 1, "past the end");
        // split reads: the piece that crosses EOF fails the whole read
        assertRefused(reader, at(file), 0, content.length + 1, "past the end");
        // a malformed request is refused by the server, not answered with garbage
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                                                  () -> serverHandler().handle(new byte[]{ 2, 0, 0 }));
        assertTrue(e.getMessage().contains("version 2"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> serverHandler().handle(new byte[]{ 1, 0, 5, 'a' }));
        assertThrows(IllegalArgumentException.class,
                     () -> serverHandler().handle(ReadMember.encodeRequest(file.toString(), -1, 5)));
    }

    private MemberServer serverHandler() throws IOException
    {
        return new MemberServer(open(new Peer("server2", 7070), OPTS), List.of(root));
    }

    @Test
    void droppedRequestsFailWithIOException() throws IOException
    {
        TransportOptions fast = new TransportOptions(64 * 1024, 100, 1, 5);
        Transport lossy = new FaultInjectingTransport(open(new Peer("lossy", 7070), fast), 1, 1.0, 0, 0, 0);
        NodeMemberReader reader = new NodeMemberReader(lossy);
        long t0 = System.nanoTime();
        IOException e = assertThrows(IOException.class, () -> reader.read(at(file), 0, 100));
        assertTrue(e.getMessage().contains("TIMEOUT") && e.getMessage().contains(SERVER.toString()), e.getMessage());
        assertTrue(System.nanoTime() - t0 < 10_000_000_000L, "fails within the retry budget");

        // lost responses and delays are retried through; the bytes are still exact
        Transport flaky = new FaultInjectingTransport(open(new Peer("flaky", 7070), new TransportOptions(64 * 1024, 300, 8, 5)),
                                                      3, 0.2, 0.2, 0, 20);
        assertArrayEquals(content, bytes(new NodeMemberReader(flaky).read(at(file), 0, content.length)));

        // a peer that is gone: CONNECTION after the retries
        server.close();
        e = assertThrows(IOException.class, () -> new NodeMemberReader(client).read(at(file), 0, 100));
        assertTrue(e.getMessage().contains("CONNECTION"), e.getMessage());
    }

    private static void assertRefused(NodeMemberReader reader, NodeLocator where, String why)
    {
        assertRefused(reader, where, 0, 10, why);
    }

    private static void assertRefused(NodeMemberReader reader, NodeLocator where, long pos, int len, String why)
    {
        IOException e = assertThrows(IOException.class, () -> reader.read(where, pos, len), where.toString());
        assertTrue(e.getMessage().contains("REMOTE_ERROR") && e.getMessage().contains(why), e.getMessage());
    }
}
