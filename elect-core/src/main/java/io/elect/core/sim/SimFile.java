package io.elect.core.sim;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import io.elect.core.node.LocalTables.Source;
import io.elect.core.tiered.TieredSidecar;

/**
 * One live file: its data component, components, and what the engine knows of it.
 *
 * <p>A plain holder shared by {@link SimTables} and the helpers it delegates to ({@link SimFileSet}, {@link SimScans},
 * {@link SimTieredFiles}), with the questions asked of a single file (token coverage, overlap, bytes on disk, its
 * statistics); kept on its own so that each of those classes sees the same type without nesting it in one of them.
 */
final class SimFile
{
    final String id;
    final Source source;
    final int level;
    final Integer role;
    final Path data;
    final Map<String, Path> components;
    final SimRows.Index index;
    final long createdMillis;
    final long dataBytes;
    /** Replaced by a relayout (a member change of its stripe). */
    TieredSidecar sidecar;
    String frozenTag;
    long reads;

    SimFile(String id, Source source, int level, Integer role, Path data, Map<String, Path> components, SimRows.Index index,
            long createdMillis, long dataBytes, TieredSidecar sidecar, String frozenTag)
    {
        this.id = id;
        this.source = source;
        this.level = level;
        this.role = role;
        this.data = data;
        this.components = components;
        this.index = index;
        this.createdMillis = createdMillis;
        this.dataBytes = dataBytes;
        this.sidecar = sidecar;
        this.frozenTag = frozenTag;
    }

    boolean frozen()
    {
        return source != Source.LOCAL || frozenTag != null;
    }

    boolean covers(long token)
    {
        return index.size() > 0 && token >= index.firstToken() && token <= index.lastToken();
    }

    boolean overlaps(SimFile o)
    {
        return index.size() > 0 && o.index.size() > 0 && index.firstToken() <= o.index.lastToken()
               && o.index.firstToken() <= index.lastToken();
    }

    /** The file's bytes on this node's disk: its data component if LOCAL, and every other component. */
    long bytesOnDisk()
    {
        long b = source == Source.LOCAL ? dataBytes : 0;
        for (Path p : components.values())
            b += p.toFile().length();
        return b;
    }

    /** A number of this file's statistics component ({@code prefix} = "min_ts=" or "max_ts="), or {@code absent}. */
    long stat(String prefix, long absent) throws IOException
    {
        Path stats = components.get(SimTables.STATS);
        if (stats == null)
            return absent;
        for (String line : Files.readAllLines(stats, StandardCharsets.US_ASCII))
            if (line.startsWith(prefix))
                return Long.parseLong(line.substring(prefix.length()));
        return absent;
    }
}
