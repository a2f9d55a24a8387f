/* divload_mpi_ring.h: iterative codes on a ring of ranks (legrand2003): cycle times and a
 * cost matrix measured, the document written, the plan and a periodic communicator in
 * ring order. Part of divload_mpi.h, which includes it. Header-only; hand-written. */
#ifndef DIVLOAD_MPI_RING_H
#define DIVLOAD_MPI_RING_H

#include "divload_mpi_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------
 * Iterative codes on a ring (legrand2003, "model": "ring"): which ranks, in which
 * cyclic order, how many columns each, measured by MPI and planned with any model's
 * entry point, divload_plan_shares.
 *
 *     divload_mpi_ring_calibration cal;
 *     divload_mpi_ring_calibrate(MPI_COMM_WORLD, 64, my_kernel, ctx, 0.0, H, sizeof(double), NULL, &cal);
 *     char doc[65536];
 *     size_t len;
 *     divload_mpi_ring_json(&cal, W, H, "heuristic", doc, sizeof doc, &len);
 *     divload_mpi_ring ring;
 *     if (divload_mpi_ring_create(&cal, 0, doc, len, &ring) != DIVLOAD_OK) { ... }
 *     if (ring.my_member) {
 *         ...                                   // columns [my_displacement, + my_count)
 *         MPI_Sendrecv(..., ring.my_right, ..., ring.my_left, ..., ring.ring_comm, ...);
 *     }
 *     divload_mpi_ring_free(&ring);
 *     divload_mpi_ring_calibration_free(&cal);
 *
 * Calibration. Each rank's cycle time w (seconds per column) is the best of 3 timings of
 * compute(ctx, sample_columns), divided by sample_columns: the caller's own kernel, or
 * a busy loop as long as a column's work; with a NULL compute, `my_cycle_time` (> 0) is
 * taken as given. The link cost c[i][j] (seconds per boundary value from rank i to j)
 * is measured for every pair of ranks by the multi-cluster calibration's ping-pong and
 * estimator (heien's L, o, g: see that section), one pair at a time while the others
 * sleep in a barrier, with the large message the boundary itself (H values of
 * `value_bytes`, unless the options say otherwise): c = (L + 2o + H·value_bytes·g) / H,
 * the time of one boundary message per value, so that the ring model's H·c is the
 * message's time, latency included. Links are taken as symmetric (c[i][j] = c[j][i]).
 * p(p-1)/2 pairs are measured: at 64 ranks, 2016 pairs; pass a document of your own
 * (divload_mpi_ring_create reads any ring document whose processors are the ranks) when
 * that is too long.
 *
 * The ring. divload_mpi_ring_create plans on the root with divload_plan_shares and
 * broadcasts every rank's count, displacement and position on the ring. The members
 * form `ring_comm`, a periodic 1-D Cartesian communicator (MPI_Comm_split with the
 * position as key, then MPI_Cart_create without reordering) whose rank is the position
 * on the ring: blocks of columns follow each other along it, so a member's left and
 * right neighbours (`my_left`, `my_right`, ranks of ring_comm) hold the columns just
 * before and after its own, and the last member's right neighbour is the first (the
 * ring closes). Ranks the plan leaves out have `my_member` 0, no columns, my_position
 * -1 and ring_comm MPI_COMM_NULL.
 * ------------------------------------------------------------------------------------ */

/* A ring calibration, the same on every rank of the communicator it was made on. */
typedef struct divload_mpi_ring_calibration {
    MPI_Comm comm;        /* the communicator (not owned) */
    int size;             /* ranks = processors of the document, "r0" .. "r<size-1>" */
    double boundary;      /* H the costs were measured for (values per message) */
    size_t value_bytes;   /* bytes of one boundary value */
    double *cycle_times;  /* [size] seconds per column of each rank */
    double *costs;        /* [size * size] seconds per boundary value from rank i to j, row-major; diagonal 0 */
    divload_mpi_calibration_options options; /* as measured, defaults filled in */
} divload_mpi_ring_calibration;

static inline void divload_mpi_ring_calibration_free(divload_mpi_ring_calibration *cal) {
    if (cal == NULL) return;
    free(cal->cycle_times);
    free(cal->costs);
    cal->cycle_times = cal->costs = NULL;
}

/* Measures every rank's cycle time and the cost matrix between all pairs of ranks, as
 * described above. `boundary` (H >= 1, the values each member sends to each neighbour
 * per iteration) and `value_bytes` (>= 1) size the measured message; `options` (NULL for
 * the defaults, read on rank 0 only) are the multi-cluster calibration's, whose
 * large_bytes defaults here to the boundary message (at least small_bytes + 1).
 *
 * Returns DIVLOAD_OK, DIVLOAD_INVALID_INPUT (sample_columns < 1 with a compute function,
 * a NULL compute with my_cycle_time not finite and > 0, boundary not finite and >= 1,
 * value_bytes 0, a boundary message beyond INT_MAX bytes, options out of range: on any
 * rank) or DIVLOAD_OUT_OF_MEMORY, the same on every rank; on failure `cal` holds nothing
 * to free. A NULL `cal` returns DIVLOAD_NULL_PARAMETER at once (pass it on every rank or
 * none). Memory: size² doubles on every rank. Collective over `comm`; free with
 * divload_mpi_ring_calibration_free (local). */
static inline int divload_mpi_ring_calibrate(MPI_Comm comm, int sample_columns, divload_mpi_compute_fn compute,
                                             void *ctx, double my_cycle_time, double boundary, size_t value_bytes,
                                             const divload_mpi_calibration_options *options,
                                             divload_mpi_ring_calibration *cal) {
    if (cal == NULL) return DIVLOAD_NULL_PARAMETER;
    memset(cal, 0, sizeof *cal);
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    cal->comm = comm;
    cal->size = size;
    cal->boundary = boundary;
    cal->value_bytes = value_bytes;

    const double message = boundary * (double)value_bytes;
    int opt[4] = {8, 0, 21, 1};
    if (rank == 0 && options != NULL) {
        const int given[3] = {options->small_bytes, options->large_bytes, options->repetitions};
        for (int i = 0; i < 3; i++)
            if (given[i] != 0) opt[i] = given[i];
    }
    if (opt[1] == 0 && isfinite(message) && message <= (double)INT_MAX)
        opt[1] = (int)message > opt[0] ? (int)message : opt[0] + 1;
    MPI_Bcast(opt, 4, MPI_INT, 0, comm);
    cal->options.small_bytes = opt[0];
    cal->options.large_bytes = opt[1];
    cal->options.repetitions = opt[2];
    cal->options.max_pairs = opt[3];
    int bad = compute != NULL ? sample_columns < 1 : !(isfinite(my_cycle_time) && my_cycle_time > 0.0);
    if (!(isfinite(boundary) && boundary >= 1.0) || value_bytes == 0 || !(message <= (double)INT_MAX)) bad = 1;
    if (opt[0] < 1 || opt[1] <= opt[0] || opt[2] < 1) bad = 1;
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_LOR, comm);
    if (any_bad) return DIVLOAD_INVALID_INPUT;

    const size_t n = (size_t)size;
    const int countable = n <= (size_t)INT_MAX / 4 / n;
    cal->cycle_times = (double *)divload_mpi_alloc_(n, sizeof(double));
    cal->costs = countable ? (double *)divload_mpi_alloc_(n * n, sizeof(double)) : NULL;
    /* Each pair's four raw timings, at [4 * (a * size + b)]: summed over the ranks. */
    double *raw = countable ? (double *)divload_mpi_alloc_(4 * n * n, sizeof(double)) : NULL;
    double *samples = (double *)divload_mpi_alloc_(2 * (size_t)opt[2], sizeof(double));
    double *work = (double *)divload_mpi_alloc_(5, sizeof(double));
    char *buf = (char *)divload_mpi_alloc_((size_t)opt[1], 1);
    int ok = cal->cycle_times && cal->costs && raw && samples && work && buf;
    int all_ok = divload_mpi_all_ok_(ok, comm);
    if (!all_ok) {
        free(raw);
        free(samples);
        free(work);
        free(buf);
        divload_mpi_ring_calibration_free(cal);
        return DIVLOAD_OUT_OF_MEMORY;
    }

    double mine = my_cycle_time;
    if (compute != NULL) {
        double best = 0.0;
        for (int rep = 0; rep < 3; rep++) {
            double t0 = MPI_Wtime();
            compute(ctx, sample_columns);
            double dt = MPI_Wtime() - t0;
            if (rep == 0 || dt < best) best = dt;
        }
        mine = best / (double)sample_columns;
        if (!(mine > 0.0)) mine = 1e-12; /* a kernel too fast to time */
    }
    MPI_Allgather(&mine, 1, MPI_DOUBLE, cal->cycle_times, 1, MPI_DOUBLE, comm);

    MPI_Comm dup;
    MPI_Comm_dup(comm, &dup);
    for (int a = 0; a < size; a++) {
        for (int b = a + 1; b < size; b++) {
            divload_mpi_quiet_barrier_(dup);
            divload_mpi_ping_pong_(dup, rank, a, b, &cal->options, buf, samples, raw + 4 * ((size_t)a * n + b));
        }
    }
    divload_mpi_quiet_barrier_(dup);
    if (n * n > 0) MPI_Allreduce(MPI_IN_PLACE, raw, 4 * size * size, MPI_DOUBLE, MPI_SUM, dup);
    MPI_Comm_free(&dup);
    for (int a = 0; a < size; a++) {
        for (int b = a + 1; b < size; b++) {
            const divload_mpi_link l = divload_mpi_estimate_(raw + 4 * ((size_t)a * n + b), 1, &cal->options, work);
            double c = (l.latency + 2.0 * l.overhead + message * l.gap) / boundary;
            /* A cost of 0 is not a cost the model takes (links cost > 0): a pair too fast
               to time costs a picosecond per value. */
            if (!(c > 0.0) || !isfinite(c)) c = 1e-12;
            cal->costs[(size_t)a * n + b] = cal->costs[(size_t)b * n + a] = c;
        }
    }
    free(raw);
    free(samples);
    free(work);
    free(buf);
    return DIVLOAD_OK;
}

static inline void divload_mpi_put_ring_document_(divload_mpi_text_ *t, const divload_mpi_ring_calibration *cal,
                                                  long long work, double boundary, const char *solver) {
    const divload_mpi_calibration_options *o = &cal->options;
    divload_mpi_put_(t, "{\"version\": 1, \"model\": \"ring\",\n \"comment\": \"measured by divload_mpi_ring_calibrate "
                        "on %d ranks: cycle times of the ranks' kernels, costs per boundary value of %zu bytes from "
                        "round trips of %d and %d bytes (best of %d) between every pair of ranks\",\n \"work\": %lld, "
                        "\"boundary\": ",
                     cal->size, cal->value_bytes, o->small_bytes, o->large_bytes, o->repetitions, work);
    divload_mpi_put_double_(t, boundary);
    divload_mpi_put_(t, ", \"solver\": ");
    divload_mpi_put_string_(t, solver);
    divload_mpi_put_(t, ",\n \"processors\": [");
    for (int r = 0; r < cal->size; r++) {
        divload_mpi_put_(t, "%s{\"name\": \"r%d\", \"cycle_time\": ", r ? ",\n   " : "", r);
        divload_mpi_put_double_(t, cal->cycle_times[r]);
        divload_mpi_put_(t, "}");
    }
    divload_mpi_put_(t, "],\n \"cost_matrix\": [");
    for (int i = 0; i < cal->size; i++) {
        divload_mpi_put_(t, "%s[", i ? ",\n   " : "");
        for (int j = 0; j < cal->size; j++) {
            if (j) divload_mpi_put_(t, ", ");
            divload_mpi_put_double_(t, cal->costs[(size_t)i * (size_t)cal->size + (size_t)j]);
        }
        divload_mpi_put_(t, "]");
    }
    divload_mpi_put_(t, "]}\n");
}

/* Writes the ring document of a calibration: processors "r0" .. "r<size-1>" (rank r is
 * processor r) with their cycle times, the cost matrix, `work` columns (W >= 1),
 * `boundary` values (H, finite and >= 0: the costs stay those measured for cal->boundary)
 * and `solver` ("heuristic", or "exact" up to 8 ranks; NULL: "heuristic"), with a comment
 * saying how it was measured. Like divload_mpi_multicluster_json: snprintf-like into
 * `out`, NUL-terminated; on DIVLOAD_BUFFER_TOO_SMALL nothing is written and `*out_n` is
 * the size needed, NUL included (`out` may be NULL when `out_len` is 0, to ask).
 * DIVLOAD_NULL_PARAMETER for a NULL `cal` or `out_n` (or `out` with `out_len` > 0);
 * DIVLOAD_INVALID_INPUT for work < 1, a boundary not finite and >= 0, a calibration
 * without ranks or with a time that is not finite and > 0. The values themselves are
 * checked when the document is planned. Local: call it on any rank; numbers have a '.'
 * whatever LC_NUMERIC says. */
static inline int divload_mpi_ring_json(const divload_mpi_ring_calibration *cal, long long work, double boundary,
                                        const char *solver, char *out, size_t out_len, size_t *out_n) {
    if (cal == NULL || out_n == NULL || (out == NULL && out_len > 0)) return DIVLOAD_NULL_PARAMETER;
    if (work < 1 || !(isfinite(boundary) && boundary >= 0.0) || cal->size < 1 || cal->cycle_times == NULL ||
        cal->costs == NULL)
        return DIVLOAD_INVALID_INPUT;
    const size_t n = (size_t)cal->size;
    for (size_t i = 0; i < n; i++) {
        if (!(isfinite(cal->cycle_times[i]) && cal->cycle_times[i] > 0.0)) return DIVLOAD_INVALID_INPUT;
        for (size_t j = 0; j < n; j++) {
            const double c = cal->costs[i * n + j];
            if (i != j && !(isfinite(c) && c > 0.0)) return DIVLOAD_INVALID_INPUT;
        }
    }
    if (solver == NULL) solver = "heuristic";
    divload_mpi_text_ count = {NULL, 0, 0};
    divload_mpi_put_ring_document_(&count, cal, work, boundary, solver);
    if (count.len + 1 > out_len) {
        *out_n = count.len + 1;
        return DIVLOAD_BUFFER_TOO_SMALL;
    }
    divload_mpi_text_ text = {out, out_len, 0};
    divload_mpi_put_ring_document_(&text, cal, work, boundary, solver);
    *out_n = text.len;
    return DIVLOAD_OK;
}

/* The predicted time of one iteration (the ring model's T_step, eq. 1) of `members`
 * ranks in the ring order `order` (ranks of cal->comm) with `counts[k]` columns for
 * order[k]: max over the members of count·w + H·(c[i][succ] + c[i][pred]), no
 * communication for a ring of one. With the plan's order and counts it is the plan's
 * makespan; with every rank in rank order and W / size columns each (the first W % size
 * one more), the even split's. -1 for arguments out of range. Local. */
static inline double divload_mpi_ring_predict(const divload_mpi_ring_calibration *cal, double boundary,
                                              const int *order, const int *counts, int members) {
    if (cal == NULL || order == NULL || counts == NULL || members < 1 || members > cal->size) return -1.0;
    const size_t n = (size_t)cal->size;
    double worst = 0.0;
    for (int k = 0; k < members; k++) {
        const int i = order[k], succ = order[(k + 1) % members], pred = order[(k + members - 1) % members];
        if (i < 0 || i >= cal->size || succ < 0 || succ >= cal->size || pred < 0 || pred >= cal->size ||
            counts[k] < 0)
            return -1.0;
        double t = counts[k] * cal->cycle_times[i];
        if (members > 1) t += boundary * (cal->costs[(size_t)i * n + succ] + cal->costs[(size_t)i * n + pred]);
        if (t > worst) worst = t;
    }
    return worst;
}

/* A ring plan, known on every rank of the calibration's communicator. */
typedef struct divload_mpi_ring {
    MPI_Comm comm;       /* the calibration's communicator (not owned) */
    MPI_Comm ring_comm;  /* the members, periodic 1-D Cartesian, rank = position (owned);
                            MPI_COMM_NULL on ranks left out */
    int root;            /* the rank that planned */
    int size;            /* ranks of comm */
    int members;         /* ranks on the ring */
    int my_member;       /* 1 on the ring, 0 left out */
    int my_position;     /* place on the ring = rank in ring_comm; -1 when left out */
    int my_count;        /* columns of this rank (0 when left out) */
    int my_displacement; /* its first column */
    int my_left;         /* predecessor's rank in ring_comm (MPI_PROC_NULL when left out) */
    int my_right;        /* successor's rank in ring_comm (MPI_PROC_NULL when left out) */
    int *counts;         /* [size] columns of each rank of comm */
    int *displs;         /* [size] first column of each rank of comm */
    int *positions;      /* [size] place on the ring of each rank of comm, -1 when left out */
    int *ring_ranks;     /* [members] rank in comm of each place on the ring */
    divload_plan_summary summary; /* T_step, lower bound, gap, method, ... */
} divload_mpi_ring;

static inline void divload_mpi_ring_release_(divload_mpi_ring *ring) {
    free(ring->counts);
    free(ring->displs);
    free(ring->positions);
    free(ring->ring_ranks);
    ring->counts = ring->displs = ring->positions = ring->ring_ranks = NULL;
}

/* Plans the ring document `json` (`json_len` bytes; read on `root` only, others may pass
 * NULL) with divload_plan_shares on `root`, broadcasts every rank's count, displacement
 * and position and the summary, and builds ring_comm, as described above. The
 * document's processors must be the communicator's ranks in rank order (as
 * divload_mpi_ring_json writes them); any ring document of that many processors is
 * accepted (a cost matrix of your own, say).
 *
 * Returns DIVLOAD_OK or a status, the same on every rank: the library's (DIVLOAD_JSON for
 * a malformed document, ...; divload_last_error_message() explains on the root),
 * DIVLOAD_INVALID_INPUT for a root out of range or a document whose processors are not
 * the communicator's ranks, DIVLOAD_OVERFLOW for more than INT_MAX columns (MPI counts
 * are int), DIVLOAD_NULL_PARAMETER for a NULL `json` on the root, DIVLOAD_OUT_OF_MEMORY.
 * A NULL `cal` or `ring` returns DIVLOAD_NULL_PARAMETER at once (on every rank or none).
 * On failure `ring` holds nothing to free. Collective over cal->comm; free with
 * divload_mpi_ring_free (collective over the members: MPI_Comm_free). */
static inline int divload_mpi_ring_create(const divload_mpi_ring_calibration *cal, int root, const char *json,
                                          size_t json_len, divload_mpi_ring *ring) {
    if (cal == NULL || ring == NULL) return DIVLOAD_NULL_PARAMETER;
    memset(ring, 0, sizeof *ring);
    int rank, status = DIVLOAD_OK;
    const int size = cal->size;
    MPI_Comm_rank(cal->comm, &rank);
    ring->comm = cal->comm;
    ring->ring_comm = MPI_COMM_NULL;
    ring->root = root;
    ring->size = size;
    ring->my_position = -1;
    ring->my_left = ring->my_right = MPI_PROC_NULL;
    if (root < 0 || root >= size) return DIVLOAD_INVALID_INPUT; /* the same on every rank */
    const size_t n = (size_t)size;
    ring->counts = (int *)divload_mpi_alloc_(n, sizeof(int));
    ring->displs = (int *)divload_mpi_alloc_(n, sizeof(int));
    ring->positions = (int *)divload_mpi_alloc_(n, sizeof(int));
    ring->ring_ranks = (int *)divload_mpi_alloc_(n, sizeof(int));
    divload_share *shares = rank == root ? (divload_share *)divload_mpi_alloc_(n, sizeof *shares) : NULL;
    int ok = ring->counts && ring->displs && ring->positions && ring->ring_ranks && (rank != root || shares);
    int all_ok = divload_mpi_all_ok_(ok, cal->comm);
    if (!all_ok) {
        free(shares);
        divload_mpi_ring_release_(ring);
        return DIVLOAD_OUT_OF_MEMORY;
    }
    if (rank == root) {
        size_t got = 0;
        status = json == NULL ? (int)DIVLOAD_NULL_PARAMETER
                              : (int)divload_plan_shares(json, json_len, shares, n, &got, &ring->summary);
        /* More processors than ranks, or fewer: the document is not this communicator's. */
        if (status == DIVLOAD_BUFFER_TOO_SMALL || (status == DIVLOAD_OK && got != n)) status = DIVLOAD_INVALID_INPUT;
        if (status == DIVLOAD_OK && ring->summary.items > (uint64_t)INT_MAX) status = DIVLOAD_OVERFLOW;
        for (size_t r = 0; status == DIVLOAD_OK && r < n; r++) {
            ring->counts[r] = (int)shares[r].count;
            ring->displs[r] = (int)shares[r].displacement;
            ring->positions[r] = (int)shares[r].position;
        }
    }
    free(shares);
    MPI_Bcast(&status, 1, MPI_INT, root, cal->comm);
    if (status != DIVLOAD_OK) {
        divload_mpi_ring_release_(ring);
        return status;
    }
    MPI_Bcast(ring->counts, size, MPI_INT, root, cal->comm);
    MPI_Bcast(ring->displs, size, MPI_INT, root, cal->comm);
    MPI_Bcast(ring->positions, size, MPI_INT, root, cal->comm);
    /* Plain data; all ranks of one job share its layout. */
    MPI_Bcast(&ring->summary, (int)sizeof ring->summary, MPI_BYTE, root, cal->comm);
    for (int r = 0; r < size; r++) {
        if (ring->positions[r] < 0) continue;
        ring->ring_ranks[ring->positions[r]] = r;
        ring->members++;
    }
    ring->my_position = ring->positions[rank];
    ring->my_member = ring->my_position >= 0;
    ring->my_count = ring->counts[rank];
    ring->my_displacement = ring->displs[rank];
    MPI_Comm split = MPI_COMM_NULL;
    MPI_Comm_split(cal->comm, ring->my_member ? 0 : MPI_UNDEFINED, ring->my_position, &split);
    if (split != MPI_COMM_NULL) {
        const int dims[1] = {ring->members}, periods[1] = {1};
        MPI_Cart_create(split, 1, dims, periods, 0, &ring->ring_comm);
        MPI_Comm_free(&split);
        MPI_Cart_shift(ring->ring_comm, 0, 1, &ring->my_left, &ring->my_right);
    }
    return DIVLOAD_OK;
}

/* Frees the plan's arrays and ring_comm (collective over the members). */
static inline void divload_mpi_ring_free(divload_mpi_ring *ring) {
    if (ring == NULL) return;
    if (ring->ring_comm != MPI_COMM_NULL) MPI_Comm_free(&ring->ring_comm);
    divload_mpi_ring_release_(ring);
}

#ifdef __cplusplus
}
#endif

#endif /* DIVLOAD_MPI_RING_H */
