package io.elect.core.stripes;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.elect.core.stripes.LocatorMemberReader.NodeLocator;
import io.elect.core.transport.InMemoryNetwork;
import io.elect.core.transport.InMemoryTransport;
import io.elect.core.transport.Peer;
import io.elect.core.transport.PeerLiveness;
import io.elect.core.transport.Transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * READ_MEMBER with a fallback over an InMemoryTransport: a missing file inside the roots is served by the fallback
 * (exact ranges, the normalized requested path), an unknown one is refused as before, existing files never reach the
 * fallback, paths outside the roots never reach it, and a short fallback answer is an error.
 */
class MemberServerFallbackTest
{
    static final Peer SERVER = new Peer("server", 7070);

    @TempDir
    Path tmp;
    Path root, outside, moved;
    final InMemoryNetwork network = new InMemoryNetwork();
    final List<Transport> opened = new ArrayList<>();
    final List<Path> asked = new ArrayList<>();
    byte[] cold;
    NodeMemberReader reader;

    @BeforeEach
    void setUp() throws IOException
    {
        root = Files.createDirectories(tmp.resolve("root"));
        Files.createDirectories(root.resolve("sub"));
        outside = Files.createDirectories(tmp.resolve("outside"));
        moved = root.resolve("sub").resolve("moved-Data.db");
        cold = new byte[200_000];
        new Random(3).nextBytes(cold);
        Transport server = open(SERVER);
        new MemberServer(server, List.of(root), (path, offset, length) -> {
            synchronized (asked)
            {
                asked.add(path);
            }
            if (path.equals(moved))
                return Optional.of(ByteBuffer.wrap(cold, (int) offset, length).slice());
            if (path.getFileName().toString().equals("short"))
                return Optional.of(ByteBuffer.allocate(Math.max(0, length - 1)));
            return Optional.empty();
        });
        reader = new NodeMemberReader(open(new Peer("client", 7070)));
    }

    Transport open(Peer peer)
    {
        Transport t = new InMemoryTransport(network, peer, NodeMemberReaderTest.OPTS, PeerLiveness.ALWAYS);
        opened.add(t);
        return t;
    }

    @AfterEach
    void tearDown()
    {
        opened.forEach(Transport::close);
    }

    static NodeLocator at(String path)
    {
        return new NodeLocator(SERVER.host(), SERVER.port(), path);
    }

    static byte[] bytes(ByteBuffer b)
    {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    @Test
    void missingFileIsServedByTheFallback() throws IOException
    {
        // larger than one 64 KiB frame: the reader splits, every piece goes through the fallback
        assertArrayEquals(Arrays.copyOfRange(cold, 1000, 151_000), bytes(reader.read(at(moved.toString()), 1000, 150_000)));
        assertArrayEquals(Arrays.copyOfRange(cold, 7, 17), bytes(reader.read(at(root + "/sub/./../sub/moved-Data.db"), 7, 10)));
        assertTrue(asked.stream().allMatch(moved::equals), "the fallback sees the normalized requested path: " + asked);
    }

    @Test
    void existingFilesNeverReachTheFallback() throws IOException
    {
        byte[] local = new byte[100];
        new Random(4).nextBytes(local);
        Files.write(moved, local);
        assertArrayEquals(Arrays.copyOfRange(local, 10, 60), bytes(reader.read(at(moved.toString()), 10, 50)));
        assertTrue(asked.isEmpty(), asked.toString());
    }

    @Test
    void anOverridingFallbackWinsOverAFileAtTheSamePath() throws IOException
    {
        // a rebuilt node: the old name of a restored member was reused by a newer SSTable; the redirect must win
        Peer other = new Peer("rebuilt", 7070);
        Path reused = root.resolve("sub").resolve("reused-Data.db");
        Files.write(reused, new byte[]{ 9, 9, 9, 9 });
        new MemberServer(open(other), List.of(root), new MemberServer.Fallback()
        {
            @Override
            public Optional<ByteBuffer> read(Path path, long offset, int length)
            {
                return path.equals(reused) ? Optional.of(ByteBuffer.wrap(cold, (int) offset, length).slice()) : Optional.empty();
            }

            @Override
            public boolean overrides(Path path)
            {
                return path.equals(reused);
            }
        });
        NodeLocator at = NodeLocator.parse(io.elect.core.stripes.LocatorMemberReader.node("rebuilt", 7070, reused));
        assertArrayEquals(Arrays.copyOfRange(cold, 0, 4), bytes(reader.read(at, 0, 4)));
    }

    @Test
    void unknownMissingFilesAndEscapesAreRefused() throws IOException
    {
        assertRefused(root + "/sub/nothing", "no such file");
        assertEquals(List.of(root.resolve("sub/nothing")), asked);
        asked.clear();
        // outside the roots, through ../ or through a directory link: refused before the fallback
        assertRefused(root + "/../outside/moved-Data.db", "outside the allowed roots");
        Path dirLink = Files.createSymbolicLink(root.resolve("dirlink"), outside);
        assertRefused(dirLink + "/moved-Data.db", "outside the allowed roots");
        // a missing parent directory, the root itself, and a dangling link are refused as missing files
        assertRefused(root + "/nodir/moved-Data.db", "no such file");
        Files.createSymbolicLink(root.resolve("dangling"), root.resolve("gone"));
        assertRefused(root + "/dangling", "no such file");
        assertTrue(asked.isEmpty(), asked.toString());
        // a fallback answer of the wrong length is an error, not data
        assertRefused(root + "/sub/short", "returned 9 of 10 bytes");
    }

    @Test
    void withoutFallbackAMissingFileIsRefused() throws IOException
    {
        Peer other = new Peer("plain", 7070);
        new MemberServer(open(other), List.of(root));
        IOException e = assertThrows(IOException.class, () -> reader.read(new NodeLocator(other.host(), other.port(), moved.toString()), 0, 10));
        assertTrue(e.getMessage().contains("no such file"), e.getMessage());
    }

    private void assertRefused(String path, String why)
    {
        IOException e = assertThrows(IOException.class, () -> reader.read(at(path), 0, 10), path);
        assertTrue(e.getMessage().contains("REMOTE_ERROR") && e.getMessage().contains(why), e.getMessage());
    }
}
