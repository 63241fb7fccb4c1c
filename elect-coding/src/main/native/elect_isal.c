/*
 * JNI binding of ELECT's Reed-Solomon kernel to Intel ISA-L (Debian libisal-dev). The coding matrix is ours
 * (see docs/formats/codec.md); ISA-L only expands it into its tables (ec_init_tables, once per matrix, kept by
 * Java in a direct buffer) and runs the SIMD product (ec_encode_data / ec_encode_data_update).
 */
#include <isa-l/erasure_code.h>
#include "elect_jni.h"

JNIEXPORT jint JNICALL Java_io_elect_coding_IsalNative_probe(JNIEnv *env, jclass cls)
{
    /* A 1-byte product through the real library: proves the symbol binding works on this machine. */
    unsigned char a[1] = { 2 }, tables[32], in[1] = { 0x80 }, out[1] = { 0 };
    unsigned char *ip[1] = { in }, *op[1] = { out };
    ec_init_tables(1, 1, a, tables);
    ec_encode_data(1, 1, 1, tables, ip, op);
    return out[0]; /* 2 * 0x80 mod 0x11d = 0x1d */
}

JNIEXPORT void JNICALL Java_io_elect_coding_IsalNative_initTables(JNIEnv *env, jclass cls, jint cols, jint rows,
                                                                  jbyteArray matrix, jobject tables)
{
    if (cols < 1 || rows < 1 || cols > ELECT_MAX_CHUNKS || rows > ELECT_MAX_CHUNKS || matrix == NULL
        || tables == NULL || (*env)->GetArrayLength(env, matrix) != cols * rows)
    {
        elect_throw(env, "initTables: bad cols/rows or matrix length");
        return;
    }
    unsigned char *t = (unsigned char *) (*env)->GetDirectBufferAddress(env, tables);
    if (t == NULL || (*env)->GetDirectBufferCapacity(env, tables) < (jlong) 32 * cols * rows)
    {
        elect_throw(env, "initTables: tables must be a direct buffer of 32*cols*rows bytes");
        return;
    }
    unsigned char a[ELECT_MAX_CHUNKS * ELECT_MAX_CHUNKS];
    (*env)->GetByteArrayRegion(env, matrix, 0, cols * rows, (jbyte *) a);
    ec_init_tables(cols, rows, a, t);
}

JNIEXPORT void JNICALL Java_io_elect_coding_IsalNative_multiply(JNIEnv *env, jclass cls, jobject tables, jint cols,
                                                                jint rows, jobjectArray in, jint inOffset,
                                                                jobjectArray out, jint outOffset, jint len,
                                                                jboolean accumulate)
{
    unsigned char *ip[ELECT_MAX_CHUNKS], *op[ELECT_MAX_CHUNKS];
    if (cols < 1 || rows < 1 || cols > ELECT_MAX_CHUNKS || rows > ELECT_MAX_CHUNKS || tables == NULL)
    {
        elect_throw(env, "multiply: bad cols/rows or null tables");
        return;
    }
    unsigned char *t = (unsigned char *) (*env)->GetDirectBufferAddress(env, tables);
    if (t == NULL || (*env)->GetDirectBufferCapacity(env, tables) < (jlong) 32 * cols * rows)
    {
        elect_throw(env, "multiply: tables too small or not direct");
        return;
    }
    if (!elect_addresses(env, in, cols, inOffset, len, ip, "in")
        || !elect_addresses(env, out, rows, outOffset, len, op, "out"))
        return;
    if (len == 0)
        return;
    if (!accumulate)
    {
        ec_encode_data(len, cols, rows, t, ip, op);
        return;
    }
    for (int c = 0; c < cols; c++)
        ec_encode_data_update(len, cols, rows, c, t, ip[c], op);
}
