package io.elect.core.tiered;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.function.Function;

import io.elect.offload.ColdStore;

/**
 * Resolves stripe member locators: {@code cold:<store>/<key>} (a ranged read of the cold tier, which verifies its
 * own framing) and {@code file:<absolute path>} (a positional read of a local file). Unknown schemes are an
 * IllegalArgumentException naming the locator. Thread-safe.
 */
public final class LocatorMemberReader implements StripeMemberReader
{
    public static final String COLD = "cold:";
    public static final String FILE = "file:";

    private final Function<String, ColdStore> stores;

    /** @param stores cold stores by name; returns null for an unknown name */
    public LocatorMemberReader(Function<String, ColdStore> stores)
    {
        this.stores = stores;
    }

    public static String cold(String store, String key)
    {
        return COLD + store + "/" + key;
    }

    public static String file(Path path)
    {
        return FILE + path.toAbsolutePath();
    }

    @Override
    public ByteBuffer read(StripeLayout stripe, int member, long offset, int length) throws IOException
    {
        String locator = stripe.locators().get(member);
        if (locator.startsWith(COLD))
        {
            String rest = locator.substring(COLD.length());
            int slash = rest.indexOf('/');
            if (slash <= 0)
                throw new IllegalArgumentException("locator must be cold:<store>/<key>, got '" + locator + "'");
            ColdStore store = stores.apply(rest.substring(0, slash));
            if (store == null)
                throw new IOException("stripe member " + member + ": no cold store named '" + rest.substring(0, slash)
                                      + "' is registered (" + locator + ")");
            return store.read(rest.substring(slash + 1), offset, length);
        }
        if (locator.startsWith(FILE))
        {
            Path path = Paths.get(locator.substring(FILE.length()));
            try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ))
            {
                ByteBuffer buf = ByteBuffer.allocate(length);
                while (buf.hasRemaining())
                {
                    if (ch.read(buf, offset + buf.position()) < 0)
                        throw new IOException("stripe member " + member + " (" + path + ") is shorter than "
                                              + (offset + length) + " bytes");
                }
                return buf.flip();
            }
        }
        throw new IllegalArgumentException("locator must start with cold: or file:, got '" + locator + "'");
    }
}
