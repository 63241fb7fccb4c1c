package io.elect.tsue.engine;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.elect.tsue.log.TxRecord.Extent;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** How recycling groups a chunk's merged extents into reads and writes of the chunk. */
class RecycleSpansTest
{
    private static List<int[]> spans(int gap, int chunkSize, int... offLen)
    {
        List<Extent> extents = new ArrayList<>();
        for (int i = 0; i < offLen.length; i += 2)
            extents.add(new Extent(offLen[i], new byte[offLen[i + 1]]));
        List<int[]> out = new ArrayList<>();
        for (TsueRecycler.Span s : TsueRecycler.spans(3, extents, gap, 4096, chunkSize))
        {
            assertEquals(3, s.chunk);
            out.add(new int[]{ s.start, s.end, s.extents.size() });
        }
        return out;
    }

    private static void assertSpans(List<int[]> actual, int[]... expected)
    {
        assertEquals(expected.length, actual.size(), "number of spans");
        for (int i = 0; i < expected.length; i++)
            assertEquals(List.of(expected[i][0], expected[i][1], expected[i][2]),
                         List.of(actual.get(i)[0], actual.get(i)[1], actual.get(i)[2]), "span " + i);
    }

    @Test
    void extentsCloserThanTheGapShareOnePageAlignedSpan()
    {
        // 100..600, 20000..21000 (19400 bytes apart), 90000..90512 (69000 apart): gap 64 KiB joins the first two only
        assertSpans(spans(64 << 10, 1 << 20, 100, 500, 20000, 1000, 90000, 512),
                    new int[]{ 0, 24576, 2 }, new int[]{ 86016, 90112 + 4096, 1 });
    }

    @Test
    void aGapOfOnePageKeepsExtentsAPageApartSeparate()
    {
        // the old rule: a new span when the next extent starts a page or more after the previous one ends
        assertSpans(spans(4096, 1 << 20, 0, 100, 4196, 10, 5000, 10),
                    new int[]{ 0, 4096, 1 }, new int[]{ 4096, 8192, 2 });
        assertSpans(spans(1, 1 << 20, 0, 100, 4196, 10), new int[]{ 0, 4096, 1 }, new int[]{ 4096, 8192, 1 });
    }

    @Test
    void spansStayInsideTheChunkAndNeverOverlap()
    {
        int chunk = 64 << 10;
        List<int[]> s = spans(8192, chunk, 0, 10, 9000, 10, 17300, 100, chunk - 10, 10);
        assertSpans(s, new int[]{ 0, 4096, 1 }, new int[]{ 8192, 12288, 1 }, new int[]{ 16384, 20480, 1 },
                    new int[]{ chunk - 4096, chunk, 1 });
        for (int i = 1; i < s.size(); i++)
            assertEquals(true, s.get(i)[0] >= s.get(i - 1)[1], "disjoint");
    }
}
