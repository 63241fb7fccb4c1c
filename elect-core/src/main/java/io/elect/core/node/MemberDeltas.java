package io.elect.core.node;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.node.LocalTables.TableFile;
import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.RemoteStripeParticipant;
import io.elect.core.transition.wire.ChangeMessages.MemberDeltaRequest;
import io.elect.core.transition.wire.TransitionMessages.MemberLocation;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.offload.ColdStore;

/**
 * MEMBER_DELTA (docs/formats/verbs.md, docs/design/updates.md "pushed deltas"): on the node of a merged member, the
 * difference of its two versions, previous XOR next (each zero-padded to the longer one), written once as a file
 * under {@code <state dir>/member-deltas/} (temporary file, fsync, rename) with chunk checksums computed as it is
 * written. Parity nodes then read that one stream (through the node's READ_MEMBER, as any member) instead of both
 * versions: a parity change of a merge moves max(|F|, |F'|) bytes per parity node instead of |F| + |F'|.
 *
 * <p>Only while the stripe is CHANGING to the requested generation with both versions on this node; a retry finds
 * the complete file and returns it (its checksums recomputed). The file goes with the previous version
 * (REMOVE_MEMBER, {@link #drop}) or, if the change ended otherwise, with the node's maintenance ({@link #cleanup}).
 */
final class MemberDeltas
{
    private static final Logger logger = LoggerFactory.getLogger(MemberDeltas.class);
    static final String DIR = "member-deltas";
    private static final String SUFFIX = ".delta";
    private static final int WINDOW = 1 << 20;

    /** This node's live member file of a stripe by the record's sstable name (LocalChangeOps#memberFile). */
    @FunctionalInterface
    interface MemberFiles
    {
        TableFile find(TableRef table, String sstable, String stripeId) throws IOException;
    }

    private final NodeContext node;
    private final MemberFiles files;

    MemberDeltas(NodeContext node, MemberFiles files)
    {
        this.node = node;
        this.files = files;
    }

    private Path dir()
    {
        return dir(node);
    }

    private static Path dir(NodeContext node)
    {
        return node.stateDir().resolve(DIR);
    }

    private Path fileOf(String stripeId, long generation)
    {
        return dir().resolve(stripeId + ".g" + generation + SUFFIX);
    }

    MemberLocation compute(MemberDeltaRequest req) throws IOException
    {
        StripeRecord r = node.store().get(StripeId.parse(req.stripeId()))
                             .orElseThrow(() -> new IllegalStateException("stripe " + req.stripeId() + " has no record"));
        if (r.state() != StripeState.CHANGING || r.parityGeneration() != req.toGeneration() || r.change() == null
            || r.change().slot() != req.slot())
            throw new IllegalStateException("stripe " + req.stripeId() + " is " + r.state() + " at parity generation " + r.parityGeneration()
                                            + ": no delta of member " + req.slot() + " for generation " + req.toGeneration());
        io.elect.core.stripes.Member previous = r.change().previous(), next = r.members().get(req.slot());
        if (previous.isVirtual() || next.isVirtual() || !node.self().equals(previous.node()) || !node.self().equals(next.node()))
            throw new IllegalStateException("stripe " + req.stripeId() + "'s change of member " + req.slot() + " is not a replacement on "
                                            + node.self() + " (" + previous.descriptor() + " -> " + next.descriptor() + ")");
        TableRef t = req.table();
        TableFile before = files.find(t, RemoteStripeParticipant.sstableOf(previous.sstable()), req.stripeId());
        TableFile after = files.find(t, RemoteStripeParticipant.sstableOf(next.sstable()), req.stripeId());
        if (before == null || after == null || before.isStub() || after.isStub())
            throw new IllegalStateException("stripe " + req.stripeId() + ": both versions of member " + req.slot() + " must be live on "
                                            + node.self() + " (previous " + (before != null) + ", next " + (after != null) + ")");
        if (before.dataBytes() != previous.realBytes() || after.dataBytes() != next.realBytes())
            throw new IllegalStateException("stripe " + req.stripeId() + ": member " + req.slot() + "'s versions hold " + before.dataBytes()
                                            + " and " + after.dataBytes() + " bytes, the record says " + previous.realBytes() + " and "
                                            + next.realBytes());
        Path out = fileOf(req.stripeId(), req.toGeneration());
        long length = Math.max(before.dataBytes(), after.dataBytes());
        if (Files.exists(out) && Files.size(out) == length)
        {
            try (FileChannel ch = FileChannel.open(out, StandardOpenOption.READ))
            {
                return new MemberLocation(locator(out), ChunkChecksums.compute(ch, ChunkChecksums.DEFAULT_CHUNK_SIZE));
            }
        }
        long start = node.clock().nanoTime();
        Files.createDirectories(dir());
        Path tmp = out.resolveSibling(out.getFileName() + ".tmp");
        int cs = ChunkChecksums.DEFAULT_CHUNK_SIZE;
        int window = Math.max(cs, WINDOW / cs * cs);
        int[] crcs = new int[(int) ((length + cs - 1) / cs)];
        try (Source a = open(before); Source b = open(after);
             FileChannel w = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE))
        {
            ByteBuffer buf = ByteBuffer.allocate(window);
            for (long off = 0; off < length; off += window)
            {
                int len = (int) Math.min(window, length - off);
                buf.clear().limit(len);
                for (int x = 0; x < len; x++)
                    buf.put(x, (byte) 0);
                a.xorInto(buf, off, len);
                b.xorInto(buf, off, len);
                for (int c = 0; c * cs < len; c++)
                    crcs[(int) (off / cs) + c] = ChunkChecksums.crc(buf.duplicate().position(c * cs).limit(Math.min(len, (c + 1) * cs)));
                ByteBuffer wb = buf.duplicate().position(0).limit(len);
                while (wb.hasRemaining())
                    w.write(wb, off + wb.position());
            }
            w.force(true);
        }
        catch (IOException | RuntimeException e)
        {
            Files.deleteIfExists(tmp);
            throw e;
        }
        Files.move(tmp, out, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        logger.info("delta of member {} of stripe {} ({}) for parity generation {}: {} ({}) XOR {} = {} bytes ({} ms)", req.slot(),
                    req.stripeId(), t, req.toGeneration(), before.id(), before.source(), after.id(), length, node.clock().millisSince(start));
        return new MemberLocation(locator(out), new ChunkChecksums(cs, length, crcs));
    }

    private String locator(Path p)
    {
        return RemoteStripeParticipant.nodeLocator(node.selfPeer(), p.toAbsolutePath().toString());
    }

    /** Deletes the deltas of a stripe (its change is past PARITY_CHANGE). */
    void drop(String stripeId) throws IOException
    {
        if (!Files.isDirectory(dir()))
            return;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir(), stripeId + ".g*"))
        {
            for (Path p : ds)
                Files.deleteIfExists(p);
        }
    }

    /**
     * Deletes deltas whose stripe is no longer CHANGING to their generation (done, rolled forward past it, or gone)
     * and temporary files left by a crash, older than {@code minAgeMillis}. Returns how many files went.
     */
    static int cleanup(NodeContext node, long minAgeMillis) throws IOException
    {
        if (!Files.isDirectory(dir(node)))
            return 0;
        int deleted = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir(node)))
        {
            for (Path p : ds)
            {
                String name = p.getFileName().toString();
                if (node.clock().millis() - Files.getLastModifiedTime(p).toMillis() < minAgeMillis)
                    continue;
                boolean keep = false;
                int g = name.indexOf(".g");
                if (name.endsWith(SUFFIX) && g > 0)
                {
                    try
                    {
                        long gen = Long.parseLong(name.substring(g + 2, name.length() - SUFFIX.length()));
                        StripeRecord r = node.store().get(StripeId.parse(name.substring(0, g))).orElse(null);
                        keep = r != null && r.state() == StripeState.CHANGING && r.parityGeneration() == gen;
                    }
                    catch (IllegalArgumentException e)
                    {
                        keep = false; // not a name this class writes
                    }
                }
                if (!keep && Files.deleteIfExists(p))
                    deleted++;
            }
        }
        return deleted;
    }

    /** One version's bytes, read by ranges: a local data file, or an offloaded member's cold object. */
    private interface Source extends AutoCloseable
    {
        void xorInto(ByteBuffer buf, long off, int len) throws IOException;

        @Override
        void close() throws IOException;
    }

    private Source open(TableFile f) throws IOException
    {
        long size = f.dataBytes();
        if (f.source() == LocalTables.Source.COLD)
        {
            ColdStore store = node.tiered().store(f.sidecar().coldStore())
                                  .orElseThrow(() -> new IllegalStateException("member " + f.id() + " is in cold store '" + f.sidecar().coldStore()
                                                                               + "', which is not registered"));
            String key = f.sidecar().coldKey();
            return new Source()
            {
                public void xorInto(ByteBuffer buf, long off, int len) throws IOException
                {
                    int n = (int) Math.max(0, Math.min(len, size - off));
                    if (n > 0)
                        xor(buf, store.read(key, off, n), n);
                }

                public void close()
                {
                }
            };
        }
        FileChannel ch = FileChannel.open(f.dataPath(), StandardOpenOption.READ);
        return new Source()
        {
            public void xorInto(ByteBuffer buf, long off, int len) throws IOException
            {
                int n = (int) Math.max(0, Math.min(len, size - off));
                if (n <= 0)
                    return;
                ByteBuffer got = ByteBuffer.allocate(n);
                while (got.hasRemaining())
                    if (ch.read(got, off + got.position()) < 0)
                        throw new IOException(f.dataPath() + " is shorter than " + size + " bytes");
                xor(buf, got.flip(), n);
            }

            public void close() throws IOException
            {
                ch.close();
            }
        };
    }

    private static void xor(ByteBuffer buf, ByteBuffer got, int n) throws IOException
    {
        if (got.remaining() != n)
            throw new IOException("read " + got.remaining() + " of " + n + " bytes");
        int p = got.position();
        for (int x = 0; x < n; x++)
            buf.put(x, (byte) (buf.get(x) ^ got.get(p + x)));
    }
}
