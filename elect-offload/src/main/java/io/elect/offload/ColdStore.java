package io.elect.offload;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The cold tier: an object store holding immutable objects under string keys (see ColdObjectKey for the
 * layout ELECT uses).
 *
 * Contract, shared by every implementation and checked by the contract test suite:
 * <ul>
 * <li>Keys are write-once: a key is only ever (re)written with the same bytes, so a retried or repeated put
 *     is harmless. Writing different bytes under an existing key is a caller bug (readers may then see
 *     either version, or a CorruptObjectException).</li>
 * <li>Every operation is idempotent and safe to retry; transient failures (throttling, 5xx, timeouts) are
 *     retried inside the store with backoff, up to a bounded number of attempts, then reported as
 *     {@link ColdStoreException}.</li>
 * <li>Integrity is end to end: a checksum is computed while uploading and stored with the object; whole
 *     reads and ranged reads are verified (per block). Corrupt data surfaces as
 *     {@link CorruptObjectException}, never as data.</li>
 * <li>A missing object is {@link ObjectNotFoundException} on reads, {@code Optional.empty()} on head,
 *     and success on delete.</li>
 * <li>Bad arguments (empty key, negative or past-the-end range) throw IllegalArgumentException naming
 *     the argument.</li>
 * </ul>
 * Implementations are thread-safe and bound their own concurrency.
 */
public interface ColdStore extends AutoCloseable
{
    /** Uploads the whole file under key (streamed; multipart with parallel parts above a threshold). */
    ObjectInfo put(String key, Path file) throws IOException;

    /** Uploads the concatenation of the remaining bytes of buffers under key; buffer positions are not moved. */
    ObjectInfo put(String key, List<ByteBuffer> buffers) throws IOException;

    default ObjectInfo put(String key, ByteBuffer buffer) throws IOException
    {
        return put(key, List.of(buffer));
    }

    /**
     * Reads bytes [offset, offset + length) of the object, verified. REQUIRES: offset >= 0, length >= 0,
     * offset + length <= object length (else IllegalArgumentException naming the argument).
     */
    ByteBuffer read(String key, long offset, int length) throws IOException;

    /** Reads the whole object (at most 2 GiB - 1), verified against its whole-object checksum. */
    ByteBuffer readAll(String key) throws IOException;

    /** Size and checksum of the object, or empty if it does not exist. */
    Optional<ObjectInfo> head(String key) throws IOException;

    default boolean exists(String key) throws IOException
    {
        return head(key).isPresent();
    }

    /** Deletes the object; deleting a missing object is success. */
    void delete(String key) throws IOException;

    /** Every object whose key starts with prefix (empty prefix: all), in key order. */
    List<ObjectInfo> list(String prefix) throws IOException;

    ColdStoreMetrics metrics();

    @Override
    void close();
}
