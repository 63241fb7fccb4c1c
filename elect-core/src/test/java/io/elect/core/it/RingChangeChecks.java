package io.elect.core.it;

import java.util.HashSet;
import java.util.Set;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Row;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.elect.core.jmx.ElectNodeMBean;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;

import static io.elect.core.it.TransitioningIT.key;
import static io.elect.core.it.TransitioningIT.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Checks the ring-change tests (BootstrapIT, MoveIT, DepartureIT) share, on the usertable of one ELECT keyspace. */
final class RingChangeChecks
{
    private static final ObjectMapper JSON = new ObjectMapper();

    private RingChangeChecks()
    {
    }

    /** Node 1's storage report. */
    static JsonNode storage() throws Exception
    {
        return JSON.readTree((String) LocalClusterScript.jmxAttribute(1, ElectNodeMBean.OBJECT_NAME, "StorageJson"));
    }

    /** The first table's achieved saving in a storage report. */
    static double saving(JsonNode report)
    {
        return report.path("tables").path(0).path("achieved_saving").asDouble();
    }

    /**
     * Waits (at most {@code timeoutMillis}) until the saving is within 2 points of {@code alpha} with no stripe in
     * flight; returns the last report (the caller asserts on it).
     */
    static JsonNode awaitSavingNear(double alpha, long timeoutMillis) throws Exception
    {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        JsonNode now = storage();
        while ((Math.abs(saving(now) - alpha) > 0.02 || LocalClusterScript.inFlightStripes(now.path("stripes")) > 0)
               && System.currentTimeMillis() < deadline)
        {
            Thread.sleep(5000);
            now = storage();
        }
        return now;
    }

    /**
     * Parity objects in the local cold tier (S3Proxy's filesystem backend under {@code runDir}) that no stripe record
     * uses: of a stripe without a COMMITTED record, or of another generation than the record's (keys
     * {@code parity/<ks>.<table>/<stripe>/<j>[.g<gen>]}, docs/formats/parity-file.md).
     */
    static java.util.List<String> orphanParityObjects(java.nio.file.Path runDir, CqlSession session, String ks, String table) throws Exception
    {
        java.nio.file.Path root = runDir.resolve("cluster/cold/data/elect/parity/" + ks + "." + table);
        java.util.List<String> out = new java.util.ArrayList<>();
        if (!java.nio.file.Files.isDirectory(root))
            return out;
        java.util.Map<String, StripeRecord> byId = new java.util.HashMap<>();
        for (StripeRecord r : LocalClusterScript.stripeRecords(session))
            byId.put(r.id().toString(), r);
        try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.walk(root))
        {
            for (java.nio.file.Path f : files.filter(java.nio.file.Files::isRegularFile).toList())
            {
                String stripe = f.getParent().getFileName().toString(), name = f.getFileName().toString();
                int dot = name.indexOf(".g");
                long generation = dot < 0 ? 0 : Long.parseLong(name.substring(dot + 2));
                StripeRecord r = byId.get(stripe);
                if (r == null || r.state() != StripeState.COMMITTED || r.parityGeneration() != generation)
                    out.add(root.relativize(f) + (r == null ? " (no record)" : " (record " + r.state() + " at generation " + r.parityGeneration() + ")"));
            }
        }
        return out;
    }

    /** Every committed stripe has its members and parity chunks on distinct nodes. */
    static void assertChunksOnDistinctNodes(CqlSession session)
    {
        for (StripeRecord r : LocalClusterScript.stripeRecords(session, ConsistencyLevel.QUORUM))
        {
            if (r.state() != StripeState.COMMITTED)
                continue;
            Set<String> nodes = new HashSet<>(r.parityNodes());
            r.members().stream().filter(m -> !m.isVirtual()).forEach(m -> assertTrue(nodes.add(m.node()),
                "stripe " + r.id() + " holds two chunks on " + m.node()));
        }
    }

    /** Row {@code k} of a load never updated (version 0 of field0 and field3). */
    static void check(Row row, int k, String how)
    {
        assertNotNull(row, "key " + key(k) + " readable (" + how + ")");
        assertEquals(value(k, 0, 0), row.getString(0), "key " + key(k) + " field0 (" + how + ")");
        assertEquals(value(k, 0, 3), row.getString(1), "key " + key(k) + " field3 (" + how + ")");
    }
}
