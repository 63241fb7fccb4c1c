package io.elect.core.node;

import org.junit.jupiter.api.Test;

import io.elect.core.stripes.LocatorMemberReader;
import io.elect.core.stripes.Member;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Golden cases (Cassandra file names: {@code <version>-<id>-<format>-Data.db}, members named {@code ks.table/<id>}) of which stubs of a changed slot STUB_RELAYOUT removes ({@link LocalChangeOps#ofPrevious}). */
class StubRelayoutRuleTest
{
    private static final Member PREVIOUS = new Member("10.0.0.3", "ks.t/3h5v_53", 604);
    private static final Member NEXT = new Member("10.0.0.3", "ks.t/3h5v_87", 512);
    private static final String PREVIOUS_FILE = "node:10.0.0.3:7070/d/ks/t/nb-3h5v_53-big-Data.db";
    private static final String NEXT_FILE = "node:10.0.0.3:7070/d/ks/t/nb-3h5v_87-big-Data.db";
    /** The next version restored by a rebuild of its node under another file, after its stubs were installed. */
    private static final String NEXT_RESTORED = "node:10.0.0.3:7070/d/ks/t/nb-3h5v_91-big-Data.db";

    @Test
    void aReplacementRemovesThePreviousVersionsStubsOnlyWhereverTheNextOnesPoint()
    {
        assertTrue(LocalChangeOps.ofPrevious(PREVIOUS_FILE, PREVIOUS, NEXT, false, NEXT_FILE));
        assertFalse(LocalChangeOps.ofPrevious(NEXT_FILE, PREVIOUS, NEXT, false, NEXT_FILE));
        // the request names the restored file; the next version's stubs still name the original one: kept
        assertFalse(LocalChangeOps.ofPrevious(NEXT_FILE, PREVIOUS, NEXT, false, NEXT_RESTORED));
        // the same id on another node is another SSTable; an id that only starts the same is another one too
        assertFalse(LocalChangeOps.ofPrevious("node:10.0.0.4:7070/d/ks/t/nb-3h5v_53-big-Data.db", PREVIOUS, NEXT, false, NEXT_FILE));
        assertFalse(LocalChangeOps.ofPrevious("node:10.0.0.3:7070/d/ks/t/nb-3h5v_530-big-Data.db", PREVIOUS, NEXT, false, NEXT_FILE));
    }

    @Test
    void aRemovalRemovesEveryStubOfTheSlotAFillAWideningAndAParityMoveNone()
    {
        assertTrue(LocalChangeOps.ofPrevious(PREVIOUS_FILE, PREVIOUS, Member.virtual(), true, LocatorMemberReader.zero()));
        assertFalse(LocalChangeOps.ofPrevious(NEXT_FILE, Member.virtual(), NEXT, false, NEXT_FILE), "a fill");
        assertFalse(LocalChangeOps.ofPrevious(PREVIOUS_FILE, Member.virtual(), Member.virtual(), true, LocatorMemberReader.zero()), "a widening");
        assertFalse(LocalChangeOps.ofPrevious(PREVIOUS_FILE, PREVIOUS, PREVIOUS, false, PREVIOUS_FILE), "a parity move keeps the member's stubs");
    }

    @Test
    void aLocatorOfAnotherKindKeepsOnlyTheNextVersionsOwn()
    {
        assertTrue(LocalChangeOps.ofPrevious("cold:s3/prev", PREVIOUS, NEXT, false, NEXT_FILE));
        assertFalse(LocalChangeOps.ofPrevious("cold:s3/next", PREVIOUS, NEXT, false, "cold:s3/next"));
    }
}
