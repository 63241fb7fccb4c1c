package io.elect.core.bridge;

/**
 * JMX view of ELECT tables on this node, registered as {@value ElectTables#MBEAN_NAME}. Read by
 * {@code electtool tables}.
 */
public interface ElectTablesMBean
{
    /**
     * JSON document (format version 1):
     * <pre>
     * {"version":1,"node":"127.0.0.1:7000",
     *  "tables":[{"keyspace":"ks","table":"t","misfits":0,"frozen":{"sstables":1,"bytes":4567},
     *             "roles":[{"role":0,"levels":[{"level":0,"sstables":2,"bytes":1234}, ...]}, ...]}],
     *  "role_ranges":{"ks":[{"start":null,"end":"-3074457345618258603","role":2}, ...]}}
     * </pre>
     * Roles: 0 = primary, i = i-th secondary, -1 = not a replica, "misfit" = spanning a role boundary (awaiting
     * re-split; counted in the table's {@code misfits} and listed with role {@code "misfit"}). Tokens are strings.
     * Levels with no SSTables are omitted. Frozen SSTables (tiered or erasure-coded, never compacted; see
     * {@code FrozenSSTables}) are counted in the table's {@code frozen} only, in no role's levels (added
     * compatibly to version 1: readers ignore unknown fields).
     */
    String getTablesJson();

    /** Same document restricted to one table; {@code keyspace} and {@code table} must name an ELECT table. */
    String tableJson(String keyspace, String table);

    /**
     * Every live SSTable of the ELECT table as a JSON array
     * {@code [{"file":"oa-3-big","role":0,"level":1,"first_token":"-12","last_token":"99","bytes":1234}]},
     * role {@code "misfit"} for one spanning a role boundary, {@code "frozen"} for a frozen one. For tests and
     * diagnosis.
     */
    String sstablesJson(String keyspace, String table);

    /**
     * Trial rewrites of the table's encoded members on this node (see {@code MemberRewrite}; nothing is installed,
     * each trial's files are deleted before it returns). JSON (format version 1):
     * <pre>
     * {"version":1,"node":"127.0.0.1:7000","page_bytes":4096,
     *  "members":[{"member":"3gxk_...","stripe":"s-...","newer_sstables":2,"partitions":900,"changed_partitions":310,
     *              "same_size_partitions":300,"bytes_before":1048000,"bytes_after":1047500,"pages":256,"changed_pages":250,
     *              "uncompressed_pages":300,"in_place_pages":120,
     *              "gc_bytes_after":700000,"gc_changed_pages":240,
     *              "shadowed_partitions":0,"millis":85}]}
     * </pre>
     * {@code changed_pages}: pages of the on-disk data component that differ between the member and its merged
     * version (what a parity delta of the rewrite carries); {@code in_place_pages}: pages of the member's
     * uncompressed layout holding a partition that has a newer version (the bound of a layout-preserving rewrite);
     * {@code same_size_partitions}: those partitions whose merged version has the same serialized size;
     * {@code gc_*}: the member rewritten alone minus what other live SSTables shadow (nodetool garbagecollect -g
     * CELL; Cassandra ignores suspect SSTables there, so frozen ones do not count), its data bytes and changed pages; {@code shadowed_partitions}: partitions of the member of which
     * nothing survives the newer versions held by any other live SSTable, frozen ones included (the purge rule of
     * secondaries).
     * Writes a full copy of each member: one trial at a time per node.
     */
    String memberTrialsJson(String keyspace, String table);

    /** The node's role ranges for {@code keyspace} as a JSON array (see {@code RoleRanges.toJson()}). */
    String roleRangesJson(String keyspace);
}
