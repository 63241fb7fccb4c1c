package io.elect.ycsb;

import java.util.Collection;
import java.util.List;
import java.util.StringJoiner;

/**
 * The CQL text of every statement the binding prepares. Pure functions, so the exact queries are unit-tested.
 *
 * <p>Table shape (the usual YCSB Cassandra one): {@code (y_id text PRIMARY KEY, field0 text, ...)}. The table
 * and field names are checked to be plain identifiers before they are spliced in; values are always bound.
 */
public final class CqlStatements
{
    /** The partition key column of every YCSB table. */
    public static final String KEY_COLUMN = "y_id";

    private CqlStatements()
    {
    }

    /** Point read of one row; {@code fields == null} reads every column. Binds: the key. */
    public static String read(String keyspace, String table, Collection<String> fields)
    {
        return "SELECT " + projection(fields, false) + " FROM " + qualified(keyspace, table) + " WHERE " + KEY_COLUMN
               + " = ? LIMIT 1";
    }

    /**
     * Range scan in token order starting at the token of the bound start key, like the usual YCSB Cassandra
     * binding: with a hashing partitioner a "scan" is the next {@code LIMIT} partitions of the ring, not the next
     * keys in string order. The key column is always selected, so callers see which rows came back.
     * Binds: start key, limit.
     */
    public static String scan(String keyspace, String table, Collection<String> fields)
    {
        return "SELECT " + projection(fields, true) + " FROM " + qualified(keyspace, table) + " WHERE token(" + KEY_COLUMN
               + ") >= token(?) LIMIT ?";
    }

    /** Binds: the key, then the field values in the order of {@code fields}. */
    public static String insert(String keyspace, String table, List<String> fields)
    {
        StringJoiner cols = new StringJoiner(", ", "(", ")");
        StringJoiner marks = new StringJoiner(", ", "(", ")");
        cols.add(KEY_COLUMN);
        marks.add("?");
        for (String f : fields)
        {
            cols.add(field(f));
            marks.add("?");
        }
        return "INSERT INTO " + qualified(keyspace, table) + " " + cols + " VALUES " + marks;
    }

    /** Binds: the field values in the order of {@code fields}, then the key. */
    public static String update(String keyspace, String table, List<String> fields)
    {
        if (fields.isEmpty())
            throw new IllegalArgumentException("update: no field to set");
        StringJoiner sets = new StringJoiner(", ");
        for (String f : fields)
            sets.add(field(f) + " = ?");
        return "UPDATE " + qualified(keyspace, table) + " SET " + sets + " WHERE " + KEY_COLUMN + " = ?";
    }

    /** Binds: the key. */
    public static String delete(String keyspace, String table)
    {
        return "DELETE FROM " + qualified(keyspace, table) + " WHERE " + KEY_COLUMN + " = ?";
    }

    static String qualified(String keyspace, String table)
    {
        return CassandraCqlOptions.checkIdentifier("keyspace", keyspace) + "."
               + CassandraCqlOptions.checkIdentifier("table", table);
    }

    private static String projection(Collection<String> fields, boolean withKey)
    {
        if (fields == null)
            return "*";
        if (fields.isEmpty() && !withKey)
            throw new IllegalArgumentException("read: empty field set");
        StringJoiner cols = new StringJoiner(", ");
        if (withKey)
            cols.add(KEY_COLUMN);
        for (String f : fields)
            cols.add(field(f));
        return cols.toString();
    }

    private static String field(String f)
    {
        return CassandraCqlOptions.checkIdentifier("field name", f);
    }
}
