package io.elect.coding;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class CauchyMatrixTest
{
    /** Independent derivation from the documented formula, with a brute-force inverse. */
    private static int expected(int j, int i)
    {
        return mul(mul(c(j, i), c(0, 0)), inv(mul(c(0, i), c(j, 0))));
    }

    private static int c(int j, int i)
    {
        return inv((255 - j) ^ i);
    }

    private static int mul(int a, int b)
    {
        return Gf256.slowMul(a, b);
    }

    private static int inv(int a)
    {
        for (int b = 1; b < 256; b++)
            if (Gf256.slowMul(a, b) == 1)
                return b;
        throw new AssertionError("no inverse of " + a);
    }

    @Test
    void coefficientsFollowTheDocumentedFormula()
    {
        for (int j = 0; j < 16; j++)
            for (int i = 0; i < 64; i++)
                assertEquals(expected(j, i), CauchyMatrix.coefficient(j, i), "a(" + j + "," + i + ")");
    }

    @Test
    void rowZeroAndColumnZeroAreOnesAndNoCoefficientIsZero()
    {
        byte[][] a = CauchyMatrix.parityRows(20, 8);
        for (int i = 0; i < 20; i++)
            assertEquals(1, a[0][i] & 0xff);
        for (int j = 0; j < 8; j++)
            assertEquals(1, a[j][0] & 0xff);
        for (byte[] row : a)
            for (byte v : row)
                assertNotEquals(0, v);
    }

    @Test
    void coefficientsDoNotDependOnKOrM()
    {
        byte[][] small = CauchyMatrix.parityRows(4, 2);
        byte[][] wide = CauchyMatrix.parityRows(12, 6);
        for (int j = 0; j < 2; j++)
            for (int i = 0; i < 4; i++)
                assertEquals(small[j][i], wide[j][i]);
    }

    @Test
    void everySquareSubmatrixIsInvertibleForSmallCodes()
    {
        // MDS <=> every square submatrix of the parity matrix is non-singular; exhaustive for k=6, m=4.
        byte[][] a = CauchyMatrix.parityRows(6, 4);
        for (int rows = 1; rows < 16; rows++)
            for (int cols = 1; cols < 64; cols++)
            {
                int n = Integer.bitCount(rows);
                if (n != Integer.bitCount(cols))
                    continue;
                int[][] s = new int[n][n];
                int r = 0;
                for (int j = 0; j < 4; j++)
                {
                    if ((rows >>> j & 1) == 0)
                        continue;
                    int c = 0;
                    for (int i = 0; i < 6; i++)
                        if ((cols >>> i & 1) != 0)
                            s[r][c++] = a[j][i] & 0xff;
                    r++;
                }
                CauchyMatrix.invert(s); // throws if singular
            }
    }

    @Test
    void codecIdNamesTheMath()
    {
        assertEquals("rs-cauchy-gf8-11d:k=4:m=2", CauchyMatrix.codecId(4, 2));
    }

    @Test
    void shapeLimits()
    {
        assertThrows(IllegalArgumentException.class, () -> CauchyMatrix.checkShape(0, 2));
        assertThrows(IllegalArgumentException.class, () -> CauchyMatrix.checkShape(4, 0));
        assertThrows(IllegalArgumentException.class, () -> CauchyMatrix.checkShape(250, 7));
        CauchyMatrix.checkShape(250, 6);
    }
}
