package io.elect.offload;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The key of an ELECT object in the cold tier (docs/formats/cold-objects.md):
 * <pre>
 *   elect/v1/{cluster}/{keyspace}/{table}/{kind}/{id}
 * </pre>
 * cluster, keyspace and table are percent-encoded (every byte outside [A-Za-z0-9_.-] of their UTF-8 form
 * as %XX, upper-case hex; "." and ".." are encoded too), kind is [a-z0-9-]{1,32} (e.g. "data", "parity"),
 * id is a 128-bit identifier as 32 lower-case hex digits. Every ELECT key is a valid ColdStore key, and
 * keys are never reused (the id is unique), which the write-once contract of ColdStore relies on.
 * DO NOT CHANGE: objects in existing buckets are found by this layout; a new layout gets "v2".
 */
public record ColdObjectKey(String cluster, String keyspace, String table, String kind, long idHigh, long idLow)
{
    public static final String ROOT = "elect/v1/";
    public static final String KIND_DATA = "data";
    public static final String KIND_PARITY = "parity";
    private static final Pattern KIND = Pattern.compile("[a-z0-9-]{1,32}");
    private static final Pattern ID = Pattern.compile("[0-9a-f]{32}");

    public ColdObjectKey
    {
        requireName("cluster", cluster);
        requireName("keyspace", keyspace);
        requireName("table", table);
        if (kind == null || !KIND.matcher(kind).matches())
            throw new IllegalArgumentException("kind must match [a-z0-9-]{1,32}, got '" + kind + "'");
    }

    public static ColdObjectKey of(String cluster, String keyspace, String table, String kind, UUID id)
    {
        return new ColdObjectKey(cluster, keyspace, table, kind, id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    private static void requireName(String what, String value)
    {
        if (value == null || value.isEmpty())
            throw new IllegalArgumentException(what + " must not be empty");
    }

    /** The object key string. */
    public String key()
    {
        return tablePrefix(cluster, keyspace, table) + kind + "/" + HexFormat.of().toHexDigits(idHigh)
               + HexFormat.of().toHexDigits(idLow);
    }

    @Override
    public String toString()
    {
        return key();
    }

    /** Prefix of every object of one table, for ColdStore.list. */
    public static String tablePrefix(String cluster, String keyspace, String table)
    {
        requireName("cluster", cluster);
        requireName("keyspace", keyspace);
        requireName("table", table);
        return ROOT + encode(cluster) + "/" + encode(keyspace) + "/" + encode(table) + "/";
    }

    /** Prefix of every object of one cluster. */
    public static String clusterPrefix(String cluster)
    {
        requireName("cluster", cluster);
        return ROOT + encode(cluster) + "/";
    }

    public static ColdObjectKey parse(String key)
    {
        if (key == null || !key.startsWith(ROOT))
            throw new IllegalArgumentException("key must start with " + ROOT + ": " + key);
        String[] parts = key.substring(ROOT.length()).split("/", -1);
        if (parts.length != 5)
            throw new IllegalArgumentException("key must have 5 segments after " + ROOT + ": " + key);
        if (!ID.matcher(parts[4]).matches())
            throw new IllegalArgumentException("key id must be 32 lower-case hex digits: " + key);
        long hi = Long.parseUnsignedLong(parts[4].substring(0, 16), 16);
        long lo = Long.parseUnsignedLong(parts[4].substring(16), 16);
        ColdObjectKey k = new ColdObjectKey(decode(parts[0]), decode(parts[1]), decode(parts[2]), parts[3], hi, lo);
        if (!k.key().equals(key))
            throw new IllegalArgumentException("key is not in canonical form: " + key);
        return k;
    }

    static String encode(String name)
    {
        if (name.equals(".") || name.equals(".."))
            return name.equals(".") ? "%2E" : "%2E%2E";
        StringBuilder sb = new StringBuilder();
        for (byte b : name.getBytes(StandardCharsets.UTF_8))
        {
            int c = b & 0xff;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.'
                || c == '-')
                sb.append((char) c);
            else
                sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                  .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
        }
        return sb.toString();
    }

    static String decode(String segment)
    {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < segment.length(); i++)
        {
            char c = segment.charAt(i);
            if (c == '%')
            {
                if (i + 2 >= segment.length())
                    throw new IllegalArgumentException("truncated %-escape in key segment: " + segment);
                out.write(Integer.parseInt(segment.substring(i + 1, i + 3), 16));
                i += 2;
            }
            else
                out.write(c);
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
