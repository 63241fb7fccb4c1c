package io.elect.core.stripes;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.elect.coding.ErasureCoder;
import io.elect.coding.ErasureCoders;

/**
 * The node's erasure coders: one per stripe shape (k, m), created on first use with the backend the node is
 * configured with ({@code elect.coder}: auto, isal, jerasure or java). Every backend produces the same bytes for a
 * codec id (docs/formats/codec.md), so the backend only changes speed, never what is stored. Thread-safe; coders
 * are thread-safe and immutable, so this is a cache of immutable objects.
 */
public final class Coders
{
    private final String backend;
    private final Map<Integer, ErasureCoder> byShape = new ConcurrentHashMap<>();

    /** @param backend the configured backend name (see {@link ErasureCoders}); an unavailable one fails at first use */
    public Coders(String backend)
    {
        this.backend = backend == null ? ErasureCoders.AUTO : backend;
    }

    /** The coder for stripes of k data and m parity members. */
    public ErasureCoder get(int k, int m)
    {
        return byShape.computeIfAbsent(k * 256 + m, x -> ErasureCoders.create(k, m, backend));
    }

    /** The backend as configured. */
    public String configured()
    {
        return backend;
    }

    /** The backend encode and decode actually use (what {@code auto} resolved to). */
    public String resolved()
    {
        return ErasureCoders.AUTO.equals(backend) ? ErasureCoders.autoBackend() : backend;
    }

    @Override
    public String toString()
    {
        return "coders(" + backend + (ErasureCoders.AUTO.equals(backend) ? " -> " + resolved() : "") + ")";
    }
}
