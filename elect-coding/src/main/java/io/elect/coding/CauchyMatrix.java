package io.elect.coding;

/**
 * The generator of every ELECT codec: a systematic code whose parity rows form a normalized Cauchy matrix over
 * GF(2^8) (see docs/formats/codec.md). DO NOT CHANGE: parity on disk depends on these exact coefficients.
 *
 * <p>Construction: with x_j = 255 - j (parity j) and y_i = i (data i), c(j,i) = 1 / (x_j + y_i). Every square
 * submatrix of a Cauchy matrix is invertible, hence the code is MDS for any k + m <= 256 (x and y stay
 * disjoint). Scaling rows and columns by non-zero constants keeps that property, so the coefficients are
 * normalized to make row 0 and column 0 all ones:
 * <pre>
 *     a(j,i) = c(j,i) * c(0,0) / (c(0,i) * c(j,0))
 * </pre>
 * Parity 0 is then the plain XOR of the data (cheap), and a(j,i) depends only on (j, i), never on k or m, so a
 * stripe of k data chunks widens to k' by adding the contributions of the new chunks (Scale-RS).
 */
public final class CauchyMatrix
{
    /** Largest k + m: x_j and y_i must stay distinct elements of the 256-element field. */
    public static final int MAX_CHUNKS = 256;

    /** The prefix of every codec id made from this matrix; the id then names k and m. */
    public static final String CODEC_FAMILY = "rs-cauchy-gf8-11d";

    private CauchyMatrix()
    {
    }

    /** a(j, i), valid for any j, i with i + j <= 254 (that is, whenever i < k and j < m for k + m <= 256). */
    public static int coefficient(int parityIndex, int dataIndex)
    {
        if (parityIndex < 0 || dataIndex < 0 || parityIndex + dataIndex > MAX_CHUNKS - 2)
            throw new IllegalArgumentException("coefficient(" + parityIndex + ", " + dataIndex
                                               + "): need parityIndex >= 0, dataIndex >= 0, sum <= 254");
        int c = cauchy(parityIndex, dataIndex);
        int scale = Gf256.mul(cauchy(0, dataIndex), cauchy(parityIndex, 0));
        return Gf256.mul(Gf256.div(c, scale), cauchy(0, 0));
    }

    private static int cauchy(int j, int i)
    {
        return Gf256.inv((255 - j) ^ i);
    }

    /** The m x k parity matrix, row j holding a(j, 0..k-1). */
    public static byte[][] parityRows(int k, int m)
    {
        checkShape(k, m);
        byte[][] a = new byte[m][k];
        for (int j = 0; j < m; j++)
            for (int i = 0; i < k; i++)
                a[j][i] = (byte) coefficient(j, i);
        return a;
    }

    public static String codecId(int k, int m)
    {
        checkShape(k, m);
        return CODEC_FAMILY + ":k=" + k + ":m=" + m;
    }

    public static void checkShape(int k, int m)
    {
        if (k < 1)
            throw new IllegalArgumentException("k (data chunks) must be >= 1, got " + k);
        if (m < 1)
            throw new IllegalArgumentException("m (parity chunks) must be >= 1, got " + m);
        if (k + m > MAX_CHUNKS)
            throw new IllegalArgumentException("k + m must be <= " + MAX_CHUNKS + ", got k=" + k + " m=" + m);
    }

    /**
     * The matrix that rebuilds the chunks {@code wanted} from the chunks {@code survivors} (exactly k distinct
     * chunk indexes): row r gives the coefficients, over the survivors in the given order, of chunk wanted[r].
     */
    public static byte[][] decodeRows(int k, int m, int[] survivors, int[] wanted)
    {
        byte[][] a = parityRows(k, m);
        // S: the k x k rows of the generator [I; A] for the survivors; its inverse maps survivors to data.
        int[][] s = new int[k][k];
        for (int r = 0; r < k; r++)
            s[r] = generatorRow(a, k, survivors[r]);
        int[][] inv = invert(s);
        byte[][] out = new byte[wanted.length][k];
        for (int w = 0; w < wanted.length; w++)
        {
            // chunk = G[chunk] * data = G[chunk] * inv * survivors
            int[] g = generatorRow(a, k, wanted[w]);
            for (int c = 0; c < k; c++)
            {
                int v = 0;
                for (int i = 0; i < k; i++)
                    v ^= Gf256.mul(g[i], inv[i][c]);
                out[w][c] = (byte) v;
            }
        }
        return out;
    }

    private static int[] generatorRow(byte[][] a, int k, int chunk)
    {
        int[] row = new int[k];
        if (chunk < k)
            row[chunk] = 1;
        else
            for (int i = 0; i < k; i++)
                row[i] = a[chunk - k][i] & 0xff;
        return row;
    }

    /** Gauss-Jordan inversion over GF(2^8); the input is not modified. */
    static int[][] invert(int[][] matrix)
    {
        int n = matrix.length;
        int[][] a = new int[n][];
        int[][] inv = new int[n][n];
        for (int r = 0; r < n; r++)
        {
            a[r] = matrix[r].clone();
            inv[r][r] = 1;
        }
        for (int col = 0; col < n; col++)
        {
            int pivot = col;
            while (pivot < n && a[pivot][col] == 0)
                pivot++;
            if (pivot == n)
                throw new IllegalStateException("singular matrix: the code is not MDS (bug)");
            int[] t = a[col]; a[col] = a[pivot]; a[pivot] = t;
            t = inv[col]; inv[col] = inv[pivot]; inv[pivot] = t;
            int scale = Gf256.inv(a[col][col]);
            for (int c = 0; c < n; c++)
            {
                a[col][c] = Gf256.mul(a[col][c], scale);
                inv[col][c] = Gf256.mul(inv[col][c], scale);
            }
            for (int r = 0; r < n; r++)
            {
                int f = a[r][col];
                if (r == col || f == 0)
                    continue;
                for (int c = 0; c < n; c++)
                {
                    a[r][c] ^= Gf256.mul(f, a[col][c]);
                    inv[r][c] ^= Gf256.mul(f, inv[col][c]);
                }
            }
        }
        return inv;
    }
}
