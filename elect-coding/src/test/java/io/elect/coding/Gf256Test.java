package io.elect.coding;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class Gf256Test
{
    @Test
    void tableMatchesCarrylessDefinitionForAllPairs()
    {
        for (int a = 0; a < 256; a++)
            for (int b = 0; b < 256; b++)
                assertEquals(Gf256.slowMul(a, b), Gf256.mul(a, b), a + "*" + b);
    }

    @Test
    void knownProductsOfPolynomial0x11d()
    {
        // x * x^7 = x^8 = x^4 + x^3 + x^2 + 1
        assertEquals(0x1d, Gf256.slowMul(2, 0x80));
        assertEquals(0x1d, Gf256.mul(0x80, 2));
    }

    @Test
    void inverses()
    {
        for (int a = 1; a < 256; a++)
        {
            assertEquals(1, Gf256.mul(a, Gf256.inv(a)), "inv(" + a + ")");
            assertEquals(a, Gf256.div(Gf256.mul(a, 77), 77));
        }
        assertThrows(ArithmeticException.class, () -> Gf256.inv(0));
    }

    @Test
    void packedDoublingEqualsTimesTwoInEveryLane()
    {
        for (int a = 0; a < 256; a++)
        {
            long v = 0;
            for (int lane = 0; lane < 8; lane++)
                v |= (long) ((a + 37 * lane) & 0xff) << (8 * lane);
            long d = FastJavaCoder.twice(v);
            for (int lane = 0; lane < 8; lane++)
                assertEquals(Gf256.slowMul(2, (a + 37 * lane) & 0xff), (int) (d >>> (8 * lane)) & 0xff);
        }
    }
}
