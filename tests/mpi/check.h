/* What the MPI tests share: the rank and size, a CHECK that counts failures on this rank
 * and says where, a 64-bit mixer for checksums, and the end of a test (every rank's
 * failures summed on rank 0, which prints the verdict; the exit status of every rank). */
#ifndef DIVLOAD_TESTS_MPI_CHECK_H
#define DIVLOAD_TESTS_MPI_CHECK_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

static int rank_, size_;
static int errors = 0;

#define CHECK(cond)                                                                             \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", rank_, __FILE__, __LINE__, #cond); \
            errors++;                                                                           \
        }                                                                                       \
    } while (0)

/* splitmix64's finaliser: checksums that a lost or duplicated record changes. */
static inline uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

/* Sums the failures of every rank, prints `name on N ranks: ...` on rank 0 (with
 * `passed`, a description of what ran, when there are none), finalises MPI and returns
 * the exit status. */
static inline int finish(const char *name, const char *passed) {
    int all_errors = 0;
    MPI_Allreduce(&errors, &all_errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank_ == 0) {
        if (all_errors) fprintf(stderr, "%s on %d ranks: %d failed check(s)\n", name, size_, all_errors);
        else printf("%s on %d ranks: all checks passed%s\n", name, size_, passed);
    }
    MPI_Finalize();
    return all_errors ? 1 : 0;
}

#endif
