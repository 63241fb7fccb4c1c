/*
 * JNI binding of ELECT's Reed-Solomon kernel to Jerasure 2.0 + GF-Complete (Debian libjerasure-dev,
 * libgf-complete-dev), w = 8, with ELECT's own matrix (docs/formats/codec.md) handed to jerasure_matrix_encode
 * (also used for decode rows: it is a plain matrix-times-regions product) and galois_w08_region_multiply.
 *
 * Jerasure requires long-word aligned regions. When every pointer is 16-byte aligned and the length a multiple
 * of 16 the library runs in place; otherwise the regions are bounced through aligned scratch memory.
 */
#include <stdlib.h>
#include <string.h>
#include <jerasure.h>
#include <galois.h>
#include "elect_jni.h"

static int aligned(unsigned char **p, int n, jint len)
{
    if (len % 16 != 0)
        return 0;
    for (int i = 0; i < n; i++)
        if (((uintptr_t) p[i]) % 16 != 0)
            return 0;
    return 1;
}

static void product(int *matrix, int cols, int rows, char **ip, char **op, int len, int accumulate)
{
    if (!accumulate)
    {
        jerasure_matrix_encode(cols, rows, 8, matrix, ip, op, len);
        return;
    }
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            galois_w08_region_multiply(ip[c], matrix[r * cols + c], len, op[r], 1);
}

JNIEXPORT jint JNICALL Java_io_elect_coding_JerasureNative_probe(JNIEnv *env, jclass cls)
{
    /* Jerasure builds its GF tables lazily and without a lock (galois_init_default_field publishes gfp_array[w]
     * before initializing it), so two threads making the first region multiply (w = 8) or the first region XOR
     * (galois_w32_region_xor, w = 32) at once can crash (seen: SIGSEGV in galois_w32_region_xor). Build both here:
     * the probe runs once, under the JVM's class-initialization lock, before any coder can be used. */
    if (galois_init_default_field(8) != 0 || galois_init_default_field(32) != 0)
        return -1;
    return galois_single_multiply(2, 0x80, 8); /* 0x1d with polynomial 0x11d */
}

JNIEXPORT void JNICALL Java_io_elect_coding_JerasureNative_multiply(JNIEnv *env, jclass cls, jintArray matrix,
                                                                    jint cols, jint rows, jobjectArray in,
                                                                    jint inOffset, jobjectArray out, jint outOffset,
                                                                    jint len, jboolean accumulate)
{
    unsigned char *ip[ELECT_MAX_CHUNKS], *op[ELECT_MAX_CHUNKS];
    if (cols < 1 || rows < 1 || cols > ELECT_MAX_CHUNKS || rows > ELECT_MAX_CHUNKS || matrix == NULL
        || (*env)->GetArrayLength(env, matrix) != cols * rows)
    {
        elect_throw(env, "multiply: bad cols/rows or matrix length");
        return;
    }
    if (!elect_addresses(env, in, cols, inOffset, len, ip, "in")
        || !elect_addresses(env, out, rows, outOffset, len, op, "out"))
        return;
    if (len == 0)
        return;
    int *m = malloc(sizeof(int) * cols * rows);
    if (m == NULL)
    {
        elect_throw(env, "multiply: out of native memory");
        return;
    }
    (*env)->GetIntArrayRegion(env, matrix, 0, cols * rows, m);
    if (aligned(ip, cols, len) && aligned(op, rows, len))
    {
        product(m, cols, rows, (char **) ip, (char **) op, len, accumulate);
        free(m);
        return;
    }
    /* Bounce: one aligned block per region, padded to a multiple of 16 bytes (padding bytes are zero). */
    size_t padded = ((size_t) len + 15) & ~(size_t) 15;
    char *scratch = NULL;
    if (posix_memalign((void **) &scratch, 64, padded * (cols + rows)) != 0)
    {
        free(m);
        elect_throw(env, "multiply: out of native memory");
        return;
    }
    memset(scratch, 0, padded * (cols + rows));
    char *bi[ELECT_MAX_CHUNKS], *bo[ELECT_MAX_CHUNKS];
    for (int c = 0; c < cols; c++)
    {
        bi[c] = scratch + padded * c;
        memcpy(bi[c], ip[c], len);
    }
    for (int r = 0; r < rows; r++)
    {
        bo[r] = scratch + padded * (cols + r);
        if (accumulate)
            memcpy(bo[r], op[r], len);
    }
    product(m, cols, rows, bi, bo, (int) padded, accumulate);
    for (int r = 0; r < rows; r++)
        memcpy(op[r], bo[r], len);
    free(scratch);
    free(m);
}
