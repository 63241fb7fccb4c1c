package io.elect.core.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Typed, range-checked access to one YAML mapping (as parsed by SnakeYAML into plain Java values).
 * Every key read is remembered, so that {@link #rejectUnknownKeys()} can refuse keys nobody asked for (typos
 * must not be ignored silently). Not thread-safe; used once at start-up.
 */
final class ConfigReader
{
    private final String prefix;
    private final Map<String, Object> values;
    private final Set<String> known = new TreeSet<>();

    ConfigReader(String prefix, Map<?, ?> raw)
    {
        this.prefix = prefix;
        this.values = new LinkedHashMap<>();
        if (raw != null)
        {
            for (Map.Entry<?, ?> e : raw.entrySet())
            {
                if (!(e.getKey() instanceof String))
                    throw new ElectConfigException(prefix + "." + e.getKey(), "keys must be strings");
                values.put((String) e.getKey(), e.getValue());
            }
        }
    }

    String key(String name)
    {
        return prefix + "." + name;
    }

    int intIn(String name, int defaultValue, int min, int max)
    {
        known.add(name);
        Object v = values.get(name);
        if (v == null)
            return defaultValue;
        if (!(v instanceof Integer || v instanceof Long))
            throw new ElectConfigException(key(name), describe(v) + " is not an integer; allowed: an integer in [" + min + ", " + max + "]");
        long n = ((Number) v).longValue();
        if (n < min || n > max)
            throw new ElectConfigException(key(name), n + " is out of range; allowed: an integer in [" + min + ", " + max + "]");
        return (int) n;
    }

    /** A number in [min, max) (maxExclusive) or [min, max]. */
    double doubleIn(String name, double defaultValue, double min, double max, boolean maxExclusive)
    {
        known.add(name);
        Object v = values.get(name);
        String allowed = "a number in [" + fmt(min) + ", " + fmt(max) + (maxExclusive ? ")" : "]");
        if (v == null)
            return defaultValue;
        if (!(v instanceof Number))
            throw new ElectConfigException(key(name), describe(v) + " is not a number; allowed: " + allowed);
        double d = ((Number) v).doubleValue();
        if (Double.isNaN(d) || d < min || d > max || (maxExclusive && d == max))
            throw new ElectConfigException(key(name), fmt(d) + " is out of range; allowed: " + allowed);
        return d;
    }

    boolean bool(String name, boolean defaultValue)
    {
        known.add(name);
        Object v = values.get(name);
        if (v == null)
            return defaultValue;
        if (!(v instanceof Boolean))
            throw new ElectConfigException(key(name), describe(v) + " is not a boolean; allowed: true or false");
        return (Boolean) v;
    }

    String string(String name, String defaultValue)
    {
        known.add(name);
        Object v = values.get(name);
        if (v == null)
            return defaultValue;
        if (!(v instanceof String))
            throw new ElectConfigException(key(name), describe(v) + " is not a string");
        return (String) v;
    }

    /** One of {@code allowed}; {@code defaultValue} (which may be null: "not set") when the key is absent. */
    String oneOf(String name, String defaultValue, Set<String> allowed)
    {
        String s = string(name, defaultValue);
        if (s == null && defaultValue == null)
            return null;
        if (!allowed.contains(s))
            throw new ElectConfigException(key(name), "'" + s + "' is not allowed; allowed: one of " + String.join(", ", allowed));
        return s;
    }

    Map<?, ?> mapping(String name)
    {
        known.add(name);
        Object v = values.get(name);
        if (v == null)
            return Map.of();
        if (!(v instanceof Map))
            throw new ElectConfigException(key(name), "must be a mapping of keys to values");
        return (Map<?, ?>) v;
    }

    /** Fails on the first key (in file order) that no accessor asked for. */
    void rejectUnknownKeys()
    {
        for (String k : values.keySet())
            if (!known.contains(k))
                throw new ElectConfigException(key(k), "unknown key; allowed keys: " + String.join(", ", known));
    }

    /**
     * A bad value for an error message: scalars quoted (at most 100 characters), lists and mappings by kind only.
     * Never {@code toString()} of a collection: YAML anchors can make it refer to itself (found by the fuzzer:
     * {@code elect: &a {offload_enabled: [*a]}} overflowed the stack instead of naming the key).
     */
    static String describe(Object v)
    {
        if (v instanceof java.util.Map)
            return "a mapping";
        if (v instanceof java.util.Collection)
            return "a list";
        String s = String.valueOf(v);
        return "'" + (s.length() > 100 ? s.substring(0, 100) + "..." : s) + "'";
    }

    private static String fmt(double d)
    {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }
}
