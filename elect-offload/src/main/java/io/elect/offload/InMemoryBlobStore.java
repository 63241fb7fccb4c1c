package io.elect.offload;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/** Objects in a sorted map, for unit tests and simulations. Thread-safe; puts are atomic. */
public final class InMemoryBlobStore implements BlobStore
{
    private final ConcurrentSkipListMap<String, byte[]> objects = new ConcurrentSkipListMap<>();

    @Override
    public void put(String key, ByteBuffer data)
    {
        byte[] bytes = new byte[data.remaining()];
        data.duplicate().get(bytes);
        objects.put(key, bytes);
    }

    @Override
    public RangeResult get(String key, long offset, int length) throws ObjectNotFoundException
    {
        byte[] bytes = bytes(key);
        int from = (int) Math.min(offset, bytes.length);
        int to = (int) Math.min(bytes.length, offset + length);
        return new RangeResult(ByteBuffer.wrap(bytes, from, to - from).slice(), bytes.length);
    }

    @Override
    public RangeResult getAll(String key) throws ObjectNotFoundException
    {
        byte[] bytes = bytes(key);
        return new RangeResult(ByteBuffer.wrap(bytes), bytes.length);
    }

    private byte[] bytes(String key) throws ObjectNotFoundException
    {
        byte[] bytes = objects.get(key);
        if (bytes == null)
            throw new ObjectNotFoundException("no object '" + key + "' in memory store");
        return bytes;
    }

    @Override
    public OptionalLong head(String key)
    {
        byte[] bytes = objects.get(key);
        return bytes == null ? OptionalLong.empty() : OptionalLong.of(bytes.length);
    }

    @Override
    public void delete(String key)
    {
        objects.remove(key);
    }

    @Override
    public List<Entry> list(String prefix)
    {
        List<Entry> entries = new ArrayList<>();
        for (Map.Entry<String, byte[]> e : objects.tailMap(prefix).entrySet())
        {
            if (!e.getKey().startsWith(prefix))
                break;
            entries.add(new Entry(e.getKey(), e.getValue().length));
        }
        return entries;
    }

    /** Direct access to the stored bytes, so tests can corrupt objects at rest. */
    public byte[] rawBytes(String key)
    {
        return objects.get(key);
    }

    @Override
    public MultipartUpload startMultipart(String key)
    {
        Map<Integer, byte[]> parts = new ConcurrentHashMap<>();
        return new MultipartUpload()
        {
            public void uploadPart(int partNumber, ByteBuffer data)
            {
                byte[] bytes = new byte[data.remaining()];
                data.duplicate().get(bytes);
                parts.put(partNumber, bytes);
            }

            public void complete(int partCount) throws ColdStoreException
            {
                int total = 0;
                for (int i = 1; i <= partCount; i++)
                {
                    byte[] p = parts.get(i);
                    if (p == null)
                        throw new ColdStoreException("multipart upload of " + key + " has no part " + i);
                    total += p.length;
                }
                ByteBuffer all = ByteBuffer.allocate(total);
                for (int i = 1; i <= partCount; i++)
                    all.put(parts.get(i));
                objects.put(key, all.array());
            }

            public void abort()
            {
                parts.clear();
            }
        };
    }

    @Override
    public void close()
    {
    }
}
