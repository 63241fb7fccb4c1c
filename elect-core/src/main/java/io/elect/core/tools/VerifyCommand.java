package io.elect.core.tools;

import java.io.PrintStream;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.elect.core.jmx.ElectNodeMBean;

/**
 * {@code electtool verify [--json]}: checks every committed stripe the node holds a member of (its data members are
 * served by it and decode from the others with matching checksums; its parity members are intact). Exit 0 if every
 * check passed, 1 otherwise (each problem is printed).
 */
final class VerifyCommand implements ElectTool.Command
{
    @Override
    public String summary()
    {
        return "check every stripe this node holds a member of (served, decodes, checksums match)";
    }

    @Override
    public int run(JmxClient node, List<String> args, PrintStream out) throws Exception
    {
        for (String a : args)
            if (!a.equals("--json"))
                throw new IllegalArgumentException("verify: unknown option '" + a + "' (--json)");
        if (!ElectTool.electRunning(node, out))
            return 1;
        String doc = (String) node.invoke(ElectNodeMBean.OBJECT_NAME, "verify", new Object[0], new String[0]);
        JsonNode v = new ObjectMapper().readTree(doc);
        if (args.contains("--json"))
            out.println(doc);
        else
        {
            out.printf("verify %s: %s — %d stripes, %d data members (%d bytes decoded and checked), %d parity members, %d ms%n",
                       v.path("node").asText(), v.path("ok").asBoolean() ? "OK" : "FAILED", v.path("stripes").asInt(),
                       v.path("data_members").asInt(), v.path("data_bytes_verified").asLong(), v.path("parity_members").asInt(),
                       v.path("millis").asLong());
            for (JsonNode p : v.path("problems"))
                out.println("  problem: " + p.asText());
        }
        return v.path("ok").asBoolean() ? 0 : 1;
    }
}
