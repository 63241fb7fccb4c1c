package io.elect.core.jmx;

/**
 * Node-level facts for {@code electtool status}, registered as {@value #OBJECT_NAME}. Read-only.
 */
public interface ElectNodeMBean
{
    String OBJECT_NAME = "io.elect:type=Node";

    String getElectVersion();

    String getCassandraVersion();

    /** This node's broadcast address. */
    String getAddress();

    /** Cassandra's operation mode (STARTING, NORMAL, JOINING, DRAINING, ...). */
    String getOperationMode();

    /** The {@code elect:} configuration in effect, as JSON (holds no secret). */
    String getConfigJson();

    /** Milliseconds since the ELECT node finished starting. */
    long getUptimeMillis();

    /**
     * The storage report of every ELECT table, gathered from every live node ({@code electtool storage --json}):
     * hot and cold bytes per node, achieved saving vs target, stripes per state. Costs one request per node and table.
     */
    String getStorageJson();

    /**
     * Where this node's reads of each ELECT table were served from ({@code electtool reads --json}): per class of
     * file (unencoded primary or secondary, encoded, offloaded, stub) its files, bytes and cumulative reads, and each
     * file's reads. Local; see {@code io.elect.core.node.ReadSources} for the document.
     */
    String getReadsJson() throws Exception;

    /**
     * Starts rebuilding this (replacement) node in the background ({@code electtool rebuild}): encoded primaries
     * decoded from their stripes, parity regenerated or re-marked cold, the rest streamed from the replicas, stubs
     * reinstalled. Resumes an interrupted rebuild. Returns the status document of {@link #getRebuildJson()}.
     *
     * @param parallelism   members decoded at once (1..64)
     * @param throttleMiBps decoded MiB per second at most (0: unthrottled)
     * @param stream        whether to stream non-encoded data with Cassandra's rebuild
     * @param keyspace      only this keyspace (its stripes and its streams); null or empty: every keyspace
     */
    String startRebuild(int parallelism, double throttleMiBps, boolean stream, String keyspace) throws Exception;

    /** The current or last rebuild's progress: state, phase, bytes done/total, steps, ETA, counts, error. */
    String getRebuildJson();

    /**
     * Waits until the current rebuild ends or {@code maxWaitMillis} (0..5000) pass, then returns
     * {@link #getRebuildJson()}: a long poll, so that {@code electtool rebuild} sees the end at once and progress
     * about once a second without polling fast.
     */
    String awaitRebuild(long maxWaitMillis) throws Exception;

    /** Checks every committed stripe this node holds a member of ({@code electtool verify}); a JSON report with "ok". */
    String verify() throws Exception;

    /**
     * The Scale-RS widening plan of the cluster's stripes to {@code targetK} data chunks ({@code electtool widen --to K
     * --dry-run}), as JSON: per stripe the members added (virtual slots first) and its new k and codec, per node the
     * bytes it would send and receive, the total against the Scale-RS lower bound (docs/design/scaling.md). Read-only
     * ({@link #widen} applies it). Costs one request per live node and ELECT table.
     */
    String widenPlan(int targetK) throws Exception;

    /**
     * Carries out the widening plan to {@code targetK} data chunks ({@code electtool widen --to K}): per stripe a
     * widening change to the wider codec, then one fill per added member; JSON of what was done, skipped (with the
     * reason) and the Scale-RS bound of what was done. On the coordinator of transitioning rounds only, with every
     * ring member up (docs/design/scaling.md).
     */
    String widen(int targetK) throws Exception;

    /**
     * The storage-saving target (alpha) transitioning works towards now: {@code elect.storage_saving_target} unless set
     * at runtime. Setting it ({@code electtool alpha VALUE}) applies from the next round, is not persisted, and must
     * be done on every node (the coordinator may change); a value outside [0, 1) is refused naming the key.
     */
    double getStorageSavingTarget();

    void setStorageSavingTarget(double alpha);

    /** The erasure-coding backend: configured ({@code elect.coder}) and what encoding and decoding use, as JSON. */
    String getCoderJson();

    /** Every ELECT metric's current value by {@code type.name[.scope]} ({@code electtool metrics}), as JSON. */
    String getMetricsJson();

    /** Updates of encoded data on this node ({@code electtool updates}; docs/design/updates.md), as JSON. */
    String getUpdatesJson() throws Exception;

    /**
     * Starts {@code electtool decommission}: the node is drained (its stripe chunks moved away while it is up, its
     * members kept as ordinary SSTables), then Cassandra's decommission streams its data and it leaves the ring
     * (docs/design/topology.md "Draining before leaving"). Returns {@link #getDecommissionJson()}; refused with the
     * reason when the ring would keep fewer nodes than a stripe needs.
     */
    String startDecommission() throws Exception;

    /** Cancels a decommission that is still draining (removes the drain mark); refused once Cassandra's part runs. */
    String cancelDecommission() throws Exception;

    /** The decommission's phase and progress (stripes still naming the node, what it waits for), as JSON. */
    String getDecommissionJson();

    /** Waits until the decommission's phase or progress changes, at most {@code maxWaitMillis} (0..5000). */
    String awaitDecommission(long maxWaitMillis) throws Exception;
}
