package io.elect.ycsb;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CassandraCqlOptionsTest
{
    private static Properties props(String... kv)
    {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2)
            p.setProperty(kv[i], kv[i + 1]);
        return p;
    }

    @Test
    void defaults()
    {
        CassandraCqlOptions o = CassandraCqlOptions.parse(new Properties());
        assertEquals(List.of(InetSocketAddress.createUnresolved("127.0.0.1", 9042)), o.contactPoints);
        assertEquals("ycsb", o.keyspace);
        assertEquals("datacenter1", o.localDatacenter);
        assertEquals(DefaultConsistencyLevel.ONE, o.readConsistency);
        assertEquals(DefaultConsistencyLevel.ONE, o.writeConsistency);
        assertEquals(DefaultConsistencyLevel.ONE, o.scanConsistency);
        assertEquals(Duration.ofSeconds(30), o.requestTimeout);
        assertFalse(o.debug);
    }

    @Test
    void explicitValues()
    {
        CassandraCqlOptions o = CassandraCqlOptions.parse(props(
            "hosts", "127.0.0.1, 127.0.0.2:9043,localhost", "port", "29042",
            "cassandra.keyspace", "bench", "cassandra.localdc", "dc2",
            "cassandra.readconsistencylevel", "one", "cassandra.writeconsistencylevel", "ALL",
            "cassandra.requesttimeoutms", "1500", "debug", "true"));
        assertEquals(List.of(InetSocketAddress.createUnresolved("127.0.0.1", 29042),
                             InetSocketAddress.createUnresolved("127.0.0.2", 9043),
                             InetSocketAddress.createUnresolved("localhost", 29042)), o.contactPoints);
        assertEquals("bench", o.keyspace);
        assertEquals("dc2", o.localDatacenter);
        assertEquals(DefaultConsistencyLevel.ONE, o.readConsistency);
        assertEquals(DefaultConsistencyLevel.ALL, o.writeConsistency);
        // scans follow the read level unless given
        assertEquals(DefaultConsistencyLevel.ONE, o.scanConsistency);
        assertEquals(Duration.ofMillis(1500), o.requestTimeout);
        assertTrue(o.debug);

        o = CassandraCqlOptions.parse(props("cassandra.readconsistencylevel", "QUORUM",
                                            "cassandra.scanconsistencylevel", "local_quorum"));
        assertEquals(DefaultConsistencyLevel.QUORUM, o.readConsistency);
        assertEquals(DefaultConsistencyLevel.LOCAL_QUORUM, o.scanConsistency);
    }

    @Test
    void errorsNameTheProperty()
    {
        assertNames("cassandra.readconsistencylevel", props("cassandra.readconsistencylevel", "MOST"));
        assertNames("cassandra.writeconsistencylevel", props("cassandra.writeconsistencylevel", "1"));
        assertNames("port", props("port", "70000"));
        assertNames("port", props("port", "x"));
        assertNames("hosts", props("hosts", " , "));
        assertNames("hosts", props("hosts", "127.0.0.1:abc"));
        assertNames("cassandra.keyspace", props("cassandra.keyspace", "ycsb; DROP"));
        assertNames("cassandra.requesttimeoutms", props("cassandra.requesttimeoutms", "0"));
        assertNames("debug", props("debug", "yes"));
        assertNames("cassandra.localdc", props("cassandra.localdc", " "));
    }

    private static void assertNames(String property, Properties p)
    {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CassandraCqlOptions.parse(p));
        assertTrue(e.getMessage().contains(property), e.getMessage());
    }
}
