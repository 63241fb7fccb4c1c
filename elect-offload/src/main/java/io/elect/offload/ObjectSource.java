package io.elect.offload;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/** Sequential, rewindable source of the bytes of one object being uploaded. Not thread-safe. */
interface ObjectSource
{
    long length();

    /** Starts again from the first byte (to rewrite an object whose write was lost). */
    void rewind() throws IOException;

    /** Fills dst completely with the next bytes. */
    void next(ByteBuffer dst) throws IOException;

    /** A file, read once front to back (it must not change during the upload). */
    final class OfFile implements ObjectSource, AutoCloseable
    {
        private final FileChannel ch;
        private final long size;
        private final Path file;
        private final String key;

        OfFile(Path file, String key) throws IOException
        {
            this.file = file;
            this.key = key;
            this.ch = FileChannel.open(file, StandardOpenOption.READ);
            this.size = ch.size();
        }

        public long length()
        {
            return size;
        }

        public void rewind() throws IOException
        {
            ch.position(0);
        }

        public void next(ByteBuffer dst) throws IOException
        {
            while (dst.hasRemaining())
                if (ch.read(dst) < 0)
                    throw new ColdStoreException("file " + file + " shrank while uploading " + key);
        }

        @Override
        public void close() throws IOException
        {
            ch.close();
        }
    }

    /** The remaining bytes of some buffers, concatenated; the callers' buffer positions never move. */
    final class OfBuffers implements ObjectSource
    {
        private final List<ByteBuffer> buffers;
        private final List<ByteBuffer> copies = new ArrayList<>();
        private final long length;
        private int index;

        OfBuffers(List<ByteBuffer> buffers)
        {
            this.buffers = buffers;
            long total = 0;
            for (ByteBuffer b : buffers)
                total += b.remaining();
            this.length = total;
            rewind();
        }

        public long length()
        {
            return length;
        }

        public void rewind()
        {
            copies.clear();
            for (ByteBuffer b : buffers)
                copies.add(b.duplicate());
            index = 0;
        }

        public void next(ByteBuffer dst)
        {
            while (dst.hasRemaining())
            {
                ByteBuffer b = copies.get(index);
                int n = Math.min(b.remaining(), dst.remaining());
                dst.put(b.slice(b.position(), n));
                b.position(b.position() + n);
                if (!b.hasRemaining())
                    index++;
            }
        }
    }
}
