package io.elect.tsue.net;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import io.elect.tsue.log.RecordLog;
import io.elect.tsue.log.TxRecord;

/**
 * What one storage node offers to the others: chunk reads and writes, record logs (data logs, differential pages)
 * and parity logs. Every operation is local to the serving node, so it is the unit of network traffic: a call
 * through {@link Transport#node(int, int)} from another node moves its arguments and result across the network.
 * Implementations are thread-safe. A network implementation frames each call as a versioned, checksummed message.
 */
public interface NodeService
{
    int id();

    byte[] read(String file, long pos, int len) throws IOException;

    void write(String file, long pos, byte[] data, boolean sync) throws IOException;

    /** Read-modify-write at the node: file[pos..] ^= delta, synced (in-place parity update). */
    void xorInPlace(String file, long pos, byte[] delta) throws IOException;

    /** Appends a record to a record log of this node (created on first use); durable on return if sync. */
    void appendRecord(String log, int type, byte[] payload, boolean sync) throws IOException;

    /** Appends several records with a single sync. */
    void appendRecords(String log, int type, List<byte[]> payloads) throws IOException;

    List<RecordLog.Entry> scanLog(String log) throws IOException;

    /** Deletes a file (closing it first if it is an open record log). */
    void delete(String file) throws IOException;

    /**
     * Retires a record log that is no longer needed: its records are invalidated (header epoch bumped, synced) and
     * the file is kept for reuse by a later new log of this node, whose appends then overwrite blocks the file
     * system already allocated (a synced append then needs no journal commit). Absent files are ignored.
     */
    void retire(String log) throws IOException;

    /** File names starting with prefix. */
    List<String> list(String prefix) throws IOException;

    void plogAppend(String base, List<TxRecord> records, boolean sync) throws IOException;

    void plogCommit(String base, long[] txs, boolean sync) throws IOException;

    void plogAbort(String base, long[] txs) throws IOException;

    /** Applies committed transactions; returns parity bytes rewritten. */
    long plogApply(String base) throws IOException;

    List<TxRecord> plogUncommitted(String base) throws IOException;

    boolean plogCommitted(String base, long tx) throws IOException;

    Map<Long, Long> plogLastTx(String base) throws IOException;

    /** Appends a batch of parity deltas forwarded from TSUE delta log {@code source}; durable and committed. */
    void plogAppendBatch(String base, long tx, int source, long watermark, List<TxRecord> records) throws IOException;

    /** The highest delta transaction of {@code source} that the log holds or has applied (-1 if none). */
    long plogWatermark(String base, int source) throws IOException;

    /** Delta log: drops forwarded transactions. */
    void plogForwarded(String base, long[] txs, boolean sync) throws IOException;

    /** Delta log: every transaction held (records grouped per transaction). */
    List<List<TxRecord>> plogAll(String base) throws IOException;

    /** Memory held by all open parity logs of this node. */
    long plogMemory();

    /** The parity-log bases present on this node whose name starts with prefix. */
    List<String> plogBases(String prefix) throws IOException;
}
