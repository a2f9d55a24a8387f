/* divload_mpi_common.h: what the MPI helpers of every model share: the includes, an
 * allocation with its overflow check, the collective check that every rank allocated, the
 * calibration's ping-pong and its LogP estimator (several clusters, a ring of ranks), and
 * the JSON text writer the helpers write their documents with. Part of divload_mpi.h,
 * which includes it. Header-only; hand-written. */
#ifndef DIVLOAD_MPI_COMMON_H
#define DIVLOAD_MPI_COMMON_H

#include <limits.h>
#include <locale.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "divload.h"

/* poll(NULL, 0, ms) sleeps on POSIX systems; see divload_mpi_quiet_barrier_. */
#if defined(__unix__) || defined(__APPLE__)
#include <poll.h>
#define DIVLOAD_MPI_CAN_SLEEP_ 1
#else
#define DIVLOAD_MPI_CAN_SLEEP_ 0
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* calloc with the overflow check of count * size made here, not left to the C library:
 * NULL when the product exceeds SIZE_MAX. */
static inline void *divload_mpi_alloc_(size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    return calloc(count, size);
}

/* Whether `ok` holds on every rank of `comm` (collective): what each rank allocated is
   agreed on before any rank goes on, so that all take the same branch and none waits in
   a collective the others left. */
static inline int divload_mpi_all_ok_(int ok, MPI_Comm comm) {
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    return all_ok;
}

/* Your computation, for calibration: process `items` items of the sample in `ctx`. */
typedef void (*divload_mpi_compute_fn)(void *ctx, int items);

/* The tag of the calibration's messages (on its own duplicate of the communicator). */
#define DIVLOAD_MPI_CALIBRATION_TAG 0x6477

/* How to measure; zeros (or a NULL pointer) are the defaults. Read on rank 0 of the
 * communicator only, so every rank measures alike. */
typedef struct divload_mpi_calibration_options {
    int small_bytes;  /* the small message, >= 1 (0: 8 bytes) */
    int large_bytes;  /* the large message, > small_bytes (0: 262144 bytes) */
    int repetitions;  /* timed round trips per size and pair, >= 1 (0: 21) */
    int max_pairs;    /* pairs measured per kind of link, >= 1 (0: 8) */
} divload_mpi_calibration_options;

/* One kind of link, measured: heien's L, o, g. Seconds; gap in seconds per byte. */
typedef struct divload_mpi_link {
    double latency;          /* L */
    double overhead;         /* o = (o_s + o_r) / 2 */
    double gap;              /* g, seconds per byte */
    double send_overhead;    /* o_s (median over the pairs) */
    double receive_overhead; /* o_r (median over the pairs) */
    int pairs;               /* pairs of ranks measured */
    int measured;            /* 1 when measured; 0 when it copies the other kind */
} divload_mpi_link;

static inline int divload_mpi_cmp_double_(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline double divload_mpi_min_(const double *v, int n) {
    double m = v[0];
    for (int i = 1; i < n; i++)
        if (v[i] < m) m = v[i];
    return m;
}

/* The median of v[0..n), n >= 1; sorts v. */
static inline double divload_mpi_median_(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, divload_mpi_cmp_double_);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A barrier that does not hold a core while it waits: the ranks that are not being
 * measured sleep in it (1 ms at a time, where the platform can sleep), so on a node with
 * more ranks than cores they leave the cores to the pair being timed instead of
 * spinning in MPI's progress loop, where each round trip would wait for a scheduler
 * time slice (milliseconds) instead of the network. */
static inline void divload_mpi_quiet_barrier_(MPI_Comm comm) {
#if MPI_VERSION >= 3
    MPI_Request request;
    int done = 0;
    MPI_Ibarrier(comm, &request);
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    while (!done) {
#if DIVLOAD_MPI_CAN_SLEEP_
        poll(NULL, 0, 1);
#endif
        MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    }
#else
    MPI_Barrier(comm);
#endif
}

/* Times one pair: `a` sends, `b` echoes. Writes o_s, o_r, round trip small and large
 * into raw[0..4) on the rank that measured each (the other entries stay 0). */
static inline void divload_mpi_ping_pong_(MPI_Comm comm, int rank, int a, int b,
                                          const divload_mpi_calibration_options *opt, char *buf,
                                          double *samples, double *raw) {
    const int sizes[2] = {opt->small_bytes, opt->large_bytes};
    const int reps = opt->repetitions, tag = DIVLOAD_MPI_CALIBRATION_TAG;
    double *overheads = samples, *trips = samples + reps;
    for (int s = 0; s < 2; s++) {
        for (int k = -1; k < reps; k++) {
            if (rank == a) {
                double t0 = MPI_Wtime();
                MPI_Send(buf, sizes[s], MPI_BYTE, b, tag, comm);
                double t1 = MPI_Wtime();
                MPI_Recv(buf, sizes[s], MPI_BYTE, b, tag, comm, MPI_STATUS_IGNORE);
                double t2 = MPI_Wtime();
                if (k >= 0) {
                    overheads[k] = t1 - t0;
                    trips[k] = t2 - t0;
                }
            } else if (rank == b) {
                /* Probed first, so the timed MPI_Recv copies a message that is there:
                   the receive overhead, not the wait for the sender. */
                MPI_Probe(a, tag, comm, MPI_STATUS_IGNORE);
                double t0 = MPI_Wtime();
                MPI_Recv(buf, sizes[s], MPI_BYTE, a, tag, comm, MPI_STATUS_IGNORE);
                double t1 = MPI_Wtime();
                MPI_Send(buf, sizes[s], MPI_BYTE, a, tag, comm);
                if (k >= 0) overheads[k] = t1 - t0;
            }
        }
        if (rank == a) {
            if (s == 0) raw[0] = divload_mpi_min_(overheads, reps);
            raw[2 + s] = divload_mpi_min_(trips, reps);
        } else if (rank == b && s == 0) {
            raw[1] = divload_mpi_min_(overheads, reps);
        }
    }
}

/* heien's L, o, g of one kind of link from its pairs' raw timings (see the estimator
 * above); `work` holds 5 * pairs doubles. */
static inline divload_mpi_link divload_mpi_estimate_(const double *raw, int pairs,
                                                     const divload_mpi_calibration_options *opt,
                                                     double *work) {
    divload_mpi_link link;
    memset(&link, 0, sizeof link);
    link.pairs = pairs;
    link.measured = pairs > 0;
    if (pairs == 0) return link;
    const double s = opt->small_bytes, m = opt->large_bytes;
    double *L = work, *o = work + pairs, *g = work + 2 * pairs, *os = work + 3 * pairs, *orr = work + 4 * pairs;
    for (int p = 0; p < pairs; p++) {
        const double *r = raw + 4 * p;
        const double h_small = 0.5 * r[2], h_large = 0.5 * r[3];
        os[p] = r[0];
        orr[p] = r[1];
        o[p] = 0.5 * (r[0] + r[1]);
        g[p] = (h_large - h_small) / (m - s);
        L[p] = h_small - 2.0 * o[p] - s * g[p];
    }
    link.latency = divload_mpi_median_(L, pairs);
    link.overhead = divload_mpi_median_(o, pairs);
    link.gap = divload_mpi_median_(g, pairs);
    link.send_overhead = divload_mpi_median_(os, pairs);
    link.receive_overhead = divload_mpi_median_(orr, pairs);
    if (!(link.latency > 0.0)) link.latency = 0.0;
    if (!(link.gap > 0.0)) link.gap = 0.0;
    return link;
}

/* Text written twice: first only counted (buf NULL), then for real. */
typedef struct divload_mpi_text_ {
    char *buf;
    size_t cap;
    size_t len;
} divload_mpi_text_;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static inline void divload_mpi_put_(divload_mpi_text_ *t, const char *format, ...) {
    va_list args;
    va_start(args, format);
    const int room = t->buf != NULL && t->len < t->cap;
    const int n = vsnprintf(room ? t->buf + t->len : NULL, room ? t->cap - t->len : 0, format, args);
    va_end(args);
    if (n > 0) t->len += (size_t)n;
}

/* The length of the valid UTF-8 sequence that starts at `s` (1 to 4 bytes), or 0 when
 * the byte there starts none (RFC 3629 §4: no overlong forms, no surrogates, nothing
 * above U+10FFFF). Stops at the first byte that does not fit, so never reads past a NUL. */
static inline int divload_mpi_utf8_length_(const unsigned char *s) {
    const unsigned char c = s[0];
    unsigned char lo = 0x80, hi = 0xbf;
    int n;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0) lo = 0xa0;
        if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0) lo = 0x90;
        if (c == 0xf4) hi = 0x8f;
    } else {
        return 0;
    }
    if (s[1] < lo || s[1] > hi) return 0;
    for (int i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf) return 0;
    return n;
}

/* A JSON string: quotes, backslashes and control characters escaped (RFC 8259 §7). A
 * JSON text is UTF-8 (§8.1), and a host name need not be: each byte that does not start
 * a valid UTF-8 sequence is read as Latin-1 and written as \u00XX, so the document
 * parses whatever the name holds. */
static inline void divload_mpi_put_string_(divload_mpi_text_ *t, const char *s) {
    divload_mpi_put_(t, "\"");
    const unsigned char *p = (const unsigned char *)s;
    while (*p != '\0') {
        const int n = divload_mpi_utf8_length_(p);
        if (n == 0 || *p < 0x20)
            divload_mpi_put_(t, "\\u%04x", *p);
        else if (*p == '"' || *p == '\\')
            divload_mpi_put_(t, "\\%c", *p);
        else
            divload_mpi_put_(t, "%.*s", n, (const char *)p);
        p += n == 0 ? 1 : n;
    }
    divload_mpi_put_(t, "\"");
}

/* A double as JSON: %.17g reads back exactly, but writes LC_NUMERIC's decimal point (a
 * comma in many locales, several bytes in some), which is replaced by '.'. Nothing else
 * in %.17g depends on the locale: only the ' flag groups thousands. */
static inline void divload_mpi_put_double_(divload_mpi_text_ *t, double v) {
    char num[64];
    const int n = snprintf(num, sizeof num, "%.17g", v);
    if (n < 0 || (size_t)n >= sizeof num) {
        /* Only a decimal point of 40 bytes or more gets here (%.17g writes at most 24
           others); null makes the planner refuse the document instead of misreading it. */
        divload_mpi_put_(t, "null");
        return;
    }
    const struct lconv *conv = localeconv();
    const char *point = conv != NULL ? conv->decimal_point : NULL;
    char *at = point != NULL && point[0] != '\0' && strcmp(point, ".") != 0 ? strstr(num, point) : NULL;
    if (at != NULL) {
        const size_t len = strlen(point);
        *at = '.';
        memmove(at + 1, at + len, strlen(at + len) + 1);
    }
    divload_mpi_put_(t, "%s", num);
}

#ifdef __cplusplus
}
#endif

#endif /* DIVLOAD_MPI_COMMON_H */
