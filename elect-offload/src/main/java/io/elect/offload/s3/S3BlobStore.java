package io.elect.offload.s3;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentSkipListMap;

import io.elect.offload.BlobStore;
import io.elect.offload.ColdStoreException;
import io.elect.offload.ObjectNotFoundException;
import io.elect.offload.TransientColdStoreException;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.NoSuchUploadException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * BlobStore over an S3 bucket with the AWS SDK v2 synchronous client. Maps S3 errors onto the cold-store
 * exceptions: 404 NoSuchKey is ObjectNotFoundException; a missing bucket is a ColdStoreException naming the
 * bucket (never "object not found", so a misconfiguration is never mistaken for lost data); 429, 5xx and
 * client-side timeouts or I/O errors are TransientColdStoreException. No retries here (FramedColdStore
 * retries). Thread-safe.
 */
public final class S3BlobStore implements BlobStore
{
    private final S3Client s3;
    private final String bucket;
    private final String where;
    private volatile boolean bucketSeen;

    public S3BlobStore(S3Client s3, String bucket, String where)
    {
        this.s3 = s3;
        this.bucket = bucket;
        this.where = where;
    }

    private ColdStoreException map(String what, String key, SdkException e)
    {
        String op = what + " " + bucket + "/" + key + " at " + where;
        if (e instanceof NoSuchBucketException)
            return missingBucket();
        if (e instanceof NoSuchKeyException)
            return new ObjectNotFoundException("no object: " + op);
        if (e instanceof ApiCallAttemptTimeoutException || e instanceof ApiCallTimeoutException)
            return new TransientColdStoreException("timeout: " + op, false, e);
        if (e instanceof S3Exception s)
        {
            int status = s.statusCode();
            String code = s.awsErrorDetails() == null ? null : s.awsErrorDetails().errorCode();
            boolean throttled = status == 429 || status == 503 || "SlowDown".equals(code) || "Throttling".equals(code);
            if (throttled || status >= 500 || status == 408 || "RequestTimeout".equals(code))
                return new TransientColdStoreException("HTTP " + status + " " + code + ": " + op, throttled, e);
            if (status == 404 && "NoSuchBucket".equals(code))
                return missingBucket();
            if (status == 404)
                return new ObjectNotFoundException("no object: " + op);
            return new ColdStoreException("HTTP " + status + " " + code + ": " + op + ": " + s.getMessage(), e);
        }
        if (e instanceof SdkClientException)
            return new TransientColdStoreException("client error: " + op + ": " + e.getMessage(), false, e);
        return new ColdStoreException(op + ": " + e.getMessage(), e);
    }

    private ColdStoreException missingBucket()
    {
        return new ColdStoreException("bucket '" + bucket + "' does not exist at " + where);
    }

    /** HEAD of a missing key cannot tell "no key" from "no bucket" (no error body), so check the bucket once. */
    private void checkBucket() throws ColdStoreException
    {
        if (bucketSeen)
            return;
        try
        {
            s3.headBucket(b -> b.bucket(bucket));
            bucketSeen = true;
        }
        catch (NoSuchBucketException e)
        {
            throw missingBucket();
        }
        catch (S3Exception e)
        {
            if (e.statusCode() == 404)
                throw missingBucket();
            throw map("head bucket", "", e);
        }
        catch (SdkException e)
        {
            throw map("head bucket", "", e);
        }
    }

    private static RequestBody body(ByteBuffer data)
    {
        ByteBuffer d = data.duplicate();
        return RequestBody.fromContentProvider(() -> new ByteBufferInputStream(d.duplicate()), d.remaining(),
                                               "application/octet-stream");
    }

    @Override
    public void put(String key, ByteBuffer data) throws IOException
    {
        try
        {
            s3.putObject(b -> b.bucket(bucket).key(key), body(data));
        }
        catch (SdkException e)
        {
            throw map("put", key, e);
        }
    }

    @Override
    public RangeResult get(String key, long offset, int length) throws IOException
    {
        if (length <= 0)
        {
            OptionalLong len = head(key);
            if (len.isEmpty())
                throw new ObjectNotFoundException("no object: " + bucket + "/" + key + " at " + where);
            return new RangeResult(ByteBuffer.allocate(0), len.getAsLong());
        }
        String range = "bytes=" + offset + "-" + (offset + length - 1);
        try
        {
            try (ResponseInputStream<GetObjectResponse> in = s3.getObject(b -> b.bucket(bucket).key(key).range(range)))
            {
                return new RangeResult(readBody(in, key), totalLength(in.response()));
            }
        }
        catch (S3Exception e)
        {
            if (e.statusCode() == 416) // range starts past the end: report the length, no bytes
            {
                OptionalLong len = head(key);
                if (len.isPresent())
                    return new RangeResult(ByteBuffer.allocate(0), len.getAsLong());
            }
            throw map("get", key, e);
        }
        catch (SdkException e)
        {
            throw map("get", key, e);
        }
    }

    /**
     * Reads the body into one array sized by Content-Length (no intermediate copies). A body shorter than
     * announced comes back short (the caller treats that as a short read); an I/O error mid-body is transient.
     */
    private ByteBuffer readBody(ResponseInputStream<GetObjectResponse> in, String key) throws IOException
    {
        long announced = in.response().contentLength();
        if (announced > Integer.MAX_VALUE - 16)
            throw new ColdStoreException("object " + key + " too large to read at once: " + announced);
        byte[] bytes = new byte[(int) announced];
        int n;
        try
        {
            n = in.readNBytes(bytes, 0, bytes.length);
        }
        catch (IOException | UncheckedIOException e)
        {
            throw new TransientColdStoreException("reading body of " + bucket + "/" + key + " failed: " + e, false, e);
        }
        return ByteBuffer.wrap(bytes, 0, n);
    }

    /** Total object length from Content-Range "bytes a-b/total", or Content-Length for a whole response. */
    private static long totalLength(GetObjectResponse r) throws ColdStoreException
    {
        String cr = r.contentRange();
        if (cr == null)
            return r.contentLength();
        int slash = cr.lastIndexOf('/');
        try
        {
            return Long.parseLong(cr.substring(slash + 1).trim());
        }
        catch (NumberFormatException | IndexOutOfBoundsException e)
        {
            throw new ColdStoreException("unparseable Content-Range: " + cr);
        }
    }

    @Override
    public RangeResult getAll(String key) throws IOException
    {
        try
        {
            try (ResponseInputStream<GetObjectResponse> in = s3.getObject(b -> b.bucket(bucket).key(key)))
            {
                return new RangeResult(readBody(in, key), in.response().contentLength());
            }
        }
        catch (SdkException e)
        {
            throw map("get", key, e);
        }
    }

    @Override
    public OptionalLong head(String key) throws IOException
    {
        try
        {
            HeadObjectResponse r = s3.headObject(b -> b.bucket(bucket).key(key));
            return OptionalLong.of(r.contentLength());
        }
        catch (NoSuchKeyException e)
        {
            checkBucket();
            return OptionalLong.empty();
        }
        catch (S3Exception e)
        {
            if (e.statusCode() != 404)
                throw map("head", key, e);
            checkBucket();
            return OptionalLong.empty();
        }
        catch (SdkException e)
        {
            throw map("head", key, e);
        }
    }

    @Override
    public void delete(String key) throws IOException
    {
        try
        {
            s3.deleteObject(b -> b.bucket(bucket).key(key)); // S3 answers 204 for a missing key too
        }
        catch (SdkException e)
        {
            throw map("delete", key, e);
        }
    }

    @Override
    public List<Entry> list(String prefix) throws IOException
    {
        try
        {
            List<Entry> entries = new ArrayList<>();
            for (S3Object o : s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents())
                entries.add(new Entry(o.key(), o.size()));
            entries.sort((a, b) -> a.key().compareTo(b.key()));
            return entries;
        }
        catch (SdkException e)
        {
            throw map("list", prefix + "*", e);
        }
    }

    @Override
    public MultipartUpload startMultipart(String key) throws IOException
    {
        String uploadId;
        try
        {
            uploadId = s3.createMultipartUpload(b -> b.bucket(bucket).key(key)).uploadId();
        }
        catch (SdkException e)
        {
            throw map("create multipart upload", key, e);
        }
        Map<Integer, String> etags = new ConcurrentSkipListMap<>();
        return new MultipartUpload()
        {
            public void uploadPart(int partNumber, ByteBuffer data) throws IOException
            {
                try
                {
                    String etag = s3.uploadPart(b -> b.bucket(bucket).key(key).uploadId(uploadId).partNumber(partNumber),
                                                body(data)).eTag();
                    etags.put(partNumber, etag);
                }
                catch (SdkException e)
                {
                    throw map("upload part " + partNumber, key, e);
                }
            }

            public void complete(int partCount) throws IOException
            {
                List<CompletedPart> parts = new ArrayList<>(partCount);
                for (int i = 1; i <= partCount; i++)
                {
                    String etag = etags.get(i);
                    if (etag == null)
                        throw new ColdStoreException("multipart upload of " + key + " has no part " + i);
                    int n = i;
                    parts.add(CompletedPart.builder().partNumber(n).eTag(etag).build());
                }
                try
                {
                    s3.completeMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId)
                                                     .multipartUpload(m -> m.parts(parts)));
                }
                catch (SdkException e)
                {
                    throw map("complete multipart upload", key, e);
                }
            }

            public void abort() throws IOException
            {
                try
                {
                    s3.abortMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId));
                }
                catch (NoSuchUploadException e)
                {
                    // already completed or aborted
                }
                catch (SdkException e)
                {
                    throw map("abort multipart upload", key, e);
                }
            }
        };
    }

    @Override
    public void close()
    {
        s3.close();
    }

    /** Streams a ByteBuffer without copying it (RequestBody.fromByteBuffer copies). */
    private static final class ByteBufferInputStream extends InputStream
    {
        private final ByteBuffer buffer;

        ByteBufferInputStream(ByteBuffer buffer)
        {
            this.buffer = buffer;
        }

        @Override
        public int read()
        {
            return buffer.hasRemaining() ? buffer.get() & 0xff : -1;
        }

        @Override
        public int read(byte[] b, int off, int len)
        {
            if (len == 0)
                return 0;
            if (!buffer.hasRemaining())
                return -1;
            int n = Math.min(len, buffer.remaining());
            buffer.get(b, off, n);
            return n;
        }

        @Override
        public int available()
        {
            return buffer.remaining();
        }
    }
}
