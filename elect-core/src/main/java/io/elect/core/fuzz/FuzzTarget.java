package io.elect.core.fuzz;

import java.io.IOException;
import java.util.List;

/**
 * One input surface of a node under fuzzing: a decoder of a wire payload, a persisted file format or the
 * {@code elect:} section of cassandra.yaml. The contract every surface must keep (issue 19) is checked by
 * {@link FuzzRunner}: a malformed input gives a clear error (an exception of a {@link #clean} type with a message)
 * or a clean rejection, never a crash, an allocation beyond {@link #allocationLimit}, a hang, or (for inputs covered
 * by a checksum) the silent acceptance of changed bytes.
 */
public interface FuzzTarget
{
    String name();

    /** Valid encodings the mutator starts from (structure-aware seeds). */
    List<byte[]> seeds();

    /** Decodes the input as the node would (from a file for file formats); throws on rejection. */
    Object decode(byte[] input) throws Exception;

    /** A canonical form of a decoded value, to compare values (e.g. its re-encoding as hex). */
    String canonical(Object value);

    /**
     * Whether every byte of an encoding is covered by a checksum: then an accepted mutation (without
     * {@link #fixChecksum}) must decode to the seed's value, or corrupt data was accepted silently.
     */
    boolean checksummed();

    /**
     * The mutated input with its checksum (and length fields) recomputed, so that mutations reach the parser behind
     * the checksum; null if the format has none to fix.
     */
    default byte[] fixChecksum(byte[] input)
    {
        return null;
    }

    /** Line-oriented text (the mutator then also edits lines and numbers). */
    default boolean text()
    {
        return false;
    }

    /** The most bytes one decode may allocate: a length field must never drive more. */
    default long allocationLimit(int inputLength)
    {
        return 64L * inputLength + (8L << 20);
    }

    /**
     * Whether an exception is a clean rejection: the documented types, with a message. Raw runtime exceptions of
     * the JDK (NullPointerException, IndexOutOfBounds, BufferUnderflow, NumberFormatException, ...) are not:
     * they mean a decoder ran off its input instead of checking it.
     */
    default boolean clean(Throwable t)
    {
        if (t.getMessage() == null || t.getMessage().isBlank())
            return false;
        if (t instanceof NumberFormatException || t instanceof java.nio.file.InvalidPathException)
            return false;
        return t instanceof IOException || t instanceof IllegalArgumentException || t instanceof IllegalStateException
               || t.getClass().getSimpleName().startsWith("Corrupt") || t.getClass().getSimpleName().startsWith("Malformed")
               || t.getClass().getSimpleName().equals("ElectConfigException");
    }
}
