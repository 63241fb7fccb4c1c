package io.elect.tsue.fs;

import java.io.IOException;
import java.util.List;

/**
 * The files of one storage node: chunk files, reserved parity-log areas and log segments, named by flat strings.
 *
 * <p>Contract: a {@link #write} is visible to later reads at once but durable only after {@link #sync} of the same
 * file; creating a file by writing it, {@link #delete} and {@link #rename} are durable immediately (metadata
 * operations are journaled by the host file system). Implementations are thread-safe; concurrent writes to disjoint ranges of
 * one file are allowed. Implementations: {@link LocalFileLayer} (a directory, real fsync), {@link MemFileLayer}
 * (in memory, drops unsynced bytes on {@link MemFileLayer#crash()}), {@link FaultInjectingFileLayer} (crash
 * points) and {@link CountingFileLayer} (I/O statistics).
 */
public interface FileLayer
{
    /** Reads up to len bytes at pos; returns the number read, less than len only at end of file (0 if absent). */
    int read(String name, long pos, byte[] dst, int off, int len) throws IOException;

    /** Writes len bytes at pos, creating the file and zero-filling any gap. */
    void write(String name, long pos, byte[] src, int off, int len) throws IOException;

    /** Makes every earlier write of this file durable. No-op for an absent file. */
    void sync(String name) throws IOException;

    /** The size in bytes, or -1 if the file does not exist. */
    long size(String name) throws IOException;

    /** Deletes the file if it exists. */
    void delete(String name) throws IOException;

    /** Renames a file, replacing any file called {@code to}; durable at once, like creation and deletion. */
    void rename(String from, String to) throws IOException;

    /** The names of all files, in no particular order. */
    List<String> list() throws IOException;

    default byte[] readFully(String name, long pos, int len) throws IOException
    {
        byte[] b = new byte[len];
        int n = read(name, pos, b, 0, len);
        if (n != len)
            throw new IOException("short read of " + name + " at " + pos + ": " + n + " of " + len + " bytes");
        return b;
    }
}
