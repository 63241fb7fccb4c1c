package io.elect.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The build's architecture rules for elect-core's main code (docs/design/packages.md), checked on the sources:
 * <ol>
 * <li>Only the adapter package {@code io.elect.core.bridge} (and our classes that must live in Cassandra's packages)
 *     refers to Cassandra ({@code org.apache.cassandra}); the node's logic is written against seams.</li>
 * <li>No cycle between packages.</li>
 * <li>Time is read through {@code io.elect.core.util.Clock} only: no {@code System.currentTimeMillis},
 *     {@code System.nanoTime} or {@code Thread.sleep} elsewhere.</li>
 * <li>No mutable static state but the one documented hand-off ({@code bridge.NodeHandoff}): no non-final static
 *     fields, no static final collections, atomics or executors.</li>
 * </ol>
 * Comments and string literals are ignored. A violation names the file and the rule.
 */
class ArchitectureTest
{
    private static final Path MAIN = Paths.get("src", "main", "java");
    private static final String ADAPTER = "io.elect.core.bridge";
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
    private static final Pattern OUR_REF = Pattern.compile("\\b(io\\.elect\\.core(?:\\.[a-z]\\w*)*)\\.[A-Z]");
    private static final Pattern CASSANDRA_REF = Pattern.compile("\\borg\\.apache\\.cassandra\\.");
    private static final Pattern CLOCK_READ = Pattern.compile("\\bSystem\\s*(?:\\.|::)\\s*(currentTimeMillis|nanoTime)\\b|\\bThread\\s*(?:\\.|::)\\s*sleep\\b");
    // (method references too: System::nanoTime passed as a supplier reads the system clock just the same)
    private static final Pattern STATIC_FIELD = Pattern.compile("^\\s*(?:(?:public|protected|private)\\s+)?static\\s+(?!final\\b)(?!class\\b|interface\\b|enum\\b|record\\b|abstract\\b|<)[\\w<>,.?\\[\\] ]+\\s+\\w+\\s*(=|;)",
                                                                Pattern.MULTILINE);
    private static final Pattern STATIC_MUTABLE = Pattern.compile("static\\s+final\\s+[^=;(){}\\n]+=\\s*(?:new\\s+(?:java\\.util\\.)?(?:concurrent\\.)?(?:Concurrent\\w*|HashMap|HashSet|LinkedHashMap|LinkedHashSet|TreeMap|TreeSet|ArrayList|LinkedList|ArrayDeque|Atomic\\w+|CopyOnWrite\\w+|ThreadPoolExecutor|ScheduledThreadPoolExecutor)\\b|Executors\\.|ConcurrentHashMap\\.newKeySet)");
    /** The one allowed mutable static state: the hand-off between Cassandra-instantiated classes and the node. */
    private static final Set<String> STATIC_STATE_ALLOWED = Set.of("io/elect/core/bridge/NodeHandoff.java");
    private static final Set<String> CLOCK_ALLOWED = Set.of("io/elect/core/util/Clock.java");

    record Source(String relative, String pkg, String code)
    {
    }

    /** Every main source file with comments and string/char literals blanked out. */
    static List<Source> sources() throws IOException
    {
        List<Source> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(MAIN))
        {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java")).sorted()::iterator)
            {
                String text = Files.readString(f);
                Matcher m = PACKAGE.matcher(text);
                assertTrue(m.find(), f + " has no package line");
                out.add(new Source(MAIN.relativize(f).toString().replace('\\', '/'), m.group(1), strip(text)));
            }
        }
        assertTrue(out.size() > 100, "expected elect-core's main sources under " + MAIN.toAbsolutePath());
        return out;
    }

    /** Blanks comments and string/char literals (keeps line structure), so that only code is matched. */
    static String strip(String s)
    {
        StringBuilder out = new StringBuilder(s.length());
        int i = 0, n = s.length();
        while (i < n)
        {
            char c = s.charAt(i);
            if (c == '/' && i + 1 < n && s.charAt(i + 1) == '/')
            {
                while (i < n && s.charAt(i) != '\n')
                    i++;
            }
            else if (c == '/' && i + 1 < n && s.charAt(i + 1) == '*')
            {
                i += 2;
                while (i < n && !(s.charAt(i) == '*' && i + 1 < n && s.charAt(i + 1) == '/'))
                    out.append(s.charAt(i++) == '\n' ? '\n' : ' ');
                i += 2;
            }
            else if (c == '"' && s.startsWith("\"\"\"", i))
            {
                int end = s.indexOf("\"\"\"", i + 3);
                i = end < 0 ? n : end + 3;
                out.append("\"\"");
            }
            else if (c == '"' || c == '\'')
            {
                out.append(c);
                i++;
                while (i < n && s.charAt(i) != c)
                    i += s.charAt(i) == '\\' ? 2 : 1;
                out.append(c);
                i++;
            }
            else
            {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    @Test
    void onlyTheAdapterRefersToCassandra() throws IOException
    {
        List<String> violations = new ArrayList<>();
        for (Source s : sources())
            if (!s.pkg().equals(ADAPTER) && !s.pkg().startsWith("org.apache.cassandra.") && CASSANDRA_REF.matcher(s.code()).find())
                violations.add(s.relative());
        assertEquals(List.of(), violations, "Cassandra is referred to outside the adapter package " + ADAPTER);
    }

    @Test
    void noCyclesBetweenPackages() throws IOException
    {
        Map<String, Set<String>> deps = new TreeMap<>();
        for (Source s : sources())
        {
            Set<String> d = deps.computeIfAbsent(s.pkg(), x -> new TreeSet<>());
            Matcher m = OUR_REF.matcher(s.code());
            while (m.find())
                if (!m.group(1).equals(s.pkg()))
                    d.add(m.group(1));
        }
        List<String> cycle = findCycle(deps);
        assertEquals(List.of(), cycle, "package cycle; dependencies: " + deps);
    }

    /** One cycle of the graph as a list of its packages (first repeated last), or an empty list. */
    static List<String> findCycle(Map<String, Set<String>> deps)
    {
        Map<String, Integer> state = new HashMap<>(); // 1 = on the stack, 2 = done
        for (String start : deps.keySet())
        {
            List<String> stack = new ArrayList<>();
            List<String> c = visit(start, deps, state, stack);
            if (!c.isEmpty())
                return c;
        }
        return List.of();
    }

    private static List<String> visit(String p, Map<String, Set<String>> deps, Map<String, Integer> state, List<String> stack)
    {
        Integer st = state.get(p);
        if (st != null && st == 2)
            return List.of();
        if (st != null && st == 1)
        {
            List<String> c = new ArrayList<>(stack.subList(stack.indexOf(p), stack.size()));
            c.add(p);
            return c;
        }
        state.put(p, 1);
        stack.add(p);
        for (String q : deps.getOrDefault(p, Set.of()))
        {
            List<String> c = visit(q, deps, state, stack);
            if (!c.isEmpty())
                return c;
        }
        stack.remove(stack.size() - 1);
        state.put(p, 2);
        return List.of();
    }

    @Test
    void cycleFinderFindsACycle()
    {
        Map<String, Set<String>> g = new TreeMap<>(Map.of("a", Set.of("b"), "b", Set.of("c"), "c", Set.of("a"), "d", Set.of("a")));
        assertEquals(List.of("a", "b", "c", "a"), findCycle(g));
        assertEquals(List.of(), findCycle(new TreeMap<>(Map.of("a", Set.of("b"), "b", Set.of()))));
    }

    @Test
    void timeIsReadThroughTheClock() throws IOException
    {
        List<String> violations = new ArrayList<>();
        for (Source s : sources())
            if (!CLOCK_ALLOWED.contains(s.relative()) && CLOCK_READ.matcher(s.code()).find())
                violations.add(s.relative());
        assertEquals(List.of(), violations, "direct reads of the system clock (use io.elect.core.util.Clock)");
    }

    @Test
    void noMutableStaticState() throws IOException
    {
        List<String> violations = new ArrayList<>();
        for (Source s : sources())
        {
            if (STATIC_STATE_ALLOWED.contains(s.relative()))
                continue;
            Matcher f = STATIC_FIELD.matcher(s.code());
            if (f.find())
                violations.add(s.relative() + ": non-final static field: " + f.group().trim());
            Matcher m = STATIC_MUTABLE.matcher(s.code());
            if (m.find())
                violations.add(s.relative() + ": mutable static: " + m.group().trim());
        }
        assertEquals(List.of(), violations, "mutable static state outside " + STATIC_STATE_ALLOWED);
    }

    @Test
    void theRulesSeeWhatTheyLookFor()
    {
        assertTrue(CLOCK_READ.matcher(strip("long t = System.nanoTime();")).find());
        assertTrue(!CLOCK_READ.matcher(strip("// System.nanoTime()\n String s = \"System.nanoTime()\";")).find());
        assertTrue(STATIC_FIELD.matcher("    private static volatile Foo foo;").find());
        assertTrue(STATIC_FIELD.matcher("    static int counter = 0;").find());
        assertTrue(!STATIC_FIELD.matcher("    private static final int X = 1;").find());
        assertTrue(!STATIC_FIELD.matcher("    static final class Inner").find());
        assertTrue(!STATIC_FIELD.matcher("    public static <T> T f(int x);").find());
        assertTrue(STATIC_MUTABLE.matcher("private static final Map<String, X> m = new ConcurrentHashMap<>();").find());
        assertTrue(STATIC_MUTABLE.matcher("static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor();").find());
        assertTrue(!STATIC_MUTABLE.matcher("static final List<String> NAMES = List.of(\"a\");").find());
        assertTrue(CASSANDRA_REF.matcher(strip("import org.apache.cassandra.db.Keyspace;")).find());
        assertTrue(!CASSANDRA_REF.matcher(strip("String n = \"org.apache.cassandra.db:type=StorageService\";")).find());
    }
}
