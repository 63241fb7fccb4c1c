package io.elect.coding;

import java.nio.ByteBuffer;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every wrong argument raises IllegalArgumentException naming it, for every backend, before memory is touched. */
class ValidationTest
{
    static java.util.List<String> backends()
    {
        return Backends.all();
    }

    private static ByteBuffer[] direct(int n, int size)
    {
        ByteBuffer[] b = new ByteBuffer[n];
        for (int i = 0; i < n; i++)
            b[i] = ByteBuffer.allocateDirect(size);
        return b;
    }

    private static void expect(String fragment, Runnable call)
    {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
        assertTrue(e.getMessage() != null && e.getMessage().contains(fragment),
                   "message '" + e.getMessage() + "' should mention '" + fragment + "'");
    }

    @ParameterizedTest
    @MethodSource("backends")
    void badEncodeArguments(String backend)
    {
        ErasureCoder c = ErasureCoders.create(4, 2, backend);
        expect("data", () -> c.encode(null, direct(2, 64), 0, 64));
        expect("data", () -> c.encode(direct(3, 64), direct(2, 64), 0, 64));
        expect("parity", () -> c.encode(direct(4, 64), direct(3, 64), 0, 64));
        ByteBuffer[] withNull = direct(4, 64);
        withNull[2] = null;
        expect("data[2]", () -> c.encode(withNull, direct(2, 64), 0, 64));
        expect("offset", () -> c.encode(direct(4, 64), direct(2, 64), -1, 10));
        expect("len", () -> c.encode(direct(4, 64), direct(2, 64), 0, -1));
        ByteBuffer[] shortOne = direct(4, 64);
        shortOne[3] = ByteBuffer.allocateDirect(63);
        expect("data[3]", () -> c.encode(shortOne, direct(2, 64), 0, 64));
        expect("data[0]", () -> c.encode(direct(4, 64), direct(2, 64), 1, 64));
        expect("data[0]", () -> c.encode(direct(4, 64), direct(2, 64), Integer.MAX_VALUE, 64));
        ByteBuffer[] readOnly = direct(2, 64);
        readOnly[1] = readOnly[1].asReadOnlyBuffer();
        expect("read-only", () -> c.encode(direct(4, 64), readOnly, 0, 64));
        ByteBuffer[] limited = direct(4, 64);
        limited[1].limit(32);
        expect("limit", () -> c.encode(limited, direct(2, 64), 0, 64));
    }

    @ParameterizedTest
    @MethodSource("backends")
    void badReconstructArguments(String backend)
    {
        ErasureCoder c = ErasureCoders.create(4, 2, backend);
        expect("chunks", () -> c.reconstruct(null, new int[]{ 0 }, 0, 8));
        expect("chunks", () -> c.reconstruct(direct(5, 8), new int[]{ 0 }, 0, 8));
        expect("erased", () -> c.reconstruct(direct(6, 8), null, 0, 8));
        expect("erased index 6", () -> c.reconstruct(direct(6, 8), new int[]{ 6 }, 0, 8));
        expect("erased index -1", () -> c.reconstruct(direct(6, 8), new int[]{ -1 }, 0, 8));
        expect("twice", () -> c.reconstruct(direct(6, 8), new int[]{ 1, 1 }, 0, 8));
        assertThrows(TooFewChunksException.class, () -> c.reconstruct(direct(6, 8), new int[]{ 0, 1, 2 }, 0, 8));
        ByteBuffer[] erasedNull = direct(6, 8);
        erasedNull[1] = null;
        expect("chunks[1]", () -> c.reconstruct(erasedNull, new int[]{ 1 }, 0, 8));
    }

    @ParameterizedTest
    @MethodSource("backends")
    void badUpdateAndCoefficientArguments(String backend)
    {
        ErasureCoder c = ErasureCoders.create(4, 2, backend);
        expect("dataIndex", () -> c.update(4, ByteBuffer.allocateDirect(8), 0, direct(2, 8), 0, 8));
        expect("dataIndex", () -> c.update(-1, ByteBuffer.allocateDirect(8), 0, direct(2, 8), 0, 8));
        expect("delta", () -> c.update(0, null, 0, direct(2, 8), 0, 8));
        expect("delta", () -> c.update(0, ByteBuffer.allocateDirect(8), 1, direct(2, 8), 0, 8));
        expect("parity[0]", () -> c.update(0, ByteBuffer.allocateDirect(8), 0, direct(2, 8), 1, 8));
        expect("deltaOffset", () -> c.update(0, ByteBuffer.allocateDirect(8), -3, direct(2, 8), 0, 8));
        expect("parityIndex", () -> c.coefficient(2, 0));
        expect("dataIndex", () -> c.coefficient(0, 4));
    }
}
