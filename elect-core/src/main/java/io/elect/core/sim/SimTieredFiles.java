package io.elect.core.sim;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;

import io.elect.core.node.LocalTables.BeforeLive;
import io.elect.core.node.LocalTables.BeforeSwap;
import io.elect.core.node.LocalTables.Source;
import io.elect.core.stripes.ChunkChecksums;
import io.elect.core.stripes.StripeLayout;
import io.elect.core.tiered.TieredSidecar;
import io.elect.core.transition.wire.TransitionMessages.TableRef;
import io.elect.core.util.Clock;
import io.elect.offload.ColdStore;

/**
 * The files of a {@link SimTables} whose data is not (or not only) a plain local component: moving a file to the
 * cold tier and back (COLD), installing, relaying out and removing stubs (DECODED: index components copied from a
 * member, data read through the stripe), and installing a restored member; with the cold keys those files own.
 *
 * <p>Separate from {@link SimTables} because these operations replace one file by another under a new generation
 * and go through the node's tiered runtime (cold stores, sidecars, open sources), while the engine's own operations
 * only write and merge LOCAL files; they share the {@link SimFileSet} and hold no state of their own.
 */
final class SimTieredFiles
{
    private final SimFileSet set;
    private final Clock clock;

    SimTieredFiles(SimFileSet set, Clock clock)
    {
        this.set = set;
        this.clock = clock;
    }

    String toCold(TableRef t, String id, String coldStore, BeforeSwap beforeSwap) throws IOException
    {
        SimFile f = set.live(t, id);
        if (f.source != Source.LOCAL)
            throw new IllegalArgumentException(set.node + "/" + id + " is already tiered");
        ColdStore store = set.runtime.get().store(coldStore)
                                     .orElseThrow(() -> new IllegalArgumentException("storeName '" + coldStore + "' is not a registered cold store"));
        String gen = set.nextGen();
        String key = coldKeyPrefix(t) + gen + "-Data.db";
        ChunkChecksums sums;
        try (FileChannel ch = FileChannel.open(f.data, StandardOpenOption.READ))
        {
            sums = ChunkChecksums.compute(ch, set.runtime.get().chunkSize());
        }
        store.put(key, f.data);
        try
        {
            beforeSwap.accept(f.data.toAbsolutePath().normalize(), coldStore, key);
        }
        catch (IOException | RuntimeException e)
        {
            store.delete(key);
            throw e;
        }
        Path placeholder = Files.write(set.path(gen, "Data.db"), new byte[0]);
        Map<String, Path> comps = set.copyComponents(f.components, gen);
        SimFile cold = new SimFile(gen, Source.COLD, f.level, f.role, placeholder, comps, f.index, f.createdMillis,
                                   f.dataBytes, TieredSidecar.cold(sums, coldStore, key, true), f.frozenTag);
        set.remove(f);
        set.files.put(cold.id, cold);
        return cold.id;
    }

    String rehydrate(TableRef t, String id, BeforeLive beforeLive) throws IOException
    {
        SimFile f = set.live(t, id);
        if (f.source != Source.COLD)
            throw new IllegalArgumentException(set.node + "/" + id + " is not COLD");
        String gen = set.nextGen();
        ByteBuffer all = ByteBuffer.allocate((int) f.dataBytes);
        set.source(f).read(0, all);
        Path data = Files.write(set.path(gen, "Data.db"), all.array());
        Map<String, Path> comps = set.copyComponents(f.components, gen);
        beforeLive.accept(gen, data);
        SimFile local = new SimFile(gen, Source.LOCAL, f.level, f.role, data, comps, f.index, f.createdMillis, f.dataBytes, null,
                                    f.frozenTag);
        set.remove(f);
        set.files.put(local.id, local);
        // the COLD file owned its object (as the adapter's format deletes it with the tiered SSTable)
        set.runtime.get().store(f.sidecar.coldStore()).orElseThrow().delete(f.sidecar.coldKey());
        return local.id;
    }

    String installStub(TableRef t, Map<String, Path> components, StripeLayout layout, int self, ChunkChecksums checksums, String tag)
    throws IOException
    {
        set.check(t);
        if (checksums.length() != layout.memberLength(self))
            throw new IllegalArgumentException("dataChecksums cover " + checksums.length() + " bytes but member " + self + " has "
                                               + layout.memberLength(self));
        for (SimFile f : set.files.values())
            if (f.source == Source.DECODED && f.sidecar.self() == self && f.sidecar.stripe().equals(layout))
            {
                if (f.frozenTag == null)
                    f.frozenTag = tag;
                return f.id;
            }
        if (!components.containsKey(SimTables.INDEX))
            throw new IllegalArgumentException("components must include " + SimTables.INDEX + ", got " + components.keySet());
        String gen = set.nextGen();
        Map<String, Path> comps = set.copyComponents(components, gen);
        SimRows.Index idx = SimRows.decodeIndex(Files.readAllBytes(comps.get(SimTables.INDEX)));
        Path placeholder = Files.write(set.path(gen, "Data.db"), new byte[0]);
        Integer role = idx.size() == 0 ? null : set.roleOf(idx.firstToken());
        SimFile stub = new SimFile(gen, Source.DECODED, 1, role == null || role < 0 ? null : role, placeholder, comps, idx,
                                   clock.millis(), checksums.length(), TieredSidecar.decoded(checksums, layout, self), tag);
        set.files.put(stub.id, stub);
        return stub.id;
    }

    void removeStub(TableRef t, String id) throws IOException
    {
        set.check(t);
        SimFile f = set.files.get(id);
        if (f == null)
            return;
        if (f.source != Source.DECODED)
            throw new IllegalArgumentException(set.node + "/" + id + " is not a stub");
        set.remove(f);
    }

    void relayoutStub(TableRef t, String id, StripeLayout next) throws IOException
    {
        set.check(t);
        SimFile f = set.files.get(id);
        if (f == null || f.source != Source.DECODED)
            throw new IllegalArgumentException(set.node + "/" + id + " is not a live stub");
        TieredSidecar before = f.sidecar;
        if (!before.stripe().equals(next))
            f.sidecar = TieredSidecar.decoded(before.checksums(), next, before.self());
        set.runtime.get().relayout(before, next);
    }

    String installRestored(TableRef t, Map<String, Path> components, String version, Path data, String tag, BeforeLive beforeLive)
    throws IOException
    {
        set.check(t);
        String gen = set.nextGen();
        Path local = Files.copy(data, set.path(gen, "Data.db"), StandardCopyOption.REPLACE_EXISTING);
        Map<String, Path> comps = set.copyComponents(components, gen);
        SimRows.Index idx = SimRows.decodeIndex(Files.readAllBytes(comps.get(SimTables.INDEX)));
        beforeLive.accept(gen, local);
        Integer role = idx.size() == 0 ? null : set.roleOf(idx.firstToken());
        SimFile f = new SimFile(gen, Source.LOCAL, 1, role == null || role < 0 ? null : role, local, comps, idx,
                                clock.millis(), Files.size(local), null, tag);
        set.files.put(f.id, f);
        return f.id;
    }

    String coldKeyPrefix(TableRef t)
    {
        return "tiered/" + t.keyspace() + "/" + t.table() + "/" + set.node + "/";
    }

    java.util.Set<String> referencedColdKeys(TableRef t)
    {
        set.check(t);
        java.util.Set<String> keys = new java.util.HashSet<>();
        for (SimFile f : set.files.values())
            if (f.source == Source.COLD)
                keys.add(f.sidecar.coldKey());
        return keys;
    }
}
