package io.elect.offload;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

public class FileSystemColdStoreTest extends ColdStoreContract
{
    private Path root;

    @Override
    protected ColdStore createStore() throws IOException
    {
        root = tmp.resolve("store");
        return new FramedColdStore("fs", new FileSystemBlobStore(root), options());
    }

    @Override
    protected void corruptAtRest(String key, long storedOffset) throws IOException
    {
        try (RandomAccessFile f = new RandomAccessFile(root.resolve(key).toFile(), "rw"))
        {
            f.seek(storedOffset);
            int b = f.read();
            f.seek(storedOffset);
            f.write(b ^ (1 << random.nextInt(8)));
        }
    }

    @Test
    void leavesNoTemporaryFilesBehind() throws IOException
    {
        store.put(prefix + "a", java.nio.ByteBuffer.wrap(randomBytes(7 * 1024 * 1024))); // multipart
        store.put(prefix + "b", java.nio.ByteBuffer.wrap(randomBytes(10)));
        try (Stream<Path> s = Files.list(root.resolve(FileSystemBlobStore.TMP_DIR)))
        {
            assertEquals(0, s.count());
        }
    }
}
