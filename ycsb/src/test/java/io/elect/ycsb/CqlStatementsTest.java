package io.elect.ycsb;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class CqlStatementsTest
{
    @Test
    void statements()
    {
        assertEquals("SELECT * FROM ycsb.usertable WHERE y_id = ? LIMIT 1", CqlStatements.read("ycsb", "usertable", null));
        assertEquals("SELECT field0, field1 FROM ycsb.t WHERE y_id = ? LIMIT 1",
                     CqlStatements.read("ycsb", "t", List.of("field0", "field1")));
        assertEquals("SELECT * FROM ycsb.t WHERE token(y_id) >= token(?) LIMIT ?", CqlStatements.scan("ycsb", "t", null));
        assertEquals("SELECT y_id, field0 FROM ycsb.t WHERE token(y_id) >= token(?) LIMIT ?",
                     CqlStatements.scan("ycsb", "t", List.of("field0")));
        assertEquals("INSERT INTO ycsb.t (y_id, field0, field1) VALUES (?, ?, ?)",
                     CqlStatements.insert("ycsb", "t", List.of("field0", "field1")));
        assertEquals("UPDATE ycsb.t SET field0 = ? WHERE y_id = ?", CqlStatements.update("ycsb", "t", List.of("field0")));
        assertEquals("DELETE FROM ycsb.t WHERE y_id = ?", CqlStatements.delete("ycsb", "t"));
    }

    @Test
    void rejectsNonIdentifiers()
    {
        assertThrows(IllegalArgumentException.class, () -> CqlStatements.read("ycsb", "t; DROP TABLE x", null));
        assertThrows(IllegalArgumentException.class, () -> CqlStatements.insert("ycsb", "t", List.of("f\"x")));
        assertThrows(IllegalArgumentException.class, () -> CqlStatements.update("ycsb", "t", List.of()));
        assertThrows(IllegalArgumentException.class, () -> CqlStatements.read("ycsb", "t", List.of()));
    }
}
