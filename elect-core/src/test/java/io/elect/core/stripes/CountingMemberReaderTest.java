package io.elect.core.stripes;

import java.nio.ByteBuffer;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Bytes are counted by where the member's locator says they came from; virtual members cost nothing. */
class CountingMemberReaderTest
{
    @Test
    void bytesAreCountedByTheirSource()
    {
        List<String> locators = List.of("node:10.0.0.2:7070/data/a", "node:10.0.0.1:7070/data/b", "cold:s3/k", "file:/tmp/x",
                                        LocatorMemberReader.zero(), "node:10.0.0.1:7071/data/c");
        StripeLayout layout = new StripeLayout("rs-java", 4, 2, new long[]{ 100, 100, 100, 100 }, 200, locators);
        CountingMemberReader r = new CountingMemberReader((s, member, off, len) -> ByteBuffer.allocate(len),
                                                          LocatorMemberReader.node("10.0.0.1", 7070, java.nio.file.Paths.get("/")));
        int[] lengths = { 10, 20, 40, 80, 160, 3 };
        for (int i = 0; i < locators.size(); i++)
            assertEquals(lengths[i], assertDoesNotThrowRead(r, layout, i, lengths[i]));
        assertEquals(10 + 3, r.network.sum(), "another host, and this host on another port");
        assertEquals(40, r.cold.sum());
        assertEquals(20 + 80, r.local.sum(), "this node's own node: locator and a file: locator");
    }

    private static int assertDoesNotThrowRead(CountingMemberReader r, StripeLayout l, int member, int len)
    {
        try
        {
            return r.read(l, member, 0, len).remaining();
        }
        catch (java.io.IOException e)
        {
            throw new AssertionError(e);
        }
    }
}
