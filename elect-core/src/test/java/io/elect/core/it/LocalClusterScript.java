package io.elect.core.it;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code scripts/elect-cluster} for integration tests, in a run directory of the test's own (so a user's
 * cluster data is never touched) and without rebuilding (the tests run inside Maven, after packaging).
 */
public final class LocalClusterScript
{
    public static final Path REPO = Path.of(System.getProperty("maven.multiModuleProjectDirectory",
                                                                new File("..").getAbsolutePath())).toAbsolutePath().normalize();

    /** Exit code and combined stdout/stderr of one call. */
    public record Result(int code, String output)
    {
    }

    private final Path runDir;

    /** @param runDirName a folder under {@code elect-core/target/} */
    public LocalClusterScript(String runDirName)
    {
        this.runDir = REPO.resolve("elect-core/target").resolve(runDirName);
    }

    /** Extra environment of every command (e.g. ELECT_JVM_OPTS for the nodes a start or restart launches). */
    public final java.util.Map<String, String> env = new java.util.concurrent.ConcurrentHashMap<>();

    public Path runDir()
    {
        return runDir;
    }

    /** An attribute of an MBean of local-cluster node {@code node} (1-based; JMX port 7199 + 100 x (node - 1)). */
    public static Object jmxAttribute(int node, String mbean, String attribute) throws Exception
    {
        javax.management.remote.JMXServiceURL url =
            new javax.management.remote.JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + (7199 + 100 * (node - 1)) + "/jmxrmi");
        try (javax.management.remote.JMXConnector c = javax.management.remote.JMXConnectorFactory.connect(url))
        {
            return c.getMBeanServerConnection().getAttribute(new javax.management.ObjectName(mbean), attribute);
        }
    }

    /** Invokes an operation with String parameters on an MBean of local-cluster node {@code node} (as jmxAttribute). */
    public static Object jmxInvoke(int node, String mbean, String operation, String... params) throws Exception
    {
        javax.management.remote.JMXServiceURL url =
            new javax.management.remote.JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + (7199 + 100 * (node - 1)) + "/jmxrmi");
        String[] signature = new String[params.length];
        java.util.Arrays.fill(signature, String.class.getName());
        try (javax.management.remote.JMXConnector c = javax.management.remote.JMXConnectorFactory.connect(url))
        {
            return c.getMBeanServerConnection().invoke(new javax.management.ObjectName(mbean), operation, params, signature);
        }
    }

    /**
     * Stripes of a storage report's "stripes" object (state name -> count) not in a terminal state (committed,
     * rolled_back): every other state is in flight, including states added later.
     */
    /**
     * A driver session to the CQL port (9042) of the given hosts, datacenter1, with a 60 s request timeout (nodes on
     * this 2-core machine answer slowly while compacting or transitioning).
     */
    public static com.datastax.oss.driver.api.core.CqlSession session(List<String> hosts)
    {
        List<java.net.InetSocketAddress> contacts = new ArrayList<>();
        for (String h : hosts)
            contacts.add(new java.net.InetSocketAddress(h, 9042));
        return com.datastax.oss.driver.api.core.CqlSession.builder().addContactPoints(contacts).withLocalDatacenter("datacenter1")
                .withConfigLoader(com.datastax.oss.driver.api.core.config.DriverConfigLoader.programmaticBuilder()
                        .withDuration(com.datastax.oss.driver.api.core.config.DefaultDriverOption.REQUEST_TIMEOUT,
                                      java.time.Duration.ofSeconds(60))
                        .build())
                .build();
    }

    /** 127.0.0.1 .. 127.0.0.n */
    public static List<String> loopback(int n)
    {
        List<String> out = new ArrayList<>();
        for (int i = 1; i <= n; i++)
            out.add("127.0.0." + i);
        return out;
    }

    public static int inFlightStripes(com.fasterxml.jackson.databind.JsonNode stripes)
    {
        int open = 0;
        for (java.util.Iterator<java.util.Map.Entry<String, com.fasterxml.jackson.databind.JsonNode>> it = stripes.fields(); it.hasNext(); )
        {
            java.util.Map.Entry<String, com.fasterxml.jackson.databind.JsonNode> e = it.next();
            if (!e.getKey().equals("committed") && !e.getKey().equals("rolled_back"))
                open += e.getValue().asInt();
        }
        return open;
    }

    /**
     * Writes {@code keys} rows of {@code <ks>.usertable (key, field0, field3)} with {@link TransitioningIT#key} and
     * version-0 {@link TransitioningIT#value}s at CL ALL, 64 in flight.
     */
    public static void loadUsertable(com.datastax.oss.driver.api.core.CqlSession session, String ks, int keys) throws Exception
    {
        com.datastax.oss.driver.api.core.cql.PreparedStatement put =
            session.prepare("INSERT INTO " + ks + ".usertable (key, field0, field3) VALUES (?, ?, ?)");
        List<java.util.concurrent.CompletionStage<com.datastax.oss.driver.api.core.cql.AsyncResultSet>> inflight = new ArrayList<>();
        for (int k = 0; k <= keys; k++)
        {
            if (k == keys || inflight.size() >= 64)
            {
                for (java.util.concurrent.CompletionStage<com.datastax.oss.driver.api.core.cql.AsyncResultSet> f : inflight)
                    f.toCompletableFuture().get();
                inflight.clear();
            }
            if (k < keys)
                inflight.add(session.executeAsync(put.bind(TransitioningIT.key(k), TransitioningIT.value(k, 0, 0), TransitioningIT.value(k, 0, 3))
                                                     .setConsistencyLevel(com.datastax.oss.driver.api.core.ConsistencyLevel.ALL)));
        }
    }

    /** Keyspace {@code ks} (SimpleStrategy, RF 3) with an ELECT {@code usertable (key, field0, field3)}: 1 MiB SSTables, fanout 4. */
    public static void createElectUsertable(com.datastax.oss.driver.api.core.CqlSession session, String ks)
    {
        createElectUsertable(session, ks, "{'class': 'SimpleStrategy', 'replication_factor': 3}");
    }

    /** The same with the given replication map (e.g. NetworkTopologyStrategy for racks). */
    public static void createElectUsertable(com.datastax.oss.driver.api.core.CqlSession session, String ks, String replication)
    {
        session.execute("CREATE KEYSPACE " + ks + " WITH replication = " + replication);
        session.execute("CREATE TABLE " + ks + ".usertable (key text PRIMARY KEY, field0 text, field3 text) WITH compaction = "
                        + "{'class': 'io.elect.core.bridge.ElectCompactionStrategy', 'sstable_size_in_mb': 1, 'fanout_size': 4}");
    }

    /** {@code nodetool flush} and a major compaction of {@code ks} on nodes 1..n (each must succeed). */
    public void flushAndCompact(String ks, int nodes) throws Exception
    {
        for (int i = 1; i <= nodes; i++)
        {
            if (run(180, "nodetool", String.valueOf(i), "flush", ks).code() != 0 || compact(i, ks).code() != 0)
                throw new AssertionError("flush or compaction of " + ks + " failed on node " + i);
        }
    }

    /**
     * Waits until node 1's storage report shows committed stripes, none in flight, and the first table's saving at
     * least {@code minSaving}; returns that report. AssertionError after 10 minutes.
     */
    public static com.fasterxml.jackson.databind.JsonNode awaitSettled(double minSaving) throws Exception
    {
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        long deadline = System.currentTimeMillis() + 600_000;
        while (System.currentTimeMillis() < deadline)
        {
            com.fasterxml.jackson.databind.JsonNode report =
                json.readTree((String) jmxAttribute(1, io.elect.core.jmx.ElectNodeMBean.OBJECT_NAME, "StorageJson"));
            com.fasterxml.jackson.databind.JsonNode stripes = report.get("stripes");
            if (inFlightStripes(stripes) == 0 && stripes.path("committed").asInt() > 0
                && report.get("tables").get(0).get("achieved_saving").asDouble() >= minSaving)
            {
                System.out.println("storage report: " + report);
                return report;
            }
            Thread.sleep(5000);
        }
        throw new AssertionError("transitioning did not settle within 10 minutes");
    }

    /** Every stripe record, decoded (read at the session's default consistency). */
    public static List<io.elect.core.stripes.StripeRecord> stripeRecords(com.datastax.oss.driver.api.core.CqlSession session)
    {
        return stripeRecords(session, null);
    }

    /**
     * Every stripe record, read at {@code cl} (null: the session's default). Records are written by compare-and-set at
     * QUORUM: a read at ONE on a node that missed the last write may see an older version.
     */
    public static List<io.elect.core.stripes.StripeRecord> stripeRecords(com.datastax.oss.driver.api.core.CqlSession session,
                                                                         com.datastax.oss.driver.api.core.ConsistencyLevel cl)
    {
        List<io.elect.core.stripes.StripeRecord> out = new ArrayList<>();
        com.datastax.oss.driver.api.core.cql.SimpleStatement select =
            com.datastax.oss.driver.api.core.cql.SimpleStatement.newInstance("SELECT record FROM elect_system.stripes");
        for (com.datastax.oss.driver.api.core.cql.Row row : session.execute(cl == null ? select : select.setConsistencyLevel(cl)))
        {
            java.nio.ByteBuffer b = row.getByteBuffer("record");
            byte[] bytes = new byte[b.remaining()];
            b.get(bytes);
            out.add(io.elect.core.stripes.StripeRecordCodec.decode(bytes));
        }
        return out;
    }

    /**
     * {@code nodetool N compact KEYSPACE}, once. It used to be retried: ELECT's holds on SSTables (stub purges,
     * freezes, tiering switches) were invisible to Cassandra's major compaction, which gave up after a minute with a
     * NullPointerException from CompactionManager.submitMaximal. Holds are now registered and stoppable
     * ({@code SSTableHold}), so a failure here is a failure.
     */
    /**
     * Starts a fresh local cluster of {@code nodes} that transitions quickly (RS k=2 m=1, alpha 0.6, every 5 s, no
     * age limits, cold tier on, every file cold by read rate) with {@code extraSets} ({@code key=value}) on top.
     */
    public Result startTransitioning(int nodes, String... extraSets) throws Exception
    {
        return startTransitioning(nodes, List.of(), extraSets);
    }

    /** {@link #startTransitioning(int, String...)} with more options of {@code elect-cluster start} (e.g. --racks 3). */
    public Result startTransitioning(int nodes, List<String> startOptions, String... extraSets) throws Exception
    {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(
            "start", "--nodes", String.valueOf(nodes), "--fresh", "--wait-for-ports", "900"));
        args.addAll(startOptions);
        args.addAll(java.util.List.of(
            "--set", "elect.data_chunks=2", "--set", "elect.parity_chunks=1",
            "--set", "elect.storage_saving_target=0.6", "--set", "elect.transition_min_age_seconds=0",
            "--set", "elect.transition_interval_seconds=5", "--set", "elect.stripe_fill_wait_seconds=5",
            "--set", "elect.primary_offload_min_age_seconds=0", "--set", "elect.cold_read_rate=1000"));
        for (String s : extraSets)
        {
            args.add("--set");
            args.add(s);
        }
        return run(1800, args.toArray(new String[0]));
    }

    public Result compact(int node, String keyspace) throws Exception
    {
        return run(600, "nodetool", String.valueOf(node), "compact", keyspace);
    }

    /** Runs {@code elect-cluster ARGS}; output is echoed to stdout unless the call is a successful nodetool. */
    public Result run(int timeoutSeconds, String... args) throws Exception
    {
        return runTool(timeoutSeconds, "scripts/elect-cluster", args);
    }

    /** Runs a command of the repository ({@code bin/electtool}, ...) with ARGS in this cluster's environment. */
    public Result runTool(int timeoutSeconds, String tool, String... args) throws Exception
    {
        List<String> cmd = new ArrayList<>();
        cmd.add(REPO.resolve(tool).toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(REPO.toFile()).redirectErrorStream(true);
        pb.environment().put("ELECT_RUN_DIR", runDir.toString());
        pb.environment().put("ELECT_SKIP_BUILD", "1");
        pb.environment().putAll(env);
        Path out = Files.createTempFile("elect-cluster", ".log");
        pb.redirectOutput(out.toFile());
        Process p = pb.start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS))
        {
            p.destroyForcibly().waitFor();
            throw new AssertionError(tool + " " + String.join(" ", args) + " timed out; output:\n" + Files.readString(out));
        }
        String text = Files.readString(out);
        Files.delete(out);
        if (!args[0].equals("nodetool") || p.exitValue() != 0)
            System.out.println(tool + " " + String.join(" ", args) + " -> " + p.exitValue() + "\n" + text);
        return new Result(p.exitValue(), text);
    }
}
