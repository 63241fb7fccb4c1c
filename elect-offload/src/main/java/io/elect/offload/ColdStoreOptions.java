package io.elect.offload;

import java.time.Duration;

/**
 * Tuning of FramedColdStore, independent of the backend.
 *
 * @param maxConcurrency     backend requests in flight at once, over all callers (the bound on connections)
 * @param partSize           data bytes per multipart part; a multiple of FramedFormat.BLOCK_SIZE, >= 5 MiB
 *                           (S3's minimum part size)
 * @param multipartThreshold objects larger than this are uploaded in parts
 * @param partParallelism    parts of one upload in flight at once (bounds memory to about
 *                           (partParallelism + 1) * partSize per upload)
 * @param maxAttempts        attempts per backend request (transient errors, short reads, corrupt reads)
 * @param baseBackoff        first retry delay; doubles per attempt with full jitter, capped at maxBackoff
 * @param maxBackoff         cap of the retry delay
 * @param verifyPuts         HEAD every object after writing it and rewrite it if it is missing or has the
 *                           wrong length (defends against lost writes of eventually consistent stores)
 */
public record ColdStoreOptions(int maxConcurrency, int partSize, long multipartThreshold, int partParallelism,
                               int maxAttempts, Duration baseBackoff, Duration maxBackoff, boolean verifyPuts)
{
    public static final int MIN_PART_SIZE = 5 * 1024 * 1024;

    public ColdStoreOptions
    {
        if (maxConcurrency < 1)
            throw new IllegalArgumentException("maxConcurrency must be >= 1, got " + maxConcurrency);
        if (partSize < MIN_PART_SIZE || partSize % FramedFormat.BLOCK_SIZE != 0)
            throw new IllegalArgumentException("partSize must be a multiple of " + FramedFormat.BLOCK_SIZE + " and >= "
                                               + MIN_PART_SIZE + ", got " + partSize);
        if (multipartThreshold < partSize)
            throw new IllegalArgumentException("multipartThreshold must be >= partSize, got " + multipartThreshold);
        if (partParallelism < 1)
            throw new IllegalArgumentException("partParallelism must be >= 1, got " + partParallelism);
        if (maxAttempts < 1)
            throw new IllegalArgumentException("maxAttempts must be >= 1, got " + maxAttempts);
        if (baseBackoff.isNegative() || maxBackoff.compareTo(baseBackoff) < 0)
            throw new IllegalArgumentException("need 0 <= baseBackoff <= maxBackoff, got " + baseBackoff + ", " + maxBackoff);
    }

    public static ColdStoreOptions defaults()
    {
        return new ColdStoreOptions(16, 8 * 1024 * 1024, 16L * 1024 * 1024, 4, 5, Duration.ofMillis(50),
                                    Duration.ofSeconds(2), false);
    }

    public ColdStoreOptions withMaxAttempts(int attempts)
    {
        return new ColdStoreOptions(maxConcurrency, partSize, multipartThreshold, partParallelism, attempts,
                                    baseBackoff, maxBackoff, verifyPuts);
    }

    public ColdStoreOptions withBackoff(Duration base, Duration max)
    {
        return new ColdStoreOptions(maxConcurrency, partSize, multipartThreshold, partParallelism, maxAttempts, base,
                                    max, verifyPuts);
    }

    public ColdStoreOptions withVerifyPuts(boolean verify)
    {
        return new ColdStoreOptions(maxConcurrency, partSize, multipartThreshold, partParallelism, maxAttempts,
                                    baseBackoff, maxBackoff, verify);
    }

    public ColdStoreOptions withParts(int size, long threshold, int parallelism)
    {
        return new ColdStoreOptions(maxConcurrency, size, threshold, parallelism, maxAttempts, baseBackoff,
                                    maxBackoff, verifyPuts);
    }
}
