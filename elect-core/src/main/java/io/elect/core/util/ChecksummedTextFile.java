package io.elect.core.util;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.zip.CRC32C;

/**
 * The small state files of ELECT (frozen registry, redirect table): UTF-8 lines {@code <magic>},
 * {@code version=<n>}, the body lines, and {@code crc32c=<8 hex digits>} over every byte before that line; every line
 * ends with {@code \n}. Written atomically (temporary file beside it, fsync, rename, fsync of the directory), so a
 * crash leaves the old or the new file. Reading checks everything and reports each defect through the caller's
 * {@code corrupt(file, problem)} so that messages name the file and what to do about it.
 */
public final class ChecksummedTextFile
{
    private ChecksummedTextFile()
    {
    }

    public static void write(Path file, String magic, int version, List<String> body) throws IOException
    {
        StringBuilder sb = new StringBuilder();
        sb.append(magic).append('\n').append("version=").append(version).append('\n');
        for (String line : body)
        {
            if (line.indexOf('\n') >= 0)
                throw new IllegalArgumentException("a line must not contain a line end: '" + line + "'");
            sb.append(line).append('\n');
        }
        byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        byte[] trailer = String.format("crc32c=%08x\n", crc.getValue()).getBytes(StandardCharsets.UTF_8);
        Files.createDirectories(file.getParent());
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                                               StandardOpenOption.TRUNCATE_EXISTING))
        {
            ch.write(ByteBuffer.wrap(bytes));
            ch.write(ByteBuffer.wrap(trailer));
            ch.force(true);
        }
        try
        {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        catch (AtomicMoveNotSupportedException e)
        {
            Files.deleteIfExists(tmp);
            throw new IOException("cannot atomically replace " + file, e);
        }
        try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ))
        {
            dir.force(true);
        }
        catch (IOException e)
        {
            // fsync of a directory is not supported everywhere; the rename itself is atomic
        }
    }

    /**
     * The body lines (after magic and version, without the checksum line), or empty if the file does not exist.
     *
     * @param corrupt builds the exception for a defect: (file, problem) -> exception
     */
    public static Optional<List<String>> read(Path file, String magic, int version,
                                              BiFunction<Path, String, IOException> corrupt) throws IOException
    {
        byte[] bytes;
        try
        {
            bytes = Files.readAllBytes(file);
        }
        catch (NoSuchFileException e)
        {
            return Optional.empty();
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (!text.endsWith("\n"))
            throw corrupt.apply(file, "truncated (no final line end)");
        int last = text.lastIndexOf('\n', text.length() - 2);
        if (last < 0)
            throw corrupt.apply(file, "too short");
        String body = text.substring(0, last + 1);
        String trailer = text.substring(last + 1, text.length() - 1);
        if (!trailer.matches("crc32c=[0-9a-f]{8}"))
            throw corrupt.apply(file, "last line is not crc32c=XXXXXXXX (truncated?)");
        CRC32C crc = new CRC32C();
        crc.update(body.getBytes(StandardCharsets.UTF_8));
        if (crc.getValue() != Long.parseLong(trailer.substring(7), 16))
            throw corrupt.apply(file, String.format("checksum mismatch: computed %08x, stored %s", crc.getValue(), trailer.substring(7)));
        String[] lines = body.split("\n", -1); // the last element is the empty string after the final line end
        if (lines.length < 3 || !magic.equals(lines[0]))
            throw corrupt.apply(file, "bad magic, expected " + magic);
        if (!("version=" + version).equals(lines[1]))
            throw corrupt.apply(file, "unsupported " + lines[1] + " (this build reads version=" + version + ")");
        return Optional.of(List.copyOf(Arrays.asList(lines).subList(2, lines.length - 1)));
    }
}
