package io.elect.core.tools;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DecommissionCommandTest
{
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void isRegistered()
    {
        assertTrue(ElectTool.COMMANDS.get("decommission") instanceof DecommissionCommand);
    }

    @Test
    void rendersProgressAndWhatItWaitsFor() throws Exception
    {
        String draining = "{\"phase\":\"DRAINING\",\"node\":\"127.0.0.4\",\"marked_draining\":true,\"stripes_at_start\":5,"
                          + "\"stripes_naming_node\":2,\"waiting\":\"nodes down (every ring member must answer the moves): [127.0.0.2]\","
                          + "\"elapsed_ms\":12500,\"error\":null}";
        assertEquals("decommission DRAINING: 2 of 5 stripes still name 127.0.0.4, elapsed 12.5 s; waiting: nodes down (every ring member "
                     + "must answer the moves): [127.0.0.2]", DecommissionCommand.line(JSON.readTree(draining)));
        String failed = "{\"phase\":\"FAILED\",\"node\":\"127.0.0.4\",\"marked_draining\":true,\"stripes_at_start\":5,"
                        + "\"stripes_naming_node\":0,\"waiting\":\"\",\"elapsed_ms\":1000,\"error\":\"java.lang.IllegalStateException: no\"}";
        assertTrue(DecommissionCommand.line(JSON.readTree(failed)).endsWith("; error: java.lang.IllegalStateException: no"));
        // a node restarted mid-drain: the mark stays, nothing runs here
        String restarted = "{\"phase\":\"IDLE\",\"node\":\"127.0.0.4\",\"marked_draining\":true,\"stripes_at_start\":-1,"
                           + "\"stripes_naming_node\":-1,\"waiting\":\"\",\"elapsed_ms\":0,\"error\":null}";
        String line = DecommissionCommand.line(JSON.readTree(restarted));
        assertTrue(line.contains("marked draining but no decommission runs here"), line);
        assertTrue(line.contains("0 of 0 stripes"), line);
    }

    @Test
    void namesBadOptions()
    {
        PrintStream out = new PrintStream(new ByteArrayOutputStream());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                                                  () -> new DecommissionCommand().run(null, List.of("--force"), out));
        assertTrue(e.getMessage().contains("unknown option '--force'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new DecommissionCommand().run(null, List.of("--cancel", "--status"), out));
        assertTrue(e.getMessage().contains("--cancel and --status exclude each other"), e.getMessage());
    }
}
