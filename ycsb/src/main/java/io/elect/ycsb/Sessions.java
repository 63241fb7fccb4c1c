package io.elect.ycsb;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;

/**
 * Opens driver sessions configured from {@link CassandraCqlOptions}.
 *
 * <p>Routing: the driver's default load-balancing policy is token-aware: a bound statement whose partition key is
 * a bind marker carries its routing key, and the request goes to a replica of that key (replicas in random order,
 * then the other nodes). The scan statement binds {@code token(?)}, so it has no routing key and goes round-robin.
 */
public final class Sessions
{
    private Sessions()
    {
    }

    public static CqlSession open(CassandraCqlOptions o)
    {
        List<InetSocketAddress> points = new ArrayList<>();
        for (InetSocketAddress a : o.contactPoints)
            points.add(new InetSocketAddress(a.getHostString(), a.getPort()));
        DriverConfigLoader config = DriverConfigLoader.programmaticBuilder()
                                                      .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, o.requestTimeout)
                                                      .withDuration(DefaultDriverOption.METADATA_SCHEMA_REQUEST_TIMEOUT, o.requestTimeout)
                                                      .withDuration(DefaultDriverOption.CONTROL_CONNECTION_AGREEMENT_TIMEOUT, o.requestTimeout)
                                                      .withDuration(DefaultDriverOption.CONNECTION_CONNECT_TIMEOUT, o.connectTimeout)
                                                      .withDuration(DefaultDriverOption.CONNECTION_INIT_QUERY_TIMEOUT, o.connectTimeout)
                                                      .withDuration(DefaultDriverOption.CONTROL_CONNECTION_TIMEOUT, o.connectTimeout)
                                                      .withInt(DefaultDriverOption.CONNECTION_POOL_LOCAL_SIZE, o.connectionsPerHost)
                                                      .build();
        return CqlSession.builder()
                         .addContactPoints(points)
                         .withLocalDatacenter(o.localDatacenter)
                         .withConfigLoader(config)
                         .build();
    }
}
