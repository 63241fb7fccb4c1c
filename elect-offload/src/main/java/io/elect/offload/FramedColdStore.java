package io.elect.offload;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.offload.ColdStoreMetrics.Op;

/**
 * The ColdStore over any BlobStore: frames objects with per-block checksums and a footer (FramedFormat),
 * verifies every read, retries transient failures with exponential backoff and full jitter, bounds the
 * backend requests in flight, uploads large objects in parallel parts, and keeps metrics.
 *
 * Thread-safe. Memory per upload is bounded by about (partParallelism + 1) * partSize.
 */
public class FramedColdStore implements ColdStore
{
    private static final Logger logger = LoggerFactory.getLogger(FramedColdStore.class);
    private static final int MAX_KEY_BYTES = 1024;
    private static final int MAX_PARTS = 10_000;

    private final BlobStore blobs;
    private final ColdStoreOptions options;
    private final ColdStoreMetrics metrics = new ColdStoreMetrics();
    private final Retrier retrier;
    private final ExecutorService partUploader;
    private final String name;

    public FramedColdStore(String name, BlobStore blobs, ColdStoreOptions options)
    {
        this.name = name;
        this.blobs = blobs;
        this.options = options;
        this.retrier = new Retrier(name, options, metrics);
        AtomicInteger threads = new AtomicInteger();
        this.partUploader = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "cold-store-" + name + "-part-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    public static FramedColdStore inMemory()
    {
        return new FramedColdStore("memory", new InMemoryBlobStore(), ColdStoreOptions.defaults());
    }

    public static FramedColdStore fileSystem(Path root) throws IOException
    {
        return new FramedColdStore("fs", new FileSystemBlobStore(root), ColdStoreOptions.defaults());
    }

    public BlobStore blobStore()
    {
        return blobs;
    }

    @Override
    public ColdStoreMetrics metrics()
    {
        return metrics;
    }

    /**
     * Keys are checked uniformly so that every backend accepts the same keys: non-empty, at most 1024 UTF-8
     * bytes, no control characters, '/'-separated segments that are non-empty and neither "." nor "..".
     */
    public static String checkKey(String key)
    {
        if (key == null || key.isEmpty())
            throw new IllegalArgumentException("key must not be empty");
        if (key.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_KEY_BYTES)
            throw new IllegalArgumentException("key must be at most " + MAX_KEY_BYTES + " UTF-8 bytes: " + key);
        for (int i = 0; i < key.length(); i++)
            if (Character.isISOControl(key.charAt(i)))
                throw new IllegalArgumentException("key must not contain control characters: " + key);
        for (String segment : key.split("/", -1))
            if (segment.isEmpty() || segment.equals(".") || segment.equals(".."))
                throw new IllegalArgumentException("key segments must be non-empty and not '.' or '..': " + key);
        return key;
    }

    // ---------------------------------------------------------------- writes

    @Override
    public ObjectInfo put(String key, Path file) throws IOException
    {
        checkKey(key);
        if (file == null)
            throw new IllegalArgumentException("file must not be null");
        try (ObjectSource.OfFile src = new ObjectSource.OfFile(file, key))
        {
            return put(key, src);
        }
    }

    @Override
    public ObjectInfo put(String key, List<ByteBuffer> buffers) throws IOException
    {
        checkKey(key);
        if (buffers == null)
            throw new IllegalArgumentException("buffers must not be null");
        return put(key, new ObjectSource.OfBuffers(buffers));
    }

    private ObjectInfo put(String key, ObjectSource src) throws IOException
    {
        long start = System.nanoTime();
        boolean ok = false;
        try
        {
            long length = src.length();
            long stored = FramedFormat.storedLength(length);
            for (int attempt = 1; ; attempt++)
            {
                writeOnce(key, src, length);
                if (!options.verifyPuts() || verifyPut(key, stored))
                    break;
                metrics.retries.increment();
                if (attempt >= options.maxAttempts())
                    throw new ColdStoreException("object " + key + " still missing or of the wrong length after "
                                                 + attempt + " writes");
                logger.warn("Cold store {}: write of {} was lost, rewriting it", name, key);
                src.rewind();
            }
            metrics.bytesWritten.add(length);
            ok = true;
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            if (length > options.multipartThreshold())
                logger.info("Uploaded cold object {} to {}: {} bytes in {} ms", key, name, length, millis);
            else
                logger.debug("Uploaded cold object {} to {}: {} bytes in {} ms", key, name, length, millis);
            return new ObjectInfo(key, length, stored);
        }
        finally
        {
            metrics.record(Op.PUT, start, ok);
        }
    }

    private void writeOnce(String key, ObjectSource src, long length) throws IOException
    {
        int tag = FramedFormat.keyTag(key);
        CRC32C whole = new CRC32C();
        if (length <= options.multipartThreshold())
        {
            ByteBuffer framed = frame(src, tag, 0, (int) length, true, whole, length);
            retrier.retry("put " + key, false, () -> {
                blobs.put(key, framed.duplicate());
                return null;
            });
        }
        else
        {
            putMultipart(key, src, tag, whole, length);
        }
    }

    /** Frames dataLen bytes of src starting at block firstBlock; updates whole; appends the footer if last. */
    private static ByteBuffer frame(ObjectSource src, int tag, long firstBlock, int dataLen, boolean last, CRC32C whole,
                                    long totalLength) throws IOException
    {
        ByteBuffer out = ByteBuffer.allocate((int) FramedFormat.framedLength(dataLen, last));
        long block = firstBlock;
        for (int done = 0; done < dataLen; done += FramedFormat.BLOCK_SIZE, block++)
        {
            int n = Math.min(FramedFormat.BLOCK_SIZE, dataLen - done);
            int pos = out.position();
            src.next(out.slice(pos, n));
            ByteBuffer data = out.slice(pos, n);
            whole.update(data.duplicate());
            out.position(pos + n);
            out.putInt(FramedFormat.blockCrc(tag, block, data));
        }
        if (last)
            FramedFormat.writeFooter(out, totalLength, (int) whole.getValue(), tag);
        return out.flip();
    }

    private void putMultipart(String key, ObjectSource src, int tag, CRC32C whole, long length) throws IOException
    {
        BlobStore.MultipartUpload upload = retrier.retry("start multipart " + key, false,
                                                         () -> blobs.startMultipart(key));
        int partSize = options.partSize();
        long partCount = (length + partSize - 1) / partSize;
        if (partCount > MAX_PARTS)
            throw new IllegalArgumentException("object " + key + " of " + length + " bytes needs " + partCount
                                               + " parts of " + partSize + " bytes; S3 allows " + MAX_PARTS);
        int parts = (int) partCount;
        Semaphore window = new Semaphore(options.partParallelism());
        List<Future<?>> futures = new ArrayList<>(parts);
        boolean done = false;
        try
        {
            for (int p = 0; p < parts; p++)
            {
                long offset = (long) p * partSize;
                int n = (int) Math.min(partSize, length - offset);
                window.acquire();
                for (Future<?> f : futures)
                    if (f.isDone())
                        f.get(); // fail fast: throws if a part failed for good
                ByteBuffer framed;
                try
                {
                    framed = frame(src, tag, offset / FramedFormat.BLOCK_SIZE, n, p == parts - 1, whole, length);
                }
                catch (Throwable t)
                {
                    window.release();
                    throw t;
                }
                int partNumber = p + 1;
                futures.add(partUploader.submit(() -> {
                    try
                    {
                        return retrier.retry("upload part " + partNumber + " of " + key, false, () -> {
                            upload.uploadPart(partNumber, framed.duplicate());
                            return null;
                        });
                    }
                    finally
                    {
                        window.release();
                    }
                }));
            }
            for (Future<?> f : futures)
                f.get();
            try
            {
                retrier.retry("complete multipart " + key, false, () -> {
                    upload.complete(parts);
                    return null;
                });
            }
            catch (InterruptedIOException e)
            {
                throw e;
            }
            catch (IOException e)
            {
                // A retried complete fails if the first one succeeded but its response was lost: accept the
                // object if it is there with exactly the expected length.
                if (!verifyPut(key, FramedFormat.storedLength(length)))
                    throw e;
            }
            done = true;
        }
        catch (InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted uploading " + key);
        }
        catch (ExecutionException e)
        {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io)
                throw io;
            throw new ColdStoreException("uploading " + key + " failed", cause);
        }
        finally
        {
            if (!done)
            {
                for (Future<?> f : futures)
                    f.cancel(true);
                try
                {
                    upload.abort();
                }
                catch (IOException | RuntimeException e)
                {
                    logger.warn("Could not abort multipart upload of {}: {}", key, e.toString());
                }
            }
        }
    }

    /** True if the object is there with the expected stored length. */
    private boolean verifyPut(String key, long stored) throws IOException
    {
        OptionalLong actual = retrier.retry("head " + key, false, () -> blobs.head(key));
        return actual.isPresent() && actual.getAsLong() == stored;
    }

    // ---------------------------------------------------------------- reads

    @Override
    public ByteBuffer read(String key, long offset, int length) throws IOException
    {
        checkKey(key);
        if (offset < 0)
            throw new IllegalArgumentException("offset must be >= 0, got " + offset);
        if (length < 0)
            throw new IllegalArgumentException("length must be >= 0, got " + length);
        long start = System.nanoTime();
        boolean ok = false;
        try
        {
            int tag = FramedFormat.keyTag(key);
            long firstBlock = offset / FramedFormat.BLOCK_SIZE;
            long lastBlock = length == 0 ? firstBlock : (offset + length - 1) / FramedFormat.BLOCK_SIZE;
            long storedOffset = firstBlock * FramedFormat.FRAME_SIZE;
            long extent = (lastBlock - firstBlock + 1) * FramedFormat.FRAME_SIZE;
            if (extent > Integer.MAX_VALUE - 16)
                throw new IllegalArgumentException("length " + length + " is too large for one ranged read");
            int storedLen = (int) extent;
            ByteBuffer result = retrier.retry("read " + key + " [" + offset + ", +" + length + ")", true, () -> {
                BlobStore.RangeResult r = blobs.get(key, storedOffset, storedLen);
                long dataLength = FramedFormat.checkedDataLength(key, r.objectLength());
                if (offset + length > dataLength)
                    throw new IllegalArgumentException("range [offset=" + offset + ", length=" + length
                                                       + ") is past the end of " + key + " (" + dataLength
                                                       + " bytes)");
                ByteBuffer out = ByteBuffer.allocate(length);
                if (length == 0)
                    return out.flip();
                long lastNeeded = Math.min(lastBlock, FramedFormat.blockCount(dataLength) - 1);
                long needed = (lastNeeded - firstBlock) * FramedFormat.FRAME_SIZE
                              + Math.min(FramedFormat.BLOCK_SIZE, dataLength - lastNeeded * FramedFormat.BLOCK_SIZE)
                              + FramedFormat.CRC_SIZE;
                if (r.data().remaining() < needed)
                    throw new TransientColdStoreException("short read of " + key + ": " + r.data().remaining()
                                                          + " of " + needed + " bytes", false, null);
                FramedFormat.verifyAndCopy(key, tag, r.data(), firstBlock, dataLength, offset, out);
                return out.flip();
            });
            metrics.bytesRead.add(length);
            ok = true;
            return result;
        }
        finally
        {
            metrics.record(Op.READ_RANGE, start, ok);
        }
    }

    @Override
    public ByteBuffer readAll(String key) throws IOException
    {
        checkKey(key);
        long start = System.nanoTime();
        boolean ok = false;
        try
        {
            ByteBuffer result = retrier.retry("read " + key, true, () -> {
                BlobStore.RangeResult r = blobs.getAll(key);
                ByteBuffer stored = r.data();
                if (stored.remaining() != r.objectLength())
                    throw new TransientColdStoreException("short read of " + key + ": " + stored.remaining() + " of "
                                                          + r.objectLength() + " bytes", false, null);
                long dataLength = FramedFormat.checkedDataLength(key, r.objectLength());
                if (dataLength > Integer.MAX_VALUE - 16)
                    throw new ColdStoreException("object " + key + " is too large for readAll: " + dataLength);
                FramedFormat.Footer footer = FramedFormat.readFooter(
                    key, stored.duplicate().position(stored.limit() - FramedFormat.FOOTER_SIZE), r.objectLength());
                ByteBuffer out = ByteBuffer.allocate((int) dataLength);
                FramedFormat.verifyAndCopy(key, footer.keyTag(), stored, 0, dataLength, 0, out);
                CRC32C crc = new CRC32C();
                crc.update(out.flip().duplicate());
                if ((int) crc.getValue() != footer.dataCrc())
                    throw new CorruptObjectException(key, "whole-object checksum mismatch");
                return out;
            });
            metrics.bytesRead.add(result.remaining());
            ok = true;
            return result;
        }
        finally
        {
            metrics.record(Op.READ_ALL, start, ok);
        }
    }

    @Override
    public Optional<ObjectInfo> head(String key) throws IOException
    {
        checkKey(key);
        long start = System.nanoTime();
        boolean ok = false;
        try
        {
            OptionalLong stored = retrier.retry("head " + key, false, () -> blobs.head(key));
            Optional<ObjectInfo> info = Optional.empty();
            if (stored.isPresent())
                info = Optional.of(new ObjectInfo(key, FramedFormat.checkedDataLength(key, stored.getAsLong()),
                                                  stored.getAsLong()));
            ok = true;
            return info;
        }
        finally
        {
            metrics.record(Op.HEAD, start, ok);
        }
    }

    @Override
    public void delete(String key) throws IOException
    {
        checkKey(key);
        long start = System.nanoTime();
        boolean ok = false;
        try
        {
            retrier.retry("delete " + key, false, () -> {
                blobs.delete(key);
                return null;
            });
            ok = true;
        }
        finally
        {
            metrics.record(Op.DELETE, start, ok);
        }
    }

    @Override
    public List<ObjectInfo> list(String prefix) throws IOException
    {
        if (prefix == null)
            throw new IllegalArgumentException("prefix must not be null (use \"\" for all)");
        long start = System.nanoTime();
        boolean ok = false;
        try
        {
            List<BlobStore.Entry> entries = retrier.retry("list " + prefix, false, () -> blobs.list(prefix));
            List<ObjectInfo> infos = new ArrayList<>(entries.size());
            for (BlobStore.Entry e : entries)
                infos.add(new ObjectInfo(e.key(), FramedFormat.dataLength(e.storedLength()), e.storedLength()));
            ok = true;
            return infos;
        }
        finally
        {
            metrics.record(Op.LIST, start, ok);
        }
    }

    @Override
    public void close()
    {
        partUploader.shutdownNow();
        blobs.close();
    }
}
