package io.elect.core.node;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.elect.core.config.Json;
import io.elect.core.node.LocalTables.TableFile;
import io.elect.core.transition.wire.TransitionMessages.TableRef;

/**
 * Where this node's reads of each ELECT table were served from ({@code electtool reads}): every live file is put in
 * one class by where its data is, and its read count (Cassandra's per-SSTable read meter: partition reads that
 * consulted the file since it was opened) is added to that class. Classes:
 * <ul>
 * <li>{@code primary}: an unencoded primary (role 0) on local disk;</li>
 * <li>{@code secondary}: an unencoded secondary (role >= 1), or a file without a role (misfit, awaiting re-split);</li>
 * <li>{@code encoded}: a primary frozen as a stripe member, its data still on local disk (reads cost as before);</li>
 * <li>{@code cold}: an encoded primary whose data was offloaded (reads go to the cold tier unless cached);</li>
 * <li>{@code stub}: a secondary replaced by a stub (reads decode from the stripe's members).</li>
 * </ul>
 * Counts are cumulative per file and vanish with the file (a compaction's output starts at 0), so a share over an
 * interval is computed from two documents file by file (scripts/bench hotness does). Local only; no I/O beyond
 * listing the live files.
 */
final class ReadSources
{
    static final List<String> CLASSES = List.of("primary", "secondary", "encoded", "cold", "stub");

    private ReadSources()
    {
    }

    /** The class of a live file (one of {@link #CLASSES}). */
    static String classOf(TableFile f)
    {
        switch (f.source())
        {
            case COLD:
                return "cold";
            case DECODED:
                return "stub";
            default:
                if (f.frozenTag() != null)
                    return "encoded";
                return f.role() != null && f.role() == 0 ? "primary" : "secondary";
        }
    }

    /**
     * JSON (format version 1):
     * <pre>
     * {"version":1,"node":"127.0.0.1:7000",
     *  "tables":[{"table":"ks.t",
     *             "sources":{"primary":{"files":2,"bytes":2097152,"reads":310}, "secondary":{...}, "encoded":{...},
     *                        "cold":{...}, "stub":{...}},
     *             "files":[{"id":"3gxk_...","source":"encoded","reads":120}, ...]}]}
     * </pre>
     * Every class is present (zeros included); {@code bytes} are bytes on local disk.
     */
    static Map<String, Object> build(NodeContext node) throws IOException
    {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("version", 1);
        doc.put("node", node.self());
        List<Object> tables = new ArrayList<>();
        List<TableRef> names = new ArrayList<>(node.tables().electTables());
        names.sort(Comparator.comparing(TableRef::toString));
        for (TableRef t : names)
        {
            Map<String, long[]> sums = new LinkedHashMap<>();
            for (String c : CLASSES)
                sums.put(c, new long[3]);
            List<Object> files = new ArrayList<>();
            List<TableFile> live = new ArrayList<>(node.tables().files(t));
            live.sort(Comparator.comparing(TableFile::id));
            for (TableFile f : live)
            {
                String c = classOf(f);
                long[] s = sums.get(c);
                s[0]++;
                s[1] += f.bytesOnDisk();
                s[2] += f.reads();
                Map<String, Object> fd = new LinkedHashMap<>();
                fd.put("id", f.id());
                fd.put("source", c);
                fd.put("reads", f.reads());
                files.add(fd);
            }
            Map<String, Object> sources = new LinkedHashMap<>();
            for (Map.Entry<String, long[]> e : sums.entrySet())
            {
                Map<String, Object> s = new LinkedHashMap<>();
                s.put("files", e.getValue()[0]);
                s.put("bytes", e.getValue()[1]);
                s.put("reads", e.getValue()[2]);
                sources.put(e.getKey(), s);
            }
            Map<String, Object> td = new LinkedHashMap<>();
            td.put("table", t.toString());
            td.put("sources", sources);
            td.put("files", files);
            tables.add(td);
        }
        doc.put("tables", tables);
        return doc;
    }

    static String json(NodeContext node) throws IOException
    {
        return Json.write(build(node));
    }
}
