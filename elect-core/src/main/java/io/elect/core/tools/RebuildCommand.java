package io.elect.core.tools;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.elect.core.jmx.ElectNodeMBean;

/**
 * {@code electtool rebuild [--keyspace KS] [--parallel N] [--throttle MIB_PER_S] [--no-stream] [--no-wait] [--json]}: rebuilds a
 * replacement node (same address and token, empty disk) and shows progress with an ETA until it ends. Run again
 * after an interruption: finished steps are skipped. Exit 0 when the rebuild is done, 1 if it failed.
 */
final class RebuildCommand implements ElectTool.Command
{
    static final int DEFAULT_PARALLEL = 2;
    /** Decoding at most this many MiB/s by default: a rebuild must not starve the live cluster. */
    static final double DEFAULT_THROTTLE = 64;
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Status polls: often enough that the command ends within a quarter second of the rebuild (benchmarks time it). */
    /** Longest wait of one long poll (awaitRebuild): the progress bar's refresh period; the end is seen at once. */
    static final long POLL_MILLIS = 1000;
    /** Polling period against a node without awaitRebuild (older ELECT). */
    static final long OLD_NODE_POLL_MILLIS = 250;

    @Override
    public String summary()
    {
        return "rebuild this replacement node: decode encoded primaries, regenerate parity, stream the rest (progress, ETA)";
    }

    @Override
    public int run(JmxClient node, List<String> args, PrintStream out) throws Exception
    {
        int parallel = DEFAULT_PARALLEL;
        double throttle = DEFAULT_THROTTLE;
        boolean stream = true, wait = true, json = false;
        String keyspace = "";
        for (int i = 0; i < args.size(); i++)
        {
            String a = args.get(i);
            switch (a)
            {
                case "--parallel" -> parallel = intArg(args, ++i, a, 1, 64);
                case "--throttle" -> throttle = intArg(args, ++i, a, 0, 1 << 20);
                case "--no-stream" -> stream = false;
                case "--keyspace" -> {
                    if (++i >= args.size())
                        throw new IllegalArgumentException("rebuild: --keyspace needs a value");
                    keyspace = args.get(i);
                }
                case "--no-wait" -> wait = false;
                case "--json" -> json = true;
                default -> throw new IllegalArgumentException("rebuild: unknown option '" + a + "' (--keyspace KS, --parallel N, --throttle MIB_PER_S "
                                                              + "(0: unthrottled), --no-stream, --no-wait, --json)");
            }
        }
        if (!node.isRegistered(ElectNodeMBean.OBJECT_NAME))
        {
            out.println("node at " + node.endpoint() + " is reachable but ELECT is not running on it (plain Cassandra, or still starting)");
            return 1;
        }
        String first = (String) node.invoke(ElectNodeMBean.OBJECT_NAME, "startRebuild", new Object[]{ parallel, throttle, stream, keyspace },
                                            new String[]{ "int", "double", "boolean", String.class.getName() });
        if (!wait)
        {
            out.println(json ? first : "rebuild started on " + node.endpoint() + " (electtool rebuild again shows progress)");
            return 0;
        }
        boolean tty = System.console() != null && !json;
        boolean longPoll = node.hasOperation(ElectNodeMBean.OBJECT_NAME, "awaitRebuild");
        long lastLine = 0;
        while (true)
        {
            String doc;
            if (longPoll)
                doc = (String) node.invoke(ElectNodeMBean.OBJECT_NAME, "awaitRebuild", new Object[]{ POLL_MILLIS }, new String[]{ "long" });
            else
            {
                io.elect.core.util.Clock.SYSTEM.sleep(OLD_NODE_POLL_MILLIS);
                doc = (String) node.attribute(ElectNodeMBean.OBJECT_NAME, "RebuildJson");
            }
            JsonNode s = JSON.readTree(doc);
            String state = s.path("state").asText();
            if (!state.equals("running"))
            {
                if (tty)
                    out.println();
                if (json)
                    out.println(doc);
                else
                    out.println("rebuild " + state + " in " + seconds(s.path("elapsed_ms").asLong()) + ": " + s.path("counts")
                                + (s.path("error").isNull() ? "" : "; error: " + s.path("error").asText()));
                return state.equals("done") ? 0 : 1;
            }
            long now = io.elect.core.util.Clock.SYSTEM.millis();
            if (tty)
                out.print("\r" + bar(s));
            else if (!json && now - lastLine >= 5000)
            {
                out.println(bar(s));
                lastLine = now;
            }
            out.flush();
        }
    }

    /** One progress line: bar, percent of decoded/regenerated bytes, steps, phase, elapsed, ETA. */
    static String bar(JsonNode s)
    {
        long done = s.path("done_bytes").asLong(), total = s.path("total_bytes").asLong();
        double f = total <= 0 ? 0 : Math.min(1, (double) done / total);
        int width = 30, filled = (int) Math.round(f * width);
        String eta = s.path("eta_ms").isNull() ? "-" : seconds(s.path("eta_ms").asLong());
        return String.format(Locale.ROOT, "[%s%s] %3.0f%% %.1f/%.1f MiB, steps %d/%d, phase %-9s elapsed %s ETA %s",
                             "#".repeat(filled), ".".repeat(width - filled), f * 100, done / 1048576.0, total / 1048576.0,
                             s.path("done_steps").asInt(), s.path("total_steps").asInt(), s.path("phase").asText(),
                             seconds(s.path("elapsed_ms").asLong()), eta);
    }

    private static String seconds(long ms)
    {
        return String.format(Locale.ROOT, "%.0f s", ms / 1000.0);
    }

    private static int intArg(List<String> args, int i, String name, int min, int max)
    {
        if (i >= args.size())
            throw new IllegalArgumentException("rebuild: " + name + " needs a value");
        try
        {
            int v = Integer.parseInt(args.get(i));
            if (v < min || v > max)
                throw new IllegalArgumentException("rebuild: " + name + " " + v + " is out of range [" + min + ", " + max + "]");
            return v;
        }
        catch (NumberFormatException e)
        {
            throw new IllegalArgumentException("rebuild: " + name + " '" + args.get(i) + "' is not a whole number");
        }
    }
}
