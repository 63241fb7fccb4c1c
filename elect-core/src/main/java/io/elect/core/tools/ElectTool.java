package io.elect.core.tools;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code electtool}: administers one ELECT node over JMX, like nodetool.
 *
 * <pre>electtool [-h HOST] [-p PORT] COMMAND [ARGS...]</pre>
 *
 * Commands are {@link Command}s registered in {@link #COMMANDS}; each prints human-readable text, or JSON
 * with {@code --json}. Exit codes: 0 success, 1 the node could not be reached or the command failed,
 * 2 bad usage.
 */
public final class ElectTool
{
    /** One electtool command. */
    public interface Command
    {
        String summary();

        /** Runs against a connected node; returns the exit code. */
        int run(JmxClient node, List<String> args, PrintStream out) throws Exception;
    }

    static final Map<String, Command> COMMANDS = commands();

    /** The commands in the order help lists them (an unmodifiable map). */
    private static Map<String, Command> commands()
    {
        Map<String, Command> c = new LinkedHashMap<>();
        c.put("status", new StatusCommand());
        c.put("tables", new TablesCommand());
        c.put("storage", new StorageCommand());
        c.put("alpha", new AlphaCommand());
        c.put("rebuild", new RebuildCommand());
        c.put("verify", new VerifyCommand());
        c.put("trial-rewrite", new TrialRewriteCommand());
        c.put("reads", new ReadsCommand());
        c.put("metrics", new MetricsCommand());
        c.put("updates", new UpdatesCommand());
        c.put("widen", new WidenCommand());
        c.put("decommission", new DecommissionCommand());
        return java.util.Collections.unmodifiableMap(c);
    }

    private ElectTool()
    {
    }

    public static void main(String[] argv)
    {
        System.exit(run(argv, System.out, System.err));
    }

    static int run(String[] argv, PrintStream out, PrintStream err)
    {
        String host = "127.0.0.1";
        int port = Integer.getInteger("elect.jmx.port", envPort());
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < argv.length; i++)
        {
            String a = argv[i];
            if ((a.equals("-h") || a.equals("--host")) && i + 1 < argv.length)
                host = argv[++i];
            else if ((a.equals("-p") || a.equals("--port")) && i + 1 < argv.length)
            {
                String p = argv[++i];
                try
                {
                    port = Integer.parseInt(p);
                }
                catch (NumberFormatException e)
                {
                    err.println("electtool: -p '" + p + "' is not a port number");
                    return 2;
                }
            }
            else
                rest.add(a);
        }
        if (rest.isEmpty() || rest.get(0).equals("help") || rest.get(0).equals("--help"))
        {
            usage(out);
            return rest.isEmpty() ? 2 : 0;
        }
        Command cmd = COMMANDS.get(rest.get(0));
        if (cmd == null)
        {
            err.println("electtool: unknown command '" + rest.get(0) + "'");
            usage(err);
            return 2;
        }
        try (JmxClient node = JmxClient.connect(host, port))
        {
            return cmd.run(node, rest.subList(1, rest.size()), out);
        }
        catch (JmxClient.UnreachableException e)
        {
            err.println("electtool: " + e.getMessage());
            return 1;
        }
        catch (IllegalArgumentException e)
        {
            err.println("electtool: " + e.getMessage());
            return 2;
        }
        catch (Exception e)
        {
            err.println("electtool: " + rest.get(0) + " failed: " + e);
            return 1;
        }
    }

    /**
     * Whether ELECT runs on the connected node; if not, says so on {@code out} (the node answers JMX: plain
     * Cassandra, or ELECT still starting). Commands return exit code 1 then.
     */
    static boolean electRunning(JmxClient node, PrintStream out) throws Exception
    {
        if (node.isRegistered(io.elect.core.jmx.ElectNodeMBean.OBJECT_NAME))
            return true;
        out.println("node at " + node.endpoint() + " is reachable but ELECT is not running on it (plain Cassandra, or still starting)");
        return false;
    }

    private static int envPort()
    {
        String p = System.getenv("ELECT_JMX_PORT");
        try
        {
            return p == null ? 7199 : Integer.parseInt(p);
        }
        catch (NumberFormatException e)
        {
            return 7199;
        }
    }

    private static void usage(PrintStream out)
    {
        out.println("usage: electtool [-h HOST] [-p JMX_PORT] COMMAND [--json]");
        out.println("commands:");
        for (Map.Entry<String, Command> e : COMMANDS.entrySet())
            out.printf("  %-14s %s%n", e.getKey(), e.getValue().summary());
    }
}
