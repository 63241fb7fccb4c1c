package io.elect.coding;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The factory in this process; the rule of the backend choice itself is in CoderChoiceTest. */

class ErasureCodersTest
{
    @Test
    void explicitBackendsReportThemselvesAndShapes()
    {
        for (String b : Backends.all())
        {
            ErasureCoder c = ErasureCoders.create(6, 3, b);
            assertEquals(b, c.backend());
            assertEquals(6, c.dataChunks());
            assertEquals(3, c.parityChunks());
            assertEquals("rs-cauchy-gf8-11d:k=6:m=3", c.codecId());
        }
    }

    @Test
    void allocateAlignedGivesAlignedDirectBuffersOfTheSize()
    {
        for (int size : new int[]{ 0, 1, 100, 65536 })
        {
            ByteBuffer b = ErasureCoders.allocateAligned(size);
            assertTrue(b.isDirect());
            assertEquals(size, b.capacity());
            assertEquals(size, b.limit());
            assertEquals(0, b.position());
            if (size > 0)
                assertEquals(0, b.alignmentOffset(0, ErasureCoders.ALIGNMENT));
        }
        assertThrows(IllegalArgumentException.class, () -> ErasureCoders.allocateAligned(-1));
    }

    @Test
    void unknownBackendAndBadShapeAreRejected()
    {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                                                  () -> ErasureCoders.create(4, 2, "vandermonde"));
        assertTrue(e.getMessage().contains("elect.coder") && e.getMessage().contains("vandermonde"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ErasureCoders.create(0, 2));
        assertThrows(IllegalArgumentException.class, () -> ErasureCoders.create(200, 57));
    }

    @Test
    void autoHonoursTheSystemProperty()
    {
        String saved = System.getProperty(ErasureCoders.PROPERTY);
        try
        {
            System.setProperty(ErasureCoders.PROPERTY, "java");
            assertEquals("java", ErasureCoders.create(4, 2).backend());
            System.setProperty(ErasureCoders.PROPERTY, "java-reference");
            assertEquals("java-reference", ErasureCoders.create(4, 2, "AUTO").backend());
        }
        finally
        {
            if (saved == null)
                System.clearProperty(ErasureCoders.PROPERTY);
            else
                System.setProperty(ErasureCoders.PROPERTY, saved);
        }
    }

    /** In this process, auto follows the rule over what actually loaded (the golden cases cover the rest). */
    @Test
    void autoInThisProcessFollowsTheRule()
    {
        assumeFalse(Backends.nativeForcedOff(), "native forced off (-Delect.coder=java)");
        String saved = System.getProperty(ErasureCoders.PROPERTY);
        System.clearProperty(ErasureCoders.PROPERTY);
        try
        {
            String expected = ErasureCoders.isAvailable("isal") ? "isal"
                              : ErasureCoders.isAvailable("jerasure") ? "jerasure" : "java";
            assertEquals(expected, ErasureCoders.create(10, 4).backend());
            CoderChoice choice = ErasureCoders.choose(null);
            assertEquals("auto", choice.configured());
            assertEquals(expected, choice.backend());
            assertEquals(NativeBackends.loaded(), choice.natives());
        }
        finally
        {
            if (saved != null)
                System.setProperty(ErasureCoders.PROPERTY, saved);
        }
    }

    @Test
    void nativeForcedOffMeansAutoIsJava()
    {
        assumeTrue(Backends.nativeForcedOff(), "only in the run with -Delect.coder=java");
        assertEquals("java", ErasureCoders.create(4, 2).backend());
    }

    @Test
    void nativeBackendsHandleHeapBuffersThroughTheJavaKernel()
    {
        for (String b : Backends.fast())
        {
            ErasureCoder c = ErasureCoders.create(3, 2, b);
            ByteBuffer[] data = { ByteBuffer.wrap(new byte[]{ 1, 2 }), ByteBuffer.wrap(new byte[]{ 3, 4 }),
                                  ByteBuffer.allocateDirect(2).put(0, (byte) 5).put(1, (byte) 6) };
            ByteBuffer[] parity = { ByteBuffer.allocate(2), ByteBuffer.allocateDirect(2) };
            c.encode(data, parity, 0, 2);
            assertEquals(1 ^ 3 ^ 5, parity[0].get(0)); // parity 0 is the XOR of the data
            assertEquals(2 ^ 4 ^ 6, parity[0].get(1));
            int p1 = 1 ^ Gf256.mul(c.coefficient(1, 1), 3) ^ Gf256.mul(c.coefficient(1, 2), 5);
            assertEquals((byte) p1, parity[1].get(0));
        }
    }
}
