package io.elect.core.transport;

/**
 * Every ELECT transport verb, in one place so that numbers never collide (docs/formats/verbs.md documents each
 * payload). DO NOT CHANGE or reuse a number: verbs are on the wire. A verb's payload starts with its own version
 * byte, so a payload can change without a new verb.
 */
public final class Verbs
{
    /** Reads a byte range of a stripe member file under the peer's allowed roots (MemberServer, in the stripes package). */
    public static final int READ_MEMBER = 10;

    /** A node's bytes by level and role of one ELECT table and its transition candidates ({@code NodeSnapshot}). */
    public static final int SNAPSHOT = 20;
    /** Freezes a member file of a stripe on its node and describes its files ({@code MemberInfo}). */
    public static final int PIN = 21;
    /** Builds one parity member of a stripe on a parity node, hot or cold ({@code ParityInfo}). */
    public static final int BUILD_PARITY = 22;
    /** On a data node: installs its member's stub on every secondary of the member's range (no purge). */
    public static final int STUB = 23;
    /** A stripe committed: its member stays frozen, its pin is released. */
    public static final int COMMIT = 24;
    /** Unfreezes a member of a rolled-back stripe. */
    public static final int ROLLBACK = 25;
    /** Deletes a parity member of a stripe (its file or its cold object and marker). */
    public static final int DROP_PARITY = 26;
    /** Moves this node's oldest hot parity members of a table to the cold tier ({@code OffloadRequest}). */
    public static final int OFFLOAD_PARITY = 27;
    /** Reports whether a node holds a stub of a stripe member, with its layout, checksums and components (rebuild). */
    public static final int STRIPE_STATUS = 28;
    /** A secondary installs the stub of a stripe member (tagged with the stripe; it purges nothing yet). */
    public static final int STUB_INSTALL = 29;
    /** Moves this node's oldest encoded (frozen, LOCAL) primaries of a table to the cold tier ({@code OffloadRequest}). */
    public static final int OFFLOAD_PRIMARY = 30;
    /** A node purges the row versions its stubs of a stripe shadow ({@code StripeRef}; STUBS_INSTALLED and later). */
    public static final int STUB_PURGE = 31;
    /** A node removes its stubs of a stripe that is rolled back ({@code StripeRef}; nothing was purged against them). */
    public static final int STUB_REMOVE = 32;
    /** A node deletes its members of a RETIRING stripe, local or offloaded ({@code StripeRef}; coordinator only). */
    public static final int RETIRE_MEMBERS = 33;
    /** Builds the next parity generation of a member change (docs/design/updates.md item 4), on a parity node. */
    public static final int PARITY_CHANGE = 34;
    /** Switches this node's stubs of a changing stripe to its next parity generation. */
    public static final int STUB_RELAYOUT = 35;
    /** Deletes the previous version of a changed member, on its node, once the stripe is CHANGED. */
    public static final int REMOVE_MEMBER = 36;
    /** Where a committed member's data can be read (local or cold locator) and its checksums. */
    public static final int DESCRIBE_MEMBER = 37;
    /** Writes the next version of a member (merged: without what newer members shadow), on its node. */
    public static final int MERGE_MEMBER = 38;
    /** Rewrites this node's stubs of a member whose node left the ring as ordinary SSTables, then removes them. */
    public static final int STUB_MATERIALIZE = 39;
    /** The difference of a replaced member's two versions (previous XOR next), written on the member's node for parity nodes to read. */
    public static final int MEMBER_DELTA = 40;

    private Verbs()
    {
    }

    /** The constant's name for logs, or {@code verb-N} for a number no constant has. */
    public static String name(int verb)
    {
        return switch (verb)
        {
            case READ_MEMBER -> "READ_MEMBER";
            case SNAPSHOT -> "SNAPSHOT";
            case PIN -> "PIN";
            case BUILD_PARITY -> "BUILD_PARITY";
            case STUB -> "STUB";
            case COMMIT -> "COMMIT";
            case ROLLBACK -> "ROLLBACK";
            case DROP_PARITY -> "DROP_PARITY";
            case OFFLOAD_PARITY -> "OFFLOAD_PARITY";
            case STRIPE_STATUS -> "STRIPE_STATUS";
            case STUB_INSTALL -> "STUB_INSTALL";
            case OFFLOAD_PRIMARY -> "OFFLOAD_PRIMARY";
            case STUB_PURGE -> "STUB_PURGE";
            case STUB_REMOVE -> "STUB_REMOVE";
            case RETIRE_MEMBERS -> "RETIRE_MEMBERS";
            case PARITY_CHANGE -> "PARITY_CHANGE";
            case STUB_RELAYOUT -> "STUB_RELAYOUT";
            case REMOVE_MEMBER -> "REMOVE_MEMBER";
            case DESCRIBE_MEMBER -> "DESCRIBE_MEMBER";
            case MERGE_MEMBER -> "MERGE_MEMBER";
            case STUB_MATERIALIZE -> "STUB_MATERIALIZE";
            case MEMBER_DELTA -> "MEMBER_DELTA";
            default -> "verb-" + verb;
        };
    }
}
