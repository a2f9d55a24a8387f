/* The ring helpers of divload_mpi.h under a real mpirun: calibration (cycle times given and
 * measured, the cost matrix by ping-pong), the document written from it, the plan and the
 * periodic ring communicator, a Jacobi sweep on it whose columns equal a serial run's bit
 * for bit, a rank the plan leaves out, and the errors (the same status on every rank). */
#include "divload_mpi.h"

#include "check.h"

#define H 8
#define ITERATIONS 5

static volatile double sink;

/* A kernel whose time grows with the rank: rank r spins (r % 3 + 1) times as long. */
static void kernel(void *ctx, int columns) {
    (void)ctx;
    /* Started from the volatile, so that the compiler cannot run the loop at compile time. */
    double acc = sink;
    const long steps = 2000L * columns * (rank_ % 3 + 1);
    for (long i = 0; i < steps; i++) acc = acc * 0.999999 + (double)i * 1e-9;
    sink = acc;
}

static double initial(long c, int y) {
    return (double)((c * 7919 + (long)y * 104729) % 1000) / 1024.0;
}

static void sweep(const double *u, double *v, int n) {
    for (int k = 1; k <= n; k++) {
        const double *left = u + (size_t)(k - 1) * H, *mid = u + (size_t)k * H, *right = u + (size_t)(k + 1) * H;
        for (int y = 0; y < H; y++) {
            const double up = y > 0 ? mid[y - 1] : 0.0, down = y + 1 < H ? mid[y + 1] : 0.0;
            v[(size_t)k * H + y] = 0.25 * ((left[y] + right[y]) + (up + down));
        }
    }
}

/* The Jacobi sweeps on the plan's ring, gathered on rank 0 and compared with the serial
 * sweeps of the same `columns`; also the ring's own invariants. */
static void jacobi_on(const divload_mpi_ring *ring, long columns) {
    /* Counts sum to W, left-out ranks have none, blocks follow each other along the ring. */
    long long sum = 0;
    int members = 0;
    for (int r = 0; r < size_; r++) {
        sum += ring->counts[r];
        if (ring->positions[r] < 0) {
            CHECK(ring->counts[r] == 0);
        } else {
            members++;
            CHECK(ring->counts[r] >= 1);
            CHECK(ring->ring_ranks[ring->positions[r]] == r);
        }
    }
    CHECK(sum == columns && members == ring->members && members >= 1);
    CHECK(ring->summary.items == (uint64_t)columns && ring->summary.participating == (size_t)members);
    CHECK(ring->summary.lower_bound <= ring->summary.makespan);
    for (int k = 0, next = 0; k < ring->members; k++) {
        CHECK(ring->displs[ring->ring_ranks[k]] == next);
        next += ring->counts[ring->ring_ranks[k]];
    }
    if (ring->my_member) {
        int rsize = 0, rrank = -1, topo = MPI_UNDEFINED;
        MPI_Comm_size(ring->ring_comm, &rsize);
        MPI_Comm_rank(ring->ring_comm, &rrank);
        MPI_Topo_test(ring->ring_comm, &topo);
        CHECK(rsize == ring->members && rrank == ring->my_position && topo == MPI_CART);
        CHECK(ring->my_left == (rrank + rsize - 1) % rsize && ring->my_right == (rrank + 1) % rsize);
    } else {
        CHECK(ring->ring_comm == MPI_COMM_NULL && ring->my_count == 0 && ring->my_position == -1);
        CHECK(ring->my_left == MPI_PROC_NULL && ring->my_right == MPI_PROC_NULL);
    }

    const int count = ring->my_count;
    double *u = (double *)calloc((size_t)(count + 2) * H, sizeof(double));
    double *v = (double *)calloc((size_t)(count + 2) * H, sizeof(double));
    CHECK(u != NULL && v != NULL);
    for (int k = 0; k < count; k++)
        for (int y = 0; y < H; y++) u[(size_t)(k + 1) * H + y] = initial(ring->my_displacement + k, y);
    for (int it = 0; ring->my_member && it < ITERATIONS; it++) {
        MPI_Sendrecv(u + H, H, MPI_DOUBLE, ring->my_left, 1, u + (size_t)(count + 1) * H, H, MPI_DOUBLE,
                     ring->my_right, 1, ring->ring_comm, MPI_STATUS_IGNORE);
        MPI_Sendrecv(u + (size_t)count * H, H, MPI_DOUBLE, ring->my_right, 2, u, H, MPI_DOUBLE, ring->my_left, 2,
                     ring->ring_comm, MPI_STATUS_IGNORE);
        sweep(u, v, count);
        double *t = u;
        u = v;
        v = t;
    }
    int *c = (int *)malloc(sizeof(int) * (size_t)size_), *d = (int *)malloc(sizeof(int) * (size_t)size_);
    double *all = rank_ == 0 ? (double *)malloc(sizeof(double) * (size_t)columns * H) : NULL;
    for (int r = 0; r < size_; r++) {
        c[r] = ring->counts[r] * H;
        d[r] = ring->displs[r] * H;
    }
    MPI_Gatherv(u + H, count * H, MPI_DOUBLE, all, c, d, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank_ == 0) {
        const size_t n = (size_t)columns;
        double *su = (double *)calloc((n + 2) * H, sizeof(double)), *sv = (double *)calloc((n + 2) * H, sizeof(double));
        for (size_t k = 0; k < n; k++)
            for (int y = 0; y < H; y++) su[(k + 1) * H + y] = initial((long)k, y);
        for (int it = 0; it < ITERATIONS; it++) {
            memcpy(su, su + n * H, H * sizeof(double));
            memcpy(su + (n + 1) * H, su + H, H * sizeof(double));
            sweep(su, sv, (int)n);
            double *t = su;
            su = sv;
            sv = t;
        }
        CHECK(memcmp(all, su + H, n * H * sizeof(double)) == 0);
        free(su);
        free(sv);
    }
    free(all);
    free(c);
    free(d);
    free(u);
    free(v);
}

/* A calibration of given times: cycle time 1e-3·(r + 1), links 1e-4 between all pairs
 * except rank size - 1's, 1 s per value: with 4 ranks or more it is left out. */
static void fill_calibration(divload_mpi_ring_calibration *cal) {
    for (int i = 0; i < size_; i++) {
        cal->cycle_times[i] = 1e-3 * (i + 1);
        for (int j = 0; j < size_; j++)
            cal->costs[(size_t)i * size_ + j] = i == j ? 0.0 : (i == size_ - 1 || j == size_ - 1) ? 1.0 : 1e-4;
    }
}

static char *document(const divload_mpi_ring_calibration *cal, long long work, double boundary, const char *solver,
                      size_t *len) {
    size_t need = 0;
    CHECK(divload_mpi_ring_json(cal, work, boundary, solver, NULL, 0, &need) == DIVLOAD_BUFFER_TOO_SMALL);
    char *doc = (char *)malloc(need);
    CHECK(doc != NULL);
    char small[8] = "xxxxxxx";
    size_t got = 0;
    CHECK(divload_mpi_ring_json(cal, work, boundary, solver, small, sizeof small, &got) == DIVLOAD_BUFFER_TOO_SMALL);
    CHECK(got == need && strcmp(small, "xxxxxxx") == 0);
    CHECK(divload_mpi_ring_json(cal, work, boundary, solver, doc, need, len) == DIVLOAD_OK);
    CHECK(*len + 1 == need && strlen(doc) == *len);
    return doc;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);

    /* 1. Measured: the caller's kernel and the links between every pair. */
    divload_mpi_ring_calibration cal;
    divload_mpi_calibration_options quick = {8, 0, 5, 0};
    CHECK(divload_mpi_ring_calibrate(MPI_COMM_WORLD, 8, kernel, NULL, 0.0, H, sizeof(double), &quick, &cal) ==
          DIVLOAD_OK);
    CHECK(cal.size == size_ && cal.options.large_bytes == H * (int)sizeof(double));
    for (int i = 0; i < size_; i++) {
        CHECK(cal.cycle_times[i] > 0.0 && isfinite(cal.cycle_times[i]));
        for (int j = 0; j < size_; j++) {
            const double c = cal.costs[(size_t)i * size_ + j];
            CHECK(i == j ? c == 0.0 : c > 0.0 && isfinite(c) && c == cal.costs[(size_t)j * size_ + i]);
        }
    }
    /* Every rank holds the same calibration. */
    double mine[2] = {cal.cycle_times[size_ - 1], cal.costs[size_ > 1 ? 1 : 0]}, lo[2], hi[2];
    MPI_Allreduce(mine, lo, 2, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(mine, hi, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo[0] == hi[0] && lo[1] == hi[1]);
    size_t len = 0;
    char *doc = document(&cal, 97, H, NULL, &len);
    CHECK(strstr(doc, "\"solver\": \"heuristic\"") != NULL && strstr(doc, "\"name\": \"r0\"") != NULL);
    divload_mpi_ring ring;
    CHECK(divload_mpi_ring_create(&cal, 0, doc, len, &ring) == DIVLOAD_OK);
    jacobi_on(&ring, 97);
    divload_mpi_ring_free(&ring);
    free(doc);

    /* 2. Given times: the far rank is left out (4 ranks or more), the exact solver agrees. */
    fill_calibration(&cal);
    for (int exact = 0; exact < 2 && (exact == 0 || size_ <= 8); exact++) {
        doc = document(&cal, 200, 2, exact ? "exact" : "heuristic", &len);
        /* Planned on the last rank: every rank but the root passes NULL. */
        CHECK(divload_mpi_ring_create(&cal, size_ - 1, rank_ == size_ - 1 ? doc : NULL, len, &ring) == DIVLOAD_OK);
        CHECK(strcmp(ring.summary.method, exact ? "exhaustive" : "local_search") == 0);
        if (size_ >= 4) {
            CHECK(ring.positions[size_ - 1] == -1 && ring.members < size_);
            if (rank_ == size_ - 1) CHECK(!ring.my_member && ring.ring_comm == MPI_COMM_NULL);
        }
        /* T_step is the same formula's as the helper's prediction. */
        int *counts = (int *)malloc(sizeof(int) * (size_t)ring.members);
        for (int k = 0; k < ring.members; k++) counts[k] = ring.counts[ring.ring_ranks[k]];
        const double predicted = divload_mpi_ring_predict(&cal, 2, ring.ring_ranks, counts, ring.members);
        CHECK(fabs(predicted - ring.summary.makespan) <= 1e-12 * ring.summary.makespan);
        free(counts);
        jacobi_on(&ring, 200);
        divload_mpi_ring_free(&ring);
        free(doc);
    }

    /* 3. Errors, the same status on every rank. */
    doc = document(&cal, 200, 2, NULL, &len);
    CHECK(divload_mpi_ring_create(&cal, size_, doc, len, &ring) == DIVLOAD_INVALID_INPUT);
    CHECK(divload_mpi_ring_create(&cal, 0, rank_ == 0 ? NULL : doc, len, &ring) == DIVLOAD_NULL_PARAMETER);
    CHECK(divload_mpi_ring_create(&cal, 0, doc, len - 3, &ring) == DIVLOAD_JSON);
    CHECK(divload_mpi_ring_create(NULL, 0, doc, len, &ring) == DIVLOAD_NULL_PARAMETER);
    free(doc);
    /* A document of one processor more than the ranks is not this communicator's. */
    {
        divload_mpi_ring_calibration more = cal;
        more.size = size_ + 1;
        more.cycle_times = (double *)malloc(sizeof(double) * (size_t)(size_ + 1));
        more.costs = (double *)malloc(sizeof(double) * (size_t)(size_ + 1) * (size_t)(size_ + 1));
        for (int i = 0; i <= size_; i++) {
            more.cycle_times[i] = 1e-3;
            for (int j = 0; j <= size_; j++) more.costs[(size_t)i * (size_ + 1) + j] = i == j ? 0.0 : 1e-4;
        }
        doc = document(&more, 200, 2, NULL, &len);
        CHECK(divload_mpi_ring_create(&cal, 0, doc, len, &ring) == DIVLOAD_INVALID_INPUT);
        /* The writer refuses no columns and a cost that is not > 0. */
        CHECK(divload_mpi_ring_json(&more, 0, 2, NULL, doc, len + 1, &len) == DIVLOAD_INVALID_INPUT);
        more.costs[1] = -1.0;
        CHECK(divload_mpi_ring_json(&more, 10, 2, NULL, doc, len + 1, &len) == DIVLOAD_INVALID_INPUT);
        divload_mpi_ring_calibration_free(&more);
        free(doc);
    }
    CHECK(divload_mpi_ring_calibrate(MPI_COMM_WORLD, 8, NULL, NULL, rank_ == 0 ? -1.0 : 1e-3, H, 8, NULL, &cal) ==
          DIVLOAD_INVALID_INPUT);
    divload_mpi_ring_calibration_free(&cal);
    /* Given cycle times, no kernel. */
    CHECK(divload_mpi_ring_calibrate(MPI_COMM_WORLD, 0, NULL, NULL, 2e-3 * (rank_ + 1), 1, 8, &quick, &cal) ==
          DIVLOAD_OK);
    for (int r = 0; r < size_; r++) CHECK(cal.cycle_times[r] == 2e-3 * (r + 1));
    CHECK(cal.options.large_bytes == 9);
    divload_mpi_ring_calibration_free(&cal);
    CHECK(divload_mpi_ring_calibrate(MPI_COMM_WORLD, 8, kernel, NULL, 0.0, 0.5, 8, NULL, &cal) ==
          DIVLOAD_INVALID_INPUT);
    CHECK(divload_mpi_ring_calibrate(MPI_COMM_WORLD, 8, kernel, NULL, 0.0, H, 8, NULL, NULL) ==
          DIVLOAD_NULL_PARAMETER);
    return finish("test_ring", " (calibration, document, plan, ring communicator, Jacobi bit for bit, left-out rank, errors)");
}
