package io.elect.core.transition.wire;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.StripeLayout;

/**
 * Payloads of the transitioning verbs (docs/formats/verbs.md). Each message is a record with {@code encode()} and a
 * static {@code decode(byte[])}; every payload starts with version byte {@link #VERSION}. Decoding validates counts
 * and lengths and fails with an IllegalArgumentException naming the message and field.
 */
public final class TransitionMessages
{
    /** DO NOT CHANGE without a new version: the version byte of every payload below. */
    public static final int VERSION = 1;

    private TransitionMessages()
    {
    }

    /** A table of ours: the subject of most verbs. */
    public record TableRef(String keyspace, String table)
    {
        void write(Wire.Writer w)
        {
            w.str(keyspace).str(table);
        }

        static TableRef read(Wire.Reader r)
        {
            return new TableRef(r.str("keyspace"), r.str("table"));
        }

        @Override
        public String toString()
        {
            return keyspace + "." + table;
        }
    }

    /** SNAPSHOT request: the bytes and candidates of one table on the receiving node. */
    public record SnapshotRequest(TableRef table)
    {
        public byte[] encode()
        {
            Wire.Writer w = new Wire.Writer(VERSION);
            table.write(w);
            return w.toBytes();
        }

        public static SnapshotRequest decode(byte[] b)
        {
            Wire.Reader r = new Wire.Reader(b, VERSION, "SnapshotRequest");
            SnapshotRequest out = new SnapshotRequest(TableRef.read(r));
            r.end();
            return out;
        }
    }

    /** A transition candidate: a cold last-level primary SSTable (id as Cassandra prints it). */
    public record CandidateInfo(String sstable, long bytes, double readRate, long ageMillis)
    {
    }

    /** PIN / COMMIT / ROLLBACK request: one data member of a stripe on the receiving node. */
    public record MemberRequest(TableRef table, String sstable, String stripeId)
    {
        public byte[] encode()
        {
            Wire.Writer w = new Wire.Writer(VERSION);
            table.write(w);
            return w.str(sstable).str(stripeId).toBytes();
        }

        public static MemberRequest decode(byte[] b)
        {
            Wire.Reader r = new Wire.Reader(b, VERSION, "MemberRequest");
            MemberRequest out = new MemberRequest(TableRef.read(r), r.str("sstable"), r.str("stripeId"));
            r.end();
            return out;
        }
    }

    /** One SSTable component file: its name as Cassandra suffixes it ("Index.db"), where it is, its length. */
    public record ComponentRef(String name, String location, long length)
    {
    }

    static void writeComponents(Wire.Writer w, List<ComponentRef> components)
    {
        w.i32(components.size());
        for (ComponentRef c : components)
            w.str(c.name()).str(c.location()).i64(c.length());
    }

    static List<ComponentRef> readComponents(Wire.Reader r)
    {
        int n = r.count("components", 16);
        List<ComponentRef> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++)
            out.add(new ComponentRef(r.str("component"), r.str("location"), r.i64("length")));
        return out;
    }

    /**
     * PIN response: where the member's data is on its node (absolute path), its other components (absolute paths)
     * and the data checksums.
     */
    public record MemberInfo(String dataPath, ChunkChecksums checksums, List<ComponentRef> components)
    {
        public byte[] encode()
        {
            Wire.Writer w = new Wire.Writer(VERSION);
            w.str(dataPath);
            writeChecksums(w, checksums);
            writeComponents(w, components);
            return w.toBytes();
        }

        public static MemberInfo decode(byte[] b)
        {
            Wire.Reader r = new Wire.Reader(b, VERSION, "MemberInfo");
            String data = r.str("dataPath");
            ChunkChecksums cs = readChecksums(r);
            List<ComponentRef> comps = readComponents(r);
            r.end();
            return new MemberInfo(data, cs, comps);
        }
    }

    /** BUILD_PARITY request: build parity member {@code index} of the stripe; {@code cold}: store it in the cold tier. */
    public record BuildParityRequest(TableRef table, String stripeId, StripeLayout layout, int index, boolean cold)
    {
        public byte[] encode()
        {
            Wire.Writer w = new Wire.Writer(VERSION);
            table.write(w);
            w.str(stripeId);
            writeLayout(w, layout);
            return w.i32(index).bool(cold).toBytes();
        }

        public static BuildParityRequest decode(byte[] b)
        {
            Wire.Reader r = new Wire.Reader(b, VERSION, "BuildParityRequest");
            BuildParityRequest out = new BuildParityRequest(TableRef.read(r), r.str("stripeId"), readLayout(r), r.i32("index"), r.bool("cold"));
            r.end();
            return out;
        }
    }

    /** BUILD_PARITY response: the parity member's locator and length. */
    public record ParityInfo(String locator, long length)
    {
        public byte[] encode()
        {
            return new Wire.Writer(VERSION).str(locator).i64(length).toBytes();
        }

        public static ParityInfo decode(byte[] b)
        {
            Wire.Reader r = new Wire.Reader(b, VERSION, "ParityInfo");
            ParityInfo out = new ParityInfo(r.str("locator"), r.i64("length"));
            r.end();
            return out;
        }
    }

    /** DESCRIBE_MEMBER response: a locator any node can read a committed member through, and its chunk checksums. */
    public record MemberLocation(String locator, ChunkChecksums checksums)
    {
        public byte[] encode()
        {
            Wire.Writer w = new Wire.Writer(VERSION).str(locator);
            writeChecksums(w, checksums);
            return w.toBytes();
        }

        public static MemberLocation decode(byte[] b)
        {
            Wire.Reader r = new Wire.Reader(b, VERSION, "MemberLocation");
            MemberLocation out = new MemberLocation(r.str("locator"), readChecksums(r));
            r.end();
            return out;
        }
    }

    /**
     * DROP_PARITY request: delete generation {@code generation} of parity member {@code index} of a stripe (local
     * file and cold object). Payload version 1 for generation 0 (the only one before member changes), version 2 adds
     * the generation (i64) at the end.
     */
    public record DropParityRequest(TableRef table, String stripeId, int index, long generation)
    {
        public static final int GENERATION_VERSION = 2;

        public DropParityRequest(TableRef table, String stripeId, int index)
        {
            this(table, stripeId, index, 0);
        }

        public DropParityRequest
        {
            if (generation < 0)
                throw new IllegalArgumentException("generation must be >= 0, was " + generation);
        }

        public byte[] encode()
        {
            Wire.Writer w = new Wire.Writer(generation == 0 ? VERSION : GENERATION_VERSION);
            table.write(w);
            w.str(stripeId).i32(index);
            if (generation != 0)
                w.i64(generation);
            return w.toBytes();
        }

        public static DropParityRequest decode(byte[] b)
        {
            int version = b.length > 0 && (b[0] & 0xff) == GENERATION_VERSION ? GENERATION_VERSION : VERSION;
            Wire.Reader r = new Wire.Reader(b, version, "DropParityRequest");
            TableRef t = TableRef.read(r);
            String stripe = r.str("stripeId");
            int index = r.i32("index");
            long generation = version == VERSION ? 0 : r.i64("generation");
            r.end();
            if (version == GENERATION_VERSION && generation < 1)
                throw new IllegalArgumentException("DropParityRequest: version 2 with generation " + generation);
            return new DropParityRequest(t, stripe, index, generation);
        }
    }

    /**
     * STUB request (to a data node: stub every secondary of this member) and STUB_INSTALL request (to one secondary:
     * install the stub from these component locators and purge older versions). {@code components} is empty in STUB;
     * in STUB_INSTALL their locations are {@code node:} locators.
     */
    public record StubRequest(TableRef table, String sstable, String stripeId, StripeLayout layout, int self,
                              ChunkChecksums checksums, List<ComponentRef> components)
    {
        public byte[] encode()
        {
            Wire.Writer w = new Wire.Writer(VERSION);
            table.write(w);
            w.str(sstable).str(stripeId);
            writeLayout(w, layout);
            w.i32(self);
            writeChecksums(w, checksums);
            writeComponents(w, components);
            return w.toBytes();
        }

        public static StubRequest decode(byte[] b)
        {
            Wire.Reader r = new Wire.Reader(b, VERSION, "StubRequest");
            TableRef t = TableRef.read(r);
            String sstable = r.str("sstable"), stripe = r.str("stripeId");
            StripeLayout layout = readLayout(r);
            int self = r.i32("self");
            ChunkChecksums cs = readChecksums(r);
            List<ComponentRef> comps = readComponents(r);
            r.end();
            return new StubRequest(t, sstable, stripe, layout, self, cs, comps);
        }
    }

    /** STUB / STUB_INSTALL response: secondaries stubbed and the bytes their purge removed. */
    public record StubResult(int secondaries, long bytesBefore, long bytesAfter, int skippedBusy)
    {
        public byte[] encode()
        {
            return new Wire.Writer(VERSION).i32(secondaries).i64(bytesBefore).i64(bytesAfter).i32(skippedBusy).toBytes();
        }

        public static StubResult decode(byte[] b)
        {
            Wire.Reader r = new Wire.Reader(b, VERSION, "StubResult");
            StubResult out = new StubResult(r.i32("secondaries"), r.i64("bytesBefore"), r.i64("bytesAfter"), r.i32("skippedBusy"));
            r.end();
            return out;
        }

        public StubResult plus(StubResult o)
        {
            return new StubResult(secondaries + o.secondaries, bytesBefore + o.bytesBefore, bytesAfter + o.bytesAfter,
                                  skippedBusy + o.skippedBusy);
        }
    }

    /**
     * OFFLOAD_PARITY / OFFLOAD_PRIMARY request: move this node's hot parity members (resp. encoded primaries) of the
     * table that are at least {@code minAgeMillis} old to the cold tier, oldest first, until at least {@code bytes}
     * moved (fewer if there are not enough).
     */
    public record OffloadRequest(TableRef table, long bytes, long minAgeMillis)
    {
        public byte[] encode()
        {
            Wire.Writer w = new Wire.Writer(VERSION);
            table.write(w);
            return w.i64(bytes).i64(minAgeMillis).toBytes();
        }

        public static OffloadRequest decode(byte[] b)
        {
            Wire.Reader r = new Wire.Reader(b, VERSION, "OffloadRequest");
            OffloadRequest out = new OffloadRequest(TableRef.read(r), r.i64("bytes"), r.i64("minAgeMillis"));
            r.end();
            return out;
        }
    }

    /** OFFLOAD_PARITY / OFFLOAD_PRIMARY response: hot-tier bytes moved to the cold tier and how many files. */
    public record OffloadResult(long bytes, int items)
    {
        public byte[] encode()
        {
            return new Wire.Writer(VERSION).i64(bytes).i32(items).toBytes();
        }

        public static OffloadResult decode(byte[] b)
        {
            Wire.Reader r = new Wire.Reader(b, VERSION, "OffloadResult");
            OffloadResult out = new OffloadResult(r.i64("bytes"), r.i32("items"));
            r.end();
            return out;
        }
    }

    /**
     * STRIPE_STATUS request: does the receiving node hold a stub of data member {@code self} of stripe
     * {@code stripeId}, whose SSTable {@code sstable} lives on {@code dataNode}? (Used by a rebuilding node to find
     * the non-data components, layout and checksums of members it held or must stub again.)
     */
    public record StripeStatusRequest(TableRef table, String stripeId, String dataNode, String sstable, int self)
    {
        public byte[] encode()
        {
            Wire.Writer w = new Wire.Writer(VERSION);
            table.write(w);
            return w.str(stripeId).str(dataNode).str(sstable).i32(self).toBytes();
        }

        public static StripeStatusRequest decode(byte[] b)
        {
            Wire.Reader r = new Wire.Reader(b, VERSION, "StripeStatusRequest");
            StripeStatusRequest out = new StripeStatusRequest(TableRef.read(r), r.str("stripeId"), r.str("dataNode"),
                                                              r.str("sstable"), r.i32("self"));
            r.end();
            return out;
        }
    }

    /**
     * STRIPE_STATUS response: {@code stub} is null if the node holds no such stub; otherwise a StubRequest whose
     * components are {@code node:} locators of the stub's own component files on the answering node, and the tokens
     * of the stub's first and last partitions (the member's span: with vnodes its natural replicas are those of
     * every ring range inside it, not only of the first). Payload version {@value #STRIPE_STATUS_VERSION}; version 1
     * (first token only) is still read, its last token taken as the first.
     */
    public record StripeStatus(StubRequest stub, String firstToken, String lastToken)
    {
        public static final int STRIPE_STATUS_VERSION = 2;

        /** No such stub. */
        public static StripeStatus none()
        {
            return new StripeStatus(null, null, null);
        }

        public byte[] encode()
        {
            Wire.Writer w = new Wire.Writer(STRIPE_STATUS_VERSION).bool(stub != null);
            if (stub == null)
                return w.toBytes();
            stub.table().write(w);
            w.str(stub.sstable()).str(stub.stripeId());
            writeLayout(w, stub.layout());
            w.i32(stub.self());
            writeChecksums(w, stub.checksums());
            writeComponents(w, stub.components());
            return w.str(firstToken).str(lastToken).toBytes();
        }

        public static StripeStatus decode(byte[] b)
        {
            int version = b.length > 0 && (b[0] & 0xff) == 1 ? 1 : STRIPE_STATUS_VERSION;
            Wire.Reader r = new Wire.Reader(b, version, "StripeStatus");
            if (!r.bool("found"))
            {
                r.end();
                return none();
            }
            TableRef t = TableRef.read(r);
            String sstable = r.str("sstable"), stripe = r.str("stripeId");
            StripeLayout layout = readLayout(r);
            int self = r.i32("self");
            ChunkChecksums cs = readChecksums(r);
            List<ComponentRef> comps = readComponents(r);
            String first = r.str("firstToken");
            String last = version == 1 ? first : r.str("lastToken");
            r.end();
            return new StripeStatus(new StubRequest(t, sstable, stripe, layout, self, cs, comps), first, last);
        }
    }

    /** STUB_PURGE and STUB_REMOVE request: the receiving node's stubs of one stripe (tagged with its id). */
    public record StripeRef(TableRef table, String stripeId)
    {
        public byte[] encode()
        {
            Wire.Writer w = new Wire.Writer(VERSION);
            table.write(w);
            return w.str(stripeId).toBytes();
        }

        public static StripeRef decode(byte[] b)
        {
            Wire.Reader r = new Wire.Reader(b, VERSION, "StripeRef");
            StripeRef out = new StripeRef(TableRef.read(r), r.str("stripeId"));
            r.end();
            return out;
        }
    }

    /** STUB_PURGE / STUB_REMOVE response: how many of the node's stubs of the stripe were purged against or removed. */
    public record StubCount(int stubs, long bytesBefore, long bytesAfter)
    {
        public byte[] encode()
        {
            return new Wire.Writer(VERSION).i32(stubs).i64(bytesBefore).i64(bytesAfter).toBytes();
        }

        public static StubCount decode(byte[] b)
        {
            Wire.Reader r = new Wire.Reader(b, VERSION, "StubCount");
            StubCount out = new StubCount(r.i32("stubs"), r.i64("bytesBefore"), r.i64("bytesAfter"));
            r.end();
            return out;
        }
    }

    /** An empty acknowledgement. */
    /**
     * How a PIN refusal starts when the SSTable is not there to take (neither live nor frozen under the stripe) or
     * belongs to another stripe: definitive, unlike a timeout or a compaction in progress (a fill is abandoned on it;
     * docs/formats/verbs.md, PIN).
     */
    public static final String MEMBER_NOT_TAKEN = "member not taken: ";

    public static byte[] ok()
    {
        return new Wire.Writer(VERSION).toBytes();
    }

    static void writeChecksums(Wire.Writer w, ChunkChecksums c)
    {
        w.i32(c.chunkSize()).i64(c.length()).i32(c.chunkCount());
        for (int i = 0; i < c.chunkCount(); i++)
            w.i32(c.crcOf(i));
    }

    static ChunkChecksums readChecksums(Wire.Reader r)
    {
        int chunkSize = r.i32("chunkSize");
        long length = r.i64("length");
        int n = r.count("crcs", 4);
        int[] crcs = new int[n];
        for (int i = 0; i < n; i++)
            crcs[i] = r.i32("crc");
        return new ChunkChecksums(chunkSize, length, crcs);
    }

    static void writeLayout(Wire.Writer w, StripeLayout l)
    {
        w.str(l.codecId()).i32(l.k()).i32(l.m());
        for (long d : l.dataLengths())
            w.i64(d);
        w.i64(l.stripeLength()).strings(l.locators());
    }

    static StripeLayout readLayout(Wire.Reader r)
    {
        String codec = r.str("codecId");
        int k = r.i32("k"), m = r.i32("m");
        // each bound on its own: k + m overflows for k near 2^31 and then passed (found by the fuzzer: new long[k] OOM)
        if (k < 1 || m < 1 || k > 255 || m > 255 || k + m > 256)
            throw new IllegalArgumentException("StripeLayout: bad k=" + k + " m=" + m);
        long[] lengths = new long[k];
        for (int i = 0; i < k; i++)
            lengths[i] = r.i64("dataLength");
        long stripeLength = r.i64("stripeLength");
        return new StripeLayout(codec, k, m, lengths, stripeLength, r.strings("locators"));
    }
}
