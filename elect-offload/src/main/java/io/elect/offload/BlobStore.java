package io.elect.offload;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.OptionalLong;

/**
 * The raw byte store under a ColdStore: stores opaque (already framed) bytes, with no integrity checks,
 * retries or concurrency limits of its own (FramedColdStore adds those). Implementations: S3 (S3BlobStore),
 * local filesystem, in memory, and a fault-injecting decorator.
 *
 * Errors: a missing object is ObjectNotFoundException; a failure that may pass on retry is
 * TransientColdStoreException; anything else ColdStoreException. Implementations are thread-safe.
 */
public interface BlobStore extends AutoCloseable
{
    /** Stores the remaining bytes of data under key, replacing any previous object atomically. */
    void put(String key, ByteBuffer data) throws IOException;

    /**
     * Reads stored bytes [offset, offset + length), clipped at the end of the object.
     * REQUIRES: offset < object length (or offset == 0 for an empty object).
     */
    RangeResult get(String key, long offset, int length) throws IOException;

    /** Reads the whole stored object. */
    RangeResult getAll(String key) throws IOException;

    /** Stored length of the object, or empty if it does not exist. */
    OptionalLong head(String key) throws IOException;

    /** Deletes the object; missing is success. */
    void delete(String key) throws IOException;

    /** Keys and stored lengths of all objects whose key starts with prefix, in key order. */
    List<Entry> list(String prefix) throws IOException;

    /** Starts a multipart upload; parts are numbered from 1 and may be uploaded in parallel. */
    MultipartUpload startMultipart(String key) throws IOException;

    @Override
    void close();

    /** Bytes read and the total stored length of the object they came from (from Content-Range for S3). */
    record RangeResult(ByteBuffer data, long objectLength)
    {
    }

    record Entry(String key, long storedLength)
    {
    }

    /**
     * One multipart upload. uploadPart may be called concurrently and retried; complete makes the object
     * visible atomically as the concatenation of parts 1..n; abort discards the parts (idempotent).
     */
    interface MultipartUpload
    {
        void uploadPart(int partNumber, ByteBuffer data) throws IOException;

        void complete(int partCount) throws IOException;

        void abort() throws IOException;
    }
}
