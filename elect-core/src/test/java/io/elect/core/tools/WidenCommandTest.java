package io.elect.core.tools;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WidenCommandTest
{
    @Test
    void parsesOptionsAndNamesBadOnes()
    {
        assertEquals(new WidenCommand.Options(6, true, false), WidenCommand.parse(List.of("--to", "6", "--dry-run")));
        assertEquals(new WidenCommand.Options(3, false, true), WidenCommand.parse(List.of("--json", "--to", "3")));
        assertMessage("--to K is required", List.of("--dry-run"));
        assertMessage("'six' is not a number", List.of("--to", "six"));
        assertMessage("--to must be in 1..255, got 0", List.of("--to", "0"));
        assertMessage("--to needs", List.of("--to"));
        assertMessage("unknown option '--apply'", List.of("--to", "4", "--apply"));
    }

    private static void assertMessage(String expected, List<String> args)
    {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> WidenCommand.parse(args));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void rendersWhatAWideningDid() throws Exception
    {
        String json = """
            {"target_k":3,"dry_run":false,"stripes_widened":1,"members_filled":1,"member_bytes_filled":2048,"lower_bound_of_done":2048,
             "planned_bytes_moved":4096,"planned_lower_bound":4096,"skipped":1,"failed":1,"millis":12,
             "stripes":[{"id":"00000000000000000000000000000001","steps":[{"step":"widened","k":3,"codec":"rs-cauchy-gf8-11d:k=3:m=1"},
                          {"slot":2,"member":"n4/ks.t/nb-4-big","bytes":2048,"step":"filled"},
                          {"slot":3,"member":"n5/ks.t/nb-5-big","bytes":9000,"step":"skipped","reason":"longer than the stripe's longest member"}]},
                        {"id":"00000000000000000000000000000002","error":"another change moved it","steps":[]}]}
            """;
        String text = WidenCommand.renderDone(json);
        assertTrue(text.contains("Widening to k'=3: 1 stripes widened, 1 members filled (2.0 KiB), 1 skipped, 1 failed"), text);
        assertTrue(text.contains("widened to k=3 (rs-cauchy-gf8-11d:k=3:m=1)"), text);
        assertTrue(text.contains("slot 2 <- n4/ks.t/nb-4-big (2.0 KiB): filled"), text);
        assertTrue(text.contains("skipped (longer than the stripe's longest member)"), text);
        assertTrue(text.contains("00000000000000000000000000000002 FAILED: another change moved it"), text);
    }

    @Test
    void isRegistered()
    {
        assertTrue(ElectTool.COMMANDS.containsKey("widen"));
    }

    @Test
    void rendersThePlan() throws Exception
    {
        String json = """
            {"target_k":3,"dry_run":true,"apply":"applying a widening is not implemented yet (plans only: use --dry-run)",
             "stripes_total":2,"outcomes":{"widened":1,"partial":0,"cannot_widen":1,"unchanged":0,"not_committed":0},
             "bytes_moved":2048,"lower_bound":2048,"ratio_to_lower_bound":1.0,"candidates":1,
             "nodes":[{"node":"n1","rack":null,"send_bytes":0,"receive_bytes":2048},{"node":"n4","rack":null,"send_bytes":2048,"receive_bytes":0}],
             "stripes":[{"id":"00000000000000000000000000000001","outcome":"widened","reason":null,"from_k":2,"to_k":3,"m":1,
                         "from_codec":"rs-cauchy-gf8-11d:k=2:m=1","to_codec":"rs-cauchy-gf8-11d:k=3:m=1","from_code_length":4096,
                         "to_code_length":4096,"slots_asked":1,"bytes_moved":2048,"lower_bound":2048,
                         "additions":[{"slot":2,"virtual_slot":false,"node":"n4","member":"ks.t/5","bytes":2048}]},
                        {"id":"00000000000000000000000000000002","outcome":"cannot_widen","reason":"needs 1 members","from_k":2,"to_k":2,"m":1,
                         "from_codec":"rs-cauchy-gf8-11d:k=2:m=1","to_codec":"rs-cauchy-gf8-11d:k=2:m=1","from_code_length":4096,
                         "to_code_length":4096,"slots_asked":1,"bytes_moved":0,"lower_bound":0,"additions":[]}]}
            """;
        String text = WidenCommand.render(json);
        assertTrue(text.startsWith("Widening to k'=3 (dry run): 2 stripes: 1 widened, 0 partial, 1 cannot widen, 0 unchanged, 0 not committed\n"), text);
        assertTrue(text.contains("Bytes to move: 2.0 KiB (2048), Scale-RS lower bound 2.0 KiB (2048): 1.00x"), text);
        assertTrue(text.contains("n4                              2.0 KiB            0 B"), text);
        assertTrue(text.contains("slot 2 <- n4 ks.t/5 (2.0 KiB)"), text);
        assertTrue(text.contains("why: needs 1 members"), text);
        assertTrue(text.contains("Not applied (dry run): applying a widening is not implemented yet"), text);
    }
}
