/* MPI test of divload_mpi_calibrate under a real mpirun (tests/mpi/run: 2, 4 and 8 ranks,
 * OpenMPI and MPICH).
 *
 * The sample buffer must hold sample_items elements of any datatype: docs/c-and-mpi.md's matrix
 * column (a vector resized to one int, so its elements interleave: the span is the true
 * extent plus (k - 1) ints, far more than k extents) and a type whose data lie before its
 * start (true lower bound -16). Every allocation divload_mpi.h makes here sits against a
 * PROT_NONE page (after it, or before it for the second type) and the slack up to the
 * page is a canary checked on free, so a byte read or written outside the buffer stops
 * the test with SIGSEGV or a failed check under any MPI, with or without sanitizers.
 *
 * Also: the calibration's messages never match the caller's (messages with tags 0 and 1
 * in flight on the same communicator arrive intact afterwards); a root out of range, a
 * NULL argument on one rank and a span beyond the address space fail on every rank with
 * the same code and leave my_costs as it was. Exit status 0 only if every rank passed. */
/* mmap, mprotect and sysconf under -std=c11. */
#define _DEFAULT_SOURCE
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <mpi.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "divload.h"

/* Guarded allocations, for divload_mpi.h only: the macros below are defined after every
 * header it includes, so only its own calls are redirected. */
#define GUARDED_MAX 64
#define CANARY 0xa5
static struct {
    char *map;
    size_t map_len;
    char *user;
    size_t size;  /* bytes asked for */
    size_t slack; /* canary bytes after them, up to the end of the usable pages */
} guarded[GUARDED_MAX];
static int guard_below = 0; /* 1: the guard page precedes each block (catches underflows) */

static void *guarded_calloc(size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), n = count * size;
    /* 16-byte aligned like malloc's blocks; the rounding is covered by the canary. */
    const size_t body = ((n ? n : 1) + 15) & ~(size_t)15, pages = (body + page - 1) / page;
    int slot = 0;
    while (slot < GUARDED_MAX && guarded[slot].map != NULL) slot++;
    if (slot == GUARDED_MAX) {
        fprintf(stderr, "rank %d: test_calibrate: more than %d live allocations\n", rank_, GUARDED_MAX);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const size_t len = (pages + 1) * page;
    char *map = (char *)mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) return NULL;
    char *user = guard_below ? map + page : map + pages * page - body;
    if (mprotect(guard_below ? map : map + pages * page, page, PROT_NONE) != 0) {
        munmap(map, len);
        return NULL;
    }
    const size_t slack = guard_below ? pages * page - n : body - n;
    memset(user + n, CANARY, slack);
    guarded[slot].map = map;
    guarded[slot].map_len = len;
    guarded[slot].user = user;
    guarded[slot].size = n;
    guarded[slot].slack = slack;
    return user;
}

static void guarded_free(void *p) {
    if (p == NULL) return;
    for (int slot = 0; slot < GUARDED_MAX; slot++) {
        if (guarded[slot].user != p) continue;
        const unsigned char *tail = (const unsigned char *)p + guarded[slot].size;
        size_t damaged = 0;
        for (size_t i = 0; i < guarded[slot].slack; i++) damaged += tail[i] != CANARY;
        if (damaged) {
            fprintf(stderr, "rank %d: %zu byte(s) written past a block of %zu bytes\n", rank_, damaged,
                    guarded[slot].size);
            errors++;
        }
        munmap(guarded[slot].map, guarded[slot].map_len);
        guarded[slot].map = NULL;
        guarded[slot].user = NULL;
        return;
    }
    fprintf(stderr, "rank %d: free of a pointer not allocated here\n", rank_);
    errors++;
}

#define calloc guarded_calloc
#define malloc(n) guarded_calloc(1, (n))
#define free guarded_free
#include "divload_mpi.h"
#undef calloc
#undef malloc
#undef free

static void busy(void *ctx, int items) {
    volatile double *acc = (volatile double *)ctx;
    for (int i = 0; i < items * 500; i++) *acc = *acc * 1.0000001 + 1e-9;
}

static int same_everywhere(int v) {
    int lo, hi;
    MPI_Allreduce(&v, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi && lo == v;
}

/* A calibration that must succeed, with costs that plan. */
static void calibrate_ok(MPI_Datatype type, int sample_items, int root) {
    double acc = 1.0;
    divload_worker me;
    memset(&me, 0, sizeof me);
    const int err = divload_mpi_calibrate(MPI_COMM_WORLD, root, type, sample_items, busy, (void *)&acc, &me);
    CHECK(err == MPI_SUCCESS);
    CHECK(isfinite(me.comp_per_item) && me.comp_per_item > 0 && me.comp_latency >= 0);
    CHECK(isfinite(me.comm_per_item) && me.comm_per_item >= 0 && me.comm_latency >= 0);
    if (rank_ == root) CHECK(me.comm_per_item == 0 && me.comm_latency == 0);
}

/* A calibration that must fail with `expected` on every rank and leave my_costs alone. */
static void calibrate_fails(MPI_Datatype type, int sample_items, int root, int null_here, int expected) {
    double acc = 1.0;
    divload_worker me = {1.0, 2.0, 3.0, 4.0};
    const int err = divload_mpi_calibrate(MPI_COMM_WORLD, root, type, sample_items, null_here ? NULL : busy,
                                          (void *)&acc, &me);
    CHECK(err == expected && same_everywhere(err));
    CHECK(me.comm_latency == 1.0 && me.comm_per_item == 2.0 && me.comp_latency == 3.0 && me.comp_per_item == 4.0);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);

    /* docs/c-and-mpi.md's column of an N x N int matrix: a vector resized to one int. 16 items
       span 15 ints + the true extent (N - 1) * N + 1 ints. */
    enum { N = 64 };
    MPI_Datatype vector, column;
    MPI_Type_vector(N, 1, N, MPI_INT, &vector);
    MPI_Type_create_resized(vector, 0, sizeof(int), &column);
    MPI_Type_commit(&column);
    calibrate_ok(column, 16, 0);
    calibrate_ok(column, 16, size_ - 1);

    /* Data 16 bytes before each element's start: true lower bound -16. */
    int four = 4;
    MPI_Aint before = -16;
    MPI_Datatype ints = MPI_INT, behind;
    MPI_Type_create_struct(1, &four, &before, &ints, &behind);
    MPI_Type_commit(&behind);
    guard_below = 1;
    calibrate_ok(behind, 16, 0);
    guard_below = 0;
    calibrate_ok(MPI_DOUBLE, 64, 0);

    /* The caller's messages in flight with the calibration's old tags, 0 and 1, on the same
       communicator: the calibration must not take them, nor they its messages. */
    const int root = 0;
    int *to_workers = (int *)malloc(sizeof(int) * (size_t)size_);
    MPI_Request *requests = (MPI_Request *)malloc(sizeof(MPI_Request) * (size_t)size_);
    int to_root = 2000 + rank_, n_requests = 0;
    if (rank_ == root) {
        for (int r = 0; r < size_; r++) {
            to_workers[r] = 1000 + r;
            if (r != root) MPI_Isend(&to_workers[r], 1, MPI_INT, r, 0, MPI_COMM_WORLD, &requests[n_requests++]);
        }
    } else {
        MPI_Isend(&to_root, 1, MPI_INT, root, 1, MPI_COMM_WORLD, &requests[n_requests++]);
    }
    calibrate_ok(MPI_DOUBLE, 8, root);
    if (rank_ == root) {
        for (int r = 0; r < size_; r++) {
            int got = -1;
            if (r == root) continue;
            MPI_Recv(&got, 1, MPI_INT, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(got == 2000 + r);
        }
    } else {
        int got = -1;
        MPI_Recv(&got, 1, MPI_INT, root, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(got == 1000 + rank_);
    }
    /* One at a time: GCC takes MPICH's MPI_STATUSES_IGNORE for an empty array. */
    for (int i = 0; i < n_requests; i++) MPI_Wait(&requests[i], MPI_STATUS_IGNORE);
    free(requests);
    free(to_workers);

    /* Failures, the same on every rank. */
    calibrate_fails(MPI_DOUBLE, 8, size_, 0, MPI_ERR_ROOT);
    calibrate_fails(MPI_DOUBLE, 8, -1, 0, MPI_ERR_ROOT);
    calibrate_fails(MPI_DOUBLE, 8, 0, rank_ == size_ - 1, MPI_ERR_ARG);
    calibrate_fails(MPI_DOUBLE, 1, 0, 0, MPI_ERR_ARG);
    /* Two bytes a quarter of the address space apart: the true extent alone is beyond
       what can be allocated (and 8 extents wrap around to 0 in 64 bits). */
    MPI_Datatype far_apart, far_step;
    MPI_Type_create_hvector(2, 1, (MPI_Aint)(PTRDIFF_MAX / 4), MPI_BYTE, &far_apart);
    MPI_Type_commit(&far_apart);
    calibrate_fails(far_apart, 8, 0, 0, MPI_ERR_NO_MEM);
    /* A small true extent and a huge extent: (items - 1) * extent overflows. */
    MPI_Type_create_resized(MPI_INT, 0, (MPI_Aint)1 << 62, &far_step);
    MPI_Type_commit(&far_step);
    calibrate_fails(far_step, 16, 0, 0, MPI_ERR_NO_MEM);

    MPI_Type_free(&far_step);
    MPI_Type_free(&far_apart);
    MPI_Type_free(&behind);
    MPI_Type_free(&column);
    MPI_Type_free(&vector);
    return finish("test_calibrate",
                  " (column and negative-lower-bound types against guard pages; tags; failures on every rank)");
}
