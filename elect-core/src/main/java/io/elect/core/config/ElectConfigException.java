package io.elect.core.config;

/**
 * An invalid {@code elect:} section. The message is one line that names the key (as {@code elect.<key>}), the
 * value found and what is allowed, so that a node can print it and stop.
 */
public class ElectConfigException extends RuntimeException
{
    private final String key;

    public ElectConfigException(String key, String message)
    {
        super(key + ": " + message);
        this.key = key;
    }

    /** The offending key, fully qualified, e.g. {@code elect.storage_saving_target}. */
    public String key()
    {
        return key;
    }
}
