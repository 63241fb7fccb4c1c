package io.elect.tsue.engine;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import io.elect.coding.ErasureCoder;
import io.elect.tsue.log.TxRecord.Extent;

/** Parity deltas from data deltas. Stateless. */
final class Deltas
{
    private Deltas()
    {
    }

    /**
     * The m parity deltas of data deltas given per chunk, over the union of their ranges (overlapping or adjacent
     * ranges share one span; deltas of one span accumulate, so overlapping deltas of one chunk add up as their XOR).
     * Result: per parity j, the extents of its delta.
     */
    static List<List<Extent>> parity(ErasureCoder coder, int m, List<Integer> chunkOf, List<Extent> deltas)
    {
        List<int[]> spans = new ArrayList<>();
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < deltas.size(); i++)
            order.add(i);
        order.sort((a, b) -> Integer.compare(deltas.get(a).offset(), deltas.get(b).offset()));
        for (int i : order)
        {
            Extent e = deltas.get(i);
            int[] last = spans.isEmpty() ? null : spans.get(spans.size() - 1);
            if (last != null && e.offset() <= last[1])
                last[1] = Math.max(last[1], e.end());
            else
                spans.add(new int[]{ e.offset(), e.end() });
        }
        List<List<Extent>> out = new ArrayList<>();
        for (int j = 0; j < m; j++)
            out.add(new ArrayList<>());
        ByteBuffer[] par = new ByteBuffer[m];
        for (int[] span : spans)
        {
            int len = span[1] - span[0];
            byte[][] arrays = new byte[m][len];
            for (int j = 0; j < m; j++)
                par[j] = ByteBuffer.wrap(arrays[j]);
            for (int i = 0; i < deltas.size(); i++)
            {
                Extent e = deltas.get(i);
                if (e.offset() >= span[0] && e.end() <= span[1])
                    coder.update(chunkOf.get(i), ByteBuffer.wrap(e.bytes()), 0, par, e.offset() - span[0],
                                 e.bytes().length);
            }
            for (int j = 0; j < m; j++)
                out.get(j).add(new Extent(span[0], arrays[j]));
        }
        return out;
    }
}
