package io.elect.core.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;

/** Small helpers of the node's services. */
final class Futures
{
    private Futures()
    {
    }

    /** The future's value; its failure as an IOException carrying the cause's message. */
    static byte[] await(CompletableFuture<byte[]> f) throws IOException
    {
        try
        {
            return f.get();
        }
        catch (InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        catch (ExecutionException e)
        {
            throw new IOException(e.getCause() == null ? e.toString() : e.getCause().getMessage(), e.getCause());
        }
    }

    /** Deletes dir and everything under it; nothing if it does not exist. */
    static void deleteTree(Path dir) throws IOException
    {
        if (!Files.exists(dir))
            return;
        try (Stream<Path> s = Files.walk(dir))
        {
            for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator)
                Files.deleteIfExists(p);
        }
    }
}
