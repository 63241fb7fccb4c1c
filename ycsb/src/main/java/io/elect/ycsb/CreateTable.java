package io.elect.ycsb;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.metadata.schema.KeyspaceMetadata;

/**
 * {@code scripts/ycsb create-table}: creates keyspace {@code ycsb} (SimpleStrategy) and one YCSB table
 * {@code (y_id text PRIMARY KEY, field0 text, ...)}, either a plain Cassandra LCS table or an ELECT table.
 *
 * <pre>
 * create-table --table T [--elect] [--rf 3] [--keyspace ycsb] [--fields 1] [--sstable-size-mb 4] [--fanout 10]
 *              [--compression none|lz4] [--read-repair NONE|BLOCKING] [--drop] [--hosts 127.0.0.1] [--port 9042]
 *              [--localdc datacenter1] [--print]
 * </pre>
 *
 * The defaults are ELECT's evaluation settings (LCS 4 MiB SSTables, fanout 10, compression off). An ELECT table
 * differs from a plain one only by its compaction class ({@link #ELECT_STRATEGY}) and {@code read_repair = 'NONE'},
 * which keeps CL ONE reads on the primary replica. {@code --print} prints the CQL without connecting.
 * An existing keyspace with another replication factor is an error (the table would not be what was asked for).
 */
public final class CreateTable
{
    public static final String ELECT_STRATEGY = "io.elect.core.bridge.ElectCompactionStrategy";
    public static final String PLAIN_STRATEGY = "LeveledCompactionStrategy";

    /** A parsed command line: a plain holder, filled by {@link #parse} and read once. */
    public static final class Spec
    {
        public String hosts = CassandraCqlOptions.DEFAULT_HOSTS;
        public int port = CassandraCqlOptions.DEFAULT_PORT;
        public String localDc = CassandraCqlOptions.DEFAULT_LOCAL_DC;
        public String keyspace = CassandraCqlOptions.DEFAULT_KEYSPACE;
        public String table;
        public boolean elect;
        public int replicationFactor = 3;
        public int fields = 1;
        public int sstableSizeMb = 4;
        public int fanout = 10;
        public String compression = "none";
        public String readRepair;
        public boolean drop;
        public boolean printOnly;

        /** read_repair: NONE for ELECT tables (primary-first reads), Cassandra's default BLOCKING otherwise. */
        public String effectiveReadRepair()
        {
            return readRepair != null ? readRepair : (elect ? "NONE" : "BLOCKING");
        }
    }

    private CreateTable()
    {
    }

    /** @throws IllegalArgumentException naming the bad or missing argument */
    public static Spec parse(String[] args)
    {
        Spec s = new Spec();
        for (int i = 0; i < args.length; i++)
        {
            String a = args[i];
            switch (a)
            {
                case "--elect": s.elect = true; break;
                case "--plain": s.elect = false; break;
                case "--drop": s.drop = true; break;
                case "--print": s.printOnly = true; break;
                case "--hosts": s.hosts = value(args, ++i, a); break;
                case "--port": s.port = intValue(args, ++i, a, 1, 65535); break;
                case "--localdc": s.localDc = value(args, ++i, a); break;
                case "--keyspace": s.keyspace = CassandraCqlOptions.checkIdentifier(a, value(args, ++i, a)); break;
                case "--table": s.table = CassandraCqlOptions.checkIdentifier(a, value(args, ++i, a)); break;
                case "--rf": s.replicationFactor = intValue(args, ++i, a, 1, 100); break;
                case "--fields": s.fields = intValue(args, ++i, a, 1, 1000); break;
                case "--sstable-size-mb": s.sstableSizeMb = intValue(args, ++i, a, 1, 1 << 16); break;
                case "--fanout": s.fanout = intValue(args, ++i, a, 2, 1000); break;
                case "--compression": s.compression = oneOf(a, value(args, ++i, a).toLowerCase(), "none", "lz4"); break;
                case "--read-repair": s.readRepair = oneOf(a, value(args, ++i, a).toUpperCase(), "NONE", "BLOCKING"); break;
                default: throw new IllegalArgumentException("create-table: unknown argument '" + a + "'");
            }
        }
        if (s.table == null)
            throw new IllegalArgumentException("create-table: --table is required");
        return s;
    }

    public static String keyspaceCql(Spec s)
    {
        return "CREATE KEYSPACE IF NOT EXISTS " + s.keyspace + " WITH replication = {'class': 'SimpleStrategy', "
               + "'replication_factor': " + s.replicationFactor + "}";
    }

    public static String tableCql(Spec s)
    {
        StringBuilder cols = new StringBuilder(CqlStatements.KEY_COLUMN + " text PRIMARY KEY");
        for (int f = 0; f < s.fields; f++)
            cols.append(", field").append(f).append(" text");
        String compaction = "{'class': '" + (s.elect ? ELECT_STRATEGY : PLAIN_STRATEGY) + "', 'sstable_size_in_mb': '"
                            + s.sstableSizeMb + "', 'fanout_size': '" + s.fanout + "'}";
        String compression = "none".equals(s.compression) ? "{'enabled': 'false'}"
                                                          : "{'class': 'LZ4Compressor'}";
        return "CREATE TABLE IF NOT EXISTS " + s.keyspace + "." + s.table + " (" + cols + ") WITH compaction = "
               + compaction + " AND compression = " + compression + " AND read_repair = '" + s.effectiveReadRepair()
               + "'";
    }

    public static String dropCql(Spec s)
    {
        return "DROP TABLE IF EXISTS " + s.keyspace + "." + s.table;
    }

    /** The statements to run, in order. */
    public static List<String> statements(Spec s)
    {
        List<String> out = new ArrayList<>();
        out.add(keyspaceCql(s));
        if (s.drop)
            out.add(dropCql(s));
        out.add(tableCql(s));
        return out;
    }

    /** Connects and runs {@link #statements}; fails if the keyspace exists with another replication factor. */
    public static void run(Spec s)
    {
        Properties p = new Properties();
        p.setProperty(CassandraCqlOptions.HOSTS, s.hosts);
        p.setProperty(CassandraCqlOptions.PORT, Integer.toString(s.port));
        p.setProperty(CassandraCqlOptions.LOCAL_DC, s.localDc);
        p.setProperty(CassandraCqlOptions.KEYSPACE, s.keyspace);
        try (CqlSession session = Sessions.open(CassandraCqlOptions.parse(p)))
        {
            Optional<KeyspaceMetadata> ks = session.getMetadata().getKeyspace(s.keyspace);
            if (ks.isPresent())
                checkReplication(s, ks.get().getReplication());
            for (String cql : statements(s))
            {
                System.out.println(cql + ";");
                session.execute(cql);
            }
            if (!session.checkSchemaAgreement())
                throw new IllegalStateException("create-table: schema did not agree across nodes");
        }
    }

    static void checkReplication(Spec s, Map<String, String> replication)
    {
        String cls = replication.getOrDefault("class", "");
        String rf = replication.getOrDefault("replication_factor", "");
        if (!cls.endsWith("SimpleStrategy") || !rf.equals(Integer.toString(s.replicationFactor)))
            throw new IllegalArgumentException("create-table --rf " + s.replicationFactor + ": keyspace " + s.keyspace
                                               + " already exists with replication " + replication
                                               + "; drop it first or pass its replication factor");
    }

    public static void main(String[] args)
    {
        Spec s;
        try
        {
            s = parse(args);
        }
        catch (IllegalArgumentException e)
        {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        if (s.printOnly)
        {
            statements(s).forEach(c -> System.out.println(c + ";"));
            return;
        }
        try
        {
            run(s);
        }
        catch (RuntimeException e)
        {
            System.err.println("create-table failed: " + e.getMessage());
            System.exit(1);
        }
    }

    private static String value(String[] args, int i, String name)
    {
        if (i >= args.length || args[i].startsWith("--"))
            throw new IllegalArgumentException("create-table: " + name + " needs a value");
        return args[i];
    }

    private static int intValue(String[] args, int i, String name, int min, int max)
    {
        String v = value(args, i, name);
        int n;
        try
        {
            n = Integer.parseInt(v);
        }
        catch (NumberFormatException e)
        {
            throw new IllegalArgumentException("create-table: " + name + " needs an integer, got '" + v + "'");
        }
        if (n < min || n > max)
            throw new IllegalArgumentException("create-table: " + name + " " + n + " is outside [" + min + ", " + max + "]");
        return n;
    }

    private static String oneOf(String name, String v, String... allowed)
    {
        for (String a : allowed)
            if (a.equals(v))
                return v;
        throw new IllegalArgumentException("create-table: " + name + " must be one of " + String.join(", ", allowed)
                                           + ", got '" + v + "'");
    }
}
