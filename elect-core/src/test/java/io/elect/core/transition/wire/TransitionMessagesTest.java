package io.elect.core.transition.wire;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.transition.wire.TransitionMessages.BuildParityRequest;
import io.elect.core.transition.wire.TransitionMessages.CandidateInfo;
import io.elect.core.transition.wire.TransitionMessages.ComponentRef;
import io.elect.core.transition.wire.TransitionMessages.DropParityRequest;
import io.elect.core.transition.wire.TransitionMessages.MemberInfo;
import io.elect.core.transition.wire.TransitionMessages.MemberRequest;
import io.elect.core.transition.wire.NodeSnapshot;
import io.elect.core.transition.wire.TransitionMessages.ParityInfo;
import io.elect.core.transition.wire.TransitionMessages.SnapshotRequest;
import io.elect.core.transition.wire.TransitionMessages.StubRequest;
import io.elect.core.transition.wire.TransitionMessages.StubResult;
import io.elect.core.transition.wire.TransitionMessages.TableRef;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Round trips of every transitioning payload, and rejection of truncated, padded and foreign-version payloads. */
class TransitionMessagesTest
{
    private static final TableRef T = new TableRef("ks", "usertable");
    private static final ChunkChecksums SUMS = new ChunkChecksums(16384, 20000, new int[]{ 7, -3 });
    private static final StripeLayout LAYOUT = new StripeLayout("rs-cauchy-gf8-v1", 2, 1, new long[]{ 20000, 0 }, 20000,
                                                                List.of("node:10.0.0.1:7070/d/a-Data.db", "zero:", "cold:cold-tier/p/0"));

    @Test
    void roundTrips()
    {
        assertEquals(new SnapshotRequest(T), SnapshotRequest.decode(new SnapshotRequest(T).encode()));
        NodeSnapshot snap = new NodeSnapshot("10.0.0.1", new long[][]{ { 1, 2, 3 }, { 4, 5, 6 } }, 7, 6, 8, 7, 9, 10, 11, 12, 13,
                                             List.of(new CandidateInfo("3gfx_0k7r_2", 1000, 0.25, 99)), 14);
        NodeSnapshot back = NodeSnapshot.decode(snap.encode());
        assertEquals(14, back.obsolete());
        assertEquals(NodeSnapshot.SNAPSHOT_VERSION, snap.encode()[0], "SNAPSHOT payloads carry their own version");
        assertTrue(Arrays.deepEquals(snap.unencoded(), back.unencoded()));
        assertEquals(snap.candidates(), back.candidates());
        assertEquals(List.of(snap.encodable(), snap.encodableOld(), snap.encodedHot(), snap.encodedHotOld(), snap.encodedCold(),
                             snap.stubs(), snap.replacedSecondaries(), snap.parityHot(), snap.parityCold()),
                     List.of(back.encodable(), back.encodableOld(), back.encodedHot(), back.encodedHotOld(), back.encodedCold(),
                             back.stubs(), back.replacedSecondaries(), back.parityHot(), back.parityCold()));
        assertEquals(1 + 2 + 3 + 4 + 5 + 6 + 8 + 10 + 12, snap.hotBytes());
        // version 3: each stripe with files on the node, and whether they are all fully shadowed
        java.util.Map<String, Boolean> stripes = java.util.Map.of("00112233445566778899aabbccddeeff", true,
                                                                  "ffeeddccbbaa99887766554433221100", false);
        NodeSnapshot withStripes = new NodeSnapshot("10.0.0.1", new long[0][0], 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of(), 0, stripes);
        assertEquals(stripes, NodeSnapshot.decode(withStripes.encode()).stripes());
        assertEquals(stripes, withStripes.withoutCandidates().stripes());
        assertTrue(back.stripes().isEmpty());
        // version 7: encoded members' bytes outside the node's ranges, kept by withoutCandidates, refused beyond the members' bytes
        NodeSnapshot moved = new NodeSnapshot("10.0.0.1", new long[0][0], 0, 0, 800, 0, 200, 0, 0, 0, 0, List.of(), 0,
                                              java.util.Map.of(), java.util.Map.of(), java.util.Map.of(), 300);
        assertEquals(300, NodeSnapshot.decode(moved.encode()).unreplicated());
        assertEquals(300, moved.withoutCandidates().unreplicated());
        assertEquals(0, back.unreplicated());
        assertThrows(IllegalArgumentException.class, () -> new NodeSnapshot("10.0.0.1", new long[0][0], 0, 0, 800, 0, 200, 0, 0, 0, 0,
                                                                            List.of(), 0, java.util.Map.of(), java.util.Map.of(),
                                                                            java.util.Map.of(), 1001));

        MemberRequest mr = new MemberRequest(T, "3gfx_0k7r_2", "00112233445566778899aabbccddeeff");
        assertEquals(mr, MemberRequest.decode(mr.encode()));
        MemberInfo mi = new MemberInfo("/d/a-Data.db", SUMS, List.of(new ComponentRef("Index.db", "/d/a-Index.db", 42)));
        MemberInfo mib = MemberInfo.decode(mi.encode());
        assertEquals(mi.dataPath(), mib.dataPath());
        assertEquals(mi.components(), mib.components());
        for (int i = 0; i < SUMS.chunkCount(); i++)
            assertEquals(SUMS.crcOf(i), mib.checksums().crcOf(i));
        assertEquals(SUMS.length(), mib.checksums().length());

        BuildParityRequest bp = new BuildParityRequest(T, "00112233445566778899aabbccddeeff", LAYOUT, 0, true);
        assertEquals(bp, BuildParityRequest.decode(bp.encode()));
        assertEquals(new ParityInfo("cold:x/y", 5), ParityInfo.decode(new ParityInfo("cold:x/y", 5).encode()));
        DropParityRequest dp = new DropParityRequest(T, "00112233445566778899aabbccddeeff", 1);
        assertEquals(dp, DropParityRequest.decode(dp.encode()));
        assertEquals(1, dp.encode()[0], "generation 0 is payload version 1 (what nodes before member changes read)");
        DropParityRequest dp2 = new DropParityRequest(T, "00112233445566778899aabbccddeeff", 1, 3);
        assertEquals(2, dp2.encode()[0]);
        assertEquals(dp2, DropParityRequest.decode(dp2.encode()));
        byte[] zeroGen = dp2.encode();
        java.nio.ByteBuffer.wrap(zeroGen).putLong(zeroGen.length - 8, 0);
        assertThrows(IllegalArgumentException.class, () -> DropParityRequest.decode(zeroGen), "version 2 with generation 0");
        StubRequest sr = new StubRequest(T, "3gfx_0k7r_2", "00112233445566778899aabbccddeeff", LAYOUT, 0, SUMS,
                                         List.of(new ComponentRef("Index.db", "node:10.0.0.1:7070/d/a-Index.db", 42)));
        StubRequest srb = StubRequest.decode(sr.encode());
        assertEquals(sr.layout(), srb.layout());
        assertEquals(sr.components(), srb.components());
        assertEquals(sr.self(), srb.self());
        assertEquals(new StubResult(2, 100, 10, 1), StubResult.decode(new StubResult(2, 100, 10, 1).encode()));
        TransitionMessages.StripeStatusRequest ssr = new TransitionMessages.StripeStatusRequest(T, "00112233445566778899aabbccddeeff",
                                                                                                "10.0.0.3", "ks.t/3gfx_0k7r_2", 1);
        assertEquals(ssr, TransitionMessages.StripeStatusRequest.decode(ssr.encode()));
        TransitionMessages.StripeStatus none = TransitionMessages.StripeStatus.decode(TransitionMessages.StripeStatus.none().encode());
        assertNull(none.stub());
        byte[] v2 = new TransitionMessages.StripeStatus(sr, "-4611686018427387904", "-4611686018427387000").encode();
        TransitionMessages.StripeStatus found = TransitionMessages.StripeStatus.decode(v2);
        assertEquals(sr.layout(), found.stub().layout());
        assertEquals(sr.components(), found.stub().components());
        assertEquals(sr.stripeId(), found.stub().stripeId());
        assertEquals("-4611686018427387904", found.firstToken());
        assertEquals("-4611686018427387000", found.lastToken(), "the member's span, not only its first token (vnodes)");
        assertEquals(2, v2[0]);
        // version 1 (older nodes: no last token) is still read, its span taken as the first token alone
        byte[] v1 = java.util.Arrays.copyOf(v2, v2.length - 4 - "-4611686018427387000".length());
        v1[0] = 1;
        TransitionMessages.StripeStatus old = TransitionMessages.StripeStatus.decode(v1);
        assertEquals("-4611686018427387904", old.firstToken());
        assertEquals("-4611686018427387904", old.lastToken());
        byte[] v3 = v2.clone();
        v3[0] = 3;
        assertThrows(IllegalArgumentException.class, () -> TransitionMessages.StripeStatus.decode(v3));
    }

    @Test
    void rejectsBadPayloads()
    {
        byte[] good = new MemberRequest(T, "id", "stripe").encode();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MemberRequest.decode(Arrays.copyOf(good, good.length - 1)));
        assertTrue(e.getMessage().contains("truncated"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> MemberRequest.decode(Arrays.copyOf(good, good.length + 1)));
        assertTrue(e.getMessage().contains("trailing"), e.getMessage());
        byte[] v2 = good.clone();
        v2[0] = 2;
        e = assertThrows(IllegalArgumentException.class, () -> MemberRequest.decode(v2));
        assertTrue(e.getMessage().contains("version 2"), e.getMessage());
        // a huge count must not allocate: it is checked against the bytes left
        byte[] snap = new NodeSnapshot("n", new long[0][0], 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of()).encode();
        snap[snap.length - 32] = 0x7f; // the candidates count (followed by the 8-byte obsolete field, the stripes, files and mergeable counts, the 8-byte unreplicated field)
        assertThrows(IllegalArgumentException.class, () -> NodeSnapshot.decode(snap));
    }
}
