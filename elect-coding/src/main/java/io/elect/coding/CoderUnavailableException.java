package io.elect.coding;

/**
 * A backend that was asked for explicitly ({@code elect.coder: isal} or {@code jerasure}, or the
 * {@code -Delect.coder} override of {@code auto}) cannot be used on this machine. Never thrown for {@code auto},
 * which falls back instead. The message names the setting, the backend and the reason (library not built, or
 * built but not loadable, with the Debian package that provides it).
 */
public final class CoderUnavailableException extends IllegalStateException
{
    private final String setting;
    private final String backend;
    private final String reason;

    CoderUnavailableException(String setting, String backend, String reason)
    {
        super(setting + ": " + backend + " is not available on this node: " + reason);
        this.setting = setting;
        this.backend = backend;
        this.reason = reason;
    }

    /** The setting that asked for it: {@code elect.coder} or {@code -Delect.coder (system property)}. */
    public String setting()
    {
        return setting;
    }

    /** The backend asked for. */
    public String backend()
    {
        return backend;
    }

    /** Why it cannot be used. */
    public String reason()
    {
        return reason;
    }
}
