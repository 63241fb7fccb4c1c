package io.elect.tsue.trace;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads public block traces in their CSV forms. Offsets are folded into a volume of {@code volumeBytes} (modulo,
 * aligned down to 512 bytes) so that any trace replays on a small cluster; requests longer than {@code maxLength}
 * are truncated to it; zero-length requests are skipped.
 * <ul>
 *   <li>{@link Format#MSR}: MSR-Cambridge (SNIA IOTTA) {@code Timestamp,Hostname,DiskNumber,Type,Offset,Size,
 *       ResponseTime}, Type {@code Read}/{@code Write}, bytes;</li>
 *   <li>{@link Format#ALI}: Alibaba Cloud block traces {@code device_id,opcode,offset,length,timestamp}, opcode
 *       {@code R}/{@code W}, bytes;</li>
 *   <li>{@link Format#TENCENT}: Tencent CBS traces {@code Timestamp,Offset,Size,IOType,VolumeID}, offset and size in
 *       512-byte sectors, IOType 0 = read, 1 = write.</li>
 * </ul>
 */
public final class BlockTraceReader
{
    public enum Format
    {
        MSR, ALI, TENCENT
    }

    private BlockTraceReader()
    {
    }

    public static List<TraceOp> read(Format format, Path csv, long volumeBytes, int maxLength, int limit)
        throws IOException
    {
        if (volumeBytes <= maxLength)
            throw new IllegalArgumentException("volumeBytes must exceed maxLength " + maxLength + ": " + volumeBytes);
        List<TraceOp> out = new ArrayList<>();
        try (BufferedReader r = Files.newBufferedReader(csv, StandardCharsets.US_ASCII))
        {
            String line;
            int lineNo = 0;
            while ((line = r.readLine()) != null && out.size() < limit)
            {
                lineNo++;
                if (line.isBlank())
                    continue;
                long[] req = parse(format, line.split(","), csv + ":" + lineNo);
                if (req[2] <= 0)
                    continue;
                int len = (int) Math.min(req[2], maxLength);
                long off = Math.floorMod(req[1], volumeBytes - len) & ~511L;
                out.add(new TraceOp(req[0] == 1, off, len));
            }
        }
        return out;
    }

    /** {write (1/0), offset bytes, size bytes}. */
    private static long[] parse(Format format, String[] f, String where) throws IOException
    {
        int need = switch (format)
        {
            case MSR -> 6;
            case ALI, TENCENT -> 4;
        };
        if (f.length < need)
            throw new IOException(where + ": expected at least " + need + " comma-separated fields, got " + f.length);
        try
        {
            return switch (format)
            {
                case MSR -> new long[]{ type(f[3].trim(), "Write", "Read", where), Long.parseLong(f[4].trim()),
                                        Long.parseLong(f[5].trim()) };
                case ALI -> new long[]{ type(f[1].trim(), "W", "R", where), Long.parseLong(f[2].trim()),
                                        Long.parseLong(f[3].trim()) };
                case TENCENT -> new long[]{ type(f[3].trim(), "1", "0", where), 512 * Long.parseLong(f[1].trim()),
                                            512 * Long.parseLong(f[2].trim()) };
            };
        }
        catch (NumberFormatException e)
        {
            throw new IOException(where + ": bad offset or size", e);
        }
    }

    private static long type(String v, String write, String read, String where) throws IOException
    {
        if (v.equalsIgnoreCase(write))
            return 1;
        if (v.equalsIgnoreCase(read))
            return 0;
        throw new IOException(where + ": request type must be " + write + " or " + read + ": " + v);
    }
}
