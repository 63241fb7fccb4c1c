package io.elect.core.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
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

    /**
     * Every future's value, waiting for ALL of them before failing with the first failure: a fan-out that throws has
     * nothing still in flight, so the caller's retry never overlaps it.
     */
    static List<byte[]> awaitAll(List<CompletableFuture<byte[]>> calls) throws IOException
    {
        List<byte[]> answers = new ArrayList<>(calls.size());
        IOException first = null;
        for (CompletableFuture<byte[]> c : calls)
        {
            try
            {
                answers.add(await(c));
            }
            catch (IOException e)
            {
                answers.add(null);
                if (first == null)
                    first = e;
                else
                    first.addSuppressed(e);
            }
        }
        if (first != null)
            throw first;
        return answers;
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
