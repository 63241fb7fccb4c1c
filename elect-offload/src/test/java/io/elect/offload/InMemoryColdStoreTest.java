package io.elect.offload;

public class InMemoryColdStoreTest extends ColdStoreContract
{
    private InMemoryBlobStore blobs;

    @Override
    protected ColdStore createStore()
    {
        blobs = new InMemoryBlobStore();
        return new FramedColdStore("memory", blobs, options());
    }

    @Override
    protected void corruptAtRest(String key, long storedOffset)
    {
        byte[] raw = blobs.rawBytes(key);
        raw[(int) storedOffset] ^= (byte) (1 << random.nextInt(8));
    }
}
