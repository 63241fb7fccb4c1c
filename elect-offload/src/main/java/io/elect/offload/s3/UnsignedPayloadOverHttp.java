package io.elect.offload.s3;

import java.util.concurrent.CompletableFuture;

import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.scheme.AwsV4AuthScheme;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.scheme.AuthScheme;
import software.amazon.awssdk.http.auth.spi.signer.AsyncSignRequest;
import software.amazon.awssdk.http.auth.spi.signer.AsyncSignedRequest;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignRequest;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;
import software.amazon.awssdk.identity.spi.IdentityProviders;

/**
 * SigV4 with UNSIGNED-PAYLOAD over plain http. The SDK forces payload signing whenever the protocol is not
 * https: it SHA-256-hashes every request body, and S3Proxy then buffers the whole body in memory to verify
 * that hash; both cost more CPU than the rest of the upload path (measured with JFR, see PERFORMANCE.md).
 * The block CRCs already protect the data end to end, so this signer signs an https view of the request (the
 * protocol is not part of the SigV4 canonical request) and sends it over http unchanged otherwise. Headers,
 * method, path and query stay signed. Only used for endpoints with an explicit port other than 80 and 443,
 * where the Host header is the same for both protocols.
 */
final class UnsignedPayloadOverHttp implements AuthScheme<AwsCredentialsIdentity>
{
    private final AwsV4HttpSigner delegate = AwsV4HttpSigner.create();

    @Override
    public String schemeId()
    {
        return AwsV4AuthScheme.SCHEME_ID;
    }

    @Override
    public IdentityProvider<AwsCredentialsIdentity> identityProvider(IdentityProviders providers)
    {
        return providers.identityProvider(AwsCredentialsIdentity.class);
    }

    @Override
    public HttpSigner<AwsCredentialsIdentity> signer()
    {
        return new HttpSigner<>()
        {
            @Override
            public SignedRequest sign(SignRequest<? extends AwsCredentialsIdentity> request)
            {
                SdkHttpRequest original = request.request();
                if (!"http".equals(original.protocol()))
                    return delegate.sign(request);
                SignedRequest signed = delegate.sign(request.copy(b -> b.request(original.toBuilder()
                                                                                         .protocol("https")
                                                                                         .build())));
                return signed.copy(b -> b.request(signed.request().toBuilder().protocol(original.protocol()).build()));
            }

            @Override
            public CompletableFuture<AsyncSignedRequest> signAsync(AsyncSignRequest<? extends AwsCredentialsIdentity> r)
            {
                return delegate.signAsync(r); // we only use the synchronous client
            }
        };
    }
}
