/*
 * Shared JNI helpers for the ELECT native codecs. Every entry point validates all of its arguments before
 * touching memory (Java validates too; this is the second line of defence, a JVM crash is a bug) and throws
 * IllegalArgumentException naming the argument on failure.
 */
#ifndef ELECT_JNI_H
#define ELECT_JNI_H

#include <jni.h>
#include <stdint.h>
#include <stdio.h>

#define ELECT_MAX_CHUNKS 256

static void elect_throw(JNIEnv *env, const char *message)
{
    jclass iae = (*env)->FindClass(env, "java/lang/IllegalArgumentException");
    if (iae != NULL)
        (*env)->ThrowNew(env, iae, message);
}

/*
 * Fills ptrs[0..count) with the addresses of buffers[i] + offset, checking that the array has exactly count
 * direct buffers whose capacity covers [offset, offset + len). Returns 0 and throws on failure.
 */
static int elect_addresses(JNIEnv *env, jobjectArray buffers, int count, jint offset, jint len,
                           unsigned char **ptrs, const char *name)
{
    char message[160];
    if (buffers == NULL || count < 1 || count > ELECT_MAX_CHUNKS || offset < 0 || len < 0)
    {
        snprintf(message, sizeof message, "%s: null array or bad count/offset/len", name);
        elect_throw(env, message);
        return 0;
    }
    if ((*env)->GetArrayLength(env, buffers) != count)
    {
        snprintf(message, sizeof message, "%s: expected %d buffers", name, count);
        elect_throw(env, message);
        return 0;
    }
    for (int i = 0; i < count; i++)
    {
        jobject b = (*env)->GetObjectArrayElement(env, buffers, i);
        unsigned char *base = b == NULL ? NULL : (unsigned char *) (*env)->GetDirectBufferAddress(env, b);
        jlong capacity = b == NULL ? -1 : (*env)->GetDirectBufferCapacity(env, b);
        if (b != NULL)
            (*env)->DeleteLocalRef(env, b);
        if (base == NULL || capacity < (jlong) offset + (jlong) len)
        {
            snprintf(message, sizeof message, "%s[%d]: null, not direct, or capacity below offset+len", name, i);
            elect_throw(env, message);
            return 0;
        }
        ptrs[i] = base + offset;
    }
    return 1;
}

#endif
