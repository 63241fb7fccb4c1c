package io.elect.core.bridge;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.elect.core.stripes.StripeId;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeRecordCodec;
import io.elect.core.stripes.StripeState;
import io.elect.core.transition.StripeStore;
import io.elect.core.util.Clock;
import org.apache.cassandra.cql3.QueryHandler;
import org.apache.cassandra.cql3.QueryOptions;
import org.apache.cassandra.cql3.QueryProcessor;
import org.apache.cassandra.cql3.UntypedResultSet;
import org.apache.cassandra.db.ConsistencyLevel;
import org.apache.cassandra.db.marshal.Int32Type;
import org.apache.cassandra.db.marshal.LongType;
import org.apache.cassandra.service.QueryState;
import org.apache.cassandra.transport.Dispatcher;
import org.apache.cassandra.transport.ProtocolVersion;
import org.apache.cassandra.transport.messages.ResultMessage;

/**
 * {@link StripeStore} in the replicated table {@code elect_system.stripes} (docs/formats/stripe-metadata.md), through
 * Cassandra's internal query path (no driver, no network hop to ourselves). Creation and transitions are lightweight
 * transactions (Paxos, serial consistency SERIAL, commit at QUORUM), so two nodes driving or recovering the same
 * stripe never both win a step. Reads that decide a transition are SERIAL (linearizable); {@link #list} is QUORUM.
 *
 * <p>REQUIRES: {@link ElectSystemKeyspace#ensure()} has run. Exceptions from Cassandra (timeouts, unavailable) are
 * passed on: the outcome is unknown and the caller retries (every operation is idempotent).
 */
public final class ElectStripeStore implements StripeStore
{
    private static final org.slf4j.Logger logger = org.slf4j.LoggerFactory.getLogger(ElectStripeStore.class);
    private static final String T = ElectSystemKeyspace.KEYSPACE + "." + ElectSystemKeyspace.STRIPES;
    private static final String D = ElectSystemKeyspace.KEYSPACE + "." + ElectSystemKeyspace.DRAINS;
    private static final int MAX_CAS_ROUNDS = 16;

    private final ConsistencyLevel write;
    private final ConsistencyLevel serial;
    private final Clock clock;

    /** QUORUM / SERIAL: what a multi-node cluster needs. */
    public ElectStripeStore(Clock clock)
    {
        this(ConsistencyLevel.QUORUM, ConsistencyLevel.SERIAL, clock);
    }

    public ElectStripeStore(ConsistencyLevel write, ConsistencyLevel serial, Clock clock)
    {
        this.write = write;
        this.serial = serial;
        this.clock = clock;
    }

    @Override
    public Outcome create(StripeRecord planned)
    {
        if (planned.state() != StripeState.PLANNED)
            throw new IllegalArgumentException("create: state must be PLANNED, was " + planned.state());
        UntypedResultSet rs = run("INSERT INTO " + T + " (id, state, version, record) VALUES (?, ?, ?, ?) IF NOT EXISTS", write,
                                  id(planned.id()), Int32Type.instance.decompose(planned.state().code),
                                  LongType.instance.decompose(planned.version()), ByteBuffer.wrap(StripeRecordCodec.encode(planned)));
        UntypedResultSet.Row row = rs.one();
        if (row.getBoolean("[applied]"))
            return Outcome.APPLIED;
        return decode(row).samePlan(planned) ? Outcome.ALREADY : Outcome.CONFLICT;
    }

    @Override
    public Optional<StripeRecord> get(StripeId id)
    {
        return read(id, serial);
    }

    /** A QUORUM read: no Paxos round, so it cannot fail on contention with the rounds' transactions. */
    @Override
    public Optional<StripeRecord> getCommitted(StripeId id)
    {
        return read(id, write);
    }

    /**
     * A read of one record; a read that failed on contention or a timeout is retried (up to {@link #READ_ATTEMPTS}
     * times, jittered back-off). Why: with Paxos v1 a SERIAL read is a Paxos round, and the STUB_INSTALL handlers of
     * a stripe's secondaries read the same record at the same moment; on a real cluster one of them regularly failed
     * with "CAS operation result is unknown - proposal accepted by 1 but not a quorum", and each failure rolled the
     * stripe back (tls-cluster bench, 1 to 5 of 10 stripes per run). A read changes nothing, so repeating it is safe.
     */
    private Optional<StripeRecord> read(StripeId id, ConsistencyLevel cl)
    {
        for (int attempt = 1; ; attempt++)
        {
            try
            {
                UntypedResultSet rs = run("SELECT record FROM " + T + " WHERE id = ?", cl, id(id));
                return rs == null || rs.isEmpty() ? Optional.empty() : Optional.of(decode(rs.one()));
            }
            catch (org.apache.cassandra.exceptions.CasWriteUnknownResultException | org.apache.cassandra.exceptions.RequestTimeoutException
                   | org.apache.cassandra.exceptions.UnavailableException e)
            {
                if (attempt >= READ_ATTEMPTS)
                    throw e;
                long pause = java.util.concurrent.ThreadLocalRandom.current().nextLong(10, 60) * attempt;
                logger.debug("read of stripe {} at {} failed ({}), attempt {} of {}; again in {} ms", id, cl, e.getMessage(), attempt,
                             READ_ATTEMPTS, pause);
                try
                {
                    clock.sleep(pause);
                }
                catch (InterruptedException ie)
                {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /** Attempts of one record read before its failure is the caller's. */
    static final int READ_ATTEMPTS = 5;

    @Override
    public Outcome transition(StripeId id, StripeState from, StripeState to, long nowMillis)
    {
        StripeStore.checkSuccessor(from, to);
        for (int round = 0; round < MAX_CAS_ROUNDS; round++)
        {
            Optional<StripeRecord> cur = read(id, serial);
            if (cur.isEmpty())
                return Outcome.CONFLICT;
            StripeRecord r = cur.get();
            if (r.state() == to)
                return Outcome.ALREADY;
            if (r.state() != from)
                return Outcome.CONFLICT;
            StripeRecord next = r.moveTo(to, nowMillis);
            UntypedResultSet rs = run("UPDATE " + T + " SET state = ?, version = ?, record = ? WHERE id = ? IF version = ?", write,
                                      Int32Type.instance.decompose(to.code), LongType.instance.decompose(next.version()),
                                      ByteBuffer.wrap(StripeRecordCodec.encode(next)), id(id), LongType.instance.decompose(r.version()));
            if (rs.one().getBoolean("[applied]"))
                return Outcome.APPLIED;
            // Lost a race: re-read and decide again.
        }
        throw new IllegalStateException("stripe " + id + ": " + MAX_CAS_ROUNDS + " lost compare-and-set rounds in a row");
    }

    @Override
    public Outcome replan(StripeRecord expected, StripeRecord next)
    {
        StripeStore.checkReplan(expected, next);
        Optional<StripeRecord> cur = read(next.id(), serial);
        if (cur.isEmpty())
            return Outcome.CONFLICT;
        if (cur.get().samePlan(next) && cur.get().state() == next.state())
            return Outcome.ALREADY;
        if (cur.get().version() != expected.version())
            return Outcome.CONFLICT;
        UntypedResultSet rs = run("UPDATE " + T + " SET state = ?, version = ?, record = ? WHERE id = ? IF version = ?", write,
                                  Int32Type.instance.decompose(next.state().code), LongType.instance.decompose(next.version()),
                                  ByteBuffer.wrap(StripeRecordCodec.encode(next)), id(next.id()),
                                  LongType.instance.decompose(expected.version()));
        if (rs.one().getBoolean("[applied]"))
            return Outcome.APPLIED;
        // Lost a race: whoever won may have written exactly this plan (a concurrent retry of the same change).
        Optional<StripeRecord> now = read(next.id(), serial);
        return now.isPresent() && now.get().samePlan(next) && now.get().state() == next.state() ? Outcome.ALREADY : Outcome.CONFLICT;
    }

    @Override
    public List<StripeRecord> list()
    {
        UntypedResultSet rs = run("SELECT record FROM " + T, write);
        List<StripeRecord> out = new ArrayList<>();
        if (rs != null)
            for (UntypedResultSet.Row row : rs)
                out.add(decode(row));
        return out;
    }

    @Override
    public boolean delete(StripeId id)
    {
        // one conditional delete per removable state: the row's state decides which one can apply
        UntypedResultSet.Row row = null;
        for (StripeState removable : new StripeState[]{ StripeState.ROLLED_BACK, StripeState.RETIRED })
        {
            row = run("DELETE FROM " + T + " WHERE id = ? IF state = ?", write, id(id),
                      Int32Type.instance.decompose(removable.code)).one();
            if (row.getBoolean("[applied]"))
                return true;
            if (!row.has("state"))
                return false; // no such row
            if (!StripeState.ofCode(row.getInt("state")).rowRemovable())
                break;
        }
        throw new IllegalStateException("delete: stripe " + id + " is " + StripeState.ofCode(row.getInt("state"))
                                        + ", only ROLLED_BACK and RETIRED rows are removed");
    }

    /**
     * The drain marks, read at QUORUM like {@link #list} (a mark written at QUORUM is seen). Empty while the table
     * does not exist yet on this node (a cluster upgraded from before drains: the coordinator creates it).
     */
    @Override
    public java.util.Map<String, Long> draining()
    {
        if (!ElectSystemKeyspace.drainsExist())
            return java.util.Map.of();
        UntypedResultSet rs = run("SELECT node, since FROM " + D, write);
        java.util.TreeMap<String, Long> out = new java.util.TreeMap<>();
        if (rs != null)
            for (UntypedResultSet.Row row : rs)
                out.put(row.getString("node"), row.getLong("since"));
        return out;
    }

    @Override
    public void markDraining(String node, long sinceMillis)
    {
        if (!ElectSystemKeyspace.drainsExist())
            throw new IllegalStateException("table " + D + " does not exist yet (it is created by the transitioning coordinator once every node is up)");
        // IF NOT EXISTS keeps the first mark's time; the answer (applied or not) is idempotent either way
        run("INSERT INTO " + D + " (node, since) VALUES (?, ?) IF NOT EXISTS", write,
            org.apache.cassandra.db.marshal.UTF8Type.instance.decompose(node), LongType.instance.decompose(sinceMillis));
    }

    @Override
    public void unmarkDraining(String node)
    {
        if (ElectSystemKeyspace.drainsExist())
            run("DELETE FROM " + D + " WHERE node = ?", write, org.apache.cassandra.db.marshal.UTF8Type.instance.decompose(node));
    }

    /** Creates (or widens the replication of) the keyspace and table: {@link ElectSystemKeyspace#ensure()}. */
    @Override
    public void ensureReady()
    {
        ElectSystemKeyspace.ensure(clock);
    }

    @Override
    public boolean ready()
    {
        return ElectSystemKeyspace.exists();
    }

    private static StripeRecord decode(UntypedResultSet.Row row)
    {
        ByteBuffer b = row.getBytes("record").duplicate();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return StripeRecordCodec.decode(bytes);
    }

    private static ByteBuffer id(StripeId id)
    {
        return ByteBuffer.wrap(id.toBytes());
    }

    /** One statement through the distributed path, with an explicit serial consistency (needed by IF clauses). */
    private UntypedResultSet run(String cql, ConsistencyLevel cl, ByteBuffer... values)
    {
        QueryHandler.Prepared prepared = QueryProcessor.prepareInternal(cql);
        QueryOptions options = QueryOptions.create(cl, List.of(values), false, -1, null, serial,
                                                   ProtocolVersion.CURRENT, null);
        ResultMessage result = prepared.statement.execute(QueryState.forInternalCalls(), options,
                                                          Dispatcher.RequestTime.forImmediateExecution());
        return result instanceof ResultMessage.Rows ? UntypedResultSet.create(((ResultMessage.Rows) result).result) : null;
    }
}
