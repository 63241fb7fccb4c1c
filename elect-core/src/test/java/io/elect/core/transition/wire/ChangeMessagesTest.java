package io.elect.core.transition.wire;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.transition.wire.ChangeMessages.ParityChangeRequest;
import io.elect.core.transition.wire.ChangeMessages.RelayoutRequest;
import io.elect.core.transition.wire.ChangeMessages.RelayoutResult;
import io.elect.core.transition.wire.TransitionMessages.MemberLocation;
import io.elect.core.transition.wire.NodeSnapshot;
import io.elect.core.transition.wire.TransitionMessages.TableRef;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChangeMessagesTest
{
    private static final TableRef T = new TableRef("ks", "usertable");
    private static final ChunkChecksums SUMS = new ChunkChecksums(16384, 20000, new int[]{ 7, -3 });
    private static final StripeLayout PREVIOUS = new StripeLayout("rs-cauchy-gf8-v1", 2, 1, new long[]{ 20000, 9000 }, 20000,
                                                                  List.of("node:10.0.0.1:7070/d/a-Data.db", "cold:s3/tiered/b",
                                                                          "pending:parity"));

    @Test
    void parityChangeRoundTripsForARemovalAndAReplacement()
    {
        ParityChangeRequest removal = new ParityChangeRequest(T, "00112233445566778899aabbccddeeff", 0, 2, 0, PREVIOUS, SUMS, null, null);
        ParityChangeRequest back = ParityChangeRequest.decode(removal.encode());
        assertEquals(removal.previous(), back.previous());
        assertEquals(removal.toGeneration(), back.toGeneration());
        assertEquals(removal.slot(), back.slot());
        assertEquals(SUMS.length(), back.beforeChecksums().length());
        assertEquals(true, back.removal());
        ChunkChecksums after = new ChunkChecksums(16384, 100, new int[]{ 5 });
        ParityChangeRequest replace = new ParityChangeRequest(T, "00112233445566778899aabbccddeeff", 0, 2, 0, PREVIOUS, SUMS,
                                                              "node:10.0.0.1:7070/d/c-Data.db", after);
        ParityChangeRequest rb = ParityChangeRequest.decode(replace.encode());
        assertEquals("node:10.0.0.1:7070/d/c-Data.db", rb.afterLocator());
        assertEquals(100, rb.afterChecksums().length());
        // the previous version's checksums must cover the member the layout describes
        assertThrows(IllegalArgumentException.class, () -> new ParityChangeRequest(T, "s", 0, 2, 1, PREVIOUS, SUMS, null, null));
        assertThrows(IllegalArgumentException.class, () -> new ParityChangeRequest(T, "s", 0, 0, 0, PREVIOUS, SUMS, null, null));
    }

    /** A replacement with the member node's delta travels as version 2; without one it stays version 1. */
    @Test
    void aPushedDeltaIsVersionTwoAndRoundTrips()
    {
        ChunkChecksums after = new ChunkChecksums(16384, 100, new int[]{ 5 });
        ParityChangeRequest plain = new ParityChangeRequest(T, "00112233445566778899aabbccddeeff", 0, 2, 0, PREVIOUS, SUMS,
                                                            "node:10.0.0.1:7070/d/c-Data.db", after);
        assertEquals(1, plain.encode()[0]);
        ChunkChecksums deltaSums = new ChunkChecksums(16384, 20000, new int[]{ 9, 8 });
        ParityChangeRequest withDelta = plain.withDelta("node:10.0.0.1:7070/s/member-deltas/x.g2.delta", deltaSums);
        byte[] b = withDelta.encode();
        assertEquals(ParityChangeRequest.DELTA_VERSION, b[0]);
        ParityChangeRequest back = ParityChangeRequest.decode(b);
        assertTrue(back.hasDelta());
        assertEquals("node:10.0.0.1:7070/s/member-deltas/x.g2.delta", back.deltaLocator());
        assertEquals(20000, back.deltaChecksums().length());
        assertEquals("node:10.0.0.1:7070/d/c-Data.db", back.afterLocator());
        // the delta covers the longer version; a removal has none; version 3 is refused by name
        assertThrows(IllegalArgumentException.class, () -> plain.withDelta("x", after));
        ParityChangeRequest removal = new ParityChangeRequest(T, "s", 0, 2, 0, PREVIOUS, SUMS, null, null);
        assertThrows(IllegalArgumentException.class, () -> removal.withDelta("x", deltaSums));
        b[0] = 3;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ParityChangeRequest.decode(b));
        assertTrue(e.getMessage().contains("unsupported payload version 3 (this node reads 1..2)"), e.getMessage());
        io.elect.core.transition.wire.ChangeMessages.MemberDeltaRequest d =
            new io.elect.core.transition.wire.ChangeMessages.MemberDeltaRequest(T, "00112233445566778899aabbccddeeff", 2, 1);
        assertEquals(d, io.elect.core.transition.wire.ChangeMessages.MemberDeltaRequest.decode(d.encode()));
    }

    @Test
    void relayoutKeepsEachStubsOwnLocatorsAndChangesTheSlotAndParity()
    {
        RelayoutRequest r = new RelayoutRequest(T, "00112233445566778899aabbccddeeff", 1, 0, LocatorMemberReader.zero(), 0,
                                                List.of("node:10.0.0.3:7070/s/x-p0.g1.parity"));
        assertEquals(r, RelayoutRequest.decode(r.encode()));
        StripeLayout stub = new StripeLayout("rs-cauchy-gf8-v1", 2, 1, new long[]{ 20000, 9000 }, 20000,
                                             List.of("node:10.0.0.1:7070/d/a-Data.db", "node:10.0.0.2:7070/old/path", "node:10.0.0.3:7070/s/x-p0.parity"));
        StripeLayout next = r.apply(stub);
        assertEquals(List.of(LocatorMemberReader.zero(), "node:10.0.0.2:7070/old/path", "node:10.0.0.3:7070/s/x-p0.g1.parity"), next.locators());
        assertEquals(0, next.memberLength(0));
        assertEquals(20000, next.stripeLength(), "the code length stays when its longest member goes");
        assertEquals(new RelayoutResult(3, 1), RelayoutResult.decode(new RelayoutResult(3, 1).encode()));
        assertEquals(new MemberLocation("cold:s3/k", SUMS).locator(), MemberLocation.decode(new MemberLocation("cold:s3/k", SUMS).encode()).locator());
    }

    @Test
    void aRelayoutOfANewLastSlotWidensTheStubsLayoutWithinTheCauchyFamilyOnly()
    {
        String k2 = io.elect.coding.CauchyMatrix.codecId(2, 1);
        StripeLayout stub = new StripeLayout(k2, 2, 1, new long[]{ 20000, 9000 }, 20000,
                                             List.of("node:10.0.0.1:7070/d/a-Data.db", "node:10.0.0.2:7070/d/b-Data.db", "node:10.0.0.3:7070/s/x-p0.parity"));
        RelayoutRequest widen = new RelayoutRequest(T, "00112233445566778899aabbccddeeff", 1, 3, LocatorMemberReader.zero(), 0,
                                                    List.of("node:10.0.0.3:7070/s/x-p0.g1.parity"));
        StripeLayout wide = widen.apply(stub);
        assertEquals(4, wide.k());
        assertEquals(io.elect.coding.CauchyMatrix.codecId(4, 1), wide.codecId());
        assertEquals(List.of("node:10.0.0.1:7070/d/a-Data.db", "node:10.0.0.2:7070/d/b-Data.db", LocatorMemberReader.zero(), LocatorMemberReader.zero(),
                             "node:10.0.0.3:7070/s/x-p0.g1.parity"), wide.locators());
        assertEquals(java.util.Arrays.toString(new long[]{ 20000, 9000, 0, 0 }), java.util.Arrays.toString(wide.dataLengths()));
        assertEquals(20000, wide.stripeLength());
        // another codec family, or a real member in a slot beyond k: refused
        StripeLayout other = new StripeLayout("rs-other", 2, 1, new long[]{ 20000, 9000 }, 20000, stub.locators());
        assertThrows(IllegalArgumentException.class, () -> widen.apply(other));
        RelayoutRequest notZero = new RelayoutRequest(T, "00112233445566778899aabbccddeeff", 1, 2, "node:10.0.0.4:7070/d/c-Data.db", 10,
                                                      List.of("node:10.0.0.3:7070/s/x-p0.g1.parity"));
        assertThrows(IllegalArgumentException.class, () -> notZero.apply(stub));
        // a new member longer than the code grows the layout's code length (its parity grew with it)
        RelayoutRequest longer = new RelayoutRequest(T, "00112233445566778899aabbccddeeff", 1, 1, "node:10.0.0.2:7070/d/c-Data.db", 20500,
                                                     List.of("node:10.0.0.3:7070/s/x-p0.g1.parity"));
        assertEquals(20500, longer.apply(stub).stripeLength());
        assertEquals(20500, longer.apply(stub).memberLength(1));
    }

    @Test
    void materializeRoundTripsAndRejectsMissingFields()
    {
        ChangeMessages.MaterializeRequest req = new ChangeMessages.MaterializeRequest(T, "00112233445566778899aabbccddeeff", 1, "10.0.0.4");
        assertEquals(req, ChangeMessages.MaterializeRequest.decode(req.encode()));
        assertThrows(IllegalArgumentException.class, () -> new ChangeMessages.MaterializeRequest(T, "s", 256, "10.0.0.4"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ChangeMessages.MaterializeRequest.decode(
            new ChangeMessages.MaterializeRequest(T, "00112233445566778899aabbccddeeff", 1, null).encode()));
        assertTrue(e.getMessage().contains("departed"), e.getMessage());
        ChangeMessages.MaterializeResult r = new ChangeMessages.MaterializeResult(2, 4096);
        assertEquals(r, ChangeMessages.MaterializeResult.decode(r.encode()));
        assertEquals(new ChangeMessages.MaterializeResult(3, 5000), r.plus(new ChangeMessages.MaterializeResult(1, 904)));
        assertThrows(IllegalArgumentException.class, () -> new ChangeMessages.MaterializeResult(-1, 0));
    }

    /** Found by scripts/fuzz formats: a list entry with the null marker (length -1) was a NullPointerException. */
    @Test
    void aNullListEntryIsACleanRejection()
    {
        RelayoutRequest r = new RelayoutRequest(T, "00112233445566778899aabbccddeeff", 1, 0, LocatorMemberReader.zero(), 0, List.of("x"));
        byte[] b = r.encode();
        // the last entry is "x": length 1, then one byte; make it the null marker and drop the byte
        byte[] bad = java.util.Arrays.copyOf(b, b.length - 1);
        java.nio.ByteBuffer.wrap(bad).putInt(bad.length - 4, -1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RelayoutRequest.decode(bad));
        assertTrue(e.getMessage().contains("parityLocators"), e.getMessage());
    }

    @Test
    void snapshotCarriesPerFileShadowAnswers()
    {
        NodeSnapshot s = new NodeSnapshot("n1", new long[0][0], 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of(), 0,
                                          Map.of("a", false), Map.of("a", Map.of(-1, true, 2, false)));
        NodeSnapshot back = NodeSnapshot.decode(s.encode());
        assertEquals(s.files(), back.files());
        assertEquals(s.stripes(), back.stripes());
        byte[] bad = s.encode();
        bad[0] = 3;
        assertThrows(IllegalArgumentException.class, () -> NodeSnapshot.decode(bad), "version 3 answers are refused");
    }
}
