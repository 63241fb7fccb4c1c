package io.elect.core.stripes;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.elect.coding.CoderChoice;
import io.elect.coding.ErasureCoder;
import io.elect.coding.ErasureCoders;

/**
 * The node's erasure coders: one per stripe shape (k, m), created on first use with the backend chosen once from the
 * configuration ({@code elect.coder}: auto = ISA-L, else Jerasure, else pure Java; an explicit isal or jerasure that
 * cannot be loaded fails at construction with a {@link io.elect.coding.CoderUnavailableException} naming the key).
 * Every backend produces the same bytes for a codec id (docs/formats/codec.md), so the backend only changes speed,
 * never what is stored. Thread-safe; coders are thread-safe and immutable (a cache of immutable objects).
 */
public final class Coders
{
    private final CoderChoice choice;
    private final Map<Integer, ErasureCoder> byShape = new ConcurrentHashMap<>();

    /** @param configured the {@code elect.coder} value (null: auto) */
    public Coders(String configured)
    {
        this(ErasureCoders.choose(configured == null ? ErasureCoders.AUTO : configured));
    }

    public Coders(CoderChoice choice)
    {
        this.choice = choice;
    }

    /** The coder for stripes of k data and m parity members. */
    public ErasureCoder get(int k, int m)
    {
        return byShape.computeIfAbsent(k * 256 + m, x -> choice.create(k, m));
    }

    /** The backend as configured. */
    public String configured()
    {
        return choice.configured();
    }

    /** The backend encode and decode actually use (what {@code auto} resolved to). */
    public String resolved()
    {
        return choice.backend();
    }

    /** Why this backend (e.g. "auto: ISA-L unavailable (...); Jerasure loaded"). */
    public String reason()
    {
        return choice.reason();
    }

    @Override
    public String toString()
    {
        return "coders(" + choice.configured() + " -> " + choice.backend() + ")";
    }
}
