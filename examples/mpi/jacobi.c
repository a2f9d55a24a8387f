/* An iterative 1-D stencil on a ring (legrand2003's setting): W columns of H values, each
 * iteration a Jacobi sweep (every value becomes the mean of its four neighbours; columns
 * wrap around, the top and bottom rows see zeros), after which each member of the ring
 * sends its first and last columns, H values each, to its two neighbours.
 *
 * Ranks are made heterogeneous on purpose: rank r does `work * slowdown(r)` units of busy
 * work per column and iteration, as examples/mpi/seismic.c does per record. Each rank's
 * cycle time is measured on its own kernel and the links between every pair of ranks by
 * ping-pong (divload_mpi_ring_calibrate); the root plans which ranks form the ring, in
 * which order and with how many columns (divload_mpi_ring_create), and the sweep runs on
 * the planned ring communicator. Then the same sweep runs on the even split (every rank
 * in rank order, W / P columns each) and the two are compared: measured time per
 * iteration beside the plan's T_step and the even split's predicted one.
 *
 *     mpicc jacobi.c -o jacobi $(pkg-config --cflags --libs divload)
 *     mpirun -np 4 ./jacobi [--columns W] [--height H] [--iterations N] [--work K]
 *                           [--solver heuristic|exact] [--check]
 *
 * --check exits with status 1 unless both runs' columns, gathered on rank 0, equal a
 * serial run's bit for bit and the counts sum to W. */
#include "divload_mpi.h"

#include <stdio.h>

static int rank_, size_;
static long work_ = 20000;
static int height_ = 64;

static int slowdown(int r) {
    static const int pattern[] = {1, 3, 2, 4};
    return pattern[r % 4];
}

static volatile double sink;

/* The busy work of one column on this rank: it emulates a slower processor and never
 * touches the values, so the result does not depend on who computes what. */
static void spin(void) {
    /* Started from the volatile, so that the compiler cannot run the loop at compile time. */
    double acc = sink;
    const long steps = work_ * slowdown(rank_);
    for (long i = 0; i < steps; i++) acc = acc * 0.999999 + (double)i * 1e-9;
    sink = acc;
}

/* The initial value at (column c, row y): exact in binary, the same on every rank. */
static double initial(long c, int y) {
    return (double)((c * 7919 + (long)y * 104729) % 1000) / 1024.0;
}

/* One sweep of `n` columns held in `u` with a ghost column on each side (column k of the
 * block at u + (k + 1) * H); results into `v` (same layout). */
static void sweep(const double *u, double *v, int n) {
    const int h = height_;
    for (int k = 1; k <= n; k++) {
        const double *left = u + (size_t)(k - 1) * h, *mid = u + (size_t)k * h, *right = u + (size_t)(k + 1) * h;
        double *out = v + (size_t)k * h;
        for (int y = 0; y < h; y++) {
            const double up = y > 0 ? mid[y - 1] : 0.0, down = y + 1 < h ? mid[y + 1] : 0.0;
            out[y] = 0.25 * ((left[y] + right[y]) + (up + down));
        }
        spin();
    }
}

/* The calibration's kernel: `columns` columns of the sweep on a scratch block. */
static void calibration_kernel(void *ctx, int columns) {
    double *scratch = (double *)ctx;
    for (int done = 0; done < columns; done += 8) {
        const int n = columns - done < 8 ? columns - done : 8;
        sweep(scratch, scratch + (size_t)10 * height_, n);
    }
}

/* Runs `iterations` sweeps of this rank's `count` columns starting at `first`, on a ring
 * whose neighbours are `left` and `right` in `comm`; the columns end in `mine` (count * H
 * values). Returns the seconds per iteration, the slowest rank's, on every rank of `comm`
 * (the caller's members). */
static double run(MPI_Comm comm, int left, int right, long first, int count, int iterations, double *mine) {
    const int h = height_;
    double *u = (double *)calloc((size_t)(count + 2) * h, sizeof(double));
    double *v = (double *)calloc((size_t)(count + 2) * h, sizeof(double));
    if (u == NULL || v == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
    for (int k = 0; k < count; k++)
        for (int y = 0; y < h; y++) u[(size_t)(k + 1) * h + y] = initial(first + k, y);
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    for (int it = 0; it < iterations; it++) {
        /* First column to the left neighbour, its last column into the left ghost; and
           the other way round. */
        MPI_Sendrecv(u + h, h, MPI_DOUBLE, left, 1, u + (size_t)(count + 1) * h, h, MPI_DOUBLE, right, 1, comm,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(u + (size_t)count * h, h, MPI_DOUBLE, right, 2, u, h, MPI_DOUBLE, left, 2, comm,
                     MPI_STATUS_IGNORE);
        sweep(u, v, count);
        double *t = u;
        u = v;
        v = t;
    }
    double mine_time = (MPI_Wtime() - t0) / iterations, slowest = 0.0;
    MPI_Allreduce(&mine_time, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    memcpy(mine, u + h, (size_t)count * h * sizeof(double));
    free(u);
    free(v);
    return slowest;
}

/* The serial computation of the same sweeps, on rank 0. */
static double *serial(long columns, int iterations) {
    const int h = height_;
    const size_t n = (size_t)columns;
    double *u = (double *)calloc((n + 2) * h, sizeof(double)), *v = (double *)calloc((n + 2) * h, sizeof(double));
    if (u == NULL || v == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
    for (size_t k = 0; k < n; k++)
        for (int y = 0; y < h; y++) u[(k + 1) * h + y] = initial((long)k, y);
    const long work = work_;
    work_ = 0; /* no emulated slowness for the reference */
    for (int it = 0; it < iterations; it++) {
        memcpy(u, u + n * h, (size_t)h * sizeof(double));
        memcpy(u + (n + 1) * h, u + h, (size_t)h * sizeof(double));
        sweep(u, v, (int)n);
        double *t = u;
        u = v;
        v = t;
    }
    work_ = work;
    double *out = (double *)malloc(n * h * sizeof(double));
    if (out == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
    memcpy(out, u + h, n * h * sizeof(double));
    free(u);
    free(v);
    return out;
}

/* Gathers every rank's columns into `all` on rank 0 (counts and displacements in
 * columns, by rank of MPI_COMM_WORLD). */
static void gather(const double *mine, const int *counts, const int *displs, double *all) {
    int *c = (int *)malloc(sizeof(int) * (size_t)size_), *d = (int *)malloc(sizeof(int) * (size_t)size_);
    if (c == NULL || d == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
    for (int r = 0; r < size_; r++) {
        c[r] = counts[r] * height_;
        d[r] = displs[r] * height_;
    }
    MPI_Gatherv(mine, c[rank_], MPI_DOUBLE, all, c, d, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    free(c);
    free(d);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    long columns = 2048;
    int iterations = 40, check = 0;
    const char *solver = "heuristic";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--columns") == 0 && i + 1 < argc) columns = atol(argv[++i]);
        else if (strcmp(argv[i], "--height") == 0 && i + 1 < argc) height_ = atoi(argv[++i]);
        else if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc) iterations = atoi(argv[++i]);
        else if (strcmp(argv[i], "--work") == 0 && i + 1 < argc) work_ = atol(argv[++i]);
        else if (strcmp(argv[i], "--solver") == 0 && i + 1 < argc) solver = argv[++i];
        else if (strcmp(argv[i], "--check") == 0) check = 1;
        else {
            if (rank_ == 0)
                fprintf(stderr, "usage: jacobi [--columns W] [--height H] [--iterations N] [--work K] "
                                "[--solver heuristic|exact] [--check]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (columns < size_ || columns > INT_MAX / 1024 || height_ < 1 || height_ > 1024 || iterations < 1 ||
        work_ < 0) {
        if (rank_ == 0)
            fprintf(stderr, "jacobi: --columns in [ranks, %d], --height in 1..1024, --iterations >= 1, "
                            "--work >= 0\n", INT_MAX / 1024);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    /* 1. Calibrate: each rank times its own kernel; every pair of ranks its link. */
    double *scratch = (double *)calloc((size_t)20 * height_, sizeof(double));
    divload_mpi_ring_calibration cal;
    int st = divload_mpi_ring_calibrate(MPI_COMM_WORLD, 16, calibration_kernel, scratch, 0.0, height_,
                                        sizeof(double), NULL, &cal);
    free(scratch);
    if (st != DIVLOAD_OK) {
        fprintf(stderr, "jacobi: calibration failed on rank %d: %s\n", rank_, divload_status_message(st));
        MPI_Abort(MPI_COMM_WORLD, 4);
    }

    /* 2. The ring document, planned on rank 0; the ring communicator. */
    size_t len = 0;
    divload_mpi_ring_json(&cal, columns, height_, solver, NULL, 0, &len);
    char *doc = (char *)malloc(len);
    if (doc == NULL || divload_mpi_ring_json(&cal, columns, height_, solver, doc, len, &len) != DIVLOAD_OK)
        MPI_Abort(MPI_COMM_WORLD, 4);
    divload_mpi_ring ring;
    st = divload_mpi_ring_create(&cal, 0, doc, len, &ring);
    free(doc);
    if (st != DIVLOAD_OK) {
        if (rank_ == 0) {
            char msg[256];
            divload_last_error_message(msg, sizeof msg);
            fprintf(stderr, "jacobi: planning failed: %s\n", msg);
        }
        MPI_Abort(MPI_COMM_WORLD, 4);
    }

    /* 3. The planned ring. Ranks left out take no part (and no time). */
    double *mine = (double *)malloc(((size_t)ring.my_count + 1) * height_ * sizeof(double));
    double planned = 0.0;
    if (mine == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
    if (ring.my_member)
        planned = run(ring.ring_comm, ring.my_left, ring.my_right, ring.my_displacement, ring.my_count, iterations,
                      mine);
    MPI_Bcast(&planned, 1, MPI_DOUBLE, ring.ring_ranks[0], MPI_COMM_WORLD);
    double *all = rank_ == 0 ? (double *)malloc((size_t)columns * height_ * sizeof(double)) : NULL;
    if (rank_ == 0 && all == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
    gather(mine, ring.counts, ring.displs, all);

    /* 4. The even split: every rank, in rank order, W / P columns (the first W % P one more). */
    int *even_counts = (int *)malloc(sizeof(int) * (size_t)size_), *even_displs = (int *)malloc(sizeof(int) * (size_t)size_);
    int *order = (int *)malloc(sizeof(int) * (size_t)size_);
    if (even_counts == NULL || even_displs == NULL || order == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
    for (int r = 0, off = 0; r < size_; r++) {
        even_counts[r] = (int)(columns / size_ + (r < columns % size_));
        even_displs[r] = off;
        off += even_counts[r];
        order[r] = r;
    }
    double *even_mine = (double *)malloc(((size_t)even_counts[rank_] + 1) * height_ * sizeof(double));
    if (even_mine == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
    const double even = run(MPI_COMM_WORLD, (rank_ + size_ - 1) % size_, (rank_ + 1) % size_, even_displs[rank_],
                            even_counts[rank_], iterations, even_mine);
    double *even_all = rank_ == 0 ? (double *)malloc((size_t)columns * height_ * sizeof(double)) : NULL;
    if (rank_ == 0 && even_all == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
    gather(even_mine, even_counts, even_displs, even_all);

    int failed = 0;
    if (rank_ == 0) {
        double *reference = serial(columns, iterations);
        const size_t bytes = (size_t)columns * height_ * sizeof(double);
        const int same = memcmp(all, reference, bytes) == 0, even_same = memcmp(even_all, reference, bytes) == 0;
        long long sum = 0;
        for (int r = 0; r < size_; r++) sum += ring.counts[r];
        /* The plan's ring as ranks, with their counts, for the prediction by the same formula. */
        int *ring_counts = (int *)malloc(sizeof(int) * (size_t)ring.members);
        if (ring_counts == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
        for (int k = 0; k < ring.members; k++) ring_counts[k] = ring.counts[ring.ring_ranks[k]];
        const double even_predicted = divload_mpi_ring_predict(&cal, height_, order, even_counts, size_);
        printf("divload jacobi example: %d ranks, %ld columns of %d values, %d iterations, %ld work units per "
               "column\n",
               size_, columns, height_, iterations, work_);
        printf("rank slowdown  cycle time s  position  count  even count\n");
        for (int r = 0; r < size_; r++)
            printf("%4d %8d  %12.4e  %8d  %5d  %10d\n", r, slowdown(r), cal.cycle_times[r], ring.positions[r],
                   ring.counts[r], even_counts[r]);
        printf("ring (divload, %s): %d of %d ranks; T_step predicted %.6f s (lower bound %.6f s, same formula "
               "%.6f s), measured %.6f s per iteration\n",
               ring.summary.method, ring.members, size_, ring.summary.makespan, ring.summary.lower_bound,
               divload_mpi_ring_predict(&cal, height_, ring.ring_ranks, ring_counts, ring.members), planned);
        printf("even split, rank order: T_step predicted %.6f s, measured %.6f s per iteration\n", even_predicted,
               even);
        printf("gain over the even split: %.2fx measured (%.2fx predicted)\n", even / planned,
               even_predicted / ring.summary.makespan);
        printf("columns: %s; even split %s; counts sum to %lld of %ld\n",
               same ? "the ring's equal the serial run bit for bit" : "RING DIFFERS FROM THE SERIAL RUN",
               even_same ? "equal too" : "DIFFERS", sum, columns);
        failed = !(same && even_same && sum == columns);
        free(ring_counts);
        free(reference);
    }
    MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);

    free(all);
    free(even_all);
    free(mine);
    free(even_mine);
    free(even_counts);
    free(even_displs);
    free(order);
    divload_mpi_ring_free(&ring);
    divload_mpi_ring_calibration_free(&cal);
    MPI_Finalize();
    return check && failed ? 1 : 0;
}
