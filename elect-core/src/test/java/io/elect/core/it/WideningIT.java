package io.elect.core.it;

import java.util.ArrayList;
import java.util.List;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import io.elect.coding.CauchyMatrix;
import io.elect.core.it.LocalClusterScript.Result;
import io.elect.core.jmx.ElectNodeMBean;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;

import static io.elect.core.it.TransitioningIT.key;
import static io.elect.core.it.TransitioningIT.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Scale-RS widening on a real cluster (issue 18, docs/design/scaling.md "Widening k to k'"): 4 nodes (RF = 3, RS k=2
 * m=1, alpha 0.4 so that unencoded candidates remain, cold tier on) encode an ELECT table; then {@code electtool widen
 * --to 3} on the coordinator widens stripes to k = 3 and fills the new slots with members of nodes holding no chunk
 * of them. Checked: the run widened and filled something and failed nothing; the member bytes the parity nodes read
 * for it (their ParityMaintenance.MemberBytesFromNodes counters, before and after) are within 1.05x of the Scale-RS
 * lower bound of what was done (m times the filled members' bytes); every widened stripe is COMMITTED at k = 3 under
 * the k = 3 Cauchy codec; every key reads back at ONE and ALL; {@code electtool verify} passes on every node; every
 * third key reads at ONE with node 3 down (degraded reads through the widened stubs).
 *
 * <p>Not part of {@code scripts/elect test} (minutes of a fourth node): run it with {@code mvn -pl elect-core -am verify
 * -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=WideningIT -Dfailsafe.failIfNoSpecifiedTests=false
 * -Delect.it.widening=true}.
 */
@EnabledIfSystemProperty(named = "elect.it.widening", matches = "true")
class WideningIT
{
    private static final LocalClusterScript SCRIPT = new LocalClusterScript("it-widening-run");
    private static final int KEYS = Integer.getInteger("elect.it.widening.keys", 24000);
    private static final String KS = "elect_widening_it";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static CqlSession session;

    @BeforeAll
    static void startCluster() throws Exception
    {
        Result r = SCRIPT.startTransitioning(4, "elect.storage_saving_target=0.4");
        assertEquals(0, r.code(), "elect-cluster start failed:\n" + r.output());
        session = LocalClusterScript.session(LocalClusterScript.loopback(3));
    }

    @AfterAll
    static void stopCluster() throws Exception
    {
        if (session != null)
            session.close();
        SCRIPT.run(300, "stop", "--kill"); // a throwaway cluster: no drain (saves ~20 s)
    }

    @Test
    void stripesWidenToThreeDataChunksMovingTheLowerBound() throws Exception
    {
        LocalClusterScript.createElectUsertable(session, KS);
        LocalClusterScript.loadUsertable(session, KS, KEYS);
        SCRIPT.flushAndCompact(KS, 4);
        LocalClusterScript.awaitSettled(0.35);

        Result plan = SCRIPT.runTool(600, "bin/electtool", "-p", "7199", "widen", "--to", "3", "--dry-run", "--json");
        assertEquals(0, plan.code(), plan.output());
        JsonNode planned = JSON.readTree(lastLine(plan.output()));
        System.out.println("widening plan: outcomes " + planned.path("outcomes") + ", " + planned.path("bytes_moved") + " bytes, bound "
                           + planned.path("lower_bound"));
        assertTrue(planned.path("outcomes").path("widened").asInt() + planned.path("outcomes").path("partial").asInt() > 0,
                   "some stripe can widen: " + planned);

        long readBefore = memberBytesFromNodes();
        Result run = SCRIPT.runTool(1800, "bin/electtool", "-p", "7199", "widen", "--to", "3", "--json");
        JsonNode done = JSON.readTree(lastLine(run.output()));
        long read = memberBytesFromNodes() - readBefore;
        System.out.println("widening done: " + done.path("stripes_widened") + " stripes widened, " + done.path("members_filled")
                           + " members filled (" + done.path("member_bytes_filled") + " bytes), " + done.path("skipped") + " skipped, "
                           + done.path("failed") + " failed, " + done.path("millis") + " ms; parity nodes read " + read
                           + " member bytes, Scale-RS bound of what was done " + done.path("lower_bound_of_done"));
        assertEquals(0, run.code(), run.output());
        assertEquals(0, done.path("failed").asInt(), done.toString());
        assertTrue(done.path("stripes_widened").asInt() > 0 && done.path("members_filled").asInt() > 0, done.toString());
        long bound = done.path("lower_bound_of_done").asLong();
        assertEquals(bound, done.path("member_bytes_filled").asLong(), "m = 1: the bound is the filled bytes");
        assertTrue(read >= bound && read <= 1.05 * bound, "member bytes read " + read + " vs the lower bound " + bound);

        List<String> widened = new ArrayList<>();
        for (JsonNode s : done.path("stripes"))
            for (JsonNode step : s.path("steps"))
                if ("widened".equals(step.path("step").asText()))
                    widened.add(s.path("id").asText());
        for (StripeRecord r : LocalClusterScript.stripeRecords(session))
            if (widened.contains(r.id().toString()))
            {
                assertEquals(StripeState.COMMITTED, r.state(), r.toString());
                assertEquals(3, r.k(), r.toString());
                assertEquals(CauchyMatrix.codecId(3, 1), r.codecId(), r.toString());
                assertTrue(r.members().stream().filter(m -> !m.isVirtual()).count() >= 2, "a widened stripe took a member: " + r);
            }
        assertEquals(done.path("stripes_widened").asInt(), widened.size());

        PreparedStatement get = session.prepare("SELECT field0, field3 FROM " + KS + ".usertable WHERE key = ?");
        for (int k = 0; k < KEYS; k++)
            for (ConsistencyLevel cl : List.of(ConsistencyLevel.ONE, ConsistencyLevel.ALL))
                check(session.execute(get.bind(key(k)).setConsistencyLevel(cl)).one(), k, cl + " after the widening");
        for (int i = 1; i <= 4; i++)
        {
            Result verify = SCRIPT.runTool(900, "bin/electtool", "-p", String.valueOf(7099 + 100 * i), "verify", "--json");
            assertEquals(0, verify.code(), "electtool verify on node " + i + ": " + verify.output());
        }
        JsonNode report = JSON.readTree((String) LocalClusterScript.jmxAttribute(1, ElectNodeMBean.OBJECT_NAME, "StorageJson"));
        System.out.println("saving after the widening: " + report.path("tables").path(0).path("achieved_saving").asDouble() + " (alpha 0.4)");
        assertEquals(0, SCRIPT.run(180, "kill", "--hard", "3").code());
        Thread.sleep(10_000);
        for (int k = 0; k < KEYS; k += 3)
            check(session.execute(get.bind(key(k)).setConsistencyLevel(ConsistencyLevel.ONE)).one(), k, "ONE with node 3 down");
    }

    /** Sum over the 4 nodes of ParityMaintenance.MemberBytesFromNodes (member bytes parity nodes read from other nodes). */
    private static long memberBytesFromNodes() throws Exception
    {
        long sum = 0;
        for (int i = 1; i <= 4; i++)
        {
            Result r = SCRIPT.runTool(120, "bin/electtool", "-p", String.valueOf(7099 + 100 * i), "metrics", "--json", "ParityMaintenance.");
            assertEquals(0, r.code(), r.output());
            sum += JSON.readTree(lastLine(r.output())).path("ParityMaintenance.MemberBytesFromNodes").asLong();
        }
        return sum;
    }

    private static String lastLine(String out)
    {
        String[] lines = out.strip().split("\n");
        return lines[lines.length - 1];
    }

    private static void check(Row row, int k, String how)
    {
        assertNotNull(row, "key " + key(k) + " readable (" + how + ")");
        assertEquals(value(k, 0, 0), row.getString(0), "key " + key(k) + " field0 (" + how + ")");
        assertEquals(value(k, 0, 3), row.getString(1), "key " + key(k) + " field3 (" + how + ")");
    }
}
