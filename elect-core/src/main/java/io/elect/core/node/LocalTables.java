package io.elect.core.node;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.tiered.TieredSidecar;
import io.elect.core.transition.wire.TransitionMessages.TableRef;

/**
 * What the node's services need from this node's local tables: the seam between ELECT's node logic and the storage
 * engine. The production implementation is the Cassandra adapter's (the Cassandra adapter's {@code CassandraTables}),
 * over SSTables and Cassandra's lifecycle transactions; the whole-node simulation has an in-memory one
 * ({@code SimTables} of the simulation); tests of a single service may use either.
 *
 * <p>Vocabulary: a table's live "files" are its SSTables. A file's data component is LOCAL (on this node's disk),
 * COLD (an object of the cold tier) or DECODED (a secondary's stub of another node's encoded primary, its bytes
 * reconstructed from the stripe). A file is frozen (never compacted, never rewritten) when it is tiered or has a
 * frozen tag (an encoded primary: its bytes are a stripe member). Ids are the engine's file ids as strings, stable
 * for the life of the file; switching a file's data source gives it a new id.
 *
 * <p>Every mutating call is durable when it returns and idempotent where its comment says so. Implementations are
 * thread-safe.
 */
public interface LocalTables
{
    /** Where a live file's data component is. */
    enum Source
    {
        LOCAL, COLD, DECODED
    }

    /**
     * One live file of a table, as seen at the time of the call.
     *
     * @param level      its level in the table's leveled tree
     * @param role       the role of this node for every key of the file (0 primary, i the i-th secondary), or null
     *                   if it spans several roles or the node is not a replica of its range
     * @param bytesOnDisk bytes of all its local components (a tiered file's data is not local)
     * @param dataBytes  length of its data component wherever it is
     * @param dataMillis wall time its data component was written (its age is measured from it)
     * @param reads      reads served by this file since it was opened (monotonic)
     * @param frozenTag  the owner that froze it (a stripe id), or null
     * @param dataPath   the local path of its data component (a 0-byte placeholder when tiered)
     * @param sidecar    where a tiered file's data is (null for LOCAL)
     * @param firstToken the token of its first key, as the ring prints tokens
     */
    record TableFile(String id, Source source, int level, Integer role, long bytesOnDisk, long dataBytes, long dataMillis,
                     long reads, String frozenTag, Path dataPath, TieredSidecar sidecar, String firstToken, String lastToken)
    {
        /** Never compacted: tiered, or frozen under a tag. */
        public boolean frozen()
        {
            return source != Source.LOCAL || frozenTag != null;
        }

        public boolean isStub()
        {
            return source == Source.DECODED;
        }
    }

    /** A component file of a live file other than its data, its table of contents and its tiered sidecar. */
    record ComponentFile(String name, Path path, long length)
    {
    }

    /** What one {@link #purge} did: files examined (they overlap a shadow), rewritten or dropped, still busy (ids). */
    record PurgeResult(int examined, int rewritten, List<String> busy, long bytesBefore, long bytesAfter, long millis)
    {
        public static final PurgeResult NONE = new PurgeResult(0, 0, List.of(), 0, 0, 0);
    }

    /** Called after a cold upload, before the swap (write-ahead bookkeeping of the caller); may throw to cancel. */
    @FunctionalInterface
    interface BeforeSwap
    {
        void accept(Path oldData, String coldStore, String coldKey) throws IOException;
    }

    /** Called with the new file's id after its files are durable and before it becomes live. */
    @FunctionalInterface
    interface BeforeLive
    {
        void accept(String id, Path data) throws IOException;
    }

    /** The ELECT tables of this node (tables whose compaction strategy is ELECT's). */
    List<TableRef> electTables();

    /** Whether the table exists on this node. */
    boolean exists(TableRef table);

    /** Whether the keyspace exists on this node. */
    boolean keyspaceExists(String keyspace);

    /** Every keyspace whose data is replicated across nodes (not node-local system keyspaces). */
    List<String> keyspaces();

    /** The replication factor of the table's keyspace (the number of roles). */
    int replicationFactor(TableRef table);

    /** The number of levels of a table's leveled trees. */
    int levels();

    /** The table's live files; IllegalArgumentException naming the table if it does not exist here. */
    List<TableFile> files(TableRef table) throws IOException;

    /**
     * The share (0..1) of a live file's partitions, by uncompressed data bytes, that lie in ranges this node
     * replicates now. 1 for files of the node's own ranges; less for a stub after a ring change (a bootstrap gave part
     * of its span to another node, or a joiner's stub spans ranges beyond the ones it took over): the storage report and
     * the planner count only that share as replicated data a stub stands for (issue 18). The default: 1.
     */
    default double replicatedShare(TableRef table, TableFile file)
    {
        return 1.0;
    }

    /**
     * For the frozen files of the table (encoded and offloaded primaries, stubs), by id: the bytes of the data
     * component (as {@link TableFile#dataBytes} counts them) in partitions of which a live unfrozen file of this node
     * holds a newer version. Compaction would have dropped those versions; a frozen file keeps them, so they are cost,
     * not data that full replication would hold. Files with none may be absent. See docs/design/transitioning.md.
     */
    Map<String, Long> obsoleteBytes(TableRef table) throws IOException;

    /** The components of a live file other than data, TOC and tiered sidecar (their local paths and lengths). */
    List<ComponentFile> components(TableRef table, String id) throws IOException;

    /**
     * Takes a live LOCAL file out of compaction under {@code tag}, durably. Idempotent for the same tag; a file frozen
     * under another tag, not live, or being compacted is an IllegalStateException.
     */
    void freeze(TableRef table, String id, String tag) throws IOException;

    /** Undoes {@link #freeze} for the same tag; idempotent; another tag's entry is an IllegalStateException. */
    void unfreeze(TableRef table, String id, String tag) throws IOException;

    /**
     * LOCAL -> COLD: uploads the file's data to {@code coldStore} and swaps in a COLD file reading it by ranges; the
     * new file keeps the old one's frozen tag. Returns the new file's id.
     */
    String toCold(TableRef table, String id, String coldStore, BeforeSwap beforeSwap) throws IOException;

    /**
     * COLD -> LOCAL: downloads the file's data (verified chunk by chunk) into a LOCAL file that keeps the frozen tag;
     * {@code beforeLive} runs with the new data path before it replaces the COLD file, whose cold object is then
     * deleted with it. Returns the new file's id.
     */
    String rehydrate(TableRef table, String id, BeforeLive beforeLive) throws IOException;

    /**
     * Adds a DECODED file (a stub) whose non-data components are copies of {@code components} (by component name) and
     * whose data is member {@code self} of {@code layout}, verified by {@code checksums}, frozen under {@code tag} (the
     * stripe's id). Idempotent: a stub of the same member already live is returned (and given the tag if it had none).
     * Returns its id.
     */
    String installStub(TableRef table, Map<String, Path> components, StripeLayout layout, int self, ChunkChecksums checksums,
                       String tag) throws IOException;

    /** Removes a live stub (its stripe was rolled back; nothing was purged against it). Idempotent. */
    void removeStub(TableRef table, String id) throws IOException;

    /**
     * Replaces a live stub by an ordinary (unfrozen) file holding the same rows, read through the stub (decoded), in
     * one atomic step: after a crash either the stub or its copy is live (issue 18: the stub's member left the ring
     * with its node). Returns the copy's data bytes; 0 if no such file is live. A file that is not a stub is an
     * IllegalArgumentException; a busy one an IllegalStateException (retry later).
     */
    long materializeStub(TableRef table, String id) throws IOException;

    /**
     * Switches a live stub to another layout of its stripe (a member change: same member, codec, k, m and code length;
     * the other members and the parity generation change), durably (its sidecar) and for reads already open. Idempotent;
     * a file that is not a live stub is an IllegalArgumentException.
     */
    void relayoutStub(TableRef table, String id, StripeLayout next) throws IOException;

    /**
     * Deletes a live frozen member (LOCAL or COLD) frozen under {@code tag}, whose stripe is retiring: every row of
     * it is shadowed. A COLD file's object is left to the cold-tier garbage collection. Idempotent (not live: no-op);
     * a file frozen under another tag, or a stub, is an IllegalStateException; a busy one too (retry later).
     */
    void retire(TableRef table, String id, String tag) throws IOException;

    /**
     * For every stripe that has files (members or stubs) of the table on this node: whether every one of them is
     * fully shadowed, i.e. every cell, row marker and deletion of it loses, by Cassandra's reconciliation, to a version
     * held by another live file of this node. Only files that cannot be retired before the shadowed one count as
     * shadows: unfrozen files, and frozen files of another stripe all of whose data is strictly newer (min timestamp
     * above the shadowed file's max), so shadowing between frozen files is acyclic (equal cells in two stripes never
     * retire both). Conservative: a file not known to be fully shadowed is reported false.
     *
     * @param scan whether to run the exact checks that are due (they read whole files, possibly remote or cold: the
     *             node's maintenance does, in the background); false answers from the last checks only, so that a
     *             SNAPSHOT never waits for one (a file not checked yet, or whose shadows changed since, is false)
     */
    default Map<String, Boolean> shadowedStripes(TableRef table, boolean scan) throws IOException
    {
        Map<String, Boolean> out = new java.util.HashMap<>();
        shadowedFiles(table, scan).forEach((stripe, files) -> out.put(stripe, !files.containsValue(false)));
        return out;
    }

    /** {@link #shadowedFiles}' key for this node's member file(s) of a stripe (a stub's key is its member index). */
    int MEMBER_FILE = io.elect.core.transition.MemberRemoval.MEMBER_FILE;

    /**
     * The answers {@link #shadowedStripes} combines, per file: stripe id -> (the member index of a stub, or
     * {@link #MEMBER_FILE} for this node's member of the stripe) -> whether that file is fully shadowed (by the
     * rules of {@link #shadowedStripes}). Two files under one key (which stripes never form) are combined with AND.
     */
    Map<String, Map<Integer, Boolean>> shadowedFiles(TableRef table, boolean scan) throws IOException;

    /** What {@link #mergeMember} wrote: the next version's id and data bytes, and the member's data bytes. */
    record Merged(String id, long dataBytes, long bytesBefore)
    {
    }

    /**
     * Writes the next version of live member {@code id} frozen under {@code tag} (LOCAL, or COLD: read from the cold
     * tier; never a stub) and adds it as a live LOCAL file frozen under the same tag, beside the member (reads see both; the versions the new file holds are the
     * member's own). The next version is the member without every cell, row marker and deletion that loses, by
     * Cassandra's reconciliation, to a version held by a frozen file of ANOTHER stripe all of whose data is strictly
     * newer than the member's (min timestamp above the member's max) and whose stripe {@code replicated} accepts
     * (its stubs are on every replica of its range, so every replica of the member's keys holds the newer version;
     * and it is removed only when something newer shadows it in turn). Unfrozen files do not count: a newer version
     * written at a weak consistency level may be on this replica only. Tombstones are kept (compaction purges them
     * once their stripe's members are gone, per gc_grace_seconds). Declined (null) when the next version would be
     * longer than {@code 1 - minShare} of the member's data bytes. Not idempotent: each call that does not decline
     * writes a new file (the caller remembers what it wrote).
     */
    Merged mergeMember(TableRef table, String id, String tag, Predicate<String> replicated, double minShare) throws IOException;

    /**
     * Adds a LOCAL file frozen under {@code tag} from a data file and component copies (a member restored by a
     * rebuild); {@code beforeLive} runs once its files are durable and before it is live. Returns its id.
     *
     * @param version the storage engine's format version of the components
     */
    String installRestored(TableRef table, Map<String, Path> components, String version, Path data, String tag,
                           BeforeLive beforeLive) throws IOException;

    /**
     * Rewrites the live, unfrozen files that {@code eligible} accepts and that overlap a shadow (a stub or an encoded
     * primary: files in {@code shadows}) without the row versions the shadows make redundant (an equal or newer
     * version of the same data, by the engine's reconciliation rules). Files a compaction holds are reported busy.
     * Idempotent.
     */
    PurgeResult purge(TableRef table, List<String> shadows, Predicate<String> eligible) throws IOException;

    /** The cold-tier key prefix under which this node writes its tiered data files of the table (its own objects). */
    String coldKeyPrefix(TableRef table);

    /**
     * Every cold object key the table's files on this node still reference: live COLD files, and any copy that names
     * one (a snapshot or backup of a tiered file). An object under {@link #coldKeyPrefix} that is not here is garbage.
     */
    java.util.Set<String> referencedColdKeys(TableRef table) throws IOException;

    /** The directories whose files READ_MEMBER may serve: every data directory (parity lives in the state dir). */
    List<Path> dataRoots();

    /** Stops automatic compaction of the tables until the returned handle is closed (not persisted). */
    AutoCloseable pauseCompaction(List<TableRef> tables);

    /**
     * Streams this node's replicas of the keyspace from other replicas (a rebuild of a replaced node). For keyspaces
     * with ELECT tables each range comes from a live secondary when there is one (its stubs are never streamed).
     */
    void streamKeyspace(String keyspace, boolean electTables) throws IOException;
}
