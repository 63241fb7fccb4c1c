package io.elect.core.bridge;

import java.util.UUID;

import io.elect.core.util.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.apache.cassandra.cql3.QueryProcessor;
import org.apache.cassandra.db.ConsistencyLevel;
import org.apache.cassandra.schema.Schema;
import org.apache.cassandra.service.StorageService;

/**
 * ELECT's own replicated keyspace {@value #KEYSPACE}: created at start-up (after Cassandra has joined the ring) if
 * absent. Layout: docs/formats/stripe-metadata.md.
 *
 * <p>The table id is fixed ({@link #STRIPES_ID}) so that nodes creating the table concurrently at first start create
 * the SAME table (Cassandra resolves identical schema changes; two random ids would be a schema conflict).
 * Replication: SimpleStrategy, factor min(3, nodes in the ring); {@link #ensure} raises it when the ring has grown
 * (the coordinator calls it every round; existing rows reach new replicas by repair or by their next write).
 */
public final class ElectSystemKeyspace
{
    private static final Logger logger = LoggerFactory.getLogger(ElectSystemKeyspace.class);

    public static final String KEYSPACE = "elect_system";
    public static final String STRIPES = "stripes";
    /** DO NOT CHANGE: the id of elect_system.stripes on every cluster. */
    public static final UUID STRIPES_ID = UUID.fromString("e1ec0000-0000-4000-8000-000000000001");
    /** Nodes being drained before they leave (electtool decommission). */
    public static final String DRAINS = "drains";
    /** DO NOT CHANGE: the id of elect_system.drains on every cluster. */
    public static final UUID DRAINS_ID = UUID.fromString("e1ec0000-0000-4000-8000-000000000002");

    private ElectSystemKeyspace()
    {
    }

    private static int currentFactor()
    {
        String rf = Schema.instance.getKeyspaceMetadata(KEYSPACE).params.replication.options.get("replication_factor");
        return rf == null ? Integer.MAX_VALUE : Integer.parseInt(rf);
    }

    /** Whether the stripes table exists (in this node's schema). */
    public static boolean exists()
    {
        return Schema.instance.getTableMetadata(KEYSPACE, STRIPES) != null;
    }

    /** Whether the drains table exists (a cluster created before it had only the stripes table until a coordinator ran). */
    public static boolean drainsExist()
    {
        return Schema.instance.getTableMetadata(KEYSPACE, DRAINS) != null;
    }

    /** Creates the keyspace and tables if absent. Idempotent; REQUIRES: the node has joined the ring. */
    public static synchronized void ensure(Clock clock)
    {
        if (exists() && drainsExist() && currentFactor() >= Math.max(1, Math.min(3, StorageService.instance.getTokenMetadata().getAllEndpoints().size())))
            return;
        long start = clock.nanoTime();
        int rf = Math.max(1, Math.min(3, StorageService.instance.getTokenMetadata().getAllEndpoints().size()));
        if (Schema.instance.getKeyspaceMetadata(KEYSPACE) == null)
            QueryProcessor.execute("CREATE KEYSPACE IF NOT EXISTS " + KEYSPACE
                                   + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': " + rf + "}",
                                   ConsistencyLevel.ONE);
        else if (Schema.instance.getKeyspaceMetadata(KEYSPACE).params.replication.options.containsKey("replication_factor")
                 && Integer.parseInt(Schema.instance.getKeyspaceMetadata(KEYSPACE).params.replication.options.get("replication_factor")) < rf)
        {
            // the ring grew since creation: raise the factor (new replicas get the rows by repair or by the next writes)
            QueryProcessor.execute("ALTER KEYSPACE " + KEYSPACE
                                   + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': " + rf + "}",
                                   ConsistencyLevel.ONE);
        }
        if (Schema.instance.getTableMetadata(KEYSPACE, STRIPES) == null)
            QueryProcessor.execute("CREATE TABLE IF NOT EXISTS " + KEYSPACE + "." + STRIPES + " ("
                                   + " id blob PRIMARY KEY,"        // 16-byte stripe id
                                   + " state int,"                  // StripeState code
                                   + " version bigint,"             // compare-and-set token, +1 per transition
                                   + " record blob"                 // StripeRecordCodec v1 (with CRC32C)
                                   + ") WITH id = " + STRIPES_ID
                                   + " AND comment = 'ELECT stripe metadata, docs/formats/stripe-metadata.md'",
                                   ConsistencyLevel.ONE);
        if (Schema.instance.getTableMetadata(KEYSPACE, DRAINS) == null)
            QueryProcessor.execute("CREATE TABLE IF NOT EXISTS " + KEYSPACE + "." + DRAINS + " ("
                                   + " node text PRIMARY KEY,"      // the node's id (broadcast address)
                                   + " since bigint"                // epoch ms the drain began
                                   + ") WITH id = " + DRAINS_ID
                                   + " AND comment = 'ELECT nodes draining before they leave, docs/formats/stripe-metadata.md'",
                                   ConsistencyLevel.ONE);
        logger.info("ELECT system keyspace {} ready (replication factor at creation {}) in {} ms", KEYSPACE, rf,
                    (clock.nanoTime() - start) / 1_000_000);
    }
}
