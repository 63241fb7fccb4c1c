package io.elect.offload.s3;

import java.net.URI;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.elect.offload.FramedColdStore;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.auth.scheme.S3AuthSchemeProvider;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * The cold tier on any S3-compatible store (AWS S3, S3Proxy, MinIO, Ceph RGW...), AWS SDK v2. Integrity,
 * retries and concurrency come from FramedColdStore; the SDK's own retries are off so that every retry is
 * counted and backed off in one place, and its flexible checksums are off (only when required) because the
 * end-to-end block checksums already cover the data and not every S3-compatible server accepts them.
 */
public final class S3ColdStore extends FramedColdStore
{
    private static final Logger logger = LoggerFactory.getLogger(S3ColdStore.class);
    private final S3ColdStoreConfig config;

    public S3ColdStore(S3ColdStoreConfig config)
    {
        this(config, System.getenv());
    }

    public S3ColdStore(S3ColdStoreConfig config, Map<String, String> env)
    {
        this(config, CredentialsResolver.resolve(config.credentialsFile(), env));
    }

    private S3ColdStore(S3ColdStoreConfig config, CredentialsResolver credentials)
    {
        super("s3:" + config.bucket(), new S3BlobStore(client(config, credentials), config.bucket(), where(config)),
              config.options());
        this.config = config;
        logger.info("Cold store on S3 bucket {} at {} (path style {}, credentials from {})", config.bucket(),
                    where(config), config.pathStyle(), credentials.description());
    }

    private static String where(S3ColdStoreConfig config)
    {
        return config.endpoint() == null ? "AWS region " + config.region() : config.endpoint().toString();
    }

    private static S3Client client(S3ColdStoreConfig config, CredentialsResolver credentials)
    {
        S3ClientBuilder b = S3Client.builder()
                                    .region(Region.of(config.region()))
                                    .forcePathStyle(config.pathStyle())
                                    .credentialsProvider(credentials.provider())
                                    .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                                    .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                                    .httpClient(Apache5HttpClient.builder()
                                                                 .maxConnections(config.options().maxConcurrency())
                                                                 .connectionTimeout(java.time.Duration.ofSeconds(5))
                                                                 .socketTimeout(config.attemptTimeout())
                                                                 .build())
                                    .overrideConfiguration(ClientOverrideConfiguration.builder()
                                                                                      .retryStrategy(AwsRetryStrategy.doNotRetry())
                                                                                      .apiCallAttemptTimeout(config.attemptTimeout())
                                                                                      .build());
        if (config.endpoint() != null)
            b.endpointOverride(config.endpoint());
        if (!config.signPayload())
        {
            b.authSchemeProvider(unsignedPayload(S3AuthSchemeProvider.defaultProvider()));
            URI e = config.endpoint();
            if (e != null && "http".equals(e.getScheme()) && e.getPort() > 0 && e.getPort() != 80 && e.getPort() != 443)
                b.putAuthScheme(new UnsignedPayloadOverHttp());
        }
        return b.build();
    }

    /**
     * Signs requests without hashing their bodies (x-amz-content-sha256: UNSIGNED-PAYLOAD, no aws-chunked
     * framing). This is the SDK's default over https; over plain http the SDK ignores it and needs
     * UnsignedPayloadOverHttp as well. The data are covered end to end by the block CRCs and the headers stay
     * signed, so only tamper-proofing of bodies in transit is lost.
     */
    private static S3AuthSchemeProvider unsignedPayload(S3AuthSchemeProvider defaults)
    {
        return params -> defaults.resolveAuthScheme(params).stream()
                                 .map(o -> o.toBuilder()
                                            .putSignerProperty(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, false)
                                            .putSignerProperty(AwsV4FamilyHttpSigner.CHUNK_ENCODING_ENABLED, false)
                                            .build())
                                 .toList();
    }

    public S3ColdStoreConfig config()
    {
        return config;
    }
}
