package io.elect.offload.s3;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * Chooses the credentials of the cold tier, first match wins:
 * <ol>
 * <li>environment ELECT_S3_ACCESS_KEY_ID and ELECT_S3_SECRET_ACCESS_KEY (both set);</li>
 * <li>the configured credentials file (access_key=/secret_key= lines);</li>
 * <li>the AWS default chain (AWS_* environment, ~/.aws profile, container or instance roles).</li>
 * </ol>
 * Secrets are never logged; description() names the source only.
 */
public final class CredentialsResolver
{
    private final AwsCredentialsProvider provider;
    private final String description;

    private CredentialsResolver(AwsCredentialsProvider provider, String description)
    {
        this.provider = provider;
        this.description = description;
    }

    public static CredentialsResolver resolve(Path credentialsFile, Map<String, String> env)
    {
        Optional<S3Credentials> fromEnv = S3Credentials.fromEnv(env);
        if (fromEnv.isPresent())
            return of(fromEnv.get(), "environment " + S3Credentials.ENV_ACCESS_KEY);
        if (credentialsFile != null)
        {
            try
            {
                return of(S3Credentials.readFile(credentialsFile), "file " + credentialsFile);
            }
            catch (IOException e)
            {
                throw new UncheckedIOException("cannot read credentials_file: " + e.getMessage(), e);
            }
        }
        return new CredentialsResolver(DefaultCredentialsProvider.builder().build(), "AWS default chain");
    }

    private static CredentialsResolver of(S3Credentials c, String description)
    {
        return new CredentialsResolver(StaticCredentialsProvider.create(AwsBasicCredentials.create(c.accessKey(),
                                                                                                  c.secretKey())),
                                       description + " (access key " + c.accessKey().substring(0, Math.min(4, c.accessKey().length())) + "...)");
    }

    public AwsCredentialsProvider provider()
    {
        return provider;
    }

    public String description()
    {
        return description;
    }
}
