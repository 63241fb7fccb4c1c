package io.elect.ycsb.bench;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Phaser;

import org.HdrHistogram.Histogram;

import io.elect.ycsb.CassandraCqlClient;
import site.ycsb.DB;
import site.ycsb.measurements.Measurements;
import site.ycsb.workloads.CoreWorkload;

/**
 * One YCSB workload against two (or more) tables of one cluster, interleaved in short time slices within one warm
 * client JVM, so that both tables see the same machine at nearly the same moments (used by {@code scripts/bench
 * compare}: on the 2-core VM, separate YCSB runs of a few seconds, each in a fresh JVM, gave per-round ratios
 * spread from 0.72 to 1.55 within one run and could not resolve a few percent).
 *
 * <pre>Interleaved --workload FILE --tables A,B [--rounds 8] [--slice-seconds 3] [--warmup-seconds 30]
 *             [--threads 8] [-p key=value ...]</pre>
 *
 * <p>What is YCSB's and what is ours: the operations, key and field choosers, value generators and the mix are
 * YCSB's {@link CoreWorkload} (one instance per table, configured by the workload file plus {@code -p}
 * properties, with {@code table} set per instance) and every call goes through the real binding
 * ({@link CassandraCqlClient}, one per thread and table, sharing one driver session). Only YCSB's client loop is
 * replaced: {@code --threads} worker threads run the workload's transactions against ONE table at a time until
 * the slice's deadline, then all of them switch. A round runs one slice per table, in the order of
 * {@link SliceOrder}: with two tables the listed order in odd rounds and reversed in even ones (ABBA: a linear
 * drift of the machine favours neither), with more a balanced Latin square (every table equally often in every
 * position and after every other table, over {@link SliceOrder#designLength} rounds). Unreported warm-up rounds of the same
 * kind come first, until throughput settles ({@link #warmUp}; at most {@code --warmup-seconds} per table).
 *
 * <p>Output (stdout), one JSON object per measured slice: {@code {"round":R,"table":T,"order":1..n,"seconds":S,
 * "ops":N,"ops_per_s":X,"read_p50_ms":..,"read_p99_ms":..,"update_p50_ms":..,"update_p99_ms":..,
 * "insert_p50_ms":..,"insert_p99_ms":..,"scan_p50_ms":..,"scan_p99_ms":..,"failures":{"READ=NOT_FOUND":3}}};
 * latency fields are null when the slice had no such operation; ops count transactions as YCSB's OVERALL does
 * (a read-modify-write is one); seconds run from releasing the threads to the last one finishing its operation
 * in flight at the deadline. Exit code 2 for bad arguments, 1 if a table cannot be reached.
 */
public final class Interleaved
{
    private final Options options;
    private final List<CoreWorkload> workloads = new ArrayList<>();
    private final List<Worker> workers = new ArrayList<>();
    private final Phaser barrier;
    /** The slice the workers run next; written by the coordinator before it arrives at the start barrier. */
    private volatile int current;
    private volatile long deadlineNanos;
    private volatile boolean stop;

    private Interleaved(Options options)
    {
        this.options = options;
        this.barrier = new Phaser(options.threads + 1);
    }

    public static void main(String[] args) throws Exception
    {
        Options options;
        try
        {
            options = Options.parse(args);
        }
        catch (IllegalArgumentException e)
        {
            System.err.println("Interleaved: " + e.getMessage());
            System.err.println(Options.USAGE);
            System.exit(2);
            return;
        }
        Interleaved run = new Interleaved(options);
        try
        {
            run.start();
        }
        catch (Exception e)
        {
            System.err.println("Interleaved: cannot start: " + e);
            System.exit(1);
        }
        run.measure();
        run.close();
        System.exit(0);
    }

    private void start() throws Exception
    {
        Measurements.setProperties(options.properties); // CoreWorkload measures read-modify-writes there
        for (String table : options.tables)
        {
            Properties p = (Properties) options.properties.clone();
            p.setProperty(CoreWorkload.TABLENAME_PROPERTY, table);
            CoreWorkload w = new CoreWorkload();
            w.init(p);
            workloads.add(w);
        }
        for (int t = 0; t < options.threads; t++)
        {
            Worker worker = new Worker(t);
            workers.add(worker);
            Thread thread = new Thread(worker, "interleaved-" + t);
            thread.setDaemon(true);
            thread.start();
        }
    }

    /** Warm-up (not reported), then the rounds; one JSON line per measured slice. */
    private void measure()
    {
        int n = options.tables.size();
        warmUp(n);
        for (int round = 1; round <= options.rounds; round++)
        {
            for (int pos = 0; pos < n; pos++)
            {
                int s = SliceOrder.of(round, n)[pos];
                SliceResult r = slice(s, options.sliceSeconds * 1000L);
                System.out.println(r.json(round, options.tables.get(s), pos + 1));
                System.out.flush();
            }
        }
    }

    /**
     * Unreported rounds (same slices and order as measured ones) until the cluster is warm: at least
     * {@link #MIN_WARMUP_ROUNDS} if the budget allows, then until a round's total throughput is within
     * {@link #WARM_CHANGE} of the round before; at most {@code --warmup-seconds} per table (but at least one round
     * unless it is 0). Why adaptive: after a fresh client JVM and a workload mix the nodes had not run yet, throughput kept rising for about 30-45 s (a read-only run on three identical tables:
     * 1727, 2566, 3607 ops/s in the first round's three slices, and still +11% from round 3 to 4), so a fixed short
     * warm-up made the first measured slice of every run the slowest, whatever the table.
     */
    private void warmUp(int n)
    {
        long sliceMillis = options.sliceSeconds * 1000L;
        List<Double> totals = new ArrayList<>();
        String why;
        while ((why = warmUpEnd(totals, n * sliceMillis, options.warmupSeconds * 1000L * n)) == null)
        {
            double total = 0;
            for (int s : SliceOrder.of(totals.size() + 1, n))
            {
                SliceResult r = slice(s, sliceMillis);
                total += r.ops / (r.elapsedNanos / 1e9);
            }
            totals.add(total);
        }
        System.err.printf(Locale.ROOT, "Interleaved: warm-up %d round(s), %d s: %s%n", totals.size(),
                          totals.size() * n * sliceMillis / 1000, why);
    }

    /**
     * Whether the warm-up ends after the rounds whose total throughputs (ops/s summed over a round's slices) are
     * given: null to run another round of roundMillis, else why it ends. Pure, for golden cases.
     */
    static String warmUpEnd(List<Double> totals, long roundMillis, long budgetMillis)
    {
        int done = totals.size();
        if (budgetMillis <= 0)
            return "--warmup-seconds 0";
        if (done >= MIN_WARMUP_ROUNDS)
        {
            double change = totals.get(done - 1) / totals.get(done - 2) - 1;
            if (Math.abs(change) <= WARM_CHANGE)
                return String.format(Locale.ROOT, "throughput changed %+.1f%% from the round before", 100 * change);
        }
        if (done > 0 && (done + 1) * roundMillis > budgetMillis)
            return "the --warmup-seconds budget is spent";
        return null;
    }

    /** Warm-up rounds run at least (two: the first round of a cold run is never representative). */
    static final int MIN_WARMUP_ROUNDS = 2;
    /** Relative change of a round's total throughput below which the warm-up ends. */
    static final double WARM_CHANGE = 0.05;

    /** Runs every worker against table index s for about millis; returns what they did. */
    private SliceResult slice(int s, long millis)
    {
        current = s;
        long start = System.nanoTime();
        deadlineNanos = start + millis * 1_000_000L;
        barrier.arriveAndAwaitAdvance(); // release the workers
        barrier.arriveAndAwaitAdvance(); // every worker is past the deadline
        long elapsed = System.nanoTime() - start;
        SliceResult r = new SliceResult(elapsed);
        for (Worker w : workers)
        {
            r.ops += w.ops;
            w.ops = 0;
            w.dbs[s].drainInto(r.latency, r.failures);
        }
        return r;
    }

    private void close()
    {
        stop = true;
        barrier.arriveAndAwaitAdvance(); // the workers see stop and leave
        for (Worker w : workers)
            for (TimedDB db : w.dbs)
            {
                try
                {
                    db.cleanup();
                }
                catch (Exception e)
                {
                    System.err.println("Interleaved: cleanup: " + e);
                }
            }
    }

    /** One client thread: a binding instance and a workload thread state per table. */
    private final class Worker implements Runnable
    {
        final TimedDB[] dbs;
        final Object[] states;
        /** Transactions of the current slice; read and reset by the coordinator between slices. */
        long ops;

        Worker(int id) throws Exception
        {
            int n = options.tables.size();
            dbs = new TimedDB[n];
            states = new Object[n];
            for (int s = 0; s < n; s++)
            {
                DB db = new CassandraCqlClient();
                dbs[s] = new TimedDB(db);
                dbs[s].setProperties(options.properties);
                dbs[s].init();
                states[s] = workloads.get(s).initThread(options.properties, id, options.threads);
            }
        }

        @Override
        public void run()
        {
            while (true)
            {
                barrier.arriveAndAwaitAdvance();
                if (stop)
                {
                    barrier.arriveAndDeregister();
                    return;
                }
                int s = current;
                long deadline = deadlineNanos;
                CoreWorkload w = workloads.get(s);
                long done = 0;
                while (System.nanoTime() - deadline < 0)
                {
                    if (!w.doTransaction(dbs[s], states[s]))
                        break;
                    done++;
                }
                ops = done;
                barrier.arriveAndAwaitAdvance();
            }
        }
    }

    /** What one slice did, summed over the workers. */
    static final class SliceResult
    {
        final long elapsedNanos;
        final Histogram[] latency = TimedDB.newTotals();
        final Map<String, Long> failures = new TreeMap<>();
        long ops;

        SliceResult(long elapsedNanos)
        {
            this.elapsedNanos = elapsedNanos;
        }

        String json(int round, String table, int order)
        {
            double seconds = elapsedNanos / 1e9;
            StringBuilder b = new StringBuilder();
            b.append(String.format(Locale.ROOT, "{\"round\":%d,\"table\":\"%s\",\"order\":%d,\"seconds\":%.3f,"
                                                + "\"ops\":%d,\"ops_per_s\":%.1f", round, table, order, seconds, ops,
                                   seconds > 0 ? ops / seconds : 0.0));
            for (int i = 0; i < TimedDB.KINDS.length; i++)
            {
                if (TimedDB.KINDS[i].equals("DELETE"))
                    continue;
                String name = TimedDB.KINDS[i].toLowerCase(Locale.ROOT);
                Histogram h = latency[i];
                for (int pct : new int[]{ 50, 99 })
                {
                    b.append(",\"").append(name).append("_p").append(pct).append("_ms\":");
                    if (h.getTotalCount() == 0)
                        b.append("null");
                    else
                        b.append(String.format(Locale.ROOT, "%.3f", h.getValueAtPercentile(pct) / 1000.0));
                }
            }
            b.append(",\"failures\":{");
            String sep = "";
            for (Map.Entry<String, Long> e : failures.entrySet())
            {
                b.append(sep).append('"').append(e.getKey()).append("\":").append(e.getValue());
                sep = ",";
            }
            return b.append("}}").toString();
        }
    }

    /** Command-line options; every error names the flag. */
    static final class Options
    {
        static final String USAGE = "usage: Interleaved --workload FILE --tables A,B [--rounds 8] "
                                    + "[--slice-seconds 3] [--warmup-seconds 30] [--threads 8] [-p key=value ...]";
        final Properties properties = new Properties();
        List<String> tables = List.of();
        int rounds = 8;
        int sliceSeconds = 3;
        int warmupSeconds = 30;
        int threads = 8;

        static Options parse(String[] args)
        {
            Options o = new Options();
            String workload = null;
            Properties overrides = new Properties();
            for (int i = 0; i < args.length; i++)
            {
                String flag = args[i];
                if (i + 1 >= args.length)
                    throw new IllegalArgumentException(flag + " needs a value");
                String v = args[++i];
                switch (flag)
                {
                    case "--workload": workload = v; break;
                    case "--tables": o.tables = tables(v); break;
                    case "--rounds": o.rounds = positive(flag, v, 1); break;
                    case "--slice-seconds": o.sliceSeconds = positive(flag, v, 1); break;
                    case "--warmup-seconds": o.warmupSeconds = positive(flag, v, 0); break;
                    case "--threads": o.threads = positive(flag, v, 1); break;
                    case "-p":
                        int eq = v.indexOf('=');
                        if (eq <= 0)
                            throw new IllegalArgumentException("-p needs key=value, got '" + v + "'");
                        overrides.setProperty(v.substring(0, eq), v.substring(eq + 1));
                        break;
                    default: throw new IllegalArgumentException("unknown option '" + flag + "'");
                }
            }
            if (workload == null)
                throw new IllegalArgumentException("--workload is required");
            if (o.tables.isEmpty())
                throw new IllegalArgumentException("--tables is required");
            try (InputStream in = new FileInputStream(workload))
            {
                o.properties.load(in);
            }
            catch (IOException e)
            {
                throw new IllegalArgumentException("--workload: cannot read '" + workload + "': " + e.getMessage());
            }
            o.properties.putAll(overrides);
            return o;
        }

        private static List<String> tables(String v)
        {
            List<String> out = new ArrayList<>();
            for (String t : v.split(","))
            {
                t = t.trim();
                if (!t.matches("[A-Za-z][A-Za-z0-9_]*"))
                    throw new IllegalArgumentException("--tables: '" + t + "' is not a CQL identifier");
                if (out.contains(t))
                    throw new IllegalArgumentException("--tables: '" + t + "' is listed twice");
                out.add(t);
            }
            if (out.size() < 2)
                throw new IllegalArgumentException("--tables needs at least two tables to interleave, got " + v);
            return out;
        }

        private static int positive(String flag, String v, int min)
        {
            try
            {
                int n = Integer.parseInt(v);
                if (n >= min)
                    return n;
            }
            catch (NumberFormatException e)
            {
                // reported below
            }
            throw new IllegalArgumentException(flag + " needs an integer >= " + min + ", got '" + v + "'");
        }
    }
}
