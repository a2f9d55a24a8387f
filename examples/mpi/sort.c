/* A heterogeneous parallel sort (cerin2006 §5, the sample sort of its §1.1): ranks of
 * different speeds sort batches of fixed-size records, each batch split by divload so
 * that all ranks finish their computation together, the split learned from the timings
 * of the batches before.
 *
 * Records are 100 bytes with a 10-byte key of printable characters (the paper's Minute
 * Sort records), generated deterministically: record g of batch b is the same whichever
 * rank makes it. Per batch and split, rank i takes records [displs[i], displs[i] +
 * counts[i]) of the batch, sorts them locally, cuts them at weighted splitters
 * (divload_mpi_partition_splitters), exchanges them with MPI_Alltoallv, merges the runs
 * it received, and moves the few records around the splitters so that it holds exactly
 * its planned count (divload_mpi_partition_rebalance). The output is the batch sorted,
 * in rank order.
 *
 * Emulated speeds. Rank r is `slowdown(r)` times slower than the fastest: after each
 * comparison of its local sort and merge it does `work * slowdown(r)` units of busy work
 * (as the seismic example does per record), so its computation keeps the real sort's n
 * log n shape and the ranks are uniformly related. Times are each rank's CPU time
 * (CLOCK_THREAD_CPUTIME_ID): with more ranks than cores the wall clock would charge a
 * rank for its neighbours' work, the CPU clock times the emulated processor alone. The
 * exchange is timed on the wall clock and reported apart. Each rank's speed is measured
 * first (divload_mpi_measure_speed on a fixed sample sort).
 *
 * Splits compared, each on the same records of every batch, each a separate timed run:
 * learned (divload_mpi_partition_plan with DIVLOAD_MPI_SPLIT_LEARNED: the first batch by
 * speed, the linear guess; then each rank's measured cost, learned from the learned
 * runs only), by speed alone (the paper's A.1, by its text) and even (A.1 by its
 * numbers: derivation partition.md §8).
 *
 *     mpicc sort.c -o sort $(pkg-config --cflags --libs divload)
 *     mpirun -np 4 ./sort [--records N] [--batches B] [--work W] [--samples S] [--check]
 *                         [--beat-speed PERCENT]
 *
 * --check exits with status 1 unless, in every run, the output is globally sorted, every
 * record is there exactly once (count, and sum and xor of a hash of each record, before
 * and after) and every rank holds its planned count. --beat-speed P (with --check) also
 * asks that the learned split's compute makespans, summed over batches 2..B, be at most
 * the speed-only split's summed the same way, plus P % for timing noise. The gain must
 * stand above the noise for that: 5-8 % with 4 and 8 ranks here, against 2-3 % of noise
 * between runs of the same split; with 2 ranks (slowdowns 1 and 3, speeds measured
 * nearly right) it is 0-4 %, inside the noise, and tests/mpi/run does not ask. */
#define _POSIX_C_SOURCE 200809L
#include "divload_mpi.h"

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define KEY_BYTES 10
#define RECORD_BYTES 100

typedef struct {
    unsigned char key[KEY_BYTES];
    unsigned char payload[RECORD_BYTES - KEY_BYTES]; /* the record's number g, then filler */
} record;

enum { LEARNED, SPEED, EVEN, SPLITS };
static const char *const split_names[SPLITS] = {"learned", "speed", "even"};
static const int split_codes[SPLITS] = {DIVLOAD_MPI_SPLIT_LEARNED, DIVLOAD_MPI_SPLIT_SPEED, DIVLOAD_MPI_SPLIT_EVEN};

static int rank_, size_;
static long work_ = 8;
static long long comparisons_;
static volatile double sink_;

static int slowdown(int r) {
    static const int pattern[] = {1, 3, 2, 4};
    return pattern[r % 4];
}

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* splitmix64's finaliser. */
static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

/* Record g of batch b: 10 printable characters (95 symbols, five from each of two
 * 64-bit hashes), then g and filler derived from it. */
static void make_record(record *rec, int batch, uint64_t g) {
    uint64_t x = mix(((uint64_t)batch << 48) ^ g ^ 0x5eed);
    for (int i = 0; i < KEY_BYTES; i++) {
        if (i == KEY_BYTES / 2) x = mix(x + 0x9e3779b97f4a7c15ULL);
        rec->key[i] = (unsigned char)(' ' + x % 95);
        x /= 95;
    }
    memcpy(rec->payload, &g, sizeof g);
    for (size_t i = sizeof g; i < sizeof rec->payload; i++) rec->payload[i] = (unsigned char)(g * 31 + i);
}

/* A hash of the whole record (FNV-1a, then mixed). */
static uint64_t record_hash(const record *rec) {
    const unsigned char *b = (const unsigned char *)rec;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < sizeof *rec; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    return mix(h);
}

/* The emulated processor's extra time: busy work for `n` comparisons. */
static void busy(long long n) {
    /* Started from the sink: from a constant the compiler finds the loop's fixed point. */
    double acc = sink_ + 0.5;
    const long long steps = n * work_ * slowdown(rank_);
    for (long long i = 0; i < steps; i++) acc = acc * 0.999999 + 1e-6;
    sink_ = acc;
}

static int compare_records(const void *a, const void *b) {
    comparisons_++;
    return memcmp(a, b, KEY_BYTES);
}

/* Sorts `n` records and does the emulated busy work for its comparisons. */
static void local_sort(record *recs, int n) {
    comparisons_ = 0;
    qsort(recs, (size_t)n, sizeof *recs, compare_records);
    busy(comparisons_);
}

/* For divload_mpi_measure_speed: a fixed sample, copied then sorted. */
typedef struct {
    const record *sample;
    record *scratch;
} speed_sample;

static void sort_sample(void *ctx, int items) {
    speed_sample *s = (speed_sample *)ctx;
    memcpy(s->scratch, s->sample, sizeof(record) * (size_t)items);
    local_sort(s->scratch, items);
}

/* Merges the `size_` sorted runs of `in` (run r: counts[r] records from displs[r]) into
 * `out`, with busy work for its comparisons. */
static void merge_runs(const record *in, const int *counts, const int *displs, record *out, int *head) {
    long long cmp = 0;
    int total = 0;
    for (int r = 0; r < size_; r++) {
        head[r] = 0;
        total += counts[r];
    }
    for (int o = 0; o < total; o++) {
        int best = -1;
        for (int r = 0; r < size_; r++) {
            if (head[r] >= counts[r]) continue;
            if (best >= 0) {
                cmp++;
                if (memcmp(in[displs[r] + head[r]].key, in[displs[best] + head[best]].key, KEY_BYTES) >= 0)
                    continue;
            }
            best = r;
        }
        out[o] = in[displs[best] + head[best]++];
    }
    busy(cmp);
}

typedef struct {
    double compute;    /* this rank's CPU seconds: local sort and merge, with busy work */
    double exchange;   /* wall seconds of splitters, exchange and rebalance */
    int received;      /* records after the exchange, before rebalancing */
    long long moved;   /* records the rebalancing moved (all ranks) */
} run_times;

/* One batch under the partition's current plan; returns the number of failed checks on
 * this rank. */
static int run_batch(divload_mpi_partition *part, int batch, int samples, MPI_Datatype rec_type, run_times *t) {
    int failures = 0;
    const int n = part->my_count;
    record *mine = (record *)malloc(sizeof(record) * (size_t)(n + 1));
    int *sendcounts = (int *)malloc(sizeof(int) * (size_t)size_ * 5);
    if (mine == NULL || sendcounts == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
    int *sdispls = sendcounts + size_, *recvcounts = sendcounts + 2 * size_, *rdispls = sendcounts + 3 * size_;
    int *head = sendcounts + 4 * size_;
    uint64_t sums[3] = {0, 0, 0}, before[3], after[3]; /* count, sum, xor */
    for (int j = 0; j < n; j++) {
        make_record(&mine[j], batch, (uint64_t)part->my_displacement + (uint64_t)j);
        const uint64_t h = record_hash(&mine[j]);
        sums[0]++;
        sums[1] += h;
        sums[2] ^= h;
    }
    MPI_Allreduce(sums, before, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(sums + 2, before + 2, 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);

    double c0 = cpu_seconds();
    local_sort(mine, n);
    t->compute = cpu_seconds() - c0;

    const double w0 = MPI_Wtime();
    int st = divload_mpi_partition_splitters(part, mine, n, sizeof(record), 0, KEY_BYTES, samples, sendcounts);
    if (st != DIVLOAD_OK) {
        if (rank_ == 0) fprintf(stderr, "sort: splitters failed: %s\n", divload_status_message((uint32_t)st));
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    MPI_Alltoall(sendcounts, 1, MPI_INT, recvcounts, 1, MPI_INT, MPI_COMM_WORLD);
    int got = 0;
    for (int r = 0, s = 0; r < size_; r++) {
        sdispls[r] = s;
        s += sendcounts[r];
        rdispls[r] = got;
        got += recvcounts[r];
    }
    record *runs = (record *)malloc(sizeof(record) * (size_t)(got + 1));
    record *merged = (record *)malloc(sizeof(record) * (size_t)(got + 1));
    record *out = (record *)malloc(sizeof(record) * (size_t)(n + 1));
    if (runs == NULL || merged == NULL || out == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Alltoallv(mine, sendcounts, sdispls, rec_type, runs, recvcounts, rdispls, rec_type, MPI_COMM_WORLD);
    double exchange = MPI_Wtime() - w0;

    c0 = cpu_seconds();
    merge_runs(runs, recvcounts, rdispls, merged, head);
    t->compute += cpu_seconds() - c0;

    const double w1 = MPI_Wtime();
    st = divload_mpi_partition_rebalance(part, merged, got, rec_type, out, &t->moved);
    if (st != DIVLOAD_OK) {
        if (rank_ == 0) fprintf(stderr, "sort: rebalance failed: %s\n", divload_status_message((uint32_t)st));
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    t->exchange = exchange + (MPI_Wtime() - w1);
    t->received = got;

    /* Checks: sorted here, in order across ranks, every record once, the planned count. */
    sums[0] = sums[1] = sums[2] = 0;
    for (int j = 0; j < n; j++) {
        const uint64_t h = record_hash(&out[j]);
        sums[0]++;
        sums[1] += h;
        sums[2] ^= h;
        if (j > 0 && memcmp(out[j - 1].key, out[j].key, KEY_BYTES) > 0) failures++;
    }
    MPI_Allreduce(sums, after, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(sums + 2, after + 2, 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
    if (memcmp(before, after, sizeof before) != 0 || after[0] != (uint64_t)part->items) failures++;
    unsigned char ends[2 * KEY_BYTES + 1] = {0};
    ends[2 * KEY_BYTES] = n > 0;
    if (n > 0) {
        memcpy(ends, out[0].key, KEY_BYTES);
        memcpy(ends + KEY_BYTES, out[n - 1].key, KEY_BYTES);
    }
    unsigned char *all_ends = (unsigned char *)malloc(sizeof ends * (size_t)size_);
    if (all_ends == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Allgather(ends, (int)sizeof ends, MPI_BYTE, all_ends, (int)sizeof ends, MPI_BYTE, MPI_COMM_WORLD);
    if (rank_ == 0) {
        const unsigned char *last = NULL;
        for (int r = 0; r < size_; r++) {
            const unsigned char *e = all_ends + (size_t)r * sizeof ends;
            if (!e[2 * KEY_BYTES]) continue;
            if (last != NULL && memcmp(last, e, KEY_BYTES) > 0) failures++;
            last = e + KEY_BYTES;
        }
    }
    free(all_ends);
    free(runs);
    free(merged);
    free(out);
    free(mine);
    free(sendcounts);
    return failures;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    long long n = 400000;
    int batches = 5, samples = 0, check = 0;
    double margin = -1.0; /* --beat-speed: none asked */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--records") == 0 && i + 1 < argc) n = atoll(argv[++i]);
        else if (strcmp(argv[i], "--batches") == 0 && i + 1 < argc) batches = atoi(argv[++i]);
        else if (strcmp(argv[i], "--work") == 0 && i + 1 < argc) work_ = atol(argv[++i]);
        else if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc) samples = atoi(argv[++i]);
        else if (strcmp(argv[i], "--check") == 0) check = 1;
        else if (strcmp(argv[i], "--beat-speed") == 0 && i + 1 < argc) margin = atof(argv[++i]);
        else {
            if (rank_ == 0)
                fprintf(stderr, "usage: sort [--records N] [--batches B] [--work W] [--samples S] [--check] "
                                "[--beat-speed PERCENT]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (n < 1 || n > INT_MAX || batches < 1 || work_ < 0 || samples < 0 || !(margin == -1.0 || margin >= 0.0)) {
        if (rank_ == 0)
            fprintf(stderr, "sort: --records must be in 1..INT_MAX, --batches >= 1, --work, --samples and "
                            "--beat-speed >= 0\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Datatype rec_type;
    MPI_Type_contiguous((int)sizeof(record), MPI_BYTE, &rec_type);
    MPI_Type_commit(&rec_type);

    /* 1. Each rank's speed, measured on the same sample. */
    enum { SAMPLE = 20000 };
    speed_sample s = {(record *)malloc(sizeof(record) * SAMPLE), (record *)malloc(sizeof(record) * SAMPLE)};
    if (s.sample == NULL || s.scratch == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
    for (int j = 0; j < SAMPLE; j++) make_record((record *)s.sample + j, -1, (uint64_t)j);
    double speed = 0.0;
    int st = divload_mpi_measure_speed(sort_sample, &s, SAMPLE, cpu_seconds, &speed);
    free((void *)s.sample);
    free(s.scratch);
    divload_mpi_partition part;
    if (st == DIVLOAD_OK) st = divload_mpi_partition_create(MPI_COMM_WORLD, 0, speed, &part);
    if (st != DIVLOAD_OK) {
        fprintf(stderr, "sort: rank %d: speed or set-up failed: %s\n", rank_, divload_status_message((uint32_t)st));
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    double fastest = 0.0;
    for (int r = 0; r < size_; r++)
        if (part.speeds[r] > fastest) fastest = part.speeds[r];

    if (rank_ == 0) {
        printf("divload sort example: %d ranks, %lld records of %d bytes (%d-byte keys) per batch, %d batches, "
               "%ld busy units per comparison\n",
               size_, n, RECORD_BYTES, KEY_BYTES, batches, work_);
        printf("speeds measured (relative to the fastest):");
        for (int r = 0; r < size_; r++) printf(" %.3f", part.speeds[r] / fastest);
        printf("\nemulated (1/slowdown):                    ");
        for (int r = 0; r < size_; r++) printf(" %.3f", 1.0 / slowdown(r));
        printf("\ntimes: compute = each rank's CPU seconds of local sort and merge; makespan = their max\n");
    }

    int failures = 0;
    double total[SPLITS] = {0, 0, 0};
    int *counts = (int *)malloc(sizeof(int) * (size_t)size_ * 3);
    double *compute = (double *)malloc(sizeof(double) * (size_t)size_ * 2);
    if (counts == NULL || compute == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
    for (int b = 0; b < batches; b++) {
        double makespan[SPLITS], predicted = 0.0, exchange[SPLITS];
        long long moved[SPLITS];
        int learned_from = 0;
        char method[DIVLOAD_METHOD_NAME_LEN] = "";
        for (int k = 0; k < SPLITS; k++) {
            st = divload_mpi_partition_plan(&part, n, split_codes[k]);
            if (st != DIVLOAD_OK) {
                if (rank_ == 0) {
                    char msg[256];
                    divload_last_error_message(msg, sizeof msg);
                    fprintf(stderr, "sort: batch %d, %s split: planning failed: %s\n%s", b + 1, split_names[k], msg,
                            part.document != NULL ? part.document : "");
                }
                MPI_Abort(MPI_COMM_WORLD, 4);
            }
            if (k == LEARNED) {
                predicted = part.summary.makespan;
                learned_from = part.learned_from;
                memcpy(method, part.summary.method, sizeof method);
            }
            run_times t;
            failures += run_batch(&part, b, samples, rec_type, &t);
            if (k == LEARNED && part.my_count > 0) divload_mpi_partition_observe(&part, part.my_count, t.compute);
            MPI_Allreduce(&t.compute, &makespan[k], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            MPI_Allreduce(&t.exchange, &exchange[k], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            moved[k] = t.moved;
            if (k == LEARNED) {
                MPI_Gather(&t.compute, 1, MPI_DOUBLE, compute, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
                MPI_Gather(&t.received, 1, MPI_INT, counts + size_, 1, MPI_INT, 0, MPI_COMM_WORLD);
                memcpy(counts, part.counts, sizeof(int) * (size_t)size_);
            } else if (k == SPEED) {
                memcpy(counts + 2 * size_, part.counts, sizeof(int) * (size_t)size_);
                MPI_Gather(&t.compute, 1, MPI_DOUBLE, compute + size_, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            }
            if (b > 0) total[k] += makespan[k];
        }
        if (rank_ == 0) {
            printf("\nbatch %d: learned plan from %d observation(s), method %s\n", b + 1, learned_from, method);
            printf("rank slowdown  learned n_i  after exchange  compute s  | speed n_i  compute s\n");
            for (int r = 0; r < size_; r++)
                printf("%4d %8d  %11d  %14d  %9.4f  | %9d  %9.4f\n", r, slowdown(r), counts[r], counts[size_ + r],
                       compute[r], counts[2 * size_ + r], compute[size_ + r]);
            printf("makespan: learned %.4f s (predicted %.4f s%s), speed %.4f s, even %.4f s; "
                   "speed/learned %.4f, even/learned %.4f\n",
                   makespan[LEARNED], predicted, learned_from ? "" : ", in units of the linear guess",
                   makespan[SPEED], makespan[EVEN], makespan[SPEED] / makespan[LEARNED],
                   makespan[EVEN] / makespan[LEARNED]);
            printf("exchange (wall): learned %.4f s, speed %.4f s, even %.4f s; records moved to make the counts "
                   "exact: %lld, %lld, %lld\n",
                   exchange[LEARNED], exchange[SPEED], exchange[EVEN], moved[LEARNED], moved[SPEED], moved[EVEN]);
        }
    }
    int all_failures = 0;
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int failed = all_failures > 0;
    if (rank_ == 0) {
        if (batches > 1) {
            printf("\nbatches 2..%d, summed makespans: learned %.4f s, speed %.4f s, even %.4f s; speed/learned %.4f, "
                   "even/learned %.4f\n",
                   batches, total[LEARNED], total[SPEED], total[EVEN], total[SPEED] / total[LEARNED],
                   total[EVEN] / total[LEARNED]);
            if (margin >= 0.0) {
                const int beats = total[LEARNED] <= total[SPEED] * (1.0 + margin / 100.0);
                printf("learned vs speed-only: %s (margin %g %%)\n",
                       beats ? "learned at most the speed-only split" : "LEARNED SLOWER THAN SPEED-ONLY", margin);
                if (!beats) failed = 1;
            }
        }
        printf("records: %s\n", all_failures ? "CHECK FAILED (order, checksum or count)"
                                              : "every batch globally sorted, every record exactly once, every "
                                                "rank's count as planned");
    }
    MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(counts);
    free(compute);
    divload_mpi_partition_free(&part);
    MPI_Type_free(&rec_type);
    MPI_Finalize();
    return check && failed ? 1 : 0;
}
