package io.elect.core.tools;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ElectToolTest
{
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args)
    {
        return ElectTool.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void noCommandPrintsUsageAndExits2()
    {
        assertEquals(2, run());
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("status"));
    }

    @Test
    void unknownCommandExits2()
    {
        assertEquals(2, run("frobnicate"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("unknown command 'frobnicate'"));
    }

    @Test
    void badPortExits2()
    {
        assertEquals(2, run("-p", "seventy", "status"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("'seventy'"));
    }

    @Test
    void unreachableNodeExits1WithEndpoint() throws Exception
    {
        int port;
        try (ServerSocket s = new ServerSocket(0))
        {
            port = s.getLocalPort(); // free once closed: nothing listens there
        }
        assertEquals(1, run("-p", String.valueOf(port), "status"));
        String e = err.toString(StandardCharsets.UTF_8);
        assertTrue(e.contains("127.0.0.1:" + port), e);
        assertTrue(e.contains("cannot reach"), e);
    }

    @Test
    void alphaValuesAreCheckedNamingTheKey()
    {
        assertEquals(0.8, AlphaCommand.parse("0.8"));
        assertEquals(0.0, AlphaCommand.parse("0"));
        for (String bad : new String[]{ "1.5", "1", "-0.1", "NaN", "lots" })
        {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> AlphaCommand.parse(bad));
            assertTrue(e.getMessage().startsWith("storage_saving_target: ") && e.getMessage().contains(bad), e.getMessage());
        }
    }
}
