package io.elect.core.sim;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import io.elect.core.tiered.ByteRangeSource;

/**
 * Reads a LOCAL data component.
 *
 * <p>The simulated engine's counterpart of the tiered sources (which {@link SimFileSet#source} opens for COLD and
 * DECODED files): a LOCAL file is read straight from its data component, a new source per read. A small
 * self-contained type, kept apart from the engine that uses it.
 */
record LocalSource(Path file) implements ByteRangeSource
{
    @Override
    public long length()
    {
        return file.toFile().length();
    }

    @Override
    public void read(long position, ByteBuffer dst) throws IOException
    {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ))
        {
            long p = position;
            while (dst.hasRemaining())
            {
                int n = ch.read(dst, p);
                if (n < 0)
                    throw new IOException(file + " is shorter than expected");
                p += n;
            }
        }
    }

    @Override
    public String describe()
    {
        return "local:" + file;
    }

    @Override
    public void close()
    {
    }
}
