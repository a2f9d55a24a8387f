/* divload_mpi.h: balanced MPI_Scatterv with libdivload, in a few calls; with return
 * messages, the results gathered back on the root in the planned return order
 * (divload_mpi_returns_plan_create, divload_mpi_gatherv_ordered: see below).
 *
 * Header-only (static inline functions); include it after <mpi.h> is available and link
 * libdivload. Hand-written, not generated.
 *
 *     divload_worker me = {0};                 // or measured: divload_mpi_calibrate(...)
 *     me.comp_per_item = seconds_per_record;   // this rank's own cost
 *     me.comm_per_item = link_seconds_per_record;
 *     divload_mpi_plan plan;
 *     int st = divload_mpi_plan_create(MPI_COMM_WORLD, 0, &me, n, NULL, &plan);
 *     if (st != DIVLOAD_OK) { ... }            // same status on every rank
 *     recv = malloc(plan.my_count * sizeof(record));
 *     divload_mpi_scatterv(&plan, records, record_type, recv);
 *     ...                                       // process plan.my_count records
 *     divload_mpi_plan_free(&plan);
 *
 * What happens: every rank contributes its costs (MPI_Allgather), the root plans with
 * libdivload and broadcasts counts, displacements and send positions, and every rank
 * joins `send_comm`, a communicator with the same processes ranked by their position in
 * the send order (MPI_Comm_split with the position as key). The scatter runs on
 * `send_comm`, so an MPI whose Scatterv serves ranks in order serves them in the planned
 * order (decreasing bandwidth, genaud2003 Thm 3). The root's buffer holds the items in
 * their original order; rank r of `comm` receives items [my_displacement,
 * my_displacement + my_count).
 *
 * Collective calls: every rank of `comm` must call create, scatterv and free together.
 */
#ifndef DIVLOAD_MPI_H
#define DIVLOAD_MPI_H

#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "divload.h"

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
    divload_worker *workers;  /* [size] the costs every rank contributed, by rank of comm */
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
 * `my_costs` are this rank's costs (the root's communication costs are ignored);
 * `options` may be NULL for the defaults and only matters on the root. Returns DIVLOAD_OK
 * or the planner's status, the same on every rank; on failure `plan` holds nothing to
 * free and divload_last_error_message() explains on the root. Items beyond INT_MAX give
 * DIVLOAD_OVERFLOW (MPI_Scatterv takes int counts). Collective over `comm`. */
static inline int divload_mpi_plan_create(MPI_Comm comm, int root, const divload_worker *my_costs,
                                          long long items, const divload_options *options,
                                          divload_mpi_plan *plan) {
    int rank, size, status = DIVLOAD_OK;
    if (plan == NULL || my_costs == NULL) return DIVLOAD_NULL_PARAMETER;
    memset(plan, 0, sizeof *plan);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    plan->comm = comm;
    plan->send_comm = MPI_COMM_NULL;
    plan->root = root;
    plan->size = size;

    const size_t n = (size_t)size;
    plan->counts = (int *)calloc(n, sizeof(int));
    plan->displs = (int *)calloc(n, sizeof(int));
    plan->positions = (int *)calloc(n, sizeof(int));
    plan->counts_by_rank = (int *)calloc(n, sizeof(int));
    plan->displs_by_rank = (int *)calloc(n, sizeof(int));
    plan->predicted_finish = (double *)calloc(n, sizeof(double));
    plan->workers = (divload_worker *)calloc(n, sizeof(divload_worker));
    int ok = plan->counts && plan->displs && plan->positions && plan->counts_by_rank &&
             plan->displs_by_rank && plan->predicted_finish && plan->workers;
    /* Every rank must learn whether every other rank could allocate. */
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    if (!all_ok) {
        divload_mpi_plan_release_(plan);
        return DIVLOAD_OUT_OF_MEMORY;
    }

    double mine[4] = {my_costs->comm_latency, my_costs->comm_per_item, my_costs->comp_latency,
                      my_costs->comp_per_item};
    MPI_Allgather(mine, 4, MPI_DOUBLE, plan->workers, 4, MPI_DOUBLE, comm);

    if (rank == root) {
        if (items < 0 || items > INT_MAX) {
            status = items < 0 ? DIVLOAD_INVALID_INPUT : DIVLOAD_OVERFLOW;
        } else {
            divload_assignment *a = (divload_assignment *)calloc(n, sizeof(divload_assignment));
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

/* ------------------------------------------------------------------------------------
 * Results back to the root, in the planned return order (the return-message model).
 *
 *     divload_return_worker me = {link_s_per_item, compute_s_per_item, result_s_per_item};
 *     divload_mpi_returns_plan plan;
 *     int st = divload_mpi_returns_plan_create(MPI_COMM_WORLD, 0, &me, n, DIVLOAD_SCHEDULE_BEST,
 *                                              DIVLOAD_PORT_FULL_DUPLEX, &plan);
 *     if (st != DIVLOAD_OK) { ... }            // same status on every rank
 *     divload_mpi_returns_scatterv(&plan, items, item_type, mine);
 *     ...                                       // results[j] for mine[j], plan.my_count of them
 *     divload_mpi_gatherv_ordered(&plan, results, result_type, all_results, NULL, NULL);
 *     divload_mpi_returns_plan_free(&plan);
 *
 * Every rank contributes its costs c, w, d (seconds per item to receive, to process, to
 * send its results back); the root's c and d are taken as 0 (its part is copied
 * locally). The root plans with divload_plan_returns and broadcasts every rank's
 * assignment: count, displacement (contiguous in send order), send and return positions
 * and predicted times. The scatter runs on `send_comm` (ranks ordered by send position,
 * as for divload_mpi_scatterv). The gather is point-to-point on `send_comm`: the root
 * posts one blocking receive at a time, in return order, straight into each rank's
 * displacement of the result buffer, so rank r's results land only after those of every
 * rank that returns before it; the other ranks send when they are done. Ranks with no
 * items send nothing. The root's own results are copied with an MPI_Sendrecv to itself
 * (any datatype), or not at all with MPI_IN_PLACE.
 *
 * The model assumes the root serves sends and receives while it computes its own part;
 * a single-threaded root computes between the scatter and the gather, so the predicted
 * times are a lower estimate there. Collective calls: every rank of `comm` must call
 * create, scatterv, gatherv_ordered and free together.
 * ------------------------------------------------------------------------------------ */

/* The tag of the result messages on the plan's own `send_comm`. */
#define DIVLOAD_MPI_RETURN_TAG 0x6476

/* A plan with return messages, known on every rank of the communicator it was made on. */
typedef struct divload_mpi_returns_plan {
    MPI_Comm comm;          /* the communicator the plan was made on (not owned) */
    MPI_Comm send_comm;     /* the same processes ranked by send position (owned) */
    int root;               /* the root's rank in comm */
    int send_root;          /* the root's rank in send_comm */
    int size;               /* number of ranks */
    int my_position;        /* this rank's send position = its rank in send_comm */
    int my_return_position; /* this rank's position in the return order (0 returns first) */
    int my_count;           /* items this rank receives, and results it returns */
    int my_displacement;    /* offset of its items (and results) in the root's buffers */
    double my_predicted_computed;   /* when it has processed them, s after the first send */
    double my_predicted_return_end; /* when its results are back at the root */
    int *counts;            /* [size] counts by rank of send_comm (for MPI_Scatterv) */
    int *displs;            /* [size] displacements by rank of send_comm */
    int *return_order;      /* [size] rank of comm at each return position */
    divload_return_assignment *by_rank; /* [size] each rank's assignment, by rank of comm */
    divload_return_worker *workers;     /* [size] the costs planned with, by rank of comm */
    divload_returns_summary summary;    /* makespan, bounds, even split, ... */
} divload_mpi_returns_plan;

static inline void divload_mpi_returns_plan_release_(divload_mpi_returns_plan *p) {
    free(p->counts);
    free(p->displs);
    free(p->return_order);
    free(p->by_rank);
    free(p->workers);
    p->counts = p->displs = p->return_order = NULL;
    p->by_rank = NULL;
    p->workers = NULL;
}

/* Plans the scatter of `items` items held by `root` over all ranks of `comm`, with the
 * results coming back to the root: `schedule` is DIVLOAD_SCHEDULE_BEST, _LIFO or _FIFO,
 * `port` DIVLOAD_PORT_FULL_DUPLEX or _HALF_DUPLEX (both only read on the root).
 *
 * `my_costs` are this rank's costs (the root's comm_per_item and return_per_item are
 * replaced by 0). Returns DIVLOAD_OK or the planner's status, the same on every rank; on
 * failure `plan` holds nothing to free and divload_last_error_message() explains on the
 * root. Items beyond INT_MAX give DIVLOAD_OVERFLOW (MPI counts are int). Collective. */
static inline int divload_mpi_returns_plan_create(MPI_Comm comm, int root, const divload_return_worker *my_costs,
                                                  long long items, uint32_t schedule, uint32_t port,
                                                  divload_mpi_returns_plan *plan) {
    int rank, size, status = DIVLOAD_OK;
    if (plan == NULL || my_costs == NULL) return DIVLOAD_NULL_PARAMETER;
    memset(plan, 0, sizeof *plan);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    plan->comm = comm;
    plan->send_comm = MPI_COMM_NULL;
    if (root < 0 || root >= size) return DIVLOAD_INVALID_INPUT; /* the same on every rank */
    plan->root = root;
    plan->size = size;

    const size_t n = (size_t)size;
    plan->counts = (int *)calloc(n, sizeof(int));
    plan->displs = (int *)calloc(n, sizeof(int));
    plan->return_order = (int *)calloc(n, sizeof(int));
    plan->by_rank = (divload_return_assignment *)calloc(n, sizeof(divload_return_assignment));
    plan->workers = (divload_return_worker *)calloc(n, sizeof(divload_return_worker));
    int ok = plan->counts && plan->displs && plan->return_order && plan->by_rank && plan->workers;
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    if (!all_ok) {
        divload_mpi_returns_plan_release_(plan);
        return DIVLOAD_OUT_OF_MEMORY;
    }

    double mine[3] = {my_costs->comm_per_item, my_costs->comp_per_item, my_costs->return_per_item};
    if (rank == root) mine[0] = mine[2] = 0.0;
    MPI_Allgather(mine, 3, MPI_DOUBLE, plan->workers, 3, MPI_DOUBLE, comm);

    if (rank == root) {
        if (items < 0 || items > INT_MAX) {
            status = items < 0 ? DIVLOAD_INVALID_INPUT : DIVLOAD_OVERFLOW;
        } else {
            divload_return_assignment *a = (divload_return_assignment *)calloc(n, sizeof *a);
            status = a == NULL ? (int)DIVLOAD_OUT_OF_MEMORY
                               : (int)divload_plan_returns(plan->workers, n, (uint64_t)items, schedule, port, a,
                                                           n, &plan->summary);
            if (status == DIVLOAD_OK) {
                for (size_t k = 0; k < n; k++) plan->by_rank[a[k].rank] = a[k];
            }
            free(a);
        }
    }
    MPI_Bcast(&status, 1, MPI_INT, root, comm);
    if (status != DIVLOAD_OK) {
        divload_mpi_returns_plan_release_(plan);
        return status;
    }
    /* Plain data; all ranks of one job share its layout. */
    MPI_Bcast(plan->by_rank, (int)(n * sizeof(divload_return_assignment)), MPI_BYTE, root, comm);
    MPI_Bcast(&plan->summary, (int)sizeof plan->summary, MPI_BYTE, root, comm);

    for (int r = 0; r < size; r++) {
        const divload_return_assignment *a = &plan->by_rank[r];
        plan->counts[a->send_position] = (int)a->count;
        plan->displs[a->send_position] = (int)a->displacement;
        plan->return_order[a->return_position] = r;
    }
    const divload_return_assignment *me = &plan->by_rank[rank];
    plan->my_position = (int)me->send_position;
    plan->my_return_position = (int)me->return_position;
    plan->my_count = (int)me->count;
    plan->my_displacement = (int)me->displacement;
    plan->my_predicted_computed = me->computed;
    plan->my_predicted_return_end = me->return_end;
    plan->send_root = (int)plan->by_rank[root].send_position;
    MPI_Comm_split(comm, 0, plan->my_position, &plan->send_comm);
    return DIVLOAD_OK;
}

/* MPI_Scatterv of the plan on send_comm, as divload_mpi_scatterv: the root sends
 * `sendbuf` (all items, original order); every rank receives its `my_count` items into
 * `recvbuf`. Returns the MPI error code. Collective. */
static inline int divload_mpi_returns_scatterv(const divload_mpi_returns_plan *plan, const void *sendbuf,
                                               MPI_Datatype type, void *recvbuf) {
    return MPI_Scatterv(sendbuf, plan->counts, plan->displs, type, recvbuf, plan->my_count, type,
                        plan->send_root, plan->send_comm);
}

/* Called on the root as soon as `rank`'s `count` results are in place at `displacement`
 * of the result buffer, in return order: the root may use them before the rest arrive. */
typedef void (*divload_mpi_arrival_fn)(void *ctx, int rank, int count, int displacement);

/* Collects every rank's results on the root in the planned return order. Each rank
 * passes its `my_count` results of `type` (one per item, in item order) in `sendbuf`;
 * the root receives rank r's results at element by_rank[r].displacement of `recvbuf`
 * (room for all items), one rank after the other in return order (blocking MPI_Recv on
 * send_comm; ranks with no items are skipped), calling `on_arrival(ctx, ...)` after each
 * if it is not NULL. The root may pass MPI_IN_PLACE as `sendbuf` when its results are
 * already at its displacement of `recvbuf`. `recvbuf` matters only on the root. Returns
 * the first MPI error code, or MPI_SUCCESS. Collective over the plan's communicator. */
static inline int divload_mpi_gatherv_ordered(const divload_mpi_returns_plan *plan, const void *sendbuf,
                                              MPI_Datatype type, void *recvbuf,
                                              divload_mpi_arrival_fn on_arrival, void *ctx) {
    int send_rank;
    MPI_Comm_rank(plan->send_comm, &send_rank);
    if (send_rank != plan->send_root) {
        if (plan->my_count == 0) return MPI_SUCCESS;
        return MPI_Send(sendbuf, plan->my_count, type, plan->send_root, DIVLOAD_MPI_RETURN_TAG, plan->send_comm);
    }
    MPI_Aint lb, extent;
    int err = MPI_Type_get_extent(type, &lb, &extent);
    if (err != MPI_SUCCESS) return err;
    for (int t = 0; t < plan->size; t++) {
        const int r = plan->return_order[t];
        const divload_return_assignment *a = &plan->by_rank[r];
        if (a->count == 0) continue;
        char *dst = (char *)recvbuf + (MPI_Aint)a->displacement * extent;
        if (r == plan->root) {
            if (sendbuf != MPI_IN_PLACE) {
                err = MPI_Sendrecv(sendbuf, (int)a->count, type, send_rank, DIVLOAD_MPI_RETURN_TAG, dst,
                                   (int)a->count, type, send_rank, DIVLOAD_MPI_RETURN_TAG, plan->send_comm,
                                   MPI_STATUS_IGNORE);
            }
        } else {
            err = MPI_Recv(dst, (int)a->count, type, (int)a->send_position, DIVLOAD_MPI_RETURN_TAG,
                           plan->send_comm, MPI_STATUS_IGNORE);
        }
        if (err != MPI_SUCCESS) return err;
        if (on_arrival != NULL) on_arrival(ctx, r, (int)a->count, (int)a->displacement);
    }
    return MPI_SUCCESS;
}

/* Frees the plan's arrays and send_comm. Collective (MPI_Comm_free). */
static inline void divload_mpi_returns_plan_free(divload_mpi_returns_plan *plan) {
    if (plan == NULL) return;
    if (plan->send_comm != MPI_COMM_NULL) MPI_Comm_free(&plan->send_comm);
    divload_mpi_returns_plan_release_(plan);
}

/* Your computation, for calibration: process `items` items of the sample in `ctx`. */
typedef void (*divload_mpi_compute_fn)(void *ctx, int items);

/* Measures this rank's costs, for divload_mpi_plan_create.
 *
 * Computation: every rank times compute(ctx, k) for k = sample_items / 2 and sample_items
 * (best of 3 each) and fits comp_latency + comp_per_item * k. Communication: the root
 * sends k items of `type` to each rank in turn, which answers with an empty message, and
 * fits comm_latency + comm_per_item * k to the best of 3 round trips; the root's own
 * communication cost is 0. Needs sample_items >= 2. Collective over `comm`; returns an
 * MPI error code or MPI_SUCCESS. */
static inline int divload_mpi_calibrate(MPI_Comm comm, int root, MPI_Datatype type, int sample_items,
                                        divload_mpi_compute_fn compute, void *ctx,
                                        divload_worker *my_costs) {
    int rank, size;
    if (sample_items < 2 || compute == NULL || my_costs == NULL) return MPI_ERR_ARG;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
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
    my_costs->comp_per_item = slope;
    my_costs->comp_latency = intercept;

    MPI_Aint lb, extent;
    MPI_Type_get_extent(type, &lb, &extent);
    char *buf = (char *)malloc((size_t)extent * (size_t)sample_items + 1);
    double *links = rank == root ? (double *)calloc((size_t)size * 2, sizeof(double)) : NULL;
    int all_ok = 0, ok = buf != NULL && (rank != root || links != NULL);
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    if (!all_ok) {
        free(buf);
        free(links);
        return MPI_ERR_NO_MEM;
    }
    memset(buf, 0, (size_t)extent * (size_t)sample_items + 1);
    for (int r = 0; r < size; r++) {
        if (r == root) continue;
        for (int s = 0; s < 2; s++) {
            double best = 0.0;
            for (int rep = 0; rep < 3; rep++) {
                if (rank == root) {
                    double t0 = MPI_Wtime();
                    MPI_Send(buf, k[s], type, r, 0, comm);
                    MPI_Recv(NULL, 0, MPI_BYTE, r, 1, comm, MPI_STATUS_IGNORE);
                    double dt = MPI_Wtime() - t0;
                    if (rep == 0 || dt < best) best = dt;
                } else if (rank == r) {
                    MPI_Recv(buf, k[s], type, root, 0, comm, MPI_STATUS_IGNORE);
                    MPI_Send(NULL, 0, MPI_BYTE, root, 1, comm);
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
    MPI_Scatter(links, 2, MPI_DOUBLE, mine, 2, MPI_DOUBLE, root, comm);
    my_costs->comm_latency = rank == root ? 0.0 : mine[0];
    my_costs->comm_per_item = rank == root ? 0.0 : mine[1];
    free(links);
    free(buf);
    return MPI_SUCCESS;
}

#ifdef __cplusplus
}
#endif

#endif /* DIVLOAD_MPI_H */
