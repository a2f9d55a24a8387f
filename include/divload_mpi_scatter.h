/* divload_mpi_scatter.h: the balanced MPI_Scatterv (genaud2003): each rank's costs
 * gathered, the plan made on the root and broadcast, the scatter on a communicator in send
 * order, and the calibration that measures a rank's costs. Part of divload_mpi.h, which
 * includes it (see there for an example). Header-only; hand-written. */
#ifndef DIVLOAD_MPI_SCATTER_H
#define DIVLOAD_MPI_SCATTER_H

#include "divload_mpi_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A plan, known on every rank of the communicator it was made on. */
typedef struct divload_mpi_plan {
    MPI_Comm comm;          /* the communicator the plan was made on (not owned) */
    MPI_Comm send_comm;     /* the same processes ranked by send position (owned) */
    int root;               /* the root's rank in comm */
    int send_root;          /* the root's rank in send_comm */
    int size;               /* number of ranks */
    int my_position;        /* this rank's position in the send order = its rank in send_comm */
    int my_count;           /* items this rank receives */
    int my_displacement;    /* offset of its items in the root's buffer */
    double my_predicted_finish; /* predicted finish time, seconds after the scatter starts */
    int *counts;            /* [size] counts by rank of send_comm (for MPI_Scatterv) */
    int *displs;            /* [size] displacements by rank of send_comm */
    int *positions;         /* [size] send position of each rank of comm */
    int *counts_by_rank;    /* [size] counts by rank of comm */
    int *displs_by_rank;    /* [size] displacements by rank of comm */
    double *predicted_finish; /* [size] predicted finish time of each rank of comm */
    divload_worker *workers;  /* [size] the costs planned with, by rank of comm (the root's comm costs 0) */
    divload_summary summary;  /* makespan, bound, even-split makespan, ... */
} divload_mpi_plan;

static inline void divload_mpi_plan_release_(divload_mpi_plan *p) {
    free(p->counts);
    free(p->displs);
    free(p->positions);
    free(p->counts_by_rank);
    free(p->displs_by_rank);
    free(p->predicted_finish);
    free(p->workers);
    p->counts = p->displs = p->positions = p->counts_by_rank = p->displs_by_rank = NULL;
    p->predicted_finish = NULL;
    p->workers = NULL;
}

/* Plans the scatter of `items` items held by `root` over all ranks of `comm`.
 *
 * `my_costs` are this rank's costs. The root's comm_latency and comm_per_item are
 * replaced by 0 before anything checks them (the scatter model never charges the root
 * for its own part, which is not sent), so any value is accepted there; `plan.workers`
 * holds the costs planned with. `options` may be NULL for the defaults and only matters
 * on the root.
 *
 * Returns DIVLOAD_OK or a status, the same on every rank: the planner's (on the root,
 * divload_last_error_message() explains), DIVLOAD_INVALID_INPUT for `root` outside
 * [0, size), DIVLOAD_NULL_PARAMETER when `my_costs` or `plan` is NULL on any rank,
 * DIVLOAD_OUT_OF_MEMORY when any rank cannot allocate the plan, DIVLOAD_OVERFLOW for
 * items beyond INT_MAX (MPI_Scatterv takes int counts). On failure `plan` (if not NULL)
 * holds nothing to free. Collective over `comm`: every rank passes the same `root`. */
static inline int divload_mpi_plan_create(MPI_Comm comm, int root, const divload_worker *my_costs,
                                          long long items, const divload_options *options,
                                          divload_mpi_plan *plan) {
    int rank, size, status = DIVLOAD_OK;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (plan != NULL) {
        memset(plan, 0, sizeof *plan);
        plan->comm = comm;
        plan->send_comm = MPI_COMM_NULL;
        plan->root = root;
        plan->size = size;
    }
    if (root < 0 || root >= size) return DIVLOAD_INVALID_INPUT; /* the same on every rank */

    const size_t n = (size_t)size;
    /* One allreduce settles the arguments and the allocations of every rank: a NULL on
       one rank then fails them all instead of leaving the others in a collective. */
    int ok[2] = {plan != NULL && my_costs != NULL, 0}, all_ok[2] = {0, 0};
    if (ok[0]) {
        plan->counts = (int *)divload_mpi_alloc_(n, sizeof(int));
        plan->displs = (int *)divload_mpi_alloc_(n, sizeof(int));
        plan->positions = (int *)divload_mpi_alloc_(n, sizeof(int));
        plan->counts_by_rank = (int *)divload_mpi_alloc_(n, sizeof(int));
        plan->displs_by_rank = (int *)divload_mpi_alloc_(n, sizeof(int));
        plan->predicted_finish = (double *)divload_mpi_alloc_(n, sizeof(double));
        plan->workers = (divload_worker *)divload_mpi_alloc_(n, sizeof(divload_worker));
        ok[1] = plan->counts && plan->displs && plan->positions && plan->counts_by_rank && plan->displs_by_rank &&
                plan->predicted_finish && plan->workers;
    }
    MPI_Allreduce(ok, all_ok, 2, MPI_INT, MPI_LAND, comm);
    if (!all_ok[0] || !all_ok[1]) {
        if (plan != NULL) divload_mpi_plan_release_(plan);
        return all_ok[0] ? DIVLOAD_OUT_OF_MEMORY : DIVLOAD_NULL_PARAMETER;
    }

    double mine[4] = {my_costs->comm_latency, my_costs->comm_per_item, my_costs->comp_latency,
                      my_costs->comp_per_item};
    if (rank == root) mine[0] = mine[1] = 0.0;
    MPI_Allgather(mine, 4, MPI_DOUBLE, plan->workers, 4, MPI_DOUBLE, comm);

    if (rank == root) {
        if (items < 0 || items > INT_MAX) {
            status = items < 0 ? DIVLOAD_INVALID_INPUT : DIVLOAD_OVERFLOW;
        } else {
            divload_assignment *a = (divload_assignment *)divload_mpi_alloc_(n, sizeof(divload_assignment));
            status = a == NULL ? (int)DIVLOAD_OUT_OF_MEMORY
                               : (int)divload_plan(plan->workers, n, (size_t)root, (uint64_t)items,
                                                   options, a, n, &plan->summary);
            if (status == DIVLOAD_OK) {
                for (int k = 0; k < size; k++) {
                    int r = (int)a[k].rank;
                    plan->positions[r] = k;
                    plan->counts_by_rank[r] = (int)a[k].count;
                    plan->displs_by_rank[r] = (int)a[k].displacement;
                    plan->predicted_finish[r] = a[k].finish;
                }
            }
            free(a);
        }
    }
    MPI_Bcast(&status, 1, MPI_INT, root, comm);
    if (status != DIVLOAD_OK) {
        divload_mpi_plan_release_(plan);
        return status;
    }
    MPI_Bcast(plan->positions, size, MPI_INT, root, comm);
    MPI_Bcast(plan->counts_by_rank, size, MPI_INT, root, comm);
    MPI_Bcast(plan->displs_by_rank, size, MPI_INT, root, comm);
    MPI_Bcast(plan->predicted_finish, size, MPI_DOUBLE, root, comm);
    /* The summary is plain data; all ranks of one job share its layout. */
    MPI_Bcast(&plan->summary, (int)sizeof plan->summary, MPI_BYTE, root, comm);

    for (int r = 0; r < size; r++) {
        plan->counts[plan->positions[r]] = plan->counts_by_rank[r];
        plan->displs[plan->positions[r]] = plan->displs_by_rank[r];
    }
    plan->my_position = plan->positions[rank];
    plan->my_count = plan->counts_by_rank[rank];
    plan->my_displacement = plan->displs_by_rank[rank];
    plan->my_predicted_finish = plan->predicted_finish[rank];
    plan->send_root = plan->positions[root];
    MPI_Comm_split(comm, 0, plan->my_position, &plan->send_comm);
    return DIVLOAD_OK;
}

/* MPI_Scatterv of the plan on send_comm: the root sends `sendbuf` (all items, original
 * order, `type` each); every rank receives its `my_count` items into `recvbuf`. Returns
 * the MPI error code. Collective over the plan's communicator. */
static inline int divload_mpi_scatterv(const divload_mpi_plan *plan, const void *sendbuf, MPI_Datatype type,
                                       void *recvbuf) {
    return MPI_Scatterv(sendbuf, plan->counts, plan->displs, type, recvbuf, plan->my_count, type,
                        plan->send_root, plan->send_comm);
}

/* Frees the plan's arrays and send_comm. Collective (MPI_Comm_free). */
static inline void divload_mpi_plan_free(divload_mpi_plan *plan) {
    if (plan == NULL) return;
    if (plan->send_comm != MPI_COMM_NULL) MPI_Comm_free(&plan->send_comm);
    divload_mpi_plan_release_(plan);
}

/* The bytes that `count` (>= 1) consecutive elements of `type` touch, from the lowest to
 * the highest, into `*bytes`, and where the first element starts relative to the lowest
 * into `*start`: a buffer `buf` of `*bytes` bytes holds them from `buf + *start` (the MPI
 * standard's recipe for MPI_Type_get_true_extent). The extent alone is not enough: a
 * column resized to one element spans (count - 1) * extent + true extent bytes, and a
 * true lower bound below 0 puts data before the start. Returns MPI_SUCCESS, MPI_ERR_TYPE
 * when the type cannot be queried, or MPI_ERR_NO_MEM when the span exceeds a quarter of
 * the address space (so that no sum below can overflow). */
static inline int divload_mpi_span_(MPI_Datatype type, int count, size_t *bytes, MPI_Aint *start) {
    MPI_Aint lb, extent, true_lb, true_extent;
    if (count < 1 || MPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
        MPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    const MPI_Aint limit = (MPI_Aint)(PTRDIFF_MAX / 4), steps = (MPI_Aint)count - 1;
    if (true_extent < 0 || true_extent > limit || true_lb < -limit || true_lb > limit)
        return MPI_ERR_NO_MEM;
    if (steps > 0 && (extent > limit / steps || extent < -(limit / steps))) return MPI_ERR_NO_MEM;
    const MPI_Aint step = extent * steps;
    const MPI_Aint low = true_lb + (step < 0 ? step : 0);
    *bytes = (size_t)(true_extent + (step < 0 ? -step : step));
    *start = -low;
    return MPI_SUCCESS;
}

/* Measures this rank's costs, for divload_mpi_plan_create.
 *
 * Computation: every rank times compute(ctx, k) for k = sample_items / 2 and sample_items
 * (best of 3 each) and fits comp_latency + comp_per_item * k. Communication: the root
 * sends k items of `type` to each rank in turn, which answers with an empty message, and
 * fits comm_latency + comm_per_item * k to the best of 3 round trips; the root's own
 * communication cost is 0. The messages go over a duplicate of `comm`, so they never
 * match the caller's own messages on `comm`. The sample buffer covers the true extent of
 * sample_items elements of `type` (any datatype: resized, non-contiguous, negative lower
 * bound); its contents are zeros.
 *
 * Returns MPI_SUCCESS or an MPI error code, the same on every rank: MPI_ERR_ROOT for
 * `root` outside [0, size), MPI_ERR_ARG for sample_items < 2 or a NULL `compute` or
 * `my_costs` on any rank, MPI_ERR_TYPE when `type` cannot be queried, MPI_ERR_NO_MEM when
 * a rank cannot allocate the sample; `my_costs` is written only on success. Collective
 * over `comm`: every rank passes the same `root` and `sample_items`. */
static inline int divload_mpi_calibrate(MPI_Comm comm, int root, MPI_Datatype type, int sample_items,
                                        divload_mpi_compute_fn compute, void *ctx,
                                        divload_worker *my_costs) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (root < 0 || root >= size) return MPI_ERR_ROOT; /* the same on every rank */
    MPI_Comm dup;
    int err = MPI_Comm_dup(comm, &dup);
    if (err != MPI_SUCCESS) return err;

    /* What fails on this rank, the most serious highest; one allreduce agrees on the
       worst, so that every rank returns the same code before any point-to-point call. */
    const int fine = 0, no_mem = 1, bad_type = 2, bad_argument = 3;
    int problem = fine, worst = fine;
    size_t bytes = 0;
    MPI_Aint start = 0;
    char *buf = NULL;
    double *links = NULL;
    if (sample_items < 2 || compute == NULL || my_costs == NULL) {
        problem = bad_argument;
    } else {
        err = divload_mpi_span_(type, sample_items, &bytes, &start);
        problem = err == MPI_ERR_TYPE ? bad_type : err != MPI_SUCCESS ? no_mem : fine;
    }
    if (problem == fine) {
        /* One byte more: calloc(0) may return NULL. */
        buf = (char *)divload_mpi_alloc_(bytes + 1, 1);
        links = rank == root ? (double *)divload_mpi_alloc_((size_t)size, 2 * sizeof(double)) : NULL;
        if (buf == NULL || (rank == root && links == NULL)) problem = no_mem;
    }
    MPI_Allreduce(&problem, &worst, 1, MPI_INT, MPI_MAX, dup);
    if (worst != fine) {
        free(buf);
        free(links);
        MPI_Comm_free(&dup);
        return worst == bad_argument ? MPI_ERR_ARG : worst == bad_type ? MPI_ERR_TYPE : MPI_ERR_NO_MEM;
    }
    char *sample = buf + start;

    const int k[2] = {sample_items / 2, sample_items};
    double t[2];
    for (int s = 0; s < 2; s++) {
        double best = 0.0;
        for (int rep = 0; rep < 3; rep++) {
            double t0 = MPI_Wtime();
            compute(ctx, k[s]);
            double dt = MPI_Wtime() - t0;
            if (rep == 0 || dt < best) best = dt;
        }
        t[s] = best;
    }
    /* A straight line through the two sizes; noise can make it fall, then it is taken
     * through the origin instead. */
    double slope = (t[1] - t[0]) / (double)(k[1] - k[0]);
    double intercept = t[1] - slope * k[1];
    if (!(slope > 0.0) || intercept < 0.0) {
        slope = t[1] / (double)k[1];
        intercept = 0.0;
    }
    if (!(slope > 0.0)) slope = 1e-12; /* a compute function too fast to time */

    for (int r = 0; r < size; r++) {
        if (r == root) continue;
        for (int s = 0; s < 2; s++) {
            double best = 0.0;
            for (int rep = 0; rep < 3; rep++) {
                if (rank == root) {
                    double t0 = MPI_Wtime();
                    MPI_Send(sample, k[s], type, r, 0, dup);
                    MPI_Recv(NULL, 0, MPI_BYTE, r, 1, dup, MPI_STATUS_IGNORE);
                    double dt = MPI_Wtime() - t0;
                    if (rep == 0 || dt < best) best = dt;
                } else if (rank == r) {
                    MPI_Recv(sample, k[s], type, root, 0, dup, MPI_STATUS_IGNORE);
                    MPI_Send(NULL, 0, MPI_BYTE, root, 1, dup);
                }
            }
            t[s] = best;
        }
        if (rank == root) {
            double sl = (t[1] - t[0]) / (double)(k[1] - k[0]);
            double lat = t[0] - sl * k[0];
            if (!(sl > 0.0) || lat < 0.0) {
                sl = t[1] / (double)k[1];
                lat = 0.0;
            }
            links[2 * r] = lat;
            links[2 * r + 1] = sl > 0.0 ? sl : 0.0;
        }
    }
    double mine[2] = {0.0, 0.0};
    MPI_Scatter(links, 2, MPI_DOUBLE, mine, 2, MPI_DOUBLE, root, dup);
    MPI_Comm_free(&dup);
    my_costs->comp_per_item = slope;
    my_costs->comp_latency = intercept;
    my_costs->comm_latency = rank == root ? 0.0 : mine[0];
    my_costs->comm_per_item = rank == root ? 0.0 : mine[1];
    free(links);
    free(buf);
    return MPI_SUCCESS;
}

#ifdef __cplusplus
}
#endif

#endif /* DIVLOAD_MPI_SCATTER_H */
