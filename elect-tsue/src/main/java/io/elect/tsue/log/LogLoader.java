package io.elect.tsue.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import io.elect.coding.ErasureCoder;
import io.elect.tsue.fs.FileLayer;

/**
 * The opening of a {@link ParityLog}: finds its generations, replays the records of the one that is the log (the
 * newest with a ROTATED marker; every generation, oldest first, for logs written before such markers existed) into
 * its {@link LogState}, and finishes an apply that a crash cut (an APPLY without its DONE). The caller then rotates
 * into a new generation and deletes the ones found.
 *
 * <p>Separate from {@code ParityLog} because it runs once, before the log is in use, and holds the only state that
 * exists during a replay (the APPLY whose DONE has not been seen yet); the records' meaning on replay is in one
 * place here, next to each other.
 */
final class LogLoader
{
    private final FileLayer fs;
    private final String base;
    private final ErasureCoder coder;
    private final ParityLog.ChunkNamer names;
    private final int pageSize;
    private final LogState state;
    /** Load: the payload of an APPLY whose DONE was not found (the apply was cut), redone before rotating. */
    private ByteBuffer pendingApply;

    LogLoader(FileLayer fs, String base, ErasureCoder coder, ParityLog.ChunkNamer names, int pageSize, LogState state)
    {
        this.fs = fs;
        this.base = base;
        this.coder = coder;
        this.names = names;
        this.pageSize = pageSize;
        this.state = state;
    }

    /** Replays the log into the state and redoes a cut apply; returns the generations found, newest first. */
    List<Long> load() throws IOException
    {
        List<Long> gens = new ArrayList<>();
        for (String f : fs.list())
            if (f.startsWith(base + ".") && f.substring(base.length() + 1).matches("\\d+"))
                gens.add(Long.parseLong(f.substring(base.length() + 1)));
        gens.sort(Comparator.reverseOrder());
        boolean found = false;
        for (long g : gens)
        {
            List<RecordLog.Entry> entries = RecordLog.scan(fs, base + "." + g);
            if (entries.stream().anyMatch(e -> e.type() == ParityLog.TYPE_ROTATED))
            {
                for (RecordLog.Entry e : entries)
                    replay(e);
                found = true;
                break;
            }
        }
        if (!found)   // logs written before ROTATED markers existed: every generation, oldest first
            for (long g : gens.stream().sorted().toList())
                for (RecordLog.Entry e : RecordLog.scan(fs, base + "." + g))
                    replay(e);
        if (pendingApply != null)
        {
            ApplyRecords.redo(pendingApply, state.txs(), fs, names, coder, pageSize, base);
            for (long tx : ApplyRecords.txs(pendingApply))
                state.forget(tx);
        }
        pendingApply = null;
        return gens;
    }

    private void replay(RecordLog.Entry e) throws IOException
    {
        ByteBuffer b = e.payload();
        switch (e.type())
        {
            case TxRecord.TYPE -> state.remember(TxRecord.decode(b));
            case ParityLog.TYPE_COMMIT -> {
                for (long tx : ParityLog.readIds(b))
                    state.commit(tx);
            }
            case ParityLog.TYPE_ABORT, ParityLog.TYPE_FORWARDED -> {
                for (long tx : ParityLog.readIds(b))
                    state.forget(tx);
            }
            case ParityLog.TYPE_IMAGES -> {
                for (long tx : ApplyRecords.replayImages(b, fs, names, coder))
                    state.forget(tx);
            }
            case ParityLog.TYPE_APPLY -> pendingApply = b.duplicate();
            case ParityLog.TYPE_DONE -> {
                long id = b.getLong();
                if (pendingApply != null && pendingApply.getLong(0) == id)
                {
                    for (long tx : ApplyRecords.txs(pendingApply))
                        state.forget(tx);
                    pendingApply = null;
                }
            }
            case ParityLog.TYPE_BATCH -> state.rememberBatch(b);
            case ParityLog.TYPE_WATERMARK -> {
                int n = b.getInt();
                for (int i = 0; i < n; i++)
                    state.watermark(b.getInt(), b.getLong());
            }
            case ParityLog.TYPE_ROTATED -> { }
            default -> throw new IOException("unknown record type " + e.type() + " in log " + base);
        }
    }
}
