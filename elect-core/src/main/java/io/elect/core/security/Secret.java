package io.elect.core.security;

import java.util.Arrays;

/**
 * A password or key held as a char array that can be wiped, and that never prints: {@link #toString()} is
 * {@value #MASK}, so a secret that ends up in a log line, an exception message or a JSON document by mistake shows
 * only the mask. Not thread-safe for {@link #wipe()} against concurrent reads; a secret is read once at start-up
 * (keystores are loaded, then the secret is wiped).
 */
public final class Secret implements AutoCloseable
{
    public static final String MASK = "<redacted>";

    private final char[] value;
    private volatile boolean wiped;

    private Secret(char[] value)
    {
        this.value = value;
    }

    /** Null for a null string (an unset password). */
    public static Secret of(String s)
    {
        return s == null ? null : new Secret(s.toCharArray());
    }

    /** The characters (a copy); the caller should wipe it after use. */
    public char[] chars()
    {
        if (wiped)
            throw new IllegalStateException("secret already wiped");
        return value.clone();
    }

    public boolean isEmpty()
    {
        return value.length == 0;
    }

    /** Overwrites the characters; later {@link #chars()} calls fail. */
    public void wipe()
    {
        Arrays.fill(value, '\0');
        wiped = true;
    }

    @Override
    public void close()
    {
        wipe();
    }

    @Override
    public String toString()
    {
        return MASK;
    }
}
