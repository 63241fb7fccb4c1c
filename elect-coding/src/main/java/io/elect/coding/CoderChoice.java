package io.elect.coding;

/**
 * The outcome of choosing a coder backend for a configured {@code elect.coder} value: what was configured,
 * the backend that encode and decode use, and why (for {@code electtool status} and the node's start-up log).
 * Made by {@link ErasureCoders#choose(String)}. Immutable.
 *
 * @param configured the configured value, normalised ({@code auto}, {@code isal}, {@code jerasure}, {@code java}
 *                   or {@code java-reference})
 * @param backend    the backend in use: never {@code auto}
 * @param reason     why, e.g. {@code "auto: ISA-L unavailable (...); Jerasure loaded"}
 * @param natives    what the native libraries looked like when the choice was made
 */
public record CoderChoice(String configured, String backend, String reason, NativeBackends natives)
{
    /**
     * A coder of the chosen backend for stripes of k data and m parity chunks.
     *
     * @throws IllegalArgumentException for a bad k, m
     */
    public ErasureCoder create(int k, int m)
    {
        return ErasureCoders.instantiate(k, m, backend);
    }
}
