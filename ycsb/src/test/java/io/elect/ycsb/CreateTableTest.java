package io.elect.ycsb;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CreateTableTest
{
    @Test
    void plainTableWithDefaults()
    {
        CreateTable.Spec s = CreateTable.parse(new String[]{ "--table", "plain" });
        assertEquals(List.of("CREATE KEYSPACE IF NOT EXISTS ycsb WITH replication = {'class': 'SimpleStrategy', "
                             + "'replication_factor': 3}",
                             "CREATE TABLE IF NOT EXISTS ycsb.plain (y_id text PRIMARY KEY, field0 text) WITH "
                             + "compaction = {'class': 'LeveledCompactionStrategy', 'sstable_size_in_mb': '4', "
                             + "'fanout_size': '10'} AND compression = {'enabled': 'false'} AND read_repair = 'BLOCKING'"),
                     CreateTable.statements(s));
    }

    @Test
    void electTableWithOptions()
    {
        CreateTable.Spec s = CreateTable.parse(new String[]{ "--table", "elect", "--elect", "--rf", "1", "--drop",
                                                             "--sstable-size-mb", "16", "--fanout", "4",
                                                             "--compression", "LZ4", "--fields", "2",
                                                             "--hosts", "127.0.0.2", "--port", "29042" });
        assertEquals("127.0.0.2", s.hosts);
        assertEquals(29042, s.port);
        assertEquals(List.of("CREATE KEYSPACE IF NOT EXISTS ycsb WITH replication = {'class': 'SimpleStrategy', "
                             + "'replication_factor': 1}",
                             "DROP TABLE IF EXISTS ycsb.elect",
                             "CREATE TABLE IF NOT EXISTS ycsb.elect (y_id text PRIMARY KEY, field0 text, field1 text) "
                             + "WITH compaction = {'class': 'io.elect.core.bridge.ElectCompactionStrategy', "
                             + "'sstable_size_in_mb': '16', 'fanout_size': '4'} AND compression = "
                             + "{'class': 'LZ4Compressor'} AND read_repair = 'NONE'"),
                     CreateTable.statements(s));
    }

    @Test
    void readRepairCanBeForced()
    {
        CreateTable.Spec s = CreateTable.parse(new String[]{ "--table", "t", "--read-repair", "none" });
        assertTrue(CreateTable.tableCql(s).endsWith("read_repair = 'NONE'"));
    }

    @Test
    void errorsNameTheArgument()
    {
        assertNames("--table", new String[]{ "--elect" });
        assertNames("--rf", new String[]{ "--table", "t", "--rf", "0" });
        assertNames("--rf", new String[]{ "--table", "t", "--rf", "three" });
        assertNames("--table", new String[]{ "--table", "bad-name" });
        assertNames("--fanout", new String[]{ "--table", "t", "--fanout" });
        assertNames("--compression", new String[]{ "--table", "t", "--compression", "zstd" });
        assertNames("--bogus", new String[]{ "--table", "t", "--bogus" });
    }

    @Test
    void existingKeyspaceMustHaveTheAskedReplication()
    {
        CreateTable.Spec s = CreateTable.parse(new String[]{ "--table", "t", "--rf", "3" });
        CreateTable.checkReplication(s, Map.of("class", "org.apache.cassandra.locator.SimpleStrategy",
                                               "replication_factor", "3"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CreateTable.checkReplication(
            s, Map.of("class", "org.apache.cassandra.locator.SimpleStrategy", "replication_factor", "1")));
        assertTrue(e.getMessage().contains("--rf"), e.getMessage());
    }

    private static void assertNames(String arg, String[] args)
    {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CreateTable.parse(args));
        assertTrue(e.getMessage().contains(arg), e.getMessage());
    }
}
