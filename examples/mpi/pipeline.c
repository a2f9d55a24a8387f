/* A communication-heavy scatter, sent in installments so that ranks compute while the
 * root still sends (the star model with several installments; docs/derivations/
 * installments.md).
 *
 * The root holds n tiles of 512 doubles (4 KiB each); every rank filters its tiles, a
 * short computation per byte, so that sending a tile costs about as much as computing it.
 * Ranks are made heterogeneous on purpose: rank r repeats the filter slowdown(r) times.
 * Each rank's costs are measured (divload_mpi_calibrate), then the same tiles are
 * processed twice:
 *   1. one round: divload_mpi_plan_create and MPI_Scatterv in the planned order, each rank
 *      computing once its whole share has arrived;
 *   2. installments: divload_mpi_installments_create and divload_mpi_installments_scatter,
 *      each chunk computed as soon as it arrives.
 * Each rank's results go back to the root (MPI_Gatherv); both must equal the root's
 * serial computation bit for bit. The predicted and measured makespans of both plans are
 * printed side by side (timings are not asserted: on a shared machine they are noise).
 *
 *     mpicc pipeline.c -o pipeline $(pkg-config --cflags --libs divload)
 *     mpirun -np 4 ./pipeline [--tiles N] [--work W] [--cap C] [--check]
 *
 * --cap C: every rank but the root holds at most C tiles per installment (its memory).
 * --check exits with status 1 unless both runs' results equal the serial ones. */
#include "divload_mpi.h"

#include <stdint.h>
#include <stdio.h>

#define TILE 512

static int rank_, size_;
static long work_ = 1;

static int slowdown(int r) {
    static const int pattern[] = {1, 2, 3, 2};
    return pattern[r % 4];
}

/* One tile's result: a smoothing filter applied `work_` times, then a weighted sum. The
 * same on every rank (the slowdown repeats it, keeping the last), so the result is the
 * serial one bit for bit. */
static double filter_once(const double *tile) {
    double a[TILE];
    memcpy(a, tile, sizeof a);
    for (long w = 0; w < work_; w++)
        for (int i = 1; i < TILE - 1; i++) a[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1];
    double s = 0;
    for (int i = 0; i < TILE; i++) s += a[i] * (double)(i + 1);
    return s;
}

static double process(const double *tile, int times) {
    volatile double r = 0;
    for (int k = 0; k < times; k++) r = filter_once(tile);
    return r;
}

static void calibration_work(void *ctx, int items) {
    const double *sample = (const double *)ctx;
    for (int i = 0; i < items; i++) process(sample + (size_t)i * TILE, slowdown(rank_));
}

/* What each chunk's callback needs: where the rank's results go. */
typedef struct {
    double *results;        /* [my_count] by position in the rank's block */
    long long block_start;  /* the block's first tile */
    double t0, finish;
} chunk_ctx;

static void compute_chunk(void *ctx, void *items, int count, long long first) {
    chunk_ctx *c = (chunk_ctx *)ctx;
    const double *tiles = (const double *)items;
    for (int i = 0; i < count; i++)
        c->results[first - c->block_start + i] = process(tiles + (size_t)i * TILE, slowdown(rank_));
    c->finish = MPI_Wtime() - c->t0;
}

/* Gathers every rank's results to the root at their blocks and compares them with the
   serial ones (root only). Returns the number of tiles that differ. */
static long long compare(const double *mine, int my_count, const int *counts, const int *displs,
                         const double *serial, long long n) {
    double *all = rank_ == 0 ? (double *)malloc(sizeof(double) * (size_t)(n > 0 ? n : 1)) : NULL;
    MPI_Gatherv(mine, my_count, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    long long wrong = 0;
    if (rank_ == 0) {
        for (long long i = 0; i < n; i++) wrong += memcmp(&all[i], &serial[i], sizeof(double)) != 0;
        free(all);
    }
    return wrong;
}

static double max_over_ranks(double v) {
    double m = 0;
    MPI_Reduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    return m;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    long long n = 20000, cap = 0;
    int check = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--tiles") == 0 && i + 1 < argc) n = atoll(argv[++i]);
        else if (strcmp(argv[i], "--work") == 0 && i + 1 < argc) work_ = atol(argv[++i]);
        else if (strcmp(argv[i], "--cap") == 0 && i + 1 < argc) cap = atoll(argv[++i]);
        else if (strcmp(argv[i], "--check") == 0) check = 1;
        else {
            if (rank_ == 0) fprintf(stderr, "usage: pipeline [--tiles N] [--work W] [--cap C] [--check]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (n < 1 || n > INT_MAX || work_ < 1 || cap < 0) {
        if (rank_ == 0) fprintf(stderr, "pipeline: --tiles in 1..INT_MAX, --work >= 1, --cap >= 0\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    MPI_Datatype tile_type;
    MPI_Type_contiguous(TILE, MPI_DOUBLE, &tile_type);
    MPI_Type_commit(&tile_type);

    double *tiles = NULL, *serial = NULL;
    if (rank_ == 0) {
        tiles = (double *)malloc(sizeof(double) * TILE * (size_t)n);
        serial = (double *)malloc(sizeof(double) * (size_t)n);
        if (tiles == NULL || serial == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
        uint64_t x = 2463534242ULL;
        for (size_t i = 0; i < TILE * (size_t)n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            tiles[i] = (double)(x >> 11) / 9007199254740992.0;
        }
        for (long long i = 0; i < n; i++) serial[i] = process(tiles + (size_t)i * TILE, 1);
    }

    /* 1. Calibrate: every rank times its own filter on a sample; the root times the links. */
    double *sample = (double *)calloc(TILE * 16, sizeof(double));
    for (int i = 0; i < TILE * 16; i++) sample[i] = 0.001 * (i % 97);
    divload_worker me = {0, 0, 0, 0};
    if (divload_mpi_calibrate(MPI_COMM_WORLD, 0, tile_type, 16, calibration_work, sample, &me) != MPI_SUCCESS) {
        fprintf(stderr, "pipeline: calibration failed on rank %d\n", rank_);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    free(sample);

    /* 2. One round: the balanced MPI_Scatterv, then compute. */
    divload_mpi_plan one;
    int st = divload_mpi_plan_create(MPI_COMM_WORLD, 0, &me, n, NULL, &one);
    char msg[512];
    if (st != DIVLOAD_OK) {
        if (rank_ == 0) divload_last_error_message(msg, sizeof msg), fprintf(stderr, "pipeline: %s\n", msg);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    double *recv = (double *)malloc(sizeof(double) * TILE * (size_t)(one.my_count + 1));
    double *results = (double *)malloc(sizeof(double) * (size_t)(one.my_count + 1));
    MPI_Barrier(MPI_COMM_WORLD);
    chunk_ctx ctx = {results, one.my_displacement, MPI_Wtime(), 0};
    divload_mpi_scatterv(&one, tiles, tile_type, recv);
    compute_chunk(&ctx, recv, one.my_count, one.my_displacement);
    double one_measured = max_over_ranks(one.my_count > 0 ? ctx.finish : 0);
    long long one_wrong = compare(results, one.my_count, one.counts_by_rank, one.displs_by_rank, serial, n);
    free(recv);
    free(results);

    /* 3. Installments: each chunk computed as it arrives. */
    divload_mpi_installments inst;
    uint64_t my_cap = cap > 0 && rank_ != 0 ? (uint64_t)cap : UINT64_MAX;
    st = divload_mpi_installments_create(MPI_COMM_WORLD, 0, &me, my_cap, 0.0, n, NULL, &inst);
    if (st != DIVLOAD_OK) {
        if (rank_ == 0) divload_last_error_message(msg, sizeof msg), fprintf(stderr, "pipeline: %s\n", msg);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    recv = (double *)malloc(sizeof(double) * TILE * (size_t)(inst.my_count + 1));
    results = (double *)malloc(sizeof(double) * (size_t)(inst.my_count + 1));
    MPI_Barrier(MPI_COMM_WORLD);
    ctx = (chunk_ctx){results, inst.my_displacement, MPI_Wtime(), 0};
    if (divload_mpi_installments_scatter(&inst, tiles, tile_type, recv, compute_chunk, &ctx) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 5);
    double inst_measured = max_over_ranks(ctx.finish);
    long long inst_wrong = compare(results, inst.my_count, inst.counts_by_rank, inst.displs_by_rank, serial, n);
    free(recv);
    free(results);

    int failed = 0;
    if (rank_ == 0) {
        printf("divload pipeline example: %d ranks, %lld tiles of %d KiB, filter %ld times per tile%s\n", size_, n,
               (int)(TILE * sizeof(double) / 1024), work_, cap > 0 ? ", capped" : "");
        printf("rank slowdown  comm s/tile  comp s/tile  one-round count  installments: count chunks\n");
        for (int r = 0; r < size_; r++) {
            int chunks = 0;
            for (int k = 0; k < inst.chunks; k++) chunks += (int)inst.chunk[k].rank == r;
            printf("%4d %8d  %11.3e  %11.3e  %15d  %20d %6d\n", r, slowdown(r), one.workers[r].comm_per_item,
                   one.workers[r].comp_per_item, one.counts_by_rank[r], inst.counts_by_rank[r], chunks);
        }
        printf("one round:    predicted %.4f s, measured %.4f s\n", one.summary.makespan, one_measured);
        printf("installments: predicted %.4f s, measured %.4f s (%d chunks, %s, bound %.4f s, gap %.2g s)\n",
               inst.summary.makespan, inst_measured, inst.chunks, inst.summary.method, inst.summary.lower_bound,
               inst.summary.gap);
        printf("measured gain of installments over one round: %.2fx (predicted %.2fx)\n",
               inst_measured > 0 ? one_measured / inst_measured : 0.0, one.summary.makespan / inst.summary.makespan);
        printf("results: %s\n", one_wrong == 0 && inst_wrong == 0 ? "both runs equal the serial computation"
                                                                   : "RESULTS DIFFER FROM THE SERIAL ONES");
        failed = one_wrong != 0 || inst_wrong != 0;
    }
    MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);

    divload_mpi_plan_free(&one);
    divload_mpi_installments_free(&inst);
    free(tiles);
    free(serial);
    MPI_Type_free(&tile_type);
    MPI_Finalize();
    return check && failed ? 1 : 0;
}
