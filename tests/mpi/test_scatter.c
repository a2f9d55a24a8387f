/* MPI test of divload_mpi.h under a real mpirun (tests/mpi/run: 2, 4 and 8 ranks).
 *
 * For several item counts (fewer items than ranks included) and options, every rank checks
 * that the helper's counts equal what libdivload plans from the gathered costs, that its
 * rank in send_comm is its send position, and that it received exactly the records
 * [displacement, displacement + count) intact; the root checks that the counts and the
 * record checksums add up over all ranks, so every record arrived exactly once. Also:
 * a bad cost on one rank, a root out of range and a NULL argument on one rank fail on
 * every rank with the same status; the root's link costs are ignored (NaN or negative
 * plans as 0 does); calibration gives usable costs. Exit status 0 only if every rank
 * passed. */
#include "divload_mpi.h"
#include "check.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    int64_t id;
    uint64_t check;
} record;

/* Heterogeneous costs; rank size-1 has a large start-up cost when `lazy`, so that with
 * few items it should get none. */
static divload_worker costs_of(int r, int lazy) {
    divload_worker w = {0.0, 1e-6 * (1 + (r * 7) % 5), 0.0, 1e-4 * (1 + (r * 3) % 4)};
    if (lazy && r == size_ - 1 && size_ > 1) w.comp_latency = 50.0;
    return w;
}

static void run_case(long long items, int root, const divload_options *opts, int lazy) {
    divload_worker me = costs_of(rank_, lazy);
    divload_mpi_plan plan;
    int st = divload_mpi_plan_create(MPI_COMM_WORLD, root, &me, items, opts, &plan);
    CHECK(st == DIVLOAD_OK);
    if (st != DIVLOAD_OK) return;

    /* The helper's plan is libdivload's plan for the gathered costs, the root's link
       costs replaced by 0. */
    for (int r = 0; r < size_; r++) {
        divload_worker w = costs_of(r, lazy);
        if (r == root) w.comm_latency = w.comm_per_item = 0.0;
        CHECK(memcmp(&w, &plan.workers[r], sizeof w) == 0);
    }
    int *counts = (int *)malloc(sizeof(int) * (size_t)size_);
    int *displs = (int *)malloc(sizeof(int) * (size_t)size_);
    divload_assignment *a = (divload_assignment *)malloc(sizeof *a * (size_t)size_);
    CHECK(divload_plan_counts(plan.workers, (size_t)size_, (size_t)root, (uint64_t)items, opts, counts,
                              (size_t)size_, displs, (size_t)size_, NULL) == DIVLOAD_OK);
    CHECK(divload_plan(plan.workers, (size_t)size_, (size_t)root, (uint64_t)items, opts, a, (size_t)size_,
                       NULL) == DIVLOAD_OK);
    for (int r = 0; r < size_; r++) {
        CHECK(counts[r] == plan.counts_by_rank[r]);
        CHECK(displs[r] == plan.displs_by_rank[r]);
    }
    for (int k = 0; k < size_; k++) CHECK(plan.positions[a[k].rank] == k);
    int send_rank = -1;
    MPI_Comm_rank(plan.send_comm, &send_rank);
    CHECK(send_rank == plan.my_position);
    CHECK(plan.summary.items == (uint64_t)items);
    if (lazy && items < 10 && size_ > 2) CHECK(plan.counts_by_rank[size_ - 1] == 0);

    /* Scatter records and check what arrived. */
    record *all = NULL;
    if (rank_ == root) {
        all = (record *)malloc(sizeof(record) * (size_t)items);
        for (long long i = 0; i < items; i++) all[i] = (record){i, mix((uint64_t)i)};
    }
    MPI_Datatype rec_type;
    MPI_Type_contiguous((int)sizeof(record), MPI_BYTE, &rec_type);
    MPI_Type_commit(&rec_type);
    record *mine = (record *)malloc(sizeof(record) * (size_t)(plan.my_count > 0 ? plan.my_count : 1));
    CHECK(divload_mpi_scatterv(&plan, all, rec_type, mine) == MPI_SUCCESS);
    uint64_t local[2] = {(uint64_t)plan.my_count, 0};
    for (int j = 0; j < plan.my_count; j++) {
        CHECK(mine[j].id == (int64_t)plan.my_displacement + j);
        CHECK(mine[j].check == mix((uint64_t)mine[j].id));
        local[1] += mine[j].check;
    }
    uint64_t total[2] = {0, 0};
    MPI_Reduce(local, total, 2, MPI_UINT64_T, MPI_SUM, root, MPI_COMM_WORLD);
    if (rank_ == root) {
        uint64_t expect = 0;
        for (long long i = 0; i < items; i++) expect += mix((uint64_t)i);
        CHECK(total[0] == (uint64_t)items);
        CHECK(total[1] == expect);
    }
    MPI_Type_free(&rec_type);
    free(mine);
    free(all);
    free(counts);
    free(displs);
    free(a);
    divload_mpi_plan_free(&plan);
}

static int same_everywhere(int v) {
    int lo, hi;
    MPI_Allreduce(&v, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi && lo == v;
}

/* A plan that must fail with `expected` on every rank and leave nothing to free. */
static void expect_failure(const divload_worker *me, int root, long long items, int expected) {
    divload_mpi_plan plan;
    memset(&plan, 0x5a, sizeof plan);
    const int st = divload_mpi_plan_create(MPI_COMM_WORLD, root, me, items, NULL, &plan);
    CHECK(st == expected && same_everywhere(st));
    CHECK(plan.counts == NULL && plan.workers == NULL && plan.send_comm == MPI_COMM_NULL);
}

static void busy(void *ctx, int items) {
    volatile double *acc = (volatile double *)ctx;
    for (int i = 0; i < items * 2000 * (1 + rank_ % 2); i++) *acc = *acc * 1.0000001 + 1e-9;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);

    const long long item_counts[] = {1, 5, 1000, 100003};
    const int root_last = size_ - 1;
    divload_options overlap = {DIVLOAD_ROOT_MODE_OVERLAP, DIVLOAD_ORDER_BANDWIDTH, DIVLOAD_ROUNDING_LARGEST_REMAINDER};
    divload_options given = {DIVLOAD_ROOT_MODE_AFTER_SEND, DIVLOAD_ORDER_GIVEN, DIVLOAD_ROUNDING_PAPER};
    for (size_t i = 0; i < sizeof item_counts / sizeof item_counts[0]; i++) {
        run_case(item_counts[i], 0, NULL, 0);
        run_case(item_counts[i], 0, NULL, 1);
        run_case(item_counts[i], root_last, &overlap, 1);
        run_case(item_counts[i], root_last, &given, 0);
    }

    /* A NaN cost on one rank: every rank gets the same failure, nothing to free. */
    divload_worker me = costs_of(rank_, 0);
    if (rank_ == size_ - 1) me.comp_per_item = NAN;
    divload_mpi_plan plan;
    int st = divload_mpi_plan_create(MPI_COMM_WORLD, 0, &me, 100, NULL, &plan);
    CHECK(st == DIVLOAD_INVALID_INPUT);
    CHECK(plan.counts == NULL && plan.send_comm == MPI_COMM_NULL);
    if (rank_ == 0) {
        char msg[200];
        divload_last_error_message(msg, sizeof msg);
        CHECK(strstr(msg, "comp_per_item") != NULL);
    }
    me = costs_of(rank_, 0);
    CHECK(divload_mpi_plan_create(MPI_COMM_WORLD, 0, &me, (long long)INT_MAX + 1, NULL, &plan) == DIVLOAD_OVERFLOW);

    /* A root out of range, and a NULL argument on one rank only: the same status on every
       rank, nothing to free, instead of an MPI error or ranks waiting for the others. */
    const int bad_roots[] = {-1, size_, INT_MAX};
    for (int b = 0; b < 3; b++) expect_failure(&me, bad_roots[b], 100, DIVLOAD_INVALID_INPUT);
    expect_failure(rank_ == size_ - 1 ? NULL : &me, 0, 100, DIVLOAD_NULL_PARAMETER);
    expect_failure(rank_ == 0 ? NULL : &me, size_ - 1, 100, DIVLOAD_NULL_PARAMETER);
    {
        int st_null = divload_mpi_plan_create(MPI_COMM_WORLD, 0, &me, 100, NULL, rank_ == size_ - 1 ? NULL : &plan);
        CHECK(st_null == DIVLOAD_NULL_PARAMETER && same_everywhere(st_null));
        if (rank_ != size_ - 1) CHECK(plan.counts == NULL && plan.send_comm == MPI_COMM_NULL);
    }

    /* The root's link costs are ignored, as documented: NaN or negative there plans
       exactly as 0 does, with the root first, last or in the middle. */
    const int roots[] = {0, size_ / 2, size_ - 1};
    const double bad_links[][2] = {{NAN, NAN}, {-1.0, -1e-6}};
    for (int k = 0; k < 3; k++) {
        divload_worker zero = costs_of(rank_, 0);
        if (rank_ == roots[k]) zero.comm_latency = zero.comm_per_item = 0.0;
        divload_mpi_plan want;
        CHECK(divload_mpi_plan_create(MPI_COMM_WORLD, roots[k], &zero, 1000, NULL, &want) == DIVLOAD_OK);
        for (int b = 0; b < 2; b++) {
            divload_worker odd = costs_of(rank_, 0);
            if (rank_ == roots[k]) {
                odd.comm_latency = bad_links[b][0];
                odd.comm_per_item = bad_links[b][1];
            }
            divload_mpi_plan got;
            const int st_odd = divload_mpi_plan_create(MPI_COMM_WORLD, roots[k], &odd, 1000, NULL, &got);
            CHECK(st_odd == DIVLOAD_OK);
            if (st_odd != DIVLOAD_OK || want.counts == NULL) continue;
            CHECK(got.my_count == want.my_count && got.my_displacement == want.my_displacement);
            CHECK(got.my_position == want.my_position && got.summary.makespan == want.summary.makespan);
            CHECK(got.workers[roots[k]].comm_latency == 0.0 && got.workers[roots[k]].comm_per_item == 0.0);
            divload_mpi_plan_free(&got);
        }
        divload_mpi_plan_free(&want);
    }

    /* Calibration gives finite, positive costs that plan. */
    double acc = 1.0;
    divload_worker measured;
    CHECK(divload_mpi_calibrate(MPI_COMM_WORLD, 0, MPI_DOUBLE, 64, busy, (void *)&acc, &measured) == MPI_SUCCESS);
    CHECK(isfinite(measured.comp_per_item) && measured.comp_per_item > 0);
    CHECK(isfinite(measured.comm_per_item) && measured.comm_per_item >= 0);
    CHECK(measured.comp_latency >= 0 && measured.comm_latency >= 0);
    if (rank_ == 0) CHECK(measured.comm_per_item == 0 && measured.comm_latency == 0);
    CHECK(divload_mpi_plan_create(MPI_COMM_WORLD, 0, &measured, 10000, NULL, &plan) == DIVLOAD_OK);
    divload_mpi_plan_free(&plan);

    return finish("test_scatter", "");
}
