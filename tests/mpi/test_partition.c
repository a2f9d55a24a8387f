/* MPI test of divload_mpi.h's partition helpers under a real mpirun (tests/mpi/run: 2, 4
 * and 8 ranks).
 *
 * Plans: the even split differs by at most one item between ranks; the split by speed
 * has the minimum makespan max n_r / k_r over all integer splits (an oracle in exact
 * integers: the optimum is some m / k_r, found by a search over m for every r); with no
 * observations the learned split is the split by speed; a learned split fed the timings
 * of a synthetic cost c n ln n / k_r converges, batch by batch, to within 2e-3 of the
 * exact integer optimum of that cost (a bisection on the makespan) and beats the split
 * by speed. Sorting: records held unevenly (one rank empty) are sorted, cut at the
 * weighted splitters and exchanged: every rank receives its planned count within the
 * documented bound (distinct keys), and after the rebalancing exactly its count,
 * globally sorted, every record exactly once (count and checksum), for distinct keys and
 * for keys of three values only. Errors: every invalid argument, on one rank or all,
 * gives the same status on every rank. Exit status 0 only if every rank passed. */
#include "divload_mpi.h"
#include "check.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    unsigned char key[8]; /* big-endian, compared by memcmp */
    uint64_t id;
    uint64_t check;
} record;

static int same_everywhere(int v) {
    int lo, hi;
    MPI_Allreduce(&v, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi && lo == v;
}

static int speed_of(int r) { return 1 + (r * 2) % 3; }

/* The minimum over integer splits of max n_r / k_r, as a fraction m / k_best. */
static void speed_optimum(long long items, long long *m_best, int *k_best) {
    *m_best = -1;
    *k_best = 1;
    for (int r = 0; r < size_; r++) {
        const long long k = speed_of(r);
        long long lo = 0, hi = items * k; /* the smallest m with sum floor(m k_j / k) >= items */
        while (lo < hi) {
            const long long m = lo + (hi - lo) / 2;
            long long cap = 0;
            for (int j = 0; j < size_; j++) cap += m * speed_of(j) / k;
            if (cap >= items) hi = m;
            else lo = m + 1;
        }
        if (*m_best < 0 || lo * *k_best < *m_best * k) {
            *m_best = lo;
            *k_best = (int)k;
        }
    }
}

static void check_counts(const divload_mpi_partition *part, long long items) {
    long long sum = 0;
    for (int r = 0; r < size_; r++) {
        CHECK(part->counts[r] >= 0);
        CHECK(part->displs[r] == sum);
        sum += part->counts[r];
    }
    CHECK(sum == items && part->items == items);
    CHECK(part->my_count == part->counts[rank_] && part->my_displacement == part->displs[rank_]);
    CHECK(part->summary.items == (uint64_t)items);
}

static void test_splits(void) {
    divload_mpi_partition part;
    CHECK(divload_mpi_partition_create(MPI_COMM_WORLD, size_ - 1, (double)speed_of(rank_), &part) == DIVLOAD_OK);
    for (int r = 0; r < size_; r++) CHECK(part.speeds[r] == (double)speed_of(r));
    const long long item_counts[] = {1, 7, 1000, 123457};
    for (size_t i = 0; i < sizeof item_counts / sizeof item_counts[0]; i++) {
        const long long items = item_counts[i];
        CHECK(divload_mpi_partition_plan(&part, items, DIVLOAD_MPI_SPLIT_EVEN) == DIVLOAD_OK);
        check_counts(&part, items);
        int lo = INT_MAX, hi = 0;
        for (int r = 0; r < size_; r++) {
            lo = part.counts[r] < lo ? part.counts[r] : lo;
            hi = part.counts[r] > hi ? part.counts[r] : hi;
        }
        CHECK(hi - lo <= 1);

        CHECK(divload_mpi_partition_plan(&part, items, DIVLOAD_MPI_SPLIT_SPEED) == DIVLOAD_OK);
        check_counts(&part, items);
        long long m;
        int k;
        speed_optimum(items, &m, &k);
        /* max_r n_r / k_r == m / k, in integers. */
        int attained = 0;
        for (int r = 0; r < size_; r++) {
            CHECK((long long)part.counts[r] * k <= m * speed_of(r));
            attained |= (long long)part.counts[r] * k == m * speed_of(r);
        }
        CHECK(attained);
        /* No observations: alpha is 1, so the predicted makespan is m / k. */
        CHECK(fabs(part.summary.makespan - (double)m / k) <= 1e-12 * ((double)m / k + 1));
        int *speed_counts = (int *)malloc(sizeof(int) * (size_t)size_);
        memcpy(speed_counts, part.counts, sizeof(int) * (size_t)size_);
        CHECK(divload_mpi_partition_plan(&part, items, DIVLOAD_MPI_SPLIT_LEARNED) == DIVLOAD_OK);
        check_counts(&part, items);
        CHECK(memcmp(speed_counts, part.counts, sizeof(int) * (size_t)size_) == 0);
        CHECK(part.learned_from == 0);
        free(speed_counts);
    }
    /* The root kept the document it planned, which plans again as it is. */
    if (rank_ == size_ - 1) {
        CHECK(part.document != NULL && strstr(part.document, "\"model\": \"partition\"") != NULL);
        char out[1 << 14];
        size_t out_n = 0;
        CHECK(divload_plan_json(part.document, part.document_len, out, sizeof out, &out_n) == DIVLOAD_OK);
    } else {
        CHECK(part.document == NULL && part.all_items == NULL);
    }
    divload_mpi_partition_free(&part);
    divload_mpi_partition_free(&part); /* twice is harmless */
}

/* Seconds of the synthetic cost: c n ln n / k (0 for n <= 1). */
static double cost(long long n, int r) { return n <= 1 ? 0.0 : 1e-8 * (double)n * log((double)n) / speed_of(r); }

static double makespan_of(const int *counts) {
    double t = 0.0;
    for (int r = 0; r < size_; r++) t = fmax(t, cost(counts[r], r));
    return t;
}

/* The exact integer optimum of the synthetic cost: the least T (bisection on doubles)
 * at which every rank's largest n with cost <= T add up to `items`. */
static double cost_optimum(long long items) {
    double lo = 0.0, hi = cost(items, 0) + 1.0;
    for (int it = 0; it < 200 && hi > lo * (1 + 1e-15); it++) {
        const double t = 0.5 * (lo + hi);
        long long cap = 0;
        for (int r = 0; r < size_; r++) {
            long long a = 0, b = items;
            while (a < b) {
                const long long mid = a + (b - a + 1) / 2;
                if (cost(mid, r) <= t) a = mid;
                else b = mid - 1;
            }
            cap += a;
        }
        if (cap >= items) hi = t;
        else lo = t;
    }
    return hi;
}

static void test_learning(void) {
    divload_mpi_partition part;
    CHECK(divload_mpi_partition_create(MPI_COMM_WORLD, 0, (double)speed_of(rank_), &part) == DIVLOAD_OK);
    const long long items = 1000000;
    CHECK(divload_mpi_partition_plan(&part, items, DIVLOAD_MPI_SPLIT_SPEED) == DIVLOAD_OK);
    const double by_speed = makespan_of(part.counts), best = cost_optimum(items);
    double error = 0.0;
    for (int batch = 1; batch <= 8; batch++) {
        CHECK(divload_mpi_partition_plan(&part, items, DIVLOAD_MPI_SPLIT_LEARNED) == DIVLOAD_OK);
        check_counts(&part, items);
        CHECK(part.learned_from == size_ * (batch - 1) || batch > DIVLOAD_MPI_PARTITION_POINTS);
        error = makespan_of(part.counts) / best - 1.0;
        if (rank_ == 0) printf("learning: batch %d, makespan %.4e s, %.3e above the optimum\n", batch,
                               makespan_of(part.counts), error);
        if (batch > 1) CHECK(makespan_of(part.counts) < by_speed);
        if (part.my_count > 0) CHECK(divload_mpi_partition_observe(&part, part.my_count, cost(part.my_count, rank_)) ==
                                     DIVLOAD_OK);
    }
    CHECK(error >= -1e-12 && error <= 2e-3);
    if (rank_ == 0)
        printf("learning: speed-only split %.3e above the optimum, learned %.3e after 8 batches\n",
               by_speed / best - 1.0, error);
    /* Predicted by the learned costs, in seconds: close to the true makespan. */
    CHECK(fabs(part.summary.makespan / makespan_of(part.counts) - 1.0) < 1e-2);

    /* Observations out of range are refused and not recorded. */
    const int before = part.my_observations;
    CHECK(divload_mpi_partition_observe(&part, 0, 1.0) == DIVLOAD_INVALID_INPUT);
    CHECK(divload_mpi_partition_observe(&part, 10, NAN) == DIVLOAD_INVALID_INPUT);
    CHECK(divload_mpi_partition_observe(&part, 10, 0.0) == DIVLOAD_INVALID_INPUT);
    CHECK(divload_mpi_partition_observe(&part, 10, INFINITY) == DIVLOAD_INVALID_INPUT);
    CHECK(divload_mpi_partition_observe(NULL, 10, 1.0) == DIVLOAD_NULL_PARAMETER);
    CHECK(part.my_observations == before);
    /* The last DIVLOAD_MPI_PARTITION_POINTS are kept, and still plan. */
    for (int k = 0; k < 3 * DIVLOAD_MPI_PARTITION_POINTS; k++)
        CHECK(divload_mpi_partition_observe(&part, 1000 + 37 * k, cost(1000 + 37 * k, rank_)) == DIVLOAD_OK);
    CHECK(part.my_observations == DIVLOAD_MPI_PARTITION_POINTS);
    CHECK(divload_mpi_partition_plan(&part, items, DIVLOAD_MPI_SPLIT_LEARNED) == DIVLOAD_OK);
    CHECK(part.learned_from == size_ * DIVLOAD_MPI_PARTITION_POINTS);
    if (rank_ == 0) CHECK(part.all_items[DIVLOAD_MPI_PARTITION_POINTS - 1] == 1000 + 37 * (3 * 32 - 1));

    /* A failed plan keeps the previous one. */
    int *kept = (int *)malloc(sizeof(int) * (size_t)size_);
    memcpy(kept, part.counts, sizeof(int) * (size_t)size_);
    int st = divload_mpi_partition_plan(&part, -1, DIVLOAD_MPI_SPLIT_EVEN);
    CHECK(st == DIVLOAD_INVALID_INPUT && same_everywhere(st));
    st = divload_mpi_partition_plan(&part, 0, DIVLOAD_MPI_SPLIT_EVEN);
    CHECK(st == DIVLOAD_INVALID_INPUT && same_everywhere(st));
    st = divload_mpi_partition_plan(&part, (long long)INT_MAX + 1, DIVLOAD_MPI_SPLIT_EVEN);
    CHECK(st == DIVLOAD_INVALID_INPUT && same_everywhere(st));
    st = divload_mpi_partition_plan(&part, 10, 7);
    CHECK(st == DIVLOAD_INVALID_INPUT && same_everywhere(st));
    CHECK(memcmp(kept, part.counts, sizeof(int) * (size_t)size_) == 0 && part.items == items);
    free(kept);
    divload_mpi_partition_free(&part);
}

static int by_key(const void *a, const void *b) { return memcmp(a, b, 8); }

static void make(record *r, uint64_t id, int duplicates) {
    const uint64_t k = duplicates ? id % 3 : mix(id); /* mix is a bijection: distinct keys */
    for (int i = 0; i < 8; i++) r->key[i] = (unsigned char)(k >> (56 - 8 * i));
    r->id = id;
    r->check = mix(id ^ 0xabcdef);
}

/* Records held unevenly (rank 1 none), planned by `split` over `held` records in all. */
static void test_sort(int split, int duplicates, int samples, int per_rank) {
    const int held = rank_ == 1 ? 0 : per_rank * (1 + rank_ % 3);
    long long total = 0, first = 0;
    int all_held[64];
    MPI_Allgather(&held, 1, MPI_INT, all_held, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size_; r++) {
        if (r < rank_) first += all_held[r];
        total += all_held[r];
    }
    divload_mpi_partition part;
    CHECK(divload_mpi_partition_create(MPI_COMM_WORLD, 0, (double)speed_of(rank_), &part) == DIVLOAD_OK);
    CHECK(divload_mpi_partition_plan(&part, total, split) == DIVLOAD_OK);
    record *mine = (record *)malloc(sizeof(record) * (size_t)(held + 1));
    uint64_t sums[2] = {0, 0}, before[2], after[2];
    for (int j = 0; j < held; j++) {
        make(&mine[j], (uint64_t)(first + j), duplicates);
        sums[0]++;
        sums[1] += mine[j].check * 3 + mine[j].id;
    }
    MPI_Allreduce(sums, before, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    qsort(mine, (size_t)held, sizeof *mine, by_key);

    int sendcounts[64], recvcounts[64], sdispls[64], rdispls[64];
    CHECK(divload_mpi_partition_splitters(&part, mine, held, sizeof(record), 0, 8, samples, sendcounts) ==
          DIVLOAD_OK);
    MPI_Alltoall(sendcounts, 1, MPI_INT, recvcounts, 1, MPI_INT, MPI_COMM_WORLD);
    int got = 0, sent = 0;
    for (int r = 0; r < size_; r++) {
        sdispls[r] = sent;
        sent += sendcounts[r];
        rdispls[r] = got;
        got += recvcounts[r];
    }
    CHECK(sent == held);
    MPI_Datatype type;
    MPI_Type_contiguous((int)sizeof(record), MPI_BYTE, &type);
    MPI_Type_commit(&type);
    record *runs = (record *)malloc(sizeof(record) * (size_t)(got + 1));
    MPI_Alltoallv(mine, sendcounts, sdispls, type, runs, recvcounts, rdispls, type, MPI_COMM_WORLD);
    qsort(runs, (size_t)got, sizeof *runs, by_key); /* the merge, here by sorting again */
    if (!duplicates) {
        /* The documented bound: sum_r n_r / c_r + max_r n_r / c_r + 2 size. */
        const int s = samples ? samples : DIVLOAD_MPI_DEFAULT_SAMPLES;
        double bound = 2.0 * size_, widest = 0.0;
        for (int r = 0; r < size_; r++) {
            const int c = all_held[r] < s ? all_held[r] : s;
            const double w = c > 0 ? (double)all_held[r] / c : 0.0;
            bound += w;
            widest = fmax(widest, w);
        }
        bound += widest;
        CHECK(fabs((double)got - (double)part.my_count) <= bound);
    }
    record *out = (record *)malloc(sizeof(record) * (size_t)(part.my_count + 1));
    long long moved = -1;
    CHECK(divload_mpi_partition_rebalance(&part, runs, got, type, out, &moved) == DIVLOAD_OK);
    CHECK(moved >= 0 && moved <= total && same_everywhere((int)moved));
    sums[0] = sums[1] = 0;
    for (int j = 0; j < part.my_count; j++) {
        sums[0]++;
        sums[1] += out[j].check * 3 + out[j].id;
        CHECK(out[j].check == mix(out[j].id ^ 0xabcdef));
        if (j > 0) CHECK(memcmp(out[j - 1].key, out[j].key, 8) <= 0);
    }
    MPI_Allreduce(sums, after, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    CHECK(after[0] == before[0] && after[1] == before[1] && after[0] == (uint64_t)total);
    /* In order across ranks: each rank's first key is not below the last key before it. */
    unsigned char ends[17] = {0}, all_ends[64 * 17];
    ends[16] = part.my_count > 0;
    if (part.my_count > 0) {
        memcpy(ends, out[0].key, 8);
        memcpy(ends + 8, out[part.my_count - 1].key, 8);
    }
    MPI_Allgather(ends, 17, MPI_BYTE, all_ends, 17, MPI_BYTE, MPI_COMM_WORLD);
    const unsigned char *last = NULL;
    for (int r = 0; r < size_; r++) {
        if (!all_ends[r * 17 + 16]) continue;
        if (last != NULL) CHECK(memcmp(last, all_ends + r * 17, 8) <= 0);
        last = all_ends + r * 17 + 8;
    }

    /* Errors, the same on every rank: records out of order on one rank, a key beyond the
       record, a NULL on one rank, a total that is not the plan's. */
    if (held > 1 && rank_ == 0) {
        record swap = mine[0];
        mine[0] = mine[held - 1];
        mine[held - 1] = swap;
    }
    int st = divload_mpi_partition_splitters(&part, mine, held, sizeof(record), 0, 8, samples, sendcounts);
    CHECK(same_everywhere(st) && st == (all_held[0] > 1 ? DIVLOAD_INVALID_INPUT : DIVLOAD_OK));
    st = divload_mpi_partition_splitters(&part, mine, held, sizeof(record), 20, 8, samples, sendcounts);
    CHECK(st == DIVLOAD_INVALID_INPUT && same_everywhere(st));
    st = divload_mpi_partition_splitters(&part, mine, held, sizeof(record), 0, 0, samples, sendcounts);
    CHECK(st == DIVLOAD_INVALID_INPUT && same_everywhere(st));
    st = divload_mpi_partition_splitters(&part, mine, held, sizeof(record), 0, 8, samples,
                                         rank_ == size_ - 1 ? NULL : sendcounts);
    CHECK(st == DIVLOAD_NULL_PARAMETER && same_everywhere(st));
    st = divload_mpi_partition_rebalance(&part, runs, rank_ == 0 ? got + 1 : got, type, out, NULL);
    CHECK(st == DIVLOAD_INVALID_INPUT && same_everywhere(st));
    st = divload_mpi_partition_rebalance(&part, runs, -1, type, out, NULL);
    CHECK(st == DIVLOAD_INVALID_INPUT && same_everywhere(st));
    MPI_Type_free(&type);
    free(mine);
    free(runs);
    free(out);
    divload_mpi_partition_free(&part);
}

static void spin(void *ctx, int items) {
    volatile double *acc = (volatile double *)ctx;
    for (int i = 0; i < items * 1000; i++) *acc = *acc * 1.0000001 + 1e-9;
}

static void test_errors(void) {
    divload_mpi_partition part;
    const int bad_roots[] = {-1, size_};
    for (int b = 0; b < 2; b++) {
        memset(&part, 0x5a, sizeof part);
        const int st = divload_mpi_partition_create(MPI_COMM_WORLD, bad_roots[b], 1.0, &part);
        CHECK(st == DIVLOAD_INVALID_INPUT && same_everywhere(st));
        CHECK(part.speeds == NULL && part.counts == NULL && part.document == NULL);
    }
    const double bad_speeds[] = {NAN, 0.0, -1.0, INFINITY};
    for (int b = 0; b < 4; b++) {
        const int st =
            divload_mpi_partition_create(MPI_COMM_WORLD, 0, rank_ == size_ - 1 ? bad_speeds[b] : 1.0, &part);
        CHECK(st == DIVLOAD_INVALID_INPUT && same_everywhere(st));
        CHECK(part.speeds == NULL && part.counts == NULL && part.all_items == NULL);
    }
    int st = divload_mpi_partition_create(MPI_COMM_WORLD, 0, 1.0, rank_ == size_ - 1 ? NULL : &part);
    CHECK(st == DIVLOAD_NULL_PARAMETER && same_everywhere(st));
    if (rank_ != size_ - 1) CHECK(part.speeds == NULL);
    CHECK(divload_mpi_partition_plan(NULL, 10, 0) == DIVLOAD_NULL_PARAMETER);
    CHECK(divload_mpi_partition_plan(&part, 10, 0) == DIVLOAD_INVALID_INPUT); /* create failed */
    CHECK(divload_mpi_partition_splitters(NULL, NULL, 0, 8, 0, 8, 0, NULL) == DIVLOAD_NULL_PARAMETER);
    CHECK(divload_mpi_partition_rebalance(NULL, NULL, 0, MPI_BYTE, NULL, NULL) == DIVLOAD_NULL_PARAMETER);

    /* Before any plan: nothing to cut at or to rebalance to. */
    CHECK(divload_mpi_partition_create(MPI_COMM_WORLD, 0, 1.0, &part) == DIVLOAD_OK);
    record r[1];
    make(r, (uint64_t)rank_, 0);
    int counts[64];
    st = divload_mpi_partition_splitters(&part, r, 1, sizeof(record), 0, 8, 0, counts);
    CHECK(st == DIVLOAD_INVALID_INPUT && same_everywhere(st));
    st = divload_mpi_partition_rebalance(&part, r, 1, MPI_BYTE, NULL, NULL);
    CHECK(st == DIVLOAD_INVALID_INPUT && same_everywhere(st));
    divload_mpi_partition_free(&part);

    /* Speeds measured. */
    double acc = 1.0, speed = 0.0;
    CHECK(divload_mpi_measure_speed(spin, (void *)&acc, 100, NULL, &speed) == DIVLOAD_OK);
    CHECK(isfinite(speed) && speed > 0.0);
    CHECK(divload_mpi_measure_speed(NULL, NULL, 100, NULL, &speed) == DIVLOAD_NULL_PARAMETER);
    CHECK(divload_mpi_measure_speed(spin, (void *)&acc, 100, NULL, NULL) == DIVLOAD_NULL_PARAMETER);
    CHECK(divload_mpi_measure_speed(spin, (void *)&acc, 0, NULL, &speed) == DIVLOAD_INVALID_INPUT);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    if (size_ > 64) {
        if (rank_ == 0) fprintf(stderr, "test_partition: at most 64 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    test_splits();
    test_learning();
    const int splits[] = {DIVLOAD_MPI_SPLIT_SPEED, DIVLOAD_MPI_SPLIT_EVEN};
    for (int s = 0; s < 2; s++)
        for (int dup = 0; dup < 2; dup++) {
            test_sort(splits[s], dup, 0, 3000);
            test_sort(splits[s], dup, 16, 3000);
            test_sort(splits[s], dup, 0, 2); /* fewer records than samples: every key sampled */
        }
    test_errors();
    return finish("test_partition", "");
}
