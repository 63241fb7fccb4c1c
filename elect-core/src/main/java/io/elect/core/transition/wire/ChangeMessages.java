package io.elect.core.transition.wire;

import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.transition.wire.TransitionMessages.TableRef;

import java.util.List;

/**
 * Payloads of the member-change verbs (PARITY_CHANGE, STUB_RELAYOUT; docs/formats/verbs.md, docs/design/updates.md
 * item 4). Same conventions as {@link TransitionMessages}: version byte first, every count and length bounded.
 */
public final class ChangeMessages
{
    /** DO NOT CHANGE without a new version: the version byte of every payload below. */
    public static final int VERSION = 1;

    private ChangeMessages()
    {
    }

    /**
     * PARITY_CHANGE request, to the node of parity member {@code index}: build generation {@code toGeneration} of
     * it from generation {@code toGeneration - 1} with data member {@code slot} changed from its previous version
     * (read through {@code previous}'s locator, verified by {@code beforeChecksums}) to its next one (read through
     * {@code afterLocator}, verified by {@code afterChecksums}; both absent for a removal). A replacement may also
     * carry the member node's difference of the two versions ({@code deltaLocator}, verified by
     * {@code deltaChecksums}: previous XOR next, each zero-padded, over the longer of the two; MEMBER_DELTA): a
     * parity node that applies deltas then reads that one stream instead of both versions. Encoded as version 2 only
     * when it carries a delta (version 1 otherwise, as before).
     *
     * @param previous the stripe's layout under the previous generation (data locators and lengths; parity locators
     *                 are placeholders and never read)
     */
    public record ParityChangeRequest(TableRef table, String stripeId, int index, long toGeneration, int slot, StripeLayout previous,
                                      ChunkChecksums beforeChecksums, String afterLocator, ChunkChecksums afterChecksums,
                                      String deltaLocator, ChunkChecksums deltaChecksums)
    {
        public static final int DELTA_VERSION = 2;

        /** Without a delta (version 1). */
        public ParityChangeRequest(TableRef table, String stripeId, int index, long toGeneration, int slot, StripeLayout previous,
                                   ChunkChecksums beforeChecksums, String afterLocator, ChunkChecksums afterChecksums)
        {
            this(table, stripeId, index, toGeneration, slot, previous, beforeChecksums, afterLocator, afterChecksums, null, null);
        }

        public ParityChangeRequest
        {
            if (toGeneration < 1)
                throw new IllegalArgumentException("toGeneration must be >= 1, was " + toGeneration);
            if (slot < 0 || slot >= previous.k() || index < 0 || index >= previous.m())
                throw new IllegalArgumentException("slot " + slot + " / index " + index + " outside k=" + previous.k() + ", m=" + previous.m());
            if ((afterLocator == null) != (afterChecksums == null))
                throw new IllegalArgumentException("afterLocator and afterChecksums are both present or both absent");
            if (beforeChecksums.length() != previous.memberLength(slot))
                throw new IllegalArgumentException("beforeChecksums cover " + beforeChecksums.length() + " bytes, member " + slot
                                                   + " has " + previous.memberLength(slot));
            if ((deltaLocator == null) != (deltaChecksums == null))
                throw new IllegalArgumentException("deltaLocator and deltaChecksums are both present or both absent");
            if (deltaLocator != null && (afterLocator == null
                                         || deltaChecksums.length() != Math.max(beforeChecksums.length(), afterChecksums.length())))
                throw new IllegalArgumentException("a delta belongs to a replacement and covers the longer version ("
                                                   + Math.max(beforeChecksums.length(), afterChecksums == null ? 0 : afterChecksums.length())
                                                   + " bytes), got " + deltaChecksums.length());
        }

        /** With the member node's difference of the two versions. */
        public ParityChangeRequest withDelta(String locator, ChunkChecksums checksums)
        {
            return new ParityChangeRequest(table, stripeId, index, toGeneration, slot, previous, beforeChecksums, afterLocator, afterChecksums,
                                           locator, checksums);
        }

        public boolean hasDelta()
        {
            return deltaLocator != null;
        }

        public boolean removal()
        {
            return afterLocator == null;
        }

        public byte[] encode()
        {
            Wire.Writer w = new Wire.Writer(hasDelta() ? DELTA_VERSION : VERSION);
            table.write(w);
            w.str(stripeId).i32(index).i64(toGeneration).i32(slot);
            TransitionMessages.writeLayout(w, previous);
            TransitionMessages.writeChecksums(w, beforeChecksums);
            w.bool(afterLocator != null);
            if (afterLocator != null)
            {
                w.str(afterLocator);
                TransitionMessages.writeChecksums(w, afterChecksums);
            }
            if (hasDelta())
            {
                w.str(deltaLocator);
                TransitionMessages.writeChecksums(w, deltaChecksums);
            }
            return w.toBytes();
        }

        public static ParityChangeRequest decode(byte[] b)
        {
            Wire.Reader r = new Wire.Reader(b, VERSION, DELTA_VERSION, "ParityChangeRequest");
            TableRef t = TableRef.read(r);
            String stripe = r.str("stripeId");
            int index = r.i32("index");
            long gen = r.i64("toGeneration");
            int slot = r.i32("slot");
            StripeLayout prev = TransitionMessages.readLayout(r);
            ChunkChecksums before = TransitionMessages.readChecksums(r);
            String after = null;
            ChunkChecksums afterSums = null;
            if (r.bool("hasAfter"))
            {
                after = r.str("afterLocator");
                afterSums = TransitionMessages.readChecksums(r);
            }
            String delta = null;
            ChunkChecksums deltaSums = null;
            if (r.version() == DELTA_VERSION)
            {
                delta = r.str("deltaLocator");
                deltaSums = TransitionMessages.readChecksums(r);
            }
            r.end();
            return new ParityChangeRequest(t, stripe, index, gen, slot, prev, before, after, afterSums, delta, deltaSums);
        }
    }

    /**
     * MEMBER_DELTA request, to the node of a replaced member (a merge): the difference of member {@code slot}'s
     * previous and next versions while the stripe is CHANGING to parity generation {@code toGeneration} (both versions
     * on that node: the record's change names the previous one, its slot the next). Answered by a MemberLocation of
     * the difference (a file in the node's state directory; checksums over the longer version's length).
     */
    public record MemberDeltaRequest(TableRef table, String stripeId, long toGeneration, int slot)
    {
        public MemberDeltaRequest
        {
            if (toGeneration < 1 || slot < 0 || slot > 255)
                throw new IllegalArgumentException("MemberDeltaRequest: toGeneration " + toGeneration + ", slot " + slot);
        }

        public byte[] encode()
        {
            Wire.Writer w = new Wire.Writer(VERSION);
            table.write(w);
            return w.str(stripeId).i64(toGeneration).i32(slot).toBytes();
        }

        public static MemberDeltaRequest decode(byte[] b)
        {
            Wire.Reader r = new Wire.Reader(b, VERSION, "MemberDeltaRequest");
            MemberDeltaRequest out = new MemberDeltaRequest(TableRef.read(r), r.str("stripeId"), r.i64("toGeneration"), r.i32("slot"));
            r.end();
            return out;
        }
    }

    /**
     * STUB_RELAYOUT request, to every ring node: each of its stubs of the stripe switches to parity generation
     * {@code generation}: member {@code slot}'s locator and length become {@code slotLocator} and
     * {@code slotLength} (the zero locator and 0 for a removal), the parity locators become
     * {@code parityLocators}; the other members' locators stay as each stub has them. Stubs OF member {@code slot}
     * are removed (a removal: everything they hold is shadowed).
     */
    public record RelayoutRequest(TableRef table, String stripeId, long generation, int slot, String slotLocator, long slotLength,
                                  List<String> parityLocators)
    {
        public RelayoutRequest
        {
            parityLocators = List.copyOf(parityLocators);
            if (generation < 1 || slot < 0 || slotLength < 0 || parityLocators.isEmpty())
                throw new IllegalArgumentException("RelayoutRequest: generation " + generation + ", slot " + slot + ", slotLength "
                                                   + slotLength + ", " + parityLocators.size() + " parity locators");
        }

        public byte[] encode()
        {
            Wire.Writer w = new Wire.Writer(VERSION);
            table.write(w);
            return w.str(stripeId).i64(generation).i32(slot).str(slotLocator).i64(slotLength).strings(parityLocators).toBytes();
        }

        public static RelayoutRequest decode(byte[] b)
        {
            Wire.Reader r = new Wire.Reader(b, VERSION, "RelayoutRequest");
            RelayoutRequest out = new RelayoutRequest(TableRef.read(r), r.str("stripeId"), r.i64("generation"), r.i32("slot"),
                                                      r.str("slotLocator"), r.i64("slotLength"), r.strings("parityLocators"));
            r.end();
            return out;
        }

        /**
         * {@code current} (a stub's layout) under this request's plan. A slot at or beyond the layout's k is a widening
         * (StripeRecord.beginReshape, issue 18): the layout grows to k = slot + 1 with zero chunks, under the Cauchy
         * codec of that shape (whose coefficients for the existing slots are the same; any other codec is refused).
         */
        public StripeLayout apply(StripeLayout current)
        {
            if (parityLocators.size() != current.m())
                throw new IllegalArgumentException("relayout of slot " + slot + " with " + parityLocators.size()
                                                   + " parity locators does not fit k=" + current.k() + ", m=" + current.m());
            int k = Math.max(current.k(), slot + 1);
            String codec = current.codecId();
            if (k > current.k())
            {
                if (!codec.equals(io.elect.coding.CauchyMatrix.codecId(current.k(), current.m())) || k + current.m() > 256
                    || !LocatorMemberReader.isZero(slotLocator) || slotLength != 0)
                    throw new IllegalArgumentException("relayout of slot " + slot + " would widen a layout of codec " + codec + " (k="
                                                       + current.k() + ", m=" + current.m() + ") other than by zero chunks of the Cauchy family");
                codec = io.elect.coding.CauchyMatrix.codecId(k, current.m());
            }
            long[] lengths = java.util.Arrays.copyOf(current.dataLengths(), k);
            lengths[slot] = slotLength;
            List<String> locators = new java.util.ArrayList<>(current.locators().subList(0, current.k()));
            while (locators.size() < k)
                locators.add(LocatorMemberReader.zero());
            locators.set(slot, slotLocator);
            locators.addAll(parityLocators);
            // a slot's new member longer than the code grows it (its parity grew the same way: ParityDeltaApplier)
            return new StripeLayout(codec, k, current.m(), lengths, Math.max(current.stripeLength(), slotLength), locators);
        }
    }

    /** STUB_RELAYOUT response: stubs switched to the new layout, and stubs of the changed member removed. */
    public record RelayoutResult(int switched, int removed)
    {
        public byte[] encode()
        {
            return new Wire.Writer(VERSION).i32(switched).i32(removed).toBytes();
        }

        public static RelayoutResult decode(byte[] b)
        {
            Wire.Reader r = new Wire.Reader(b, VERSION, "RelayoutResult");
            RelayoutResult out = new RelayoutResult(r.i32("switched"), r.i32("removed"));
            r.end();
            return out;
        }

        public RelayoutResult plus(RelayoutResult o)
        {
            return new RelayoutResult(switched + o.switched, removed + o.removed);
        }
    }

    /**
     * MERGE_MEMBER request, to a member's node: write the next version of member {@code sstable} of the stripe (the
     * member without what newer members and stubs of other stripes shadow on every replica; docs/design/updates.md)
     * as a live file frozen under the stripe, unless it would free less than {@code minShare} of the member's data
     * bytes.
     */
    public record MergeRequest(TableRef table, String sstable, String stripeId, double minShare)
    {
        public MergeRequest
        {
            if (!(minShare >= 0 && minShare <= 1))
                throw new IllegalArgumentException("MergeRequest: minShare " + minShare + " outside [0, 1]");
        }

        public byte[] encode()
        {
            Wire.Writer w = new Wire.Writer(VERSION);
            table.write(w);
            return w.str(sstable).str(stripeId).f64(minShare).toBytes();
        }

        public static MergeRequest decode(byte[] b)
        {
            Wire.Reader r = new Wire.Reader(b, VERSION, "MergeRequest");
            MergeRequest out = new MergeRequest(TableRef.read(r), r.str("sstable"), r.str("stripeId"), r.f64("minShare"));
            r.end();
            if (out.sstable() == null || out.stripeId() == null)
                throw new IllegalArgumentException("MergeRequest: sstable and stripeId are required");
            return out;
        }
    }

    /**
     * MERGE_MEMBER response: the next version's file id and data bytes, and the member's data bytes; {@code sstable}
     * empty when the merge was declined (it would free less than asked).
     */
    public record MergeResult(String sstable, long dataBytes, long bytesBefore)
    {
        public MergeResult
        {
            if (sstable == null || dataBytes < 0 || bytesBefore < 0 || (!sstable.isEmpty() && dataBytes > bytesBefore))
                throw new IllegalArgumentException("MergeResult: sstable " + sstable + ", " + dataBytes + " of " + bytesBefore + " bytes");
        }

        public static MergeResult declined(long bytesBefore)
        {
            return new MergeResult("", 0, bytesBefore);
        }

        public boolean merged()
        {
            return !sstable.isEmpty();
        }

        public byte[] encode()
        {
            return new Wire.Writer(VERSION).str(sstable).i64(dataBytes).i64(bytesBefore).toBytes();
        }

        public static MergeResult decode(byte[] b)
        {
            Wire.Reader r = new Wire.Reader(b, VERSION, "MergeResult");
            MergeResult out = new MergeResult(r.str("sstable"), r.i64("dataBytes"), r.i64("bytesBefore"));
            r.end();
            return out;
        }
    }

    /**
     * STUB_MATERIALIZE (issue 18, a member's node left the ring): every stub of member {@code slot} of the stripe on
     * the receiving node is rewritten as an ordinary SSTable with the same rows (read through the stub, so decoded
     * from the stripe) and then removed. {@code departed} names the member's node; the receiver refuses unless its own
     * view of the ring agrees that node has left.
     */
    public record MaterializeRequest(TableRef table, String stripeId, int slot, String departed)
    {
        public MaterializeRequest
        {
            if (slot < 0 || slot > 255)
                throw new IllegalArgumentException("MaterializeRequest: slot " + slot + " outside [0, 255]");
        }

        public byte[] encode()
        {
            Wire.Writer w = new Wire.Writer(VERSION);
            table.write(w);
            return w.str(stripeId).i32(slot).str(departed).toBytes();
        }

        public static MaterializeRequest decode(byte[] b)
        {
            Wire.Reader r = new Wire.Reader(b, VERSION, "MaterializeRequest");
            MaterializeRequest out = new MaterializeRequest(TableRef.read(r), r.str("stripeId"), r.i32("slot"), r.str("departed"));
            r.end();
            if (out.stripeId() == null || out.departed() == null)
                throw new IllegalArgumentException("MaterializeRequest: stripeId and departed are required");
            return out;
        }
    }

    /** STUB_MATERIALIZE response: stubs rewritten as ordinary SSTables on the node, and the bytes written. */
    public record MaterializeResult(int stubs, long bytes)
    {
        public MaterializeResult
        {
            if (stubs < 0 || bytes < 0)
                throw new IllegalArgumentException("MaterializeResult: " + stubs + " stubs, " + bytes + " bytes");
        }

        public MaterializeResult plus(MaterializeResult o)
        {
            return new MaterializeResult(stubs + o.stubs, bytes + o.bytes);
        }

        public byte[] encode()
        {
            return new Wire.Writer(VERSION).i32(stubs).i64(bytes).toBytes();
        }

        public static MaterializeResult decode(byte[] b)
        {
            Wire.Reader r = new Wire.Reader(b, VERSION, "MaterializeResult");
            MaterializeResult out = new MaterializeResult(r.i32("stubs"), r.i64("bytes"));
            r.end();
            return out;
        }
    }
}
