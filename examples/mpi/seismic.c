/* The seismic pattern in miniature (genaud2003 §4): the root holds n ray records, scatters
 * them, every rank processes its share, the run ends when the last rank finishes.
 *
 * Ranks are made heterogeneous on purpose: rank r does `work * slowdown(r)` units of busy
 * work per record. Each rank's costs are measured by a short calibration
 * (divload_mpi_calibrate), the root plans with libdivload, and the records go out with
 * MPI_Scatterv in the planned order. Then the same records are scattered evenly, as
 * MPI_Scatter does, and the two runs are compared, with the predicted finish times next to
 * the measured ones.
 *
 *     mpicc seismic.c -o seismic $(pkg-config --cflags --libs divload)
 *     mpirun -np 4 ./seismic [--records N] [--work W] [--check]
 *
 * --check exits with status 1 unless every record was processed exactly once in both runs. */
#include "divload_mpi.h"

#include <stdint.h>
#include <stdio.h>

typedef struct {
    int64_t id;
    double ray[6]; /* source, receiver, ... in the real code */
} ray_record;

static int rank_, size_;
static long work_ = 2000;

static int slowdown(int r) {
    static const int pattern[] = {1, 3, 2, 4};
    return pattern[r % 4];
}

/* One record's processing, with this rank's emulated speed. Returns a checksum term. */
static double process(const ray_record *rec) {
    double acc = rec->ray[0];
    long steps = work_ * slowdown(rank_);
    for (long i = 0; i < steps; i++) acc = acc * 0.999999 + rec->ray[i % 6] * 1e-6;
    return acc;
}

static volatile double sink;

static void calibration_work(void *ctx, int items) {
    const ray_record *sample = (const ray_record *)ctx;
    double s = 0;
    for (int i = 0; i < items; i++) s += process(&sample[i]);
    sink = s;
}

static uint64_t id_checksum(const ray_record *recs, int n) {
    uint64_t s = 0;
    for (int i = 0; i < n; i++) s += (uint64_t)recs[i].id * 2654435761u + 1;
    return s;
}

/* Processes `n` records; returns the seconds from t0 to the end. */
static double run_share(const ray_record *recs, int n, double t0) {
    double s = 0;
    for (int i = 0; i < n; i++) s += process(&recs[i]);
    sink = s;
    return MPI_Wtime() - t0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    long long n = 100000;
    int check = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--records") == 0 && i + 1 < argc) n = atoll(argv[++i]);
        else if (strcmp(argv[i], "--work") == 0 && i + 1 < argc) work_ = atol(argv[++i]);
        else if (strcmp(argv[i], "--check") == 0) check = 1;
        else {
            if (rank_ == 0) fprintf(stderr, "usage: seismic [--records N] [--work W] [--check]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (n < 1 || n > INT_MAX || work_ < 1) {
        if (rank_ == 0) fprintf(stderr, "seismic: --records must be in 1..INT_MAX, --work >= 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    MPI_Datatype rec_type;
    MPI_Type_contiguous((int)sizeof(ray_record), MPI_BYTE, &rec_type);
    MPI_Type_commit(&rec_type);

    ray_record *all = NULL;
    uint64_t expected = 0;
    if (rank_ == 0) {
        all = (ray_record *)malloc(sizeof(ray_record) * (size_t)n);
        if (all == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
        uint64_t x = 12345;
        for (long long i = 0; i < n; i++) {
            all[i].id = i;
            for (int j = 0; j < 6; j++) {
                x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                all[i].ray[j] = (double)(x >> 11) / 9007199254740992.0;
            }
        }
        expected = id_checksum(all, (int)n);
    }

    /* 1. Calibrate: every rank times its own processing on a sample; the root times links. */
    ray_record sample[64];
    for (int i = 0; i < 64; i++) {
        sample[i].id = i;
        for (int j = 0; j < 6; j++) sample[i].ray[j] = 0.5 + 0.01 * j;
    }
    divload_worker me = {0, 0, 0, 0};
    if (divload_mpi_calibrate(MPI_COMM_WORLD, 0, rec_type, 64, calibration_work, sample, &me) != MPI_SUCCESS) {
        fprintf(stderr, "seismic: calibration failed on rank %d\n", rank_);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }

    /* 2. Plan and scatter in the planned order. */
    divload_mpi_plan plan;
    int st = divload_mpi_plan_create(MPI_COMM_WORLD, 0, &me, n, NULL, &plan);
    if (st != DIVLOAD_OK) {
        if (rank_ == 0) {
            char msg[256];
            divload_last_error_message(msg, sizeof msg);
            fprintf(stderr, "seismic: planning failed: %s\n", msg);
        }
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    ray_record *mine = (ray_record *)malloc(sizeof(ray_record) * (size_t)(plan.my_count + 1));
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    divload_mpi_scatterv(&plan, all, rec_type, mine);
    double finish = run_share(mine, plan.my_count, t0);
    uint64_t sum = id_checksum(mine, plan.my_count), total = 0;
    MPI_Reduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    double *finishes = rank_ == 0 ? (double *)malloc(sizeof(double) * (size_t)size_) : NULL;
    MPI_Gather(&finish, 1, MPI_DOUBLE, finishes, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    int balanced_ok = rank_ != 0 || total == expected;

    /* 3. The even split, as MPI_Scatter does it: n / P each (the first n % P get one more). */
    int *even_counts = (int *)malloc(sizeof(int) * (size_t)size_);
    int *even_displs = (int *)malloc(sizeof(int) * (size_t)size_);
    for (int r = 0, off = 0; r < size_; r++) {
        even_counts[r] = (int)(n / size_ + (r < n % size_));
        even_displs[r] = off;
        off += even_counts[r];
    }
    ray_record *even = (ray_record *)malloc(sizeof(ray_record) * (size_t)(even_counts[rank_] + 1));
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    MPI_Scatterv(all, even_counts, even_displs, rec_type, even, even_counts[rank_], rec_type, 0, MPI_COMM_WORLD);
    double even_finish = run_share(even, even_counts[rank_], t0);
    sum = id_checksum(even, even_counts[rank_]);
    MPI_Reduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    double *even_finishes = rank_ == 0 ? (double *)malloc(sizeof(double) * (size_t)size_) : NULL;
    MPI_Gather(&even_finish, 1, MPI_DOUBLE, even_finishes, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    int even_ok = rank_ != 0 || total == expected;

    int failed = 0;
    if (rank_ == 0) {
        printf("divload seismic example: %d ranks, %lld records, %ld work units per record\n", size_, n, work_);
        printf("rank slowdown  measured s/record  position    count  predicted s  measured s   even count  even s\n");
        double makespan = 0, even_makespan = 0;
        for (int r = 0; r < size_; r++) {
            printf("%4d %8d  %17.3e  %8d  %7d  %11.4f  %10.4f  %11d  %6.4f\n", r, slowdown(r),
                   plan.workers[r].comp_per_item, plan.positions[r], plan.counts_by_rank[r],
                   plan.predicted_finish[r], finishes[r], even_counts[r], even_finishes[r]);
            if (finishes[r] > makespan) makespan = finishes[r];
            if (even_finishes[r] > even_makespan) even_makespan = even_finishes[r];
        }
        printf("balanced (divload): predicted %.4f s, measured %.4f s\n", plan.summary.makespan, makespan);
        printf("even split:         predicted %.4f s, measured %.4f s\n", plan.summary.uniform_makespan,
               even_makespan);
        printf("gain over the even split: %.2fx measured (%.2fx predicted)\n", even_makespan / makespan,
               plan.summary.uniform_makespan / plan.summary.makespan);
        printf("records: %s\n", balanced_ok && even_ok ? "every record processed exactly once in both runs"
                                                       : "CHECKSUM MISMATCH");
        failed = !(balanced_ok && even_ok);
    }
    MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);

    free(finishes);
    free(even_finishes);
    free(even_counts);
    free(even_displs);
    free(even);
    free(mine);
    free(all);
    divload_mpi_plan_free(&plan);
    MPI_Type_free(&rec_type);
    MPI_Finalize();
    return check && failed ? 1 : 0;
}
