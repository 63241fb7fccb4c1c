package io.elect.tsue.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

import io.elect.tsue.fs.FileLayer;

/**
 * An append-only file of checksummed, typed records (format: {@code docs/formats/tsue-log.md}).
 *
 * <p>File header (16 bytes): magic {@code 0x54534C47} ("TSLG"), u16 format version (1), u16 reserved (0), u32
 * epoch, u32 CRC32C of the preceding 12 bytes. Record: u32 payload length, u32 epoch, u8 type, payload, u32 CRC32C
 * over the 9 header bytes and the payload. All integers big-endian. The valid records are the longest prefix whose
 * frames check out and carry the header's epoch; anything after it (a torn or unsynced tail, zeroes of a
 * preallocated area, records of an earlier epoch) is ignored and overwritten by the next append. {@link #reset}
 * bumps the epoch instead of erasing, so a preallocated area (PLR) is reused with a single small overwrite.
 *
 * <p>Thread-safe. {@link #append} with sync uses group commit: one write and one fsync for every synced record
 * queued while the previous group was being synced.
 */
public final class RecordLog
{
    public static final int MAGIC = 0x54534C47;
    public static final short VERSION = 1;
    public static final int HEADER_BYTES = 16;
    public static final int FRAME_BYTES = 13;
    public static final int MAX_PAYLOAD = 64 << 20;
    /**
     * If positive, appends that pass the end of the file extend it with zeros up to the next multiple of this many
     * bytes (system property {@code elect.tsue.log_allocate_step}, bytes; default 0 = never). The sync of an append
     * that grows the file must also persist the new size and the blocks allocated for it; with the extension ahead
     * only the first sync after each step does. Off by default because every new file is then written twice: measured
     * on this VM (ext4 without journal, relatime) with a 1 MiB step, the yardstick's and parity logging's throughput
     * rose 1.06-1.19x but the logging baselines wrote 1.5-1.6x the bytes per update (docs/design/tsue.md, "Profile").
     * Syncs still write the inode when the file's mtime moved to a new clock tick since the last one.
     */
    static volatile int allocateStep = Integer.getInteger("elect.tsue.log_allocate_step", 0);
    private static final byte[] ZEROS = new byte[1 << 20];

    /** One record as read back; position is the offset of its frame in the file. */
    public record Entry(int type, ByteBuffer payload, long position)
    {
    }

    private final FileLayer fs;
    private final String name;
    private final Object syncLock = new Object();
    private final List<Waiter> queue = new ArrayList<>();
    private int epoch;
    private long tail;
    /** Bytes the file is known to hold (its size when opened, then grown by appends and zero extensions); -1 = unknown. */
    private long allocated = -1;
    private volatile long synced;
    private List<Entry> recovered;

    private RecordLog(FileLayer fs, String name)
    {
        this.fs = fs;
        this.name = name;
    }

    /**
     * Opens the log, creating it (header synced) if absent or if its header is invalid, and positions the tail
     * after the last valid record. The valid records are kept for one call of {@link #takeRecovered()}.
     */
    public static RecordLog open(FileLayer fs, String name) throws IOException
    {
        RecordLog log = new RecordLog(fs, name);
        log.load();
        return log;
    }

    /**
     * Opens a log that {@link #reset} emptied, without reading it: the caller guarantees that the file's header is
     * valid and carries {@code epoch} (the value {@link #epoch()} returned after the reset, whose header write was
     * synced), so no record in it is valid. Saves the header and first-frame reads of {@link #open}.
     */
    public static RecordLog openReset(FileLayer fs, String name, int epoch)
    {
        RecordLog log = new RecordLog(fs, name);
        log.epoch = epoch;
        log.tail = HEADER_BYTES;
        log.synced = HEADER_BYTES;
        log.recovered = new ArrayList<>();
        return log;
    }

    /** The current epoch (see {@link #openReset}). */
    public synchronized int epoch()
    {
        return epoch;
    }

    /** The valid records of a log file, without opening it for appending ([] if absent or headerless). */
    public static List<Entry> scan(FileLayer fs, String name) throws IOException
    {
        RecordLog log = new RecordLog(fs, name);
        long size = fs.size(name);
        if (size < HEADER_BYTES || !log.readHeader())
            return new ArrayList<>();
        return log.readRecords(size);
    }

    private void load() throws IOException
    {
        long size = fs.size(name);
        allocated = Math.max(size, HEADER_BYTES);
        if (size >= HEADER_BYTES && readHeader())
        {
            recovered = readRecords(size);
        }
        else
        {
            epoch = 1;
            writeHeader();
            tail = HEADER_BYTES;
            recovered = new ArrayList<>();
        }
        synced = tail;
    }

    private boolean readHeader() throws IOException
    {
        ByteBuffer h = ByteBuffer.wrap(fs.readFully(name, 0, HEADER_BYTES));
        CRC32C crc = new CRC32C();
        crc.update(h.array(), 0, 12);
        if (h.getInt(0) != MAGIC || h.getShort(4) != VERSION || (int) crc.getValue() != h.getInt(12))
            return false;
        epoch = h.getInt(8);
        return true;
    }

    private void writeHeader() throws IOException
    {
        ByteBuffer h = ByteBuffer.allocate(HEADER_BYTES);
        h.putInt(MAGIC).putShort(VERSION).putShort((short) 0).putInt(epoch);
        CRC32C crc = new CRC32C();
        crc.update(h.array(), 0, 12);
        h.putInt((int) crc.getValue());
        fs.write(name, 0, h.array(), 0, HEADER_BYTES);
        fs.sync(name);
    }

    private List<Entry> readRecords(long size) throws IOException
    {
        List<Entry> out = new ArrayList<>();
        long pos = HEADER_BYTES;
        byte[] hdr = new byte[9];
        while (pos + FRAME_BYTES <= size)
        {
            if (fs.read(name, pos, hdr, 0, 9) != 9)
                break;
            ByteBuffer h = ByteBuffer.wrap(hdr);
            int len = h.getInt(0);
            if (len < 0 || len > MAX_PAYLOAD || pos + FRAME_BYTES + len > size || h.getInt(4) != epoch)
                break;
            byte[] body = fs.readFully(name, pos + 9, len + 4);
            CRC32C crc = new CRC32C();
            crc.update(hdr);
            crc.update(body, 0, len);
            if ((int) crc.getValue() != ByteBuffer.wrap(body).getInt(len))
                break;
            out.add(new Entry(hdr[8], ByteBuffer.wrap(body, 0, len).slice(), pos));
            pos += FRAME_BYTES + len;
        }
        tail = pos;
        return out;
    }

    /** The records found by {@link #open}, once (then null). */
    public synchronized List<Entry> takeRecovered()
    {
        List<Entry> r = recovered;
        recovered = null;
        return r;
    }

    /**
     * Appends one record; if sync, returns only once it is durable. Returns the record's position.
     *
     * <p>Synced appends use group commit with one write: an appender queues its frame; the first queued appender to
     * get the sync lock becomes the leader, writes every queued frame in one write and syncs once; the others find
     * their frame written and synced when they get the lock (one write and one fsync per group, not per record).
     *
     * @throws IllegalArgumentException if payload is larger than {@link #MAX_PAYLOAD} or type is outside 0..255
     */
    public long append(int type, byte[] payload, boolean sync) throws IOException
    {
        if (type < 0 || type > 255)
            throw new IllegalArgumentException("type must be 0..255: " + type);
        if (payload.length > MAX_PAYLOAD)
            throw new IllegalArgumentException("payload too large: " + payload.length);
        byte[] frame = new byte[FRAME_BYTES + payload.length];
        ByteBuffer b = ByteBuffer.wrap(frame);
        b.putInt(payload.length).putInt(0).put((byte) type).put(payload);
        if (!sync)
        {
            synchronized (this)
            {
                return write(List.of(frame))[0];
            }
        }
        Waiter w = new Waiter(frame);
        synchronized (this)
        {
            queue.add(w);
        }
        synchronized (syncLock)
        {
            if (!w.done)
            {
                List<Waiter> group;
                long end;
                try
                {
                    synchronized (this)
                    {
                        group = new ArrayList<>(queue);
                        queue.clear();
                        List<byte[]> frames = new ArrayList<>(group.size());
                        for (Waiter g : group)
                            frames.add(g.frame);
                        long[] pos = write(frames);
                        for (int i = 0; i < group.size(); i++)
                            group.get(i).pos = pos[i];
                        end = tail;
                    }
                    fs.sync(name);
                    synced = Math.max(synced, end);
                }
                catch (IOException | RuntimeException e)
                {
                    w.failure = e;
                    throw e;
                }
                for (Waiter g : group)
                    g.done = true;
            }
        }
        if (w.failure != null)
            throw new IOException("group commit of " + name + " failed", w.failure);
        return w.pos;
    }

    /**
     * Appends several records back to back in a single write (unsynced; {@link #sync} makes them durable), record i
     * of type {@code types[i]}. Each record keeps its own frame and checksum, so a crash that loses or tears the
     * write leaves a prefix of them valid, exactly as if they had been appended one by one; what is gained is one
     * write instead of one per record. Returns the records' positions.
     *
     * @throws IllegalArgumentException as {@link #append}, or if types and payloads differ in length
     */
    public long[] appendAll(int[] types, List<byte[]> payloads) throws IOException
    {
        if (types.length != payloads.size())
            throw new IllegalArgumentException(types.length + " types for " + payloads.size() + " payloads");
        List<byte[]> frames = new ArrayList<>(payloads.size());
        for (int i = 0; i < types.length; i++)
        {
            byte[] payload = payloads.get(i);
            if (types[i] < 0 || types[i] > 255)
                throw new IllegalArgumentException("type must be 0..255: " + types[i]);
            if (payload.length > MAX_PAYLOAD)
                throw new IllegalArgumentException("payload too large: " + payload.length);
            byte[] frame = new byte[FRAME_BYTES + payload.length];
            ByteBuffer.wrap(frame).putInt(payload.length).putInt(0).put((byte) types[i]).put(payload);
            frames.add(frame);
        }
        if (frames.isEmpty())
            return new long[0];
        synchronized (this)
        {
            return write(frames);
        }
    }

    /** A synced append waiting for its group's write and sync. Guarded by syncLock. */
    private static final class Waiter
    {
        final byte[] frame;
        long pos;
        boolean done;
        Exception failure;

        Waiter(byte[] frame)
        {
            this.frame = frame;
        }
    }

    /**
     * REQUIRES: this monitor. Stamps the epoch and CRC into the frames, writes them back to back at the tail in one
     * write, and returns their positions.
     */
    private long[] write(List<byte[]> frames) throws IOException
    {
        int total = 0;
        for (byte[] f : frames)
            total += f.length;
        byte[] buf = frames.size() == 1 ? frames.get(0) : new byte[total];
        long[] pos = new long[frames.size()];
        int at = 0;
        for (int i = 0; i < frames.size(); i++)
        {
            byte[] f = frames.get(i);
            ByteBuffer.wrap(f).putInt(4, epoch);
            CRC32C crc = new CRC32C();
            crc.update(f, 0, f.length - 4);
            ByteBuffer.wrap(f).putInt(f.length - 4, (int) crc.getValue());
            if (buf != f)
                System.arraycopy(f, 0, buf, at, f.length);
            pos[i] = tail + at;
            at += f.length;
        }
        fs.write(name, tail, buf, 0, total);
        tail += total;
        allocateAhead();
        return pos;
    }

    /**
     * REQUIRES: this monitor. If the tail passed the end of the file, zeros from the tail to the next multiple of
     * {@link #allocateStep} (unsynced: the next sync of the log makes them durable with the records, and a crash
     * that loses them only leaves the file shorter). Zeros are never a valid frame, and nothing before the old end
     * of the file is touched.
     */
    private void allocateAhead() throws IOException
    {
        int step = allocateStep;
        if (step <= 0)
            return;
        if (allocated < 0)
            allocated = Math.max(fs.size(name), 0);
        if (tail <= allocated)
            return;
        long end = (tail / step + 1) * step;
        for (long at = tail; at < end; )
        {
            int n = (int) Math.min(ZEROS.length, end - at);
            fs.write(name, at, ZEROS, 0, n);
            at += n;
        }
        allocated = end;
    }

    /** Makes every record appended so far durable. */
    public void sync() throws IOException
    {
        long t;
        synchronized (this)
        {
            t = tail;
        }
        syncTo(t);
    }

    private void syncTo(long end) throws IOException
    {
        if (synced >= end)
            return;
        synchronized (syncLock)
        {
            if (synced >= end)
                return;
            long t;
            synchronized (this)
            {
                t = tail;
            }
            fs.sync(name);
            synced = t;
        }
    }

    /** Empties the log by starting a new epoch (one synced header write); earlier records become invisible. */
    public void reset() throws IOException
    {
        synchronized (syncLock)   // lock order everywhere: syncLock, then this
        {
            synchronized (this)
            {
                epoch++;
                writeHeader();
                tail = HEADER_BYTES;
                synced = tail;
            }
        }
    }

    /** Bytes of valid records, header excluded. */
    public synchronized long used()
    {
        return tail - HEADER_BYTES;
    }

    public String name()
    {
        return name;
    }
}
