package io.elect.core.node;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.core.config.ColdTierStores;
import io.elect.core.config.Json;
import io.elect.core.node.LocalTables.TableFile;
import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.ParityBuilder;
import io.elect.core.stripes.ParityFiles;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.stripes.StripeRecord;
import io.elect.core.stripes.StripeState;
import io.elect.core.tiered.DecodedRangeSource;
import io.elect.core.transition.RemoteStripeParticipant;
import io.elect.core.transition.wire.TransitionMessages.StripeStatus;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.offload.ColdStore;

/**
 * {@code electtool verify}: checks every COMMITTED stripe in which this node holds a member.
 * <ul>
 * <li>a data member: a live SSTable of its table is frozen under the stripe's tag (this node serves it as primary);
 *     its bytes, read the way other nodes read them (READ_MEMBER to this node's old path, redirects followed), match
 *     the stripe's checksums chunk by chunk; and the member reconstructed from k OTHER members matches them too (the
 *     stripe decodes);</li>
 * <li>a parity member: its hot file verifies against its checksum sidecar, or its cold marker exists and the cold
 *     object is present.</li>
 * </ul>
 * The result is a JSON document with {@code ok} and one line per problem. Costs about (k + 1) x the bytes of this
 * node's data members in reads, plus one read of each hot parity file.
 */
final class StripeVerifier
{
    private static final Logger logger = LoggerFactory.getLogger(StripeVerifier.class);

    private StripeVerifier()
    {
    }

    static String verify(LocalTransitionOps ops) throws IOException
    {
        NodeContext node = ops.node();
        long start = node.clock().nanoTime();
        String me = node.self();
        MemberRestore finder = new MemberRestore(ops, b -> {}, what -> {});
        List<String> problems = new ArrayList<>();
        int stripes = 0, data = 0, parity = 0;
        long bytes = 0;
        for (StripeRecord r : node.store().list())
        {
            if (r.state() != StripeState.COMMITTED)
                continue;
            boolean mine = false;
            for (int i = 0; i < r.k(); i++)
            {
                if (r.members().get(i).isVirtual() || !r.members().get(i).node().equals(me))
                    continue;
                mine = true;
                data++;
                TableRef table = RemoteStripeParticipant.tableOf(r.members().get(i).sstable());
                try
                {
                    bytes += checkData(ops, finder, table, r, i);
                }
                catch (IOException | RuntimeException e)
                {
                    problems.add("stripe " + r.id() + " data member " + i + " (" + table + "): " + e.getMessage());
                }
            }
            for (int j = 0; j < r.m(); j++)
            {
                if (!r.parityNodes().get(j).equals(me))
                    continue;
                mine = true;
                parity++;
                TableRef table = RemoteStripeParticipant.tableOf(firstReal(r));
                try
                {
                    checkParity(node, table, r, j);
                }
                catch (IOException | RuntimeException e)
                {
                    problems.add("stripe " + r.id() + " parity member " + j + " (" + table + "): " + e.getMessage());
                }
            }
            if (mine)
                stripes++;
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("ok", problems.isEmpty());
        doc.put("node", me);
        doc.put("stripes", stripes);
        doc.put("data_members", data);
        doc.put("parity_members", parity);
        doc.put("data_bytes_verified", bytes);
        doc.put("millis", node.clock().millisSince(start));
        doc.put("problems", problems);
        logger.info("verify of {}: {} stripes, {} data and {} parity members, {} problems ({} ms)", me, stripes, data, parity,
                    problems.size(), node.clock().millisSince(start));
        return Json.write(doc);
    }

    private static long checkData(LocalTransitionOps ops, MemberRestore finder, TableRef table, StripeRecord r, int i) throws IOException
    {
        NodeContext node = ops.node();
        boolean live = false;
        for (TableFile f : node.tables().files(table))
            live |= r.id().toString().equals(f.frozenTag());
        if (!live)
            throw new IOException("no live SSTable on this node is frozen for this stripe (the primary does not serve it)");
        StripeStatus status = finder.findStub(table, r, i);
        if (status == null)
            throw new IOException("no live secondary holds a stub of it: its checksums are unknown");
        StripeLayout layout = status.stub().layout();
        ChunkChecksums sums = status.stub().checksums();
        long length = layout.memberLength(i);
        // 1. as others read it
        for (long pos = 0; pos < length; pos += MemberRestore.WINDOW)
        {
            int n = (int) Math.min(MemberRestore.WINDOW, length - pos);
            ByteBuffer got = node.tiered().members().read(layout, i, pos, n);
            int chunk = (int) (pos / sums.chunkSize());
            for (int off = 0; off < n; chunk++)
            {
                int len = sums.chunkLength(chunk);
                ByteBuffer slice = got.duplicate();
                slice.position(got.position() + off).limit(got.position() + off + len);
                sums.verify("member " + i + " as served by this node", chunk, slice);
                off += len;
            }
        }
        // 2. reconstructed from k others (verified chunk by chunk inside the source)
        DecodedRangeSource decoded = finder.reconstruction(layout, i, sums);
        ByteBuffer buf = ByteBuffer.allocate(MemberRestore.WINDOW);
        for (long pos = 0; pos < length; pos += MemberRestore.WINDOW)
        {
            buf.clear().limit((int) Math.min(MemberRestore.WINDOW, length - pos));
            decoded.read(pos, buf);
        }
        return length;
    }

    private static void checkParity(NodeContext node, TableRef table, StripeRecord r, int j) throws IOException
    {
        Path file = node.parity().hot(table.keyspace(), table.table(), r.id().toString(), j, r.parityGeneration());
        if (ParityBuilder.verify(file).isPresent())
            return;
        Path marker = ParityFiles.coldMarker(file);
        if (!Files.exists(marker))
            throw new IOException("neither an intact hot parity file " + file + " nor a cold marker");
        Optional<ColdStore> store = node.tiered().store(ColdTierStores.DEFAULT_STORE);
        String key = ParityFiles.coldKey(table.keyspace(), table.table(), r.id().toString(), j, r.parityGeneration());
        if (store.isEmpty() || !store.get().exists(key))
            throw new IOException("cold marker present but cold object " + key + " is missing");
    }

    private static String firstReal(StripeRecord r)
    {
        for (var m : r.members())
            if (!m.isVirtual())
                return m.sstable();
        throw new IllegalStateException("stripe " + r.id() + " has no real member");
    }
}
