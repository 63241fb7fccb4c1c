package io.elect.core.bridge;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import javax.management.ObjectName;

import com.codahale.metrics.Gauge;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.compaction.AbstractCompactionStrategy;
import org.apache.cassandra.metrics.CassandraMetricsRegistry;
import org.apache.cassandra.utils.FBUtilities;
import org.apache.cassandra.utils.MBeanWrapper;

/**
 * Visibility of ELECT's decoupled trees: the {@value #MBEAN_NAME} MBean (JSON, for {@code electtool tables}) and
 * Dropwizard gauges in Cassandra's metrics registry.
 *
 * <p>Metric names: group {@value #METRIC_GROUP}, type {@value #METRIC_TYPE}, names {@code LevelSSTables} /
 * {@code LevelBytes} with scope {@code <keyspace>.<table>.role<r>.L<level>} (r = 0 primary, i secondary,
 * {@code None} = not a replica), and {@code Misfits}, {@code FrozenSSTables}, {@code FrozenBytes} with scope
 * {@code <keyspace>.<table>} (frozen SSTables are in no role's levels). All values are computed
 * on read from the live strategy instances of the table (repaired, unrepaired and pending-repair holders summed), so
 * nothing is stale after an ALTER re-creates the strategies.
 *
 * <p>Thread-safe; registration is idempotent.
 */
public final class ElectTables implements ElectTablesMBean
{
    private static final Logger logger = LoggerFactory.getLogger(ElectTables.class);

    public static final String MBEAN_NAME = "io.elect:type=Tables";
    public static final String METRIC_GROUP = "io.elect.metrics";
    public static final String METRIC_TYPE = "ElectTrees";
    /** LCS's maximum number of levels (LeveledGenerations.MAX_LEVEL_COUNT). */
    static final int LEVELS = 9;

    /** "keyspace.table" names of tables that have had an ELECT strategy on this node. */
    private final Set<List<String>> tables = ConcurrentHashMap.newKeySet();
    /** Ids of the tables a {@link MaintenanceWatch} is subscribed to. */
    private final Set<String> watched = ConcurrentHashMap.newKeySet();
    private final Set<String> registeredMetrics = ConcurrentHashMap.newKeySet();
    private final RoleRangesSource roles;
    private final FrozenSSTables frozen;
    private final io.elect.core.util.Clock clock;
    private volatile boolean mbeanRegistered;

    /** One per node (the adapter's {@link Bridge}); strategies reach it through {@link NodeHandoff}. */
    ElectTables(RoleRangesSource roles, FrozenSSTables frozen, io.elect.core.util.Clock clock)
    {
        this.roles = roles;
        this.frozen = frozen;
        this.clock = clock;
    }

    /** Has a {@link MaintenanceWatch} log what Cassandra's maintenance operations skip on cfs (once per table). */
    void watchMaintenance(ColumnFamilyStore cfs, FrozenSSTables frozen, io.elect.core.util.Clock clock)
    {
        MaintenanceWatch.watch(cfs, frozen, clock, watched);
    }

    /** Called from every strategy constructor: MUST NOT touch the (possibly half-built) table. */
    void registerTable(ColumnFamilyStore cfs)
    {
        if (tables.add(List.of(cfs.getKeyspaceName(), cfs.getTableName())))
        {
            registerMBean();
            String scope = cfs.getKeyspaceName() + '.' + cfs.getTableName();
            register("Misfits", scope, () -> aggregate(cfs.getKeyspaceName(), cfs.getTableName()).misfits);
            register("FrozenSSTables", scope, () -> aggregate(cfs.getKeyspaceName(), cfs.getTableName()).frozen);
            register("FrozenBytes", scope, () -> aggregate(cfs.getKeyspaceName(), cfs.getTableName()).frozenBytes);
        }
    }

    private synchronized void registerMBean()
    {
        if (mbeanRegistered)
            return;
        try
        {
            ObjectName name = new ObjectName(MBEAN_NAME);
            if (!MBeanWrapper.instance.isRegistered(name))
                MBeanWrapper.instance.registerMBean(this, name);
            mbeanRegistered = true;
        }
        catch (Exception e)
        {
            logger.warn("Could not register MBean {}", MBEAN_NAME, e);
        }
    }

    /** Registers the per-level gauges of {@code role} for the table (idempotent). */
    void ensureRoleMetrics(ColumnFamilyStore cfs, int role)
    {
        String ks = cfs.getKeyspaceName();
        String table = cfs.getTableName();
        for (int level = 0; level < LEVELS; level++)
        {
            final int l = level;
            String scope = ks + '.' + table + ".role" + (role < 0 ? "None" : String.valueOf(role)) + ".L" + level;
            register("LevelSSTables", scope, () -> at(aggregate(ks, table).roles.get(role), 0, l));
            register("LevelBytes", scope, () -> at(aggregate(ks, table).roles.get(role), 1, l));
        }
    }

    private static long at(long[][] stats, int which, int level)
    {
        return stats == null || stats[which].length <= level ? 0L : stats[which][level];
    }

    private void register(String name, String scope, Gauge<Long> gauge)
    {
        if (!registeredMetrics.add(name + '/' + scope))
            return;
        try
        {
            CassandraMetricsRegistry.Metrics.register(new CassandraMetricsRegistry.MetricName(METRIC_GROUP, METRIC_TYPE,
                                                                                              name, scope), gauge);
        }
        catch (RuntimeException e)
        {
            logger.warn("Could not register metric {} {}", name, scope, e);
        }
    }

    /** Per-table aggregate over all strategy instances. */
    static final class Stats
    {
        /** role -> [sstables per level, bytes per level]; role {@link ElectCompactionStrategy#MISFIT} = misfits. */
        final Map<Integer, long[][]> roles = new TreeMap<>();
        long misfits;
        /** Frozen SSTables (in no tree, never compacted) and their bytes, over all roles. */
        long frozen;
        long frozenBytes;
        boolean elect;
    }

    /** The ELECT tables this node has seen start (keyspace, table), in no particular order. */
    List<List<String>> registered()
    {
        return new ArrayList<>(tables);
    }

    /** The table's ElectCompactionStrategy (its first one, when the table has several data directories), or null. */
    static ElectCompactionStrategy strategyOf(ColumnFamilyStore cfs)
    {
        for (List<AbstractCompactionStrategy> holder : cfs.getCompactionStrategyManager().getStrategies())
            for (AbstractCompactionStrategy s : holder)
                if (s instanceof ElectCompactionStrategy)
                    return (ElectCompactionStrategy) s;
        return null;
    }

    static Stats aggregate(String keyspace, String table)
    {
        Stats stats = new Stats();
        ColumnFamilyStore cfs = ColumnFamilyStore.getIfExists(keyspace, table);
        if (cfs == null)
            return stats;
        for (List<AbstractCompactionStrategy> holder : cfs.getCompactionStrategyManager().getStrategies())
        {
            for (AbstractCompactionStrategy s : holder)
            {
                if (!(s instanceof ElectCompactionStrategy))
                    continue;
                ElectCompactionStrategy e = (ElectCompactionStrategy) s;
                stats.elect = true;
                stats.misfits += e.misfitCount();
                stats.frozen += e.frozenCount();
                stats.frozenBytes += e.frozenBytes();
                for (Map.Entry<Integer, ElectCompactionStrategy.RoleLevels> r : e.roleLevels().entrySet())
                {
                    if (r.getValue().sstables.length == 0)
                        continue; // only frozen SSTables there: counted in stats.frozen
                    long[][] acc = stats.roles.computeIfAbsent(r.getKey(), k -> new long[][]{ new long[LEVELS], new long[LEVELS] });
                    for (int l = 0; l < Math.min(LEVELS, r.getValue().sstables.length); l++)
                    {
                        acc[0][l] += r.getValue().sstables[l];
                        acc[1][l] += r.getValue().bytes[l];
                    }
                }
            }
        }
        return stats;
    }

    // ---- MBean -------------------------------------------------------------------------------------------------

    @Override
    public String getTablesJson()
    {
        List<List<String>> names = new ArrayList<>(tables);
        names.sort((a, b) -> (a.get(0) + '.' + a.get(1)).compareTo(b.get(0) + '.' + b.get(1)));
        return document(names);
    }

    @Override
    public String tableJson(String keyspace, String table)
    {
        if (keyspace == null || table == null || !tables.contains(List.of(keyspace, table)))
            throw new IllegalArgumentException("keyspace.table " + keyspace + '.' + table + " is not an ELECT table on this node");
        return document(List.of(List.of(keyspace, table)));
    }

    @Override
    public String sstablesJson(String keyspace, String table)
    {
        ColumnFamilyStore cfs = keyspace == null || table == null ? null : ColumnFamilyStore.getIfExists(keyspace, table);
        if (cfs == null)
            throw new IllegalArgumentException("keyspace.table " + keyspace + '.' + table + " does not exist");
        StringBuilder sb = new StringBuilder("[");
        for (List<AbstractCompactionStrategy> holder : cfs.getCompactionStrategyManager().getStrategies())
        {
            for (AbstractCompactionStrategy s : holder)
            {
                if (!(s instanceof ElectCompactionStrategy))
                    continue;
                for (Map.Entry<org.apache.cassandra.io.sstable.format.SSTableReader, Integer> e : ((ElectCompactionStrategy) s).placements().entrySet())
                {
                    org.apache.cassandra.io.sstable.format.SSTableReader r = e.getKey();
                    if (sb.length() > 1)
                        sb.append(',');
                    sb.append("{\"file\":\"").append(r.descriptor.baseFile().name())
                      .append("\",\"role\":").append(e.getValue() == ElectCompactionStrategy.MISFIT ? "\"misfit\""
                                                 : e.getValue() == ElectCompactionStrategy.FROZEN ? "\"frozen\""
                                                 : e.getValue().toString())
                      .append(",\"level\":").append(r.getSSTableLevel())
                      .append(",\"first_token\":\"").append(r.getFirst().getToken())
                      .append("\",\"last_token\":\"").append(r.getLast().getToken())
                      .append("\",\"bytes\":").append(r.onDiskLength()).append('}');
                }
            }
        }
        return sb.append(']').toString();
    }

    @Override
    public synchronized String memberTrialsJson(String keyspace, String table)
    {
        if (keyspace == null || table == null || !tables.contains(List.of(keyspace, table)))
            throw new IllegalArgumentException("keyspace.table " + keyspace + '.' + table + " is not an ELECT table on this node");
        ColumnFamilyStore cfs = ColumnFamilyStore.getIfExists(keyspace, table);
        if (cfs == null)
            throw new IllegalArgumentException("keyspace.table " + keyspace + '.' + table + " does not exist");
        List<MemberRewrite.Trial> trials;
        try
        {
            trials = MemberRewrite.trials(cfs, frozen.frozen(cfs), clock);
        }
        catch (java.io.IOException e)
        {
            // JMX clients may lack our exception classes: the message travels, the type does not
            throw new IllegalStateException("trial rewrite of " + keyspace + '.' + table + " failed: " + e);
        }
        StringBuilder sb = new StringBuilder("{\"version\":1,\"node\":\"").append(FBUtilities.getBroadcastAddressAndPort())
                                                                     .append("\",\"page_bytes\":").append(MemberRewrite.PAGE)
                                                                     .append(",\"members\":[");
        for (int i = 0; i < trials.size(); i++)
        {
            MemberRewrite.Trial t = trials.get(i);
            sb.append(i == 0 ? "" : ",")
              .append("{\"member\":\"").append(t.member()).append("\",\"stripe\":\"").append(t.stripe())
              .append("\",\"newer_sstables\":").append(t.newerSSTables())
              .append(",\"partitions\":").append(t.partitions())
              .append(",\"changed_partitions\":").append(t.changedPartitions())
              .append(",\"same_size_partitions\":").append(t.sameSizePartitions())
              .append(",\"bytes_before\":").append(t.bytesBefore())
              .append(",\"bytes_after\":").append(t.bytesAfter())
              .append(",\"pages\":").append(t.pages())
              .append(",\"changed_pages\":").append(t.changedPages())
              .append(",\"uncompressed_pages\":").append(t.uncompressedPages())
              .append(",\"in_place_pages\":").append(t.inPlacePages())
              .append(",\"gc_bytes_after\":").append(t.gcBytesAfter())
              .append(",\"gc_changed_pages\":").append(t.gcChangedPages())
              .append(",\"shadowed_partitions\":").append(t.shadowedPartitions())
              .append(",\"millis\":").append(t.millis()).append('}');
        }
        return sb.append("]}").toString();
    }

    @Override
    public String roleRangesJson(String keyspace)
    {
        if (keyspace == null || org.apache.cassandra.schema.Schema.instance.getKeyspaceMetadata(keyspace) == null)
            throw new IllegalArgumentException("keyspace " + keyspace + " does not exist");
        return roles.forKeyspace(keyspace).toJson();
    }

    private String document(List<List<String>> names)
    {
        StringBuilder sb = new StringBuilder();
        sb.append("{\"version\":1,\"node\":\"").append(FBUtilities.getBroadcastAddressAndPort()).append("\",\"tables\":[");
        Set<String> keyspaces = new java.util.TreeSet<>();
        boolean first = true;
        for (List<String> n : names)
        {
            Stats stats = aggregate(n.get(0), n.get(1));
            if (!stats.elect)
                continue; // dropped or altered to another strategy
            keyspaces.add(n.get(0));
            if (!first)
                sb.append(',');
            first = false;
            sb.append("{\"keyspace\":\"").append(n.get(0)).append("\",\"table\":\"").append(n.get(1))
              .append("\",\"misfits\":").append(stats.misfits)
              .append(",\"frozen\":{\"sstables\":").append(stats.frozen).append(",\"bytes\":").append(stats.frozenBytes)
              .append("},\"roles\":[");
            boolean firstRole = true;
            for (Map.Entry<Integer, long[][]> r : stats.roles.entrySet())
            {
                if (!firstRole)
                    sb.append(',');
                firstRole = false;
                sb.append("{\"role\":").append(r.getKey() == ElectCompactionStrategy.MISFIT ? "\"misfit\"" : r.getKey().toString())
                  .append(",\"levels\":[");
                boolean firstLevel = true;
                for (int l = 0; l < LEVELS; l++)
                {
                    if (r.getValue()[0][l] == 0)
                        continue;
                    if (!firstLevel)
                        sb.append(',');
                    firstLevel = false;
                    sb.append("{\"level\":").append(l).append(",\"sstables\":").append(r.getValue()[0][l])
                      .append(",\"bytes\":").append(r.getValue()[1][l]).append('}');
                }
                sb.append("]}");
            }
            sb.append("]}");
        }
        sb.append("],\"role_ranges\":{");
        boolean firstKs = true;
        for (String ks : keyspaces)
        {
            if (!firstKs)
                sb.append(',');
            firstKs = false;
            sb.append('"').append(ks).append("\":").append(roles.forKeyspace(ks).toJson());
        }
        return sb.append("}}").toString();
    }
}
