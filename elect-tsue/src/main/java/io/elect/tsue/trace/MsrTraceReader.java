package io.elect.tsue.trace;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads an MSR-Cambridge block trace (SNIA IOTTA) in its CSV form:
 * {@code Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime}, Type {@code Read} or {@code Write}, Offset and
 * Size in bytes. Offsets are folded into a volume of {@code volumeBytes} (modulo, aligned down to 512 bytes) so that
 * any trace replays on a small cluster; requests longer than {@code maxLength} are truncated to it.
 */
public final class MsrTraceReader
{
    private MsrTraceReader()
    {
    }

    public static List<TraceOp> read(Path csv, long volumeBytes, int maxLength, int limit) throws IOException
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
                String[] f = line.split(",");
                if (f.length < 6)
                    throw new IOException(csv + ":" + lineNo + ": expected 7 comma-separated fields, got " + f.length);
                boolean write;
                if (f[3].equalsIgnoreCase("Write"))
                    write = true;
                else if (f[3].equalsIgnoreCase("Read"))
                    write = false;
                else
                    throw new IOException(csv + ":" + lineNo + ": Type must be Read or Write: " + f[3]);
                long offset, size;
                try
                {
                    offset = Long.parseLong(f[4].trim());
                    size = Long.parseLong(f[5].trim());
                }
                catch (NumberFormatException e)
                {
                    throw new IOException(csv + ":" + lineNo + ": bad Offset or Size", e);
                }
                if (size <= 0)
                    continue;
                int len = (int) Math.min(size, maxLength);
                long off = (Math.floorMod(offset, volumeBytes - len)) & ~511L;
                out.add(new TraceOp(write, off, len));
            }
        }
        return out;
    }
}
