/*
 * C baseline for scripts/bench.d/coding: ISA-L called directly (no JNI) with ELECT's matrix, and memcpy, on
 * the same shapes as the JMH benchmark. Prints one JSON object per line and per sample:
 *   {"backend":"c-isal"|"memcpy","op":...,"k":..,"m":..,"chunk_bytes":..,"gbps":..,"gbps_cpu":..}
 * gbps is per wall-clock second, gbps_cpu per second of this thread's CPU time.
 * GB/s counts data bytes: k*chunk for encode, reconstruct (m data chunks lost) and memcpy (k chunks copied),
 * chunk for update. Tables are built outside the timed loop, as the Java coders cache them.
 * usage: bench_isal SECONDS_PER_SAMPLE SAMPLES "4:2,6:3,10:4" "4096,65536,1048576"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <isa-l/erasure_code.h>

static double clock_seconds(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static double now(void)
{
    return clock_seconds(CLOCK_MONOTONIC);
}

/* CPU time of this thread: on a shared, overloaded VM it measures the code, not the neighbours. */
static double cpu(void)
{
    return clock_seconds(CLOCK_THREAD_CPUTIME_ID);
}

/* docs/formats/codec.md: c(j,i) = 1/((255-j) ^ i); a(j,i) = c(j,i) c(0,0) / (c(0,i) c(j,0)). */
static unsigned char cauchy(int j, int i)
{
    return gf_inv((unsigned char) ((255 - j) ^ i));
}

static unsigned char coefficient(int j, int i)
{
    return gf_mul(gf_mul(cauchy(j, i), cauchy(0, 0)), gf_inv(gf_mul(cauchy(0, i), cauchy(j, 0))));
}

static unsigned char *chunk(size_t n)
{
    unsigned char *p;
    if (posix_memalign((void **) &p, 64, n) != 0)
        exit(2);
    for (size_t x = 0; x < n; x++)
        p[x] = (unsigned char) rand();
    return p;
}

#define TIMED(seconds, bytes_per_op, body)                                   \
    do {                                                                       \
        long ops = 0;                                                          \
        double start = now(), cpu_start = cpu(), end;                          \
        do { body; ops++; } while ((end = now()) - start < (seconds));         \
        gbps = (double) ops * (bytes_per_op) / (end - start) / 1e9;            \
        gbps_cpu = (double) ops * (bytes_per_op) / (cpu() - cpu_start) / 1e9;  \
    } while (0)

static void emit(const char *backend, const char *op, int k, int m, int len, double gbps, double gbps_cpu)
{
    printf("{\"backend\":\"%s\",\"op\":\"%s\",\"k\":%d,\"m\":%d,\"chunk_bytes\":%d,\"gbps\":%.4f,\"gbps_cpu\":%.4f}\n",
           backend, op, k, m, len, gbps, gbps_cpu);
    fflush(stdout);
}

static void run(int k, int m, int len, double seconds, int samples)
{
    static unsigned char a[256 * 256], tables[32 * 256 * 256], dec[256 * 256], dtables[32 * 256 * 256];
    unsigned char *data[256], *parity[256], *copy[256], *surv[256], *out[256];
    for (int j = 0; j < m; j++)
        for (int i = 0; i < k; i++)
            a[j * k + i] = coefficient(j, i);
    ec_init_tables(k, m, a, tables);
    for (int i = 0; i < k; i++)
    {
        data[i] = chunk(len);
        copy[i] = chunk(len);
    }
    for (int j = 0; j < m; j++)
    {
        parity[j] = chunk(len);
        out[j] = chunk(len);
    }
    ec_encode_data(len, k, m, tables, data, parity);
    /* Lose data chunks 0..m-1; survivors are chunks m..k+m-1. Decode rows = rows 0..m-1 of inv(S). */
    static unsigned char s[256 * 256], inv[256 * 256];
    for (int r = 0; r < k; r++)
    {
        int c = m + r;
        surv[r] = c < k ? data[c] : parity[c - k];
        for (int i = 0; i < k; i++)
            s[r * k + i] = c < k ? (i == c) : a[(c - k) * k + i];
    }
    if (gf_invert_matrix(s, inv, k) != 0)
    {
        fprintf(stderr, "singular decode matrix\n");
        exit(3);
    }
    memcpy(dec, inv, (size_t) m * k);
    ec_init_tables(k, m, dec, dtables);
    ec_encode_data(len, k, m, dtables, surv, out);
    for (int e = 0; e < m && e < k; e++)
        if (memcmp(out[e], data[e], len) != 0)
        {
            fprintf(stderr, "reconstruct mismatch k=%d m=%d len=%d\n", k, m, len);
            exit(4);
        }
    for (int sample = 0; sample < samples; sample++)
    {
        double gbps, gbps_cpu;
        TIMED(seconds, (double) k * len, ec_encode_data(len, k, m, tables, data, parity));
        emit("c-isal", "encode", k, m, len, gbps, gbps_cpu);
        TIMED(seconds, (double) k * len, ec_encode_data(len, k, m, dtables, surv, out));
        emit("c-isal", "reconstruct", k, m, len, gbps, gbps_cpu);
        TIMED(seconds, (double) len, ec_encode_data_update(len, k, m, 1 % k, tables, copy[0], parity));
        emit("c-isal", "update", k, m, len, gbps, gbps_cpu);
        TIMED(seconds, (double) k * len, for (int i = 0; i < k; i++) memcpy(copy[i], data[i], len));
        emit("memcpy", "copy", k, m, len, gbps, gbps_cpu);
    }
    for (int i = 0; i < k; i++)
    {
        free(data[i]);
        free(copy[i]);
    }
    for (int j = 0; j < m; j++)
    {
        free(parity[j]);
        free(out[j]);
    }
}

int main(int argc, char **argv)
{
    if (argc != 5)
    {
        fprintf(stderr, "usage: %s SECONDS SAMPLES CODES SIZES\n", argv[0]);
        return 1;
    }
    double seconds = atof(argv[1]);
    int samples = atoi(argv[2]);
    char codes[256], sizes[256];
    snprintf(codes, sizeof codes, "%s", argv[3]);
    for (char *c = strtok(codes, ","); c != NULL; c = strtok(NULL, ","))
    {
        int k, m;
        if (sscanf(c, "%d:%d", &k, &m) != 2 || k < 1 || m < 1 || k + m > 256)
            return 1;
        snprintf(sizes, sizeof sizes, "%s", argv[4]);
        char *save;
        for (char *z = strtok_r(sizes, ",", &save); z != NULL; z = strtok_r(NULL, ",", &save))
            run(k, m, atoi(z), seconds, samples);
    }
    return 0;
}
