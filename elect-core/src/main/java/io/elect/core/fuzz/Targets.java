package io.elect.core.fuzz;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.zip.CRC32C;

import io.elect.core.config.ElectYaml;
import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.tiered.TieredSidecar;
import io.elect.core.stripes.ParitySidecar;
import io.elect.core.stripes.Member;
import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeRecordCodec;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.wire.TransitionMessages.BuildParityRequest;
import io.elect.core.transition.wire.TransitionMessages.CandidateInfo;
import io.elect.core.transition.wire.TransitionMessages.ComponentRef;
import io.elect.core.transition.wire.ChangeMessages;
import io.elect.core.transition.wire.TransitionMessages;
import io.elect.core.transition.wire.TransitionMessages.DropParityRequest;
import io.elect.core.transition.wire.TransitionMessages.MemberInfo;
import io.elect.core.transition.wire.TransitionMessages.MemberRequest;
import io.elect.core.transition.wire.NodeSnapshot;
import io.elect.core.transition.wire.TransitionMessages.OffloadRequest;
import io.elect.core.transition.wire.TransitionMessages.OffloadResult;
import io.elect.core.transition.wire.TransitionMessages.ParityInfo;
import io.elect.core.transition.wire.TransitionMessages.SnapshotRequest;
import io.elect.core.transition.wire.TransitionMessages.StripeStatus;
import io.elect.core.transition.wire.TransitionMessages.StripeStatusRequest;
import io.elect.core.transition.wire.TransitionMessages.StubRequest;
import io.elect.core.transition.wire.TransitionMessages.StubResult;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.core.transport.Frame;
import io.elect.core.transport.FrameCodec;
import io.elect.core.util.ChecksummedTextFile;
import io.elect.offload.FramedFormat;
import io.elect.tsue.fs.MemFileLayer;
import io.elect.tsue.log.RecordLog;
import io.elect.tsue.log.TxRecord;

/**
 * Every fuzzed input surface (issue 19): transport frames, every verb's payload decoders (requests and responses),
 * the persisted formats of docs/formats/ (stripe record, frozen registry, redirect table, tiered sidecar, parity
 * sidecar, rebuild progress, merge markers, TSUE log, cold-object framing) and the {@code elect:} section of cassandra.yaml. Each
 * decodes exactly as the node does: file formats through the node's own reader on a real file. Readers that are
 * package-private in their owner are reached by reflection (a test seam, never used by the node).
 */
public final class Targets
{
    static final String STRIPE = "0123456789abcdef0fedcba987654321";
    static final TableRef TABLE = new TableRef("ycsb", "usertable");
    static final HexFormat HEX = HexFormat.of();

    private Targets()
    {
    }

    /** Every target; file targets use {@code scratch} (a directory of their own). */
    public static Map<String, FuzzTarget> all(Path scratch) throws IOException
    {
        Map<String, FuzzTarget> m = new LinkedHashMap<>();
        m.put("frame", frame());
        messages().forEach(t -> m.put(t.name(), t));
        m.put("stripe-record", stripeRecord());
        m.put("frozen-registry", textFile("frozen-registry", scratch, frozenSeeds(scratch), Targets::readFrozen));
        m.put("redirects", textFile("redirects", scratch, redirectSeeds(scratch), Targets::readRedirects));
        m.put("rebuild-progress", textFile("rebuild-progress", scratch, progressSeeds(scratch), Targets::readProgress));
        m.put("merge-markers", textFile("merge-markers", scratch, List.of(
            written(scratch, "elect-merge-markers", List.of(STRIPE + " ycsb usertable 3gbn_0x1a 3gbn_0x1b 1795660800000")),
            written(scratch, "elect-merge-markers", List.of())), Targets::readMergeMarkers));
        m.put("tiered-sidecar", tieredSidecar(scratch));
        m.put("parity-sidecar", paritySidecar(scratch));
        m.put("tsue-log", tsueLog());
        m.put("cold-object", coldObject());
        m.put("elect-yaml", electYaml());
        return m;
    }

    // ------------------------------------------------------------------------------------------------ samples

    static ChunkChecksums sums()
    {
        return new ChunkChecksums(65536, 200_000, new int[]{ 1, 2, 3, 4 });
    }

    static StripeLayout layout()
    {
        return new StripeLayout("rs-cauchy-gf8-v1", 2, 1, new long[]{ 200_000, 150_000 }, 200_000,
                                List.of("node:127.0.0.1:7070/d/nb-12-big-Data.db", "zero:", "pending:parity"));
    }

    static List<ComponentRef> components()
    {
        return List.of(new ComponentRef("Index.db", "node:127.0.0.1:7070/d/nb-12-big-Index.db", 1234),
                       new ComponentRef("Filter.db", "/d/nb-12-big-Filter.db", 16));
    }

    static StubRequest stub()
    {
        return new StubRequest(TABLE, "3gk1_0tqx_2pjdc2l3r1pyynyb3d", STRIPE, layout(), 0, sums(), components());
    }

    // ------------------------------------------------------------------------------------------------ wire

    static FuzzTarget frame()
    {
        int max = 1 << 20;
        List<byte[]> seeds = new ArrayList<>();
        for (Object[] f : new Object[][]{ { Frame.Kind.REQUEST, 10, readMemberRequest() }, { Frame.Kind.REQUEST, 29, stub().encode() },
                                          { Frame.Kind.RESPONSE, 20, new byte[300] }, { Frame.Kind.ERROR, 26, "refused: x".getBytes(StandardCharsets.UTF_8) },
                                          { Frame.Kind.REQUEST, 0, new byte[0] } })
            seeds.add(FrameCodec.encode(new Frame((Frame.Kind) f[0], 7, (Integer) f[1], (byte[]) f[2]), max));
        return new Simple("frame", seeds, b -> FrameCodec.decode(b, max), v -> HEX.formatHex(FrameCodec.encode((Frame) v, max)), true)
        {
            @Override
            public byte[] fixChecksum(byte[] in)
            {
                if (in.length < FrameCodec.LENGTH_FIELD + FrameCodec.OVERHEAD)
                    return null;
                byte[] b = in.clone();
                ByteBuffer.wrap(b).putInt(0, b.length - FrameCodec.LENGTH_FIELD);
                CRC32C crc = new CRC32C();
                crc.update(b, 4, b.length - 8);
                ByteBuffer.wrap(b).putInt(b.length - 4, (int) crc.getValue());
                return b;
            }
        };
    }

    static byte[] readMemberRequest()
    {
        try
        {
            Method enc = method("io.elect.core.stripes.ReadMember", "encodeRequest", String.class, long.class, int.class);
            return (byte[]) call(enc, "/var/lib/elect/data/ycsb/usertable-1/nb-12-big-Data.db", 4096L, 65536);
        }
        catch (Exception e)
        {
            throw new IllegalStateException(e);
        }
    }

    /** One target per verb payload: the request decoders the server runs and the response decoders the client runs. */
    static List<FuzzTarget> messages()
    {
        List<FuzzTarget> out = new ArrayList<>();
        out.add(msg("verb-read-member", List.of(readMemberRequest()), b -> {
            try
            {
                return call(method("io.elect.core.stripes.ReadMember", "decodeRequest", byte[].class), (Object) b);
            }
            catch (Exception e)
            {
                throw e instanceof RuntimeException ? (RuntimeException) e : new IllegalArgumentException(e.getMessage(), e);
            }
        }, String::valueOf));
        out.add(msg("verb-snapshot", List.of(new SnapshotRequest(TABLE).encode()), SnapshotRequest::decode, null));
        out.add(msg("verb-snapshot-response", List.of(new NodeSnapshot("127.0.0.1", new long[][]{ { 1, 2, 3 }, { 4, 5, 6 } }, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                                                   List.of(new CandidateInfo("12", 100, 0.5, 1000), new CandidateInfo("3gk1", 7, 0, 9))).encode(),
                                                      new NodeSnapshot("127.0.0.2", new long[][]{ { 1 } }, 2, 3, 4, 5, 6, 7, 8, 9, 10, List.of(), 11,
                                                                       Map.of(STRIPE, false), Map.of(STRIPE, Map.of(-1, false, 1, true)),
                                                                       Map.of(STRIPE, new NodeSnapshot.MergeHint(300, 0.25))).encode()),
                        NodeSnapshot::decode, null));
        out.add(msg("verb-member", List.of(new MemberRequest(TABLE, "12", STRIPE).encode()), MemberRequest::decode, null));
        out.add(msg("verb-stripe-ref", List.of(new TransitionMessages.StripeRef(TABLE, STRIPE).encode()), TransitionMessages.StripeRef::decode, null));
        out.add(msg("verb-member-info", List.of(new MemberInfo("/d/nb-12-big-Data.db", sums(), components()).encode()), MemberInfo::decode, null));
        out.add(msg("verb-build-parity", List.of(new BuildParityRequest(TABLE, STRIPE, layout(), 0, false).encode()), BuildParityRequest::decode, null));
        out.add(msg("verb-parity-info", List.of(new ParityInfo("node:127.0.0.3:7070/p/x.parity", 200_000).encode()), ParityInfo::decode, null));
        out.add(msg("verb-drop-parity", List.of(new DropParityRequest(TABLE, STRIPE, 0).encode(), new DropParityRequest(TABLE, STRIPE, 1, 2).encode()),
                    DropParityRequest::decode, null));
        out.add(msg("verb-parity-change", List.of(new ChangeMessages.ParityChangeRequest(TABLE, STRIPE, 0, 1, 0, layout(),
                                                                                          new io.elect.core.stripes.ChunkChecksums(16384, layout().memberLength(0), new int[(int) ((layout().memberLength(0) + 16383) / 16384)]),
                                                                                          null, null).encode(),
                                                  new ChangeMessages.ParityChangeRequest(TABLE, STRIPE, 0, 1, 0, layout(),
                                                                                          new io.elect.core.stripes.ChunkChecksums(16384, layout().memberLength(0), new int[(int) ((layout().memberLength(0) + 16383) / 16384)]),
                                                                                          "node:127.0.0.1:7070/d/next-Data.db", new io.elect.core.stripes.ChunkChecksums(16384, 1000, new int[1]))
                                                      .withDelta("node:127.0.0.1:7070/s/member-deltas/x.delta",
                                                                 new io.elect.core.stripes.ChunkChecksums(16384, layout().memberLength(0), new int[(int) ((layout().memberLength(0) + 16383) / 16384)]))
                                                      .encode()),
                    ChangeMessages.ParityChangeRequest::decode, null));
        out.add(msg("verb-member-delta", List.of(new ChangeMessages.MemberDeltaRequest(TABLE, STRIPE, 1, 0).encode()),
                    ChangeMessages.MemberDeltaRequest::decode, null));
        out.add(msg("verb-stub-relayout", List.of(new ChangeMessages.RelayoutRequest(TABLE, STRIPE, 1, 0, "zero:", 0, List.of("node:127.0.0.3:7070/p/x.g1.parity")).encode()),
                    ChangeMessages.RelayoutRequest::decode, null));
        out.add(msg("verb-merge-member", List.of(new ChangeMessages.MergeRequest(TABLE, "12", STRIPE, 0.25).encode()),
                    ChangeMessages.MergeRequest::decode, null));
        out.add(msg("verb-merge-result", List.of(new ChangeMessages.MergeResult("13", 900, 1000).encode(), ChangeMessages.MergeResult.declined(1000).encode()),
                    ChangeMessages.MergeResult::decode, null));
        out.add(msg("verb-stub-materialize", List.of(new ChangeMessages.MaterializeRequest(TABLE, STRIPE, 1, "127.0.0.4").encode()),
                    ChangeMessages.MaterializeRequest::decode, null));
        out.add(msg("verb-materialize-result", List.of(new ChangeMessages.MaterializeResult(2, 4096).encode()),
                    ChangeMessages.MaterializeResult::decode, null));
        out.add(msg("verb-relayout-result", List.of(new ChangeMessages.RelayoutResult(2, 1).encode()), ChangeMessages.RelayoutResult::decode, null));
        out.add(msg("verb-member-location", List.of(new TransitionMessages.MemberLocation("cold:s3/k", sums()).encode()),
                    TransitionMessages.MemberLocation::decode, null));
        out.add(msg("verb-stub", List.of(stub().encode(), new StubRequest(TABLE, "12", STRIPE, layout(), 1, sums(), List.of()).encode()),
                    StubRequest::decode, null));
        out.add(msg("verb-stub-result", List.of(new StubResult(1, 100, 50, 0).encode()), StubResult::decode, null));
        out.add(msg("verb-offload", List.of(new OffloadRequest(TABLE, 1000, 86_400_000).encode()), OffloadRequest::decode, null));
        out.add(msg("verb-offload-result", List.of(new OffloadResult(1000, 2).encode()), OffloadResult::decode, null));
        out.add(msg("verb-stripe-status", List.of(new StripeStatusRequest(TABLE, STRIPE, "127.0.0.1", "ycsb.usertable/12", 0).encode()),
                    StripeStatusRequest::decode, null));
        out.add(msg("verb-stripe-status-response", List.of(new StripeStatus(stub(), "-9223372036854775808", "-4611686018427387904").encode(),
                                                                    StripeStatus.none().encode()),
                    StripeStatus::decode, null));
        return out;
    }

    private static FuzzTarget msg(String name, List<byte[]> seeds, Function<byte[], Object> decode, Function<Object, String> canonical)
    {
        return new Simple(name, seeds, decode::apply, canonical != null ? canonical : Targets::encodedHex, false);
    }

    /** The hex of a message's own {@code encode()}: equal values encode equally. */
    static String encodedHex(Object v)
    {
        try
        {
            return HEX.formatHex((byte[]) v.getClass().getMethod("encode").invoke(v));
        }
        catch (ReflectiveOperationException e)
        {
            throw new IllegalStateException(e);
        }
    }

    // ------------------------------------------------------------------------------------------------ files

    static FuzzTarget stripeRecord()
    {
        StripeId id = StripeId.parse(STRIPE);
        StripeRecord a = new StripeRecord(id, "rs-cauchy-gf8-v1", 2, 1, 1000, List.of(new Member("127.0.0.1", "ycsb.usertable/12", 1000),
                                                                                        new Member("127.0.0.2", "ycsb.usertable/3gk1_0tqx", 700)),
                                          List.of("127.0.0.3"), StripeState.PLANNED, 1, 1_700_000_000_000L);
        StripeRecord b = new StripeRecord(id, "rs-cauchy-gf8-v1", 2, 2, 1000, List.of(new Member("127.0.0.1", "ycsb.usertable/12", 1000), Member.virtual()),
                                          List.of("127.0.0.3", "127.0.0.4"), StripeState.COMMITTED, 5, 1_700_000_000_001L);
        // format 2: a stripe whose parity changed after it was built (parity generation 3)
        StripeRecord c = b.replan(b.members(), b.parityNodes(), 3, StripeState.COMMITTED, 1_700_000_000_002L);
        return new Simple("stripe-record", List.of(StripeRecordCodec.encode(a), StripeRecordCodec.encode(b), StripeRecordCodec.encode(c)),
                          StripeRecordCodec::decode,
                          v -> HEX.formatHex(StripeRecordCodec.encode((StripeRecord) v)), true)
        {
            @Override
            public byte[] fixChecksum(byte[] in)
            {
                if (in.length < 4)
                    return null;
                byte[] out = in.clone();
                CRC32C crc = new CRC32C();
                crc.update(out, 0, out.length - 4);
                ByteBuffer.wrap(out).putInt(out.length - 4, (int) crc.getValue());
                return out;
            }
        };
    }

    /** A decoder that reads a file of the format from a path (the node's own reader). */
    interface FileReader
    {
        Object read(Path file) throws Exception;
    }

    /** A ChecksummedTextFile format (frozen registry, redirects, rebuild progress): text, CRC32C line at the end. */
    static FuzzTarget textFile(String name, Path scratch, List<byte[]> seeds, FileReader reader) throws IOException
    {
        Path file = Files.createDirectories(scratch.resolve(name)).resolve("input.txt");
        return new Simple(name, seeds, b -> {
            Files.write(file, b);
            return reader.read(file);
        }, String::valueOf, true)
        {
            @Override
            public boolean text()
            {
                return true;
            }

            @Override
            public byte[] fixChecksum(byte[] in)
            {
                String s = new String(in, StandardCharsets.UTF_8);
                int last = s.lastIndexOf('\n', s.length() - 2);
                if (!s.endsWith("\n") || last < 0)
                    return null;
                String body = s.substring(0, last + 1);
                CRC32C crc = new CRC32C();
                crc.update(body.getBytes(StandardCharsets.UTF_8));
                return (body + String.format("crc32c=%08x\n", crc.getValue())).getBytes(StandardCharsets.UTF_8);
            }
        };
    }

    static List<byte[]> frozenSeeds(Path scratch) throws IOException
    {
        return List.of(written(scratch, "frozen-registry", List.of("table=ycsb.usertable", "frozen=12 " + STRIPE, "frozen=3gk1_0tqx_2pjdc2l3r1pyynyb3d cold:tag")),
                       written(scratch, "frozen-registry", List.of("table=ycsb.usertable")));
    }

    static Object readFrozen(Path file) throws Exception
    {
        return call(method("io.elect.core.bridge.FrozenSSTables", "read", Path.class, String.class), file, "ycsb.usertable");
    }

    static List<byte[]> redirectSeeds(Path scratch) throws IOException
    {
        return List.of(written(scratch, "elect-redirects", List.of("redirect=cold:cold-tier/elect/v1/c/ycsb/usertable/data/12 /d/ycsb/usertable-1/nb-12-big-Data.db",
                                                                   "redirect=file:/d/rebuild/nb-13-big-Data.db /d/ycsb/usertable-1/nb-9-big-Data.db")));
    }

    static Object readRedirects(Path file) throws Exception
    {
        return call(method("io.elect.core.stripes.RedirectTable", "read", Path.class), file);
    }

    /** As a node loads its merge markers (docs/formats/merge-markers.md). */
    static Object readMergeMarkers(Path file) throws Exception
    {
        return call(method("io.elect.core.node.MergeMarkers", "read", Path.class), file);
    }

    static List<byte[]> progressSeeds(Path scratch) throws IOException
    {
        return List.of(written(scratch, "elect-rebuild-progress", List.of("member " + STRIPE + " 0", "parity " + STRIPE + " 1", "stream ycsb")),
                       written(scratch, "elect-rebuild-progress", List.of("complete")));
    }

    /** As NodeRebuild reads its progress file: a ChecksummedTextFile of magic elect-rebuild-progress, version 1. */
    static Object readProgress(Path file) throws Exception
    {
        return ChecksummedTextFile.read(file, "elect-rebuild-progress", 1, (f, p) -> new IOException("corrupt rebuild progress file " + f + ": " + p));
    }

    /** The bytes of a ChecksummedTextFile with these lines (magic is the file's first line). */
    static byte[] written(Path scratch, String magic, List<String> lines) throws IOException
    {
        String m = magic.equals("frozen-registry") ? "elect-frozen-registry" : magic;
        Path f = Files.createDirectories(scratch.resolve("seeds")).resolve(m + "-" + lines.size() + ".txt");
        ChecksummedTextFile.write(f, m, 1, lines);
        return Files.readAllBytes(f);
    }

    static FuzzTarget tieredSidecar(Path scratch) throws IOException
    {
        Path dir = Files.createDirectories(scratch.resolve("tiered-sidecar"));
        List<byte[]> seeds = new ArrayList<>();
        for (TieredSidecar s : List.of(TieredSidecar.cold(sums(), "cold-tier", "elect/v1/c/ycsb/usertable/data/12", true),
                                       TieredSidecar.decoded(sums(), layout(), 0)))
            seeds.add(s.serialize().getBytes(StandardCharsets.UTF_8));
        Path file = dir.resolve("nb-12-electtiered-Tiered.txt");
        return new Simple("tiered-sidecar", seeds, b -> {
            Files.write(file, b);
            return TieredSidecar.read(file);
        }, v -> ((TieredSidecar) v).serialize(), true)
        {
            @Override
            public boolean text()
            {
                return true;
            }
        };
    }

    static FuzzTarget paritySidecar(Path scratch) throws IOException
    {
        Path dir = Files.createDirectories(scratch.resolve("parity-sidecar"));
        ParitySidecar seed = new ParitySidecar("rs-cauchy-gf8-v1", 2, 1, 0, new long[]{ 200_000, 150_000 }, sums());
        Path parity = dir.resolve("s-p0.parity");
        try
        {
            method("io.elect.core.stripes.ParitySidecar", "write", Path.class).invoke(seed, parity);
        }
        catch (ReflectiveOperationException e)
        {
            throw new IOException(e);
        }
        Path sidecar = ParitySidecar.of(parity);
        List<byte[]> seeds = List.of(Files.readAllBytes(sidecar));
        return new Simple("parity-sidecar", seeds, b -> {
            Files.write(sidecar, b);
            return ParitySidecar.read(sidecar);
        }, v -> {
            ParitySidecar p = (ParitySidecar) v;
            return p.codecId() + "/" + p.k() + "/" + p.m() + "/" + p.parityIndex() + "/" + java.util.Arrays.toString(p.dataLengths()) + "/" + p.checksums().length()
                   + "/" + p.checksums().chunkSize() + "/" + p.checksums().chunkCount() + "/" + p.checksums().hashCode();
        }, true)
        {
            @Override
            public boolean text()
            {
                return true;
            }
        };
    }

    /** A TSUE log file (RecordLog framing) whose TxRecords are decoded as recovery does. */
    static FuzzTarget tsueLog()
    {
        List<byte[]> seeds = new ArrayList<>();
        try
        {
            MemFileLayer fs = new MemFileLayer();
            RecordLog log = RecordLog.open(fs, "data.log");
            Random r = new Random(1);
            for (int i = 0; i < 3; i++)
            {
                byte[] page = new byte[64 + 32 * i];
                r.nextBytes(page);
                log.append(TxRecord.TYPE, new TxRecord(i + 1, 7, 42, TxRecord.PARITY_DELTA, 0, i, List.of(new int[]{ i, 16 * i, page.length, 99 }), List.of(new TxRecord.Extent(16 * i, page))).encode(), true);
            }
            seeds.add(fs.readFully("data.log", 0, (int) fs.size("data.log")));
        }
        catch (IOException e)
        {
            throw new IllegalStateException(e);
        }
        return new Simple("tsue-log", seeds, b -> {
            MemFileLayer fs = new MemFileLayer();
            fs.write("data.log", 0, b, 0, b.length);
            List<Object> out = new ArrayList<>();
            long end = RecordLog.HEADER_BYTES;
            for (RecordLog.Entry e : RecordLog.scan(fs, "data.log"))
            {
                out.add(e.type() == TxRecord.TYPE ? HEX.formatHex(TxRecord.decode(e.payload().duplicate()).encode()) : e.type());
                end = e.position() + RecordLog.FRAME_BYTES + e.payload().remaining();
            }
            // Recovery keeps the valid prefix and drops the rest (a torn or corrupt tail): that drop is the rejection.
            if (end < b.length)
                throw new IOException("log tail of " + (b.length - Math.min(end, b.length)) + " bytes dropped (torn or corrupt record)");
            return out;
        }, String::valueOf, false);
    }

    /** A framed cold object (docs/formats/cold-objects.md): footer, then every block verified as a ranged GET does. */
    static FuzzTarget coldObject()
    {
        String key = "elect/v1/c/ycsb/usertable/data/12";
        int tag = FramedFormat.keyTag(key);
        List<byte[]> seeds = new ArrayList<>();
        for (int len : new int[]{ 0, 100, FramedFormat.BLOCK_SIZE + 7 })
        {
            byte[] data = new byte[len];
            new Random(len).nextBytes(data);
            ByteBuffer out = ByteBuffer.allocate((int) FramedFormat.framedLength(len, true));
            for (long blk = 0; blk < FramedFormat.blockCount(len); blk++)
            {
                int from = (int) (blk * FramedFormat.BLOCK_SIZE), to = Math.min(len, from + FramedFormat.BLOCK_SIZE);
                ByteBuffer block = ByteBuffer.wrap(data, from, to - from);
                out.put(block.duplicate());
                out.putInt(FramedFormat.blockCrc(tag, blk, block));
            }
            CRC32C whole = new CRC32C();
            whole.update(data);
            FramedFormat.writeFooter(out, len, (int) whole.getValue(), tag);
            seeds.add(out.array());
        }
        return new Simple("cold-object", seeds, b -> {
            if (b.length < FramedFormat.FOOTER_SIZE)
                throw new io.elect.offload.CorruptObjectException(key, "shorter than a footer");
            ByteBuffer all = ByteBuffer.wrap(b);
            FramedFormat.Footer f = FramedFormat.readFooter(key, all.duplicate().position(b.length - FramedFormat.FOOTER_SIZE), b.length);
            ByteBuffer data = ByteBuffer.allocate((int) f.dataLength()); // bounded: readFooter checked it against the stored length
            FramedFormat.verifyAndCopy(key, tag, all.duplicate().limit(b.length - FramedFormat.FOOTER_SIZE), 0, f.dataLength(), 0, data);
            CRC32C whole = new CRC32C();
            whole.update(data.array());
            if ((int) whole.getValue() != f.dataCrc())
                throw new io.elect.offload.CorruptObjectException(key, "whole-object checksum mismatch");
            return HEX.formatHex(data.array());
        }, String::valueOf, true);
    }

    static FuzzTarget electYaml()
    {
        List<byte[]> seeds = new ArrayList<>();
        seeds.add(("cluster_name: 'x'\nelect:\n  data_chunks: 4\n  parity_chunks: 2\n  storage_saving_target: 0.6\n  transport_port: 7070\n"
                   + "  transport_encryption: tls\n  coder: auto\n  cold_tier:\n    endpoint: http://127.0.0.1:9000\n    bucket: elect\n"
                   + "    credentials_file: /etc/elect/s3\nnum_tokens: 1\n").getBytes(StandardCharsets.UTF_8));
        seeds.add("elect:\n  transport_max_frame_bytes: 4096\n  transition_interval_seconds: 3\n  hotness_hysteresis: 1.5\n".getBytes(StandardCharsets.UTF_8));
        seeds.add("elect: &a\n  offload_enabled: false\n# comment\nseeds: [*a]\n".getBytes(StandardCharsets.UTF_8));
        // anchors and aliases inside the section: mutations reach self-references (once a StackOverflowError)
        seeds.add("elect: &a\n  offload_enabled: false\n  cold_tier: &c\n    bucket: elect\n".getBytes(StandardCharsets.UTF_8));
        return new Simple("elect-yaml", seeds, b -> ElectYaml.split(new String(b, StandardCharsets.UTF_8)).config, String::valueOf, false)
        {
            @Override
            public boolean text()
            {
                return true;
            }
        };
    }

    // ------------------------------------------------------------------------------------------------ plumbing

    interface Decoder
    {
        Object decode(byte[] b) throws Exception;
    }

    /** A target from seeds, a decoder and a canonical form. */
    static class Simple implements FuzzTarget
    {
        private final String name;
        private final List<byte[]> seeds;
        private final Decoder decoder;
        private final Function<Object, String> canonical;
        private final boolean checksummed;

        Simple(String name, List<byte[]> seeds, Decoder decoder, Function<Object, String> canonical, boolean checksummed)
        {
            this.name = name;
            this.seeds = List.copyOf(seeds);
            this.decoder = decoder;
            this.canonical = canonical;
            this.checksummed = checksummed;
        }

        @Override
        public String name()
        {
            return name;
        }

        @Override
        public List<byte[]> seeds()
        {
            return seeds;
        }

        @Override
        public Object decode(byte[] input) throws Exception
        {
            return decoder.decode(input);
        }

        @Override
        public String canonical(Object value)
        {
            return canonical.apply(value);
        }

        @Override
        public boolean checksummed()
        {
            return checksummed;
        }
    }

    static Method method(String cls, String name, Class<?>... types) throws ReflectiveOperationException
    {
        Method m = Class.forName(cls).getDeclaredMethod(name, types);
        m.setAccessible(true);
        return m;
    }

    /** Invokes a static method, rethrowing what it threw. */
    static Object call(Method m, Object... args) throws Exception
    {
        try
        {
            return m.invoke(null, args);
        }
        catch (InvocationTargetException e)
        {
            Throwable c = e.getCause();
            if (c instanceof Exception)
                throw (Exception) c;
            if (c instanceof Error)
                throw (Error) c;
            throw e;
        }
    }
}
