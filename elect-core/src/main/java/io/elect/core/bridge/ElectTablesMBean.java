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

    /** The node's role ranges for {@code keyspace} as a JSON array (see {@code RoleRanges.toJson()}). */
    String roleRangesJson(String keyspace);
}
