package io.elect.offload;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * One file per object under a root directory (single box, no server): key "a/b/c" is the file root/a/b/c.
 * Writes go to a temporary file in root/.elect-tmp, are fsynced, then renamed into place atomically, so
 * readers see the old object or the new one, never a torn one. Keys must pass FramedColdStore.checkKey.
 * Thread-safe.
 */
public final class FileSystemBlobStore implements BlobStore
{
    static final String TMP_DIR = ".elect-tmp";
    private final Path root;
    private final Path tmp;

    public FileSystemBlobStore(Path root) throws IOException
    {
        if (root == null)
            throw new IllegalArgumentException("root must not be null");
        this.root = root.toAbsolutePath().normalize();
        this.tmp = this.root.resolve(TMP_DIR);
        Files.createDirectories(tmp);
    }

    private Path path(String key)
    {
        if (key.equals(TMP_DIR) || key.startsWith(TMP_DIR + "/"))
            throw new IllegalArgumentException("key must not start with " + TMP_DIR + ": " + key);
        Path p = root.resolve(key).normalize();
        if (!p.startsWith(root) || p.equals(root))
            throw new IllegalArgumentException("key escapes the store root: " + key);
        return p;
    }

    @Override
    public void put(String key, ByteBuffer data) throws IOException
    {
        Path target = path(key);
        Path t = tmp.resolve(UUID.randomUUID().toString());
        try
        {
            try (FileChannel ch = FileChannel.open(t, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))
            {
                ByteBuffer d = data.duplicate();
                while (d.hasRemaining())
                    ch.write(d);
                ch.force(true);
            }
            moveIntoPlace(t, target);
        }
        finally
        {
            Files.deleteIfExists(t);
        }
    }

    private static void moveIntoPlace(Path source, Path target) throws IOException
    {
        Files.createDirectories(target.getParent());
        try
        {
            Files.move(source, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        catch (AtomicMoveNotSupportedException e)
        {
            throw new ColdStoreException("filesystem store needs atomic rename within " + target.getParent(), e);
        }
    }

    @Override
    public RangeResult get(String key, long offset, int length) throws IOException
    {
        try (FileChannel ch = FileChannel.open(path(key), StandardOpenOption.READ))
        {
            long size = ch.size();
            int n = (int) Math.max(0, Math.min(length, size - offset));
            ByteBuffer out = ByteBuffer.allocate(n);
            while (out.hasRemaining())
                if (ch.read(out, offset + out.position()) < 0)
                    break;
            return new RangeResult(out.flip(), size);
        }
        catch (NoSuchFileException e)
        {
            throw new ObjectNotFoundException("no object '" + key + "' under " + root);
        }
    }

    @Override
    public RangeResult getAll(String key) throws IOException
    {
        try
        {
            byte[] bytes = Files.readAllBytes(path(key));
            return new RangeResult(ByteBuffer.wrap(bytes), bytes.length);
        }
        catch (NoSuchFileException e)
        {
            throw new ObjectNotFoundException("no object '" + key + "' under " + root);
        }
    }

    @Override
    public OptionalLong head(String key) throws IOException
    {
        Path p = path(key);
        try
        {
            return Files.isRegularFile(p) ? OptionalLong.of(Files.size(p)) : OptionalLong.empty();
        }
        catch (NoSuchFileException e)
        {
            return OptionalLong.empty();
        }
    }

    @Override
    public void delete(String key) throws IOException
    {
        Path p = path(key);
        try
        {
            Files.deleteIfExists(p);
        }
        catch (DirectoryNotEmptyException e)
        {
            // a "directory" key prefix, not an object: nothing to delete
        }
    }

    @Override
    public List<Entry> list(String prefix) throws IOException
    {
        List<Entry> entries = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root))
        {
            files.filter(Files::isRegularFile).forEach(p -> {
                String key = root.relativize(p).toString().replace(p.getFileSystem().getSeparator(), "/");
                if (key.startsWith(TMP_DIR + "/") || !key.startsWith(prefix))
                    return;
                try
                {
                    entries.add(new Entry(key, Files.size(p)));
                }
                catch (NoSuchFileException e)
                {
                    // deleted concurrently
                }
                catch (IOException e)
                {
                    throw new UncheckedIOException(e);
                }
            });
        }
        catch (UncheckedIOException e)
        {
            throw e.getCause();
        }
        entries.sort((a, b) -> a.key().compareTo(b.key()));
        return entries;
    }

    @Override
    public MultipartUpload startMultipart(String key) throws IOException
    {
        Path target = path(key);
        Path dir = tmp.resolve("mpu-" + UUID.randomUUID());
        Files.createDirectories(dir);
        return new MultipartUpload()
        {
            public void uploadPart(int partNumber, ByteBuffer data) throws IOException
            {
                Path part = dir.resolve(Integer.toString(partNumber));
                Path t = dir.resolve(partNumber + "." + UUID.randomUUID());
                try (FileChannel ch = FileChannel.open(t, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))
                {
                    ByteBuffer d = data.duplicate();
                    while (d.hasRemaining())
                        ch.write(d);
                }
                Files.move(t, part, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            }

            public void complete(int partCount) throws IOException
            {
                Path assembled = dir.resolve("assembled");
                try (FileChannel out = FileChannel.open(assembled, StandardOpenOption.CREATE,
                                                        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE))
                {
                    for (int i = 1; i <= partCount; i++)
                    {
                        Path part = dir.resolve(Integer.toString(i));
                        if (!Files.exists(part))
                            throw new ColdStoreException("multipart upload of " + key + " has no part " + i);
                        try (FileChannel in = FileChannel.open(part, StandardOpenOption.READ))
                        {
                            long size = in.size();
                            for (long done = 0; done < size; )
                                done += in.transferTo(done, size - done, out);
                        }
                    }
                    out.force(true);
                }
                moveIntoPlace(assembled, target);
                abort();
            }

            public void abort() throws IOException
            {
                if (!Files.exists(dir))
                    return;
                try (Stream<Path> files = Files.list(dir))
                {
                    for (Path p : (Iterable<Path>) files::iterator)
                        Files.deleteIfExists(p);
                }
                Files.deleteIfExists(dir);
            }
        };
    }

    @Override
    public void close()
    {
    }
}
